#pragma once
// Global sums over items (particles, samples) that do not depend on how the items are split among
// ranks and threads or on their order, for diagnostics: a plain parallel_reduce + MPI_Allreduce adds
// the same terms in another order at another rank or thread count, so the 2D dam break's mass differed
// between 1 and 2 ranks by 3e-16 relative already at step 0, where every particle is the same.
//
// Method (the pre-rounded reproducible summation of Demmel and Nguyen 2013, "Fast reproducible
// floating-point summation", ARITH-21, with a fixed number of folds): with n items in all and every term |x| <= 2^a, the constant M = 1.5 * 2^b with b = a +
// ceil(log2 n) + 1 splits each term exactly into q = (x + M) - M, a multiple of u = 2^(b-52), and
// r = x - q, |r| <= u/2. Every partial sum of the q is a multiple of u below 2^(b+1) in magnitude, so
// it is exact in double precision and the sum of the q is the same in any order. The residuals are
// split the same way with a = b - 53, two folds in all, and the two exact sums are added in a fixed
// order. What is dropped is below 2^(a + 3 ceil(log2 n) + 2 - 106) in all: with a million items about
// 2^-44 of the largest term, where the plain sum's rounding bound is 2^-13 of it (on the 2D dam break a
// third fold changed no bit of any column over 300 steps). Costs: one pass for the largest term and n
// (one MPI_Allreduce), one pass for the folds (one MPI_Allreduce of 2 sums per component); about 3x the
// plain reduction (MPM diagnostics of the 2D dam break, 13,366 particles, 1 thread: 1.0-1.3 ms against
// 0.3-0.4 ms per row).
// Terms that are not finite, or so large that M would overflow, fall back to the plain sum.
//
// A Terms functor has `static constexpr int count` and
// `KOKKOS_INLINE_FUNCTION void operator()(long i, double* t) const`, writing item i's `count` terms.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cmath>

namespace meniscus {

namespace reproducible_detail {

constexpr int kFolds = 2;

// Per component: the largest |term| and the plain sum.
template <class Terms>
struct LargestAndPlain {
  static constexpr int K = Terms::count;
  using value_type = double[];
  using size_type = int;
  size_type value_count = 2 * K;
  Terms terms;
  KOKKOS_INLINE_FUNCTION void operator()(const long i, double* s) const {
    double t[K];
    terms(i, t);
    for (int k = 0; k < K; ++k) {
      const double m = t[k] < 0 ? -t[k] : t[k];
      // Also carries a NaN forward (max would drop it).
      s[k] = (m > s[k] || m != m) ? m : s[k];
      s[K + k] += t[k];
    }
  }
  KOKKOS_INLINE_FUNCTION void join(volatile double* dst, const volatile double* src) const {
    for (int k = 0; k < K; ++k) {
      dst[k] = (src[k] > dst[k] || src[k] != src[k]) ? src[k] : dst[k];
      dst[K + k] += src[K + k];
    }
  }
  KOKKOS_INLINE_FUNCTION void init(double* dst) const {
    for (int k = 0; k < 2 * K; ++k) dst[k] = 0;
  }
};

// Per component and fold: the exact sum of the folded parts (bin[k][f] = 0 skips a fold).
template <class Terms>
struct Folded {
  static constexpr int K = Terms::count;
  using value_type = double[];
  using size_type = int;
  size_type value_count = kFolds * K;
  Terms terms;
  double bin[K][kFolds];
  KOKKOS_INLINE_FUNCTION void operator()(const long i, double* s) const {
    double t[K];
    terms(i, t);
    for (int k = 0; k < K; ++k) {
      double r = t[k];
      for (int f = 0; f < kFolds; ++f) {
        if (bin[k][f] == 0) break;  // the later bins are 0 too
        // (r + M) - M rounds r to a multiple of M's unit; the build has no -ffast-math (which could
        // reassociate it to r) and SSE2/CUDA doubles have no extended precision.
        const double q = (r + bin[k][f]) - bin[k][f];
        s[k * kFolds + f] += q;
        r -= q;
      }
    }
  }
  KOKKOS_INLINE_FUNCTION void join(volatile double* dst, const volatile double* src) const {
    for (int k = 0; k < kFolds * K; ++k) dst[k] += src[k];
  }
  KOKKOS_INLINE_FUNCTION void init(double* dst) const {
    for (int k = 0; k < kFolds * K; ++k) dst[k] = 0;
  }
};

}  // namespace reproducible_detail

// The items of a 1D view as the terms (one component): values computed once by a kernel and summed.
struct ViewTerms {
  static constexpr int count = 1;
  Kokkos::View<const double*> value;
  KOKKOS_INLINE_FUNCTION void operator()(const long i, double* t) const { t[0] = value(i); }
};

// out[k] = the sum over the n local items of every rank of term k, the same bits on every rank and at
// any rank or thread count.
template <class Terms>
void reproducible_sum(MPI_Comm comm, long n, const Terms& terms, double* out, const char* label) {
  using namespace reproducible_detail;
  constexpr int K = Terms::count;
  LargestAndPlain<Terms> first{2 * K, terms};
  double lp[2 * K];
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<>(0, n), first, lp);
  double largest[K + 1];
  for (int k = 0; k < K; ++k) largest[k] = lp[k];
  largest[K] = static_cast<double>(n);
  // The count is exact as a double below 2^53 items. The fallback below is decided on the global
  // values, so every rank takes the same branch (a NaN term that MPI_MAX dropped still reaches the
  // result through that rank's folded sums).
  double total[K + 1];
  MPI_Allreduce(largest, total, K, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&largest[K], &total[K], 1, MPI_DOUBLE, MPI_SUM, comm);
  int count_exponent = 0;
  std::frexp(total[K] > 0 ? total[K] : 1.0, &count_exponent);  // n < 2^count_exponent
  Folded<Terms> second{kFolds * K, terms, {}};
  bool plain[K];
  for (int k = 0; k < K; ++k) {
    int a = 0;
    std::frexp(total[k], &a);  // largest term < 2^a
    plain[k] = !std::isfinite(total[k]) || a + count_exponent + 2 > 1000;
    for (int f = 0; f < kFolds; ++f) {
      const int b = a + count_exponent + 1;
      // Zero terms, and folds whose unit 2^(b-52) would be below the smallest subnormal, are skipped.
      second.bin[k][f] = (plain[k] || total[k] == 0 || b - 52 < -1074) ? 0.0 : std::ldexp(1.5, b);
      a = b - 53;
    }
  }
  double folded[kFolds * K];
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<>(0, n), second, folded);
  double sums[kFolds * K + K];
  for (int k = 0; k < kFolds * K; ++k) sums[k] = folded[k];
  for (int k = 0; k < K; ++k) sums[kFolds * K + k] = lp[K + k];
  MPI_Allreduce(MPI_IN_PLACE, sums, kFolds * K + K, MPI_DOUBLE, MPI_SUM, comm);
  for (int k = 0; k < K; ++k) {
    if (plain[k]) {
      out[k] = sums[kFolds * K + k];
      continue;
    }
    double s = 0;
    for (int f = kFolds - 1; f >= 0; --f) s += sums[k * kFolds + f];  // smallest first
    out[k] = s;
  }
}

}  // namespace meniscus
