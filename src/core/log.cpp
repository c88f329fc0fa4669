#include "core/log.hpp"

#include <cstdio>
#include <vector>

namespace meniscus::log {
namespace {
int g_rank = 0;
bool g_quiet = false;

std::string vformat(const char* fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::vector<char> buf(static_cast<size_t>(n > 0 ? n : 0) + 1);
  std::vsnprintf(buf.data(), buf.size(), fmt, ap);
  return std::string(buf.data());
}
}  // namespace

void set_rank(int rank) { g_rank = rank; }
void set_quiet(bool q) { g_quiet = q; }
bool quiet() { return g_quiet; }
bool is_root() { return g_rank == 0; }

std::string format(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  return s;
}

void info(const char* fmt, ...) {
  if (g_rank != 0 || g_quiet) return;
  va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  std::fputs(s.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

void warn(const char* fmt, ...) {
  if (g_rank != 0) return;
  va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "warning: %s\n", s.c_str());
}

void error(const char* fmt, ...) {
  if (g_rank != 0) return;
  va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "error: %s\n", s.c_str());
  std::fflush(stderr);
}

}  // namespace meniscus::log
