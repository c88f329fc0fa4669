#pragma once
// diagnostics.csv: one row per diagnostics step, named columns fixed by the first row; rank 0 writes.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "methods/method.hpp"

namespace meniscus::run {

class DiagnosticsCsv {
 public:
  // resume_after_step < 0: a new file. Otherwise (a restart at that step) the existing file keeps
  // its header and the rows up to that step, and new rows are appended; rows of later steps were
  // written by the run that is being repeated from the checkpoint and are dropped. Collective.
  DiagnosticsCsv(MPI_Comm comm, const std::string& path, long resume_after_step = -1);
  ~DiagnosticsCsv();
  void write(const DiagnosticRow& row);

 private:
  std::FILE* file_ = nullptr;
  bool header_ = false;
};

}  // namespace meniscus::run
