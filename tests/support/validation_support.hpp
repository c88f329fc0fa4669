#pragma once
// Shared bits of the validation tests: run a deck for a while, collect diagnostics rows, and write
// the measured series to CSV under the build tree (for the validation report).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include "test_paths.hpp"
#include <vector>

#include "methods/method.hpp"

namespace meniscus::test {

// printf on rank 0 (log::info is quiet in tests): measured numbers that a passing test should still show.
template <class... T>
void print_rank0(const char* fmt, T... args) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::printf(fmt, args...);
    std::printf("\n");
    std::fflush(stdout);
  }
}

// A study's knob: the environment variable `name` if set, else `fallback` (tests run unchanged without it;
// the theory pages name the knobs that reproduce their tables).
inline std::string knob(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value ? value : fallback;
}

inline double column(const DiagnosticRow& row, const std::string& name) {
  for (const auto& [k, v] : row)
    if (k == name) return v;
  ADD_FAILURE() << "no diagnostics column " << name;
  return 0;
}

// Whether a diagnostics column is physics that another layout or a restart must reproduce: not the
// per-rank particle counts (they depend on the layout), the heat matrix's entry count, nor wall-clock
// seconds (columns ending in "_s", e.g. heat_assemble_s), which no two runs share.
inline bool reproducible_column(const std::string& name) {
  if (name.rfind("rank_particles", 0) == 0) return false;
  // The heat matrix's stored entries: its pattern is kept until a free node falls outside it, so the
  // count depends on where the run started (a restart builds it afresh), not the solution.
  if (name == "heat_nonzeros") return false;
  return !(name.size() > 2 && name.compare(name.size() - 2, 2, "_s") == 0);
}

// Compares two diagnostics rows of the same state (this rank count against one rank) bit for bit in
// every reproducible column (above) not named in `skip`; returns how many columns were compared. For
// rows whose global sums are reproducible_sum's (core/reproducible_sum.hpp, Demmel & Nguyen 2013).
inline int expect_same_bits(const DiagnosticRow& mine, const DiagnosticRow& ref, const std::vector<std::string>& skip = {}) {
  EXPECT_EQ(mine.size(), ref.size());
  int compared = 0;
  for (size_t i = 0; i < std::min(mine.size(), ref.size()); ++i) {
    EXPECT_EQ(mine[i].first, ref[i].first);
    if (!reproducible_column(ref[i].first)) continue;
    bool skipped = false;
    for (const auto& s : skip) skipped = skipped || s == ref[i].first;
    if (skipped) continue;
    EXPECT_EQ(std::memcmp(&mine[i].second, &ref[i].second, sizeof(double)), 0)
        << ref[i].first << ": " << mine[i].second << " at this rank count, " << ref[i].second << " on one rank";
    ++compared;
  }
  return compared;
}

// Oscillation of a sampled signal s(t): the zero crossings (linear interpolation between samples)
// and the period 2 (last - first) / (crossings - 1); period 0 with fewer than 3 crossings.
struct Oscillation {
  std::vector<double> zeros;
  double period = 0;
};
inline Oscillation oscillation(const std::vector<double>& t, const std::vector<double>& s) {
  Oscillation o;
  for (size_t i = 1; i < s.size(); ++i)
    if ((s[i - 1] < 0) != (s[i] < 0)) o.zeros.push_back(t[i - 1] - s[i - 1] * (t[i] - t[i - 1]) / (s[i] - s[i - 1]));
  if (o.zeros.size() >= 3) o.period = 2 * (o.zeros.back() - o.zeros.front()) / (o.zeros.size() - 1);
  return o;
}

// Time average of a sampled signal with a Hann window, weight sin^2(pi (t - t0) / (t1 - t0)) over the
// samples' span. A drop released at zero pressure breathes with an amplitude near the Laplace
// pressure itself, and shear viscosity barely damps a uniform dilation; a plain mean over a few
// breathing periods P keeps an error of order P / (pi W) of that amplitude, the Hann window one of
// order (P / W)^2.
inline double hann_mean(const std::vector<double>& t, const std::vector<double>& s) {
  if (t.empty()) return 0;
  const double t0 = t.front(), span = t.back() - t.front();
  double sum = 0, weight = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const double w = span > 0 ? std::pow(std::sin(M_PI * (t[i] - t0) / span), 2) : 1.0;
    sum += w * s[i];
    weight += w;
  }
  return weight > 0 ? sum / weight : 0;
}

// A CSV of a measured series, in $MENISCUS_BINARY_DIR/validation/NAME.csv (rank 0 only).
class SeriesCsv {
 public:
  SeriesCsv(const std::string& name, const std::string& header) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) return;
    std::filesystem::path dir = std::filesystem::path(meniscus::test::binary_dir()) / "validation";
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

// One line of the validation report: what was checked, against what, with which tolerance, and
// what this run measured. Written to $BUILD/validation/check_NAME.tsv (rank 0 only);
// scripts/validation-report.sh collects them into docs/validation/README.md.
inline void record_check(const std::string& name, const std::string& reference, const std::string& tolerance,
                         const std::string& measured, bool passed, const std::string& plot = "") {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  std::filesystem::path dir = std::filesystem::path(meniscus::test::binary_dir()) / "validation";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / ("check_" + name + ".tsv")) << name << "\t" << reference << "\t" << tolerance << "\t"
                                                  << measured << "\t" << (passed ? "pass" : "FAIL") << "\t" << plot
                                                  << "\n";
}

}  // namespace meniscus::test
