// reproducible_sum (core/reproducible_sum.hpp): the same bits at every rank and thread count and in
// any order, and at least as accurate as a plain double sum (the MPM diagnostics' sums use it:
// MpmMethod.StepZeroDiagnosticsAreTheSameBitsAtEveryRankCount).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "core/reproducible_sum.hpp"

using namespace meniscus;

namespace {

// Two components over a view: the values, and the values times -3 (sign and scale).
struct ViewTerms {
  static constexpr int count = 2;
  Kokkos::View<const double*> x;
  KOKKOS_INLINE_FUNCTION void operator()(const long i, double* t) const {
    t[0] = x(i);
    t[1] = -3.0 * x(i);
  }
};

// A fixed global list with 40 orders of magnitude and cancellation (its exact sum is known: pairs
// +v and -v cancel, leaving the sum of the odd small terms).
std::vector<double> global_terms() {
  std::mt19937_64 gen(2013);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> expo(-20, 20);
  std::vector<double> v;
  for (int i = 0; i < 5000; ++i) {
    const double big = std::ldexp(mant(gen), expo(gen));
    v.push_back(big);
    v.push_back(1e-3 * i);
    v.push_back(-big);
  }
  std::shuffle(v.begin(), v.end(), gen);
  return v;
}

void sum_of(MPI_Comm comm, const std::vector<double>& local, double* out) {
  Kokkos::View<double*> x("terms", local.size());
  auto h = Kokkos::create_mirror_view(x);
  for (size_t i = 0; i < local.size(); ++i) h(i) = local[i];
  Kokkos::deep_copy(x, h);
  reproducible_sum(comm, static_cast<long>(local.size()), ViewTerms{x}, out, "test::reproducible_sum");
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

// Each rank holds a contiguous slice of the list whose size depends on the rank count; the result must
// be the single-process sum of the whole list bit for bit, which must also not change when the list is
// reversed, and must be the exact sum to double rounding (the plain sum of this list is off by ~1e-10
// relative because of the large cancelling pairs).
TEST(ReproducibleSum, SameBitsAtEveryRankCountAndOrder) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto all = global_terms();
  const size_t n = all.size(), lo = n * rank / size, hi = n * (rank + 1) / size;
  double here[2];
  sum_of(MPI_COMM_WORLD, std::vector<double>(all.begin() + lo, all.begin() + hi), here);
  double alone[2], reversed[2];
  sum_of(MPI_COMM_SELF, all, alone);
  sum_of(MPI_COMM_SELF, std::vector<double>(all.rbegin(), all.rend()), reversed);
  double exact = 0;  // the small terms 1e-3 i, i < 5000, are the whole sum
  for (int i = 0; i < 5000; ++i) exact += 1e-3 * i;
  for (int k = 0; k < 2; ++k) {
    EXPECT_TRUE(same_bits(here[k], alone[k])) << "component " << k << ": " << here[k] << " vs " << alone[k];
    EXPECT_TRUE(same_bits(reversed[k], alone[k])) << "component " << k;
  }
  EXPECT_NEAR(alone[0], exact, 1e-12 * exact);
  EXPECT_NEAR(alone[1], -3 * exact, 3e-12 * exact);
  double plain = 0;
  for (double x : all) plain += x;
  if (rank == 0) std::printf("reproducible sum %.17g, plain sum %.17g, exact (in double) %.17g\n", alone[0], plain, exact);
  // Zero, infinite and NaN terms: 0, the plain sum's inf, NaN (the same on every rank).
  double z[2];
  sum_of(MPI_COMM_WORLD, std::vector<double>(hi - lo, 0.0), z);
  EXPECT_EQ(z[0], 0.0);
  std::vector<double> inf(hi - lo, 1.0);
  if (rank == 0 && !inf.empty()) inf[0] = INFINITY;
  sum_of(MPI_COMM_WORLD, inf, z);
  EXPECT_TRUE(std::isinf(z[0]) && z[0] > 0);
  EXPECT_TRUE(std::isinf(z[1]) && z[1] < 0);
}
