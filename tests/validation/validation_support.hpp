#pragma once
// Shared bits of the validation tests: run a deck for a while, collect diagnostics rows, and write
// the measured series to CSV under the build tree (for the validation report).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "methods/method.hpp"

namespace meniscus::test {

inline double column(const DiagnosticRow& row, const std::string& name) {
  for (const auto& [k, v] : row)
    if (k == name) return v;
  ADD_FAILURE() << "no diagnostics column " << name;
  return 0;
}

// A CSV of a measured series, in $MENISCUS_BINARY_DIR/validation/NAME.csv (rank 0 only).
class SeriesCsv {
 public:
  SeriesCsv(const std::string& name, const std::string& header) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) return;
    std::filesystem::path dir = std::filesystem::path(MENISCUS_TEST_BINARY_DIR) / "validation";
    std::filesystem::create_directories(dir);
    os_.open(dir / (name + ".csv"));
    os_ << header << "\n";
  }
  template <class... T>
  void row(T... v) {
    if (!os_.is_open()) return;
    const double vals[] = {static_cast<double>(v)...};
    for (size_t i = 0; i < sizeof...(T); ++i) os_ << (i ? "," : "") << vals[i];
    os_ << "\n";
  }

 private:
  std::ofstream os_;
};

}  // namespace meniscus::test
