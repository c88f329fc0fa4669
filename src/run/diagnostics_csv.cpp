#include "run/diagnostics_csv.hpp"

#include "core/error.hpp"

namespace meniscus::run {

DiagnosticsCsv::DiagnosticsCsv(MPI_Comm comm, const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    file_ = std::fopen(path.c_str(), "w");
    if (!file_) throw RuntimeError("cannot write " + path);
  }
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
