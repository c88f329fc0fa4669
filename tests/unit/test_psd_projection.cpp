// PSD projection of per-point Hessians (Chen et al. 2021, Sec. 4.3.1): the result has no negative eigenvalue
// (tested through x^T A x >= -1e-12 |A| |x|^2 on random x and through its Jacobi eigenvalues), a PSD
// matrix is returned unchanged, and the projected 3D surface Hessian at a deformed state stays within
// the original's positive part (x^T P x = x^T H x on the positive eigenvectors). The surface Hessian's
// projection on its 6-dimensional tangent space (project_surface_hessian_psd) equals the full 9 x 9
// projection to round-off.
#include <gtest/gtest.h>

#include <random>

#include "physics/psd_projection.hpp"
#include "physics/smoothed_surface_energy.hpp"
#include "physics/surface_energy.hpp"

using namespace meniscus;

namespace {
template <int N>
double frob(const double* A) {
  double s = 0;
  for (int i = 0; i < N * N; ++i) s += A[i] * A[i];
  return std::sqrt(s);
}
template <int N>
double min_quadratic_form(const double* A, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  double worst = 1e300;
  for (int t = 0; t < 2000; ++t) {
    double x[N], n2 = 0, q = 0;
    for (int i = 0; i < N; ++i) {
      x[i] = g(rng);
      n2 += x[i] * x[i];
    }
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) q += x[i] * A[i * N + j] * x[j];
    worst = std::min(worst, q / n2);
  }
  return worst;
}
}  // namespace

TEST(PsdProjection, ClampsNegativeEigenvaluesAndKeepsPsdMatrices) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  double A[81], B[81], P[81];
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j <= i; ++j) A[i * 9 + j] = A[j * 9 + i] = u(rng);
  EXPECT_LT(min_quadratic_form<9>(A, rng), -0.1) << "the random matrix is indefinite";
  for (int i = 0; i < 81; ++i) P[i] = A[i];
  physics::project_psd<9>(P);
  EXPECT_GE(min_quadratic_form<9>(P, rng), -1e-12 * frob<9>(A));
  // P is the positive part: A - P is negative semi-definite.
  for (int i = 0; i < 81; ++i) B[i] = P[i] - A[i];
  EXPECT_GE(min_quadratic_form<9>(B, rng), -1e-12 * frob<9>(A));
  // A PSD matrix (B^T B) comes back unchanged.
  double S[81] = {};
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j)
      for (int k = 0; k < 9; ++k) S[i * 9 + j] += A[k * 9 + i] * A[k * 9 + j];
  for (int i = 0; i < 81; ++i) P[i] = S[i];
  physics::project_psd<9>(P);
  for (int i = 0; i < 81; ++i) EXPECT_NEAR(P[i], S[i], 1e-13 * frob<9>(S));
}

TEST(PsdProjection, SurfaceHessian3DBecomesSemiDefinite) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  double M[9], a[3] = {0.3, -0.5, 0.8}, H[81];
  for (int i = 0; i < 9; ++i) M[i] = (i % 4 == 0 ? 1.0 : 0.0) + 0.4 * u(rng);
  physics::surface_energy_hessian<3>(M, a, H);
  EXPECT_LT(min_quadratic_form<9>(H, rng), -1e-6) << "the 3D surface Hessian is indefinite away from M = I";
  physics::project_psd<9>(H);
  EXPECT_GE(min_quadratic_form<9>(H, rng), -1e-12 * frob<9>(H));
}

TEST(PsdProjection, SurfaceHessianOnTheTangentSpaceEqualsTheFullProjection) {
  // Smoothed surface Hessians at random deformations and normals (some along an axis, where the
  // tangent basis switches its reference axis): the 6 x 6 projection against project_psd<9>.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  int changed = 0;
  for (int t = 0; t < 200; ++t) {
    double M[9], a[3], H[81], P9[81];
    for (int i = 0; i < 9; ++i) M[i] = (i % 4 == 0 ? 1.0 : 0.0) + 0.5 * u(rng);
    for (int d = 0; d < 3; ++d) a[d] = t % 10 == 0 ? (d == t / 10 % 3 ? 0.7 : 0.0) : u(rng);
    physics::smoothed_surface_energy_hessian<3>(M, a, 0.05, H);
    for (int i = 0; i < 81; ++i) P9[i] = H[i];
    const bool full = physics::project_psd<9>(P9);
    const bool reduced = physics::project_surface_hessian_psd(H, a);
    EXPECT_EQ(full, reduced) << "sample " << t;
    changed += reduced ? 1 : 0;
    const double scale = frob<9>(P9);
    for (int i = 0; i < 81; ++i) ASSERT_NEAR(H[i], P9[i], 1e-11 * scale) << "sample " << t << ", entry " << i;
  }
  EXPECT_GT(changed, 100) << "most random deformations give an indefinite surface Hessian";
}
