#pragma once
// Rank-0 console output. Every message goes through here so that --quiet silences progress
// consistently and non-root ranks never interleave their text with rank 0's.
#include <cstdarg>
#include <string>

namespace meniscus::log {

void set_rank(int rank);
void set_quiet(bool quiet);
bool quiet();
bool is_root();

// printf-style, rank 0 only. info() obeys --quiet; warn()/error() always print.
void info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace meniscus::log
