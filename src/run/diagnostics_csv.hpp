#pragma once
// diagnostics.csv: one row per diagnostics step, named columns fixed by the first row; rank 0 writes.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "methods/method.hpp"

namespace meniscus::run {

class DiagnosticsCsv {
 public:
  DiagnosticsCsv(MPI_Comm comm, const std::string& path);
  ~DiagnosticsCsv();
  void write(const DiagnosticRow& row);

 private:
  std::FILE* file_ = nullptr;
  bool header_ = false;
};

}  // namespace meniscus::run
