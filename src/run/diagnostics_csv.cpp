#include "run/diagnostics_csv.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/error.hpp"
#include "io/durable_file.hpp"

namespace meniscus::run {

namespace {
// The rows of `path` whose step (first column) is at most `step`, with the header; "" if the file
// does not exist.
std::string rows_up_to(const std::string& path, long step, bool& has_header) {
  std::ifstream in(path, std::ios::binary);
  has_header = false;
  if (!in) return "";
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Text after the last newline is a row a killed run left half-written.
  text.resize(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  std::istringstream lines(text);
  std::ostringstream kept;
  std::string line;
  long columns = 0;
  auto count = [](const std::string& l) { return static_cast<long>(std::count(l.begin(), l.end(), ',')); };
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (!has_header) {
      has_header = true;  // the first line names the columns
      columns = count(line);
      kept << line << "\n";
      continue;
    }
    // Every row has the header's columns; anything else is damage.
    char* end = nullptr;
    const double s = std::strtod(line.c_str(), &end);
    if (end != line.c_str() && *end == ',' && count(line) == columns && s <= static_cast<double>(step))
      kept << line << "\n";
  }
  return kept.str();
}
}  // namespace

DiagnosticsCsv::DiagnosticsCsv(MPI_Comm comm, const std::string& path, long resume_after_step) {
  io::on_rank0(comm, [&] {
    if (resume_after_step >= 0) {
      bool has_header = false;
      const std::string kept = rows_up_to(path, resume_after_step, has_header);
      if (has_header) {
        io::write_file_atomically(path, kept);
        header_ = true;
      }
    }
    file_ = std::fopen(path.c_str(), header_ ? "a" : "w");
    if (!file_) throw RuntimeError("cannot write " + path);
  });
}

DiagnosticsCsv::~DiagnosticsCsv() {
  if (file_) std::fclose(file_);
}

void DiagnosticsCsv::write(const DiagnosticRow& row) {
  if (!file_) return;
  if (!header_) {
    for (size_t i = 0; i < row.size(); ++i) std::fprintf(file_, "%s%s", i ? "," : "", row[i].first.c_str());
    std::fputc('\n', file_);
    header_ = true;
  }
  for (size_t i = 0; i < row.size(); ++i) std::fprintf(file_, "%s%.17g", i ? "," : "", row[i].second);
  std::fputc('\n', file_);
  std::fflush(file_);
}

}  // namespace meniscus::run
