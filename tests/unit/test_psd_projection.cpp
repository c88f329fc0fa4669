// PSD projection of per-point Hessians (Chen et al. 2021, Sec. 4.3.1): the result has no negative eigenvalue
// (tested through x^T A x >= -1e-12 |A| |x|^2 on random x and through its Jacobi eigenvalues), a PSD
// matrix is returned unchanged, and the projected 3D surface Hessian at a deformed state stays within
// the original's positive part (x^T P x = x^T H x on the positive eigenvectors). The 3D surface
// Hessian's closed-form eigensystem on its 6-dimensional tangent space
// (smoothed_surface_hessian_in_tangents) gives the Hessian and its projection of Eigen's general
// symmetric eigen-decomposition of the 9 x 9 Hessian to 1e-12 relative.
#include <Eigen/Dense>
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

namespace {
using Matrix9 = Eigen::Matrix<double, 9, 9, Eigen::RowMajor>;
// K = Q^T K6 Q from the closed form, exact (project = false) or projected.
Matrix9 closed_form_hessian(const double* M, const double* a, double eps, double k, bool project) {
  double t[2][3], K6[36];
  Matrix9 K;
  physics::surface_tangents(a, t);
  physics::smoothed_surface_hessian_in_tangents(M, a, eps, k, t, project, K6);
  physics::surface_hessian_from_tangents(K6, t, K.data());
  return K;
}
// V max(Lambda, 0) V^T from Eigen's general symmetric eigen-decomposition.
Matrix9 eigen_projection(const Matrix9& H) {
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 9, 9>> es(0.5 * (H + H.transpose()));
  return es.eigenvectors() * es.eigenvalues().cwiseMax(0.0).asDiagonal() * es.eigenvectors().transpose();
}
}  // namespace

TEST(PsdProjection, SurfaceHessianClosedFormMatchesEigenDecomposition) {
  // The closed-form eigensystem against the 9 x 9 Hessian of surface_energy.hpp (k times
  // smoothed_surface_energy_hessian) and against its projection through Eigen's
  // SelfAdjointEigenSolver: random deformations, area vectors and coefficients, and degenerate
  // ones: equal singular values (M = I, rotations, uniform scaling, sigma1 = sigma2 (1 + 1e-9)),
  // nearly rank-1 F (sigma2 = 1e-6 sigma1), normals along an axis (the tangent basis switches its
  // reference axis), small and large smoothing, a negative coefficient (exact Hessian only).
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  double worst_exact = 0, worst_projected = 0;
  int changed = 0, cases = 0;
  auto check = [&](const double* M, const double* a, double eps, double k, const char* what) {
    Matrix9 H;
    physics::smoothed_surface_energy_hessian<3>(M, a, eps, H.data());
    H *= k;
    const double scale = H.norm();
    ASSERT_GT(scale, 0) << what;
    const double exact = (closed_form_hessian(M, a, eps, k, false) - H).cwiseAbs().maxCoeff() / scale;
    EXPECT_LT(exact, 1e-12) << what << ", case " << cases;
    worst_exact = std::max(worst_exact, exact);
    if (k > 0) {
      const Matrix9 P = eigen_projection(H);
      const double projected = (closed_form_hessian(M, a, eps, k, true) - P).cwiseAbs().maxCoeff() / scale;
      EXPECT_LT(projected, 1e-12) << what << ", case " << cases;
      worst_projected = std::max(worst_projected, projected);
      changed += (P - H).norm() > 1e-8 * scale ? 1 : 0;
    }
    ++cases;
  };
  auto rotation = [&](double* R) {  // a random rotation (Gram-Schmidt of a random matrix)
    Eigen::Matrix3d A;
    for (int i = 0; i < 9; ++i) A(i / 3, i % 3) = u(rng);
    const Eigen::Matrix3d Q = A.householderQr().householderQ();
    const double sign = Q.determinant() > 0 ? 1.0 : -1.0;
    for (int i = 0; i < 9; ++i) R[i] = sign * Q(i / 3, i % 3);
  };
  for (int t = 0; t < 400; ++t) {
    double M[9], a[3];
    for (int i = 0; i < 9; ++i) M[i] = (i % 4 == 0 ? 1.0 : 0.0) + 0.5 * u(rng);
    for (int d = 0; d < 3; ++d) a[d] = t % 10 == 0 ? (d == t / 10 % 3 ? 0.7 : 0.0) : u(rng);
    const double eps = t % 3 == 0 ? 0.3 : (t % 3 == 1 ? 1e-3 : 5.0);
    check(M, a, eps, t % 17 == 0 ? -0.8 : 0.1 + 2 * (u(rng) + 1), "random");
  }
  for (int t = 0; t < 40; ++t) {
    double R[9], M[9], a[3], tt[2][3];
    for (int d = 0; d < 3; ++d) a[d] = u(rng);
    physics::surface_tangents(a, tt);
    rotation(R);
    // M = R (I + (c - 1) t1 t1^T + (d - 1) t2 t2^T): F = R [c t1, d t2], singular values c, d.
    const double c = 1.3, dd = t % 4 == 0 ? c : (t % 4 == 1 ? c * (1 + 1e-9) : (t % 4 == 2 ? 1e-6 * c : 0.4));
    double S[9];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) S[i * 3 + j] = (i == j ? 1.0 : 0.0) + (c - 1) * tt[0][i] * tt[0][j] + (dd - 1) * tt[1][i] * tt[1][j];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        M[i * 3 + j] = 0;
        for (int l = 0; l < 3; ++l) M[i * 3 + j] += R[i * 3 + l] * S[l * 3 + j];
      }
    check(M, a, 0.3, 1.0, t % 4 == 0 ? "equal singular values" : (t % 4 == 1 ? "nearly equal" : (t % 4 == 2 ? "nearly rank 1" : "rotated stretch")));
    if (t < 3) {  // M = I and uniform scaling (at rest: g = |dA|, sigma1 = sigma2)
      for (int i = 0; i < 9; ++i) M[i] = (i % 4 == 0 ? 1.0 + 0.5 * t : 0.0);
      check(M, a, 0.3, 1.0, "identity or uniform scaling");
    }
  }
  EXPECT_GT(changed, 200) << "most deformations give an indefinite surface Hessian";
  RecordProperty("worst_exact", std::to_string(worst_exact));
  RecordProperty("worst_projected", std::to_string(worst_projected));
  std::printf("closed form against the 9 x 9 Hessian: %.2e, against Eigen's projection: %.2e (max entry / |H|, %d cases)\n",
              worst_exact, worst_projected, cases);
}

TEST(PsdProjection, SurfaceHessianClosedFormAtRankOneAndZeroMaps) {
  // F = [M t1, M t2] of rank 1 (g = 0): the Hessian of g_e is finite there, s/e times that of
  // det(F^T F)/2, which surface_energy.hpp's 9 x 9 form (0 at g = 0) does not give; checked against
  // central differences of the gradient. F = 0: K6 = 0 (g^2 is quartic in F).
  const double a[3] = {0, 0, 0.8};  // tangents t1 = e_y, t2 = -e_x (exactly)
  double t[2][3];
  physics::surface_tangents(a, t);
  ASSERT_EQ(t[1][0], -1.0);
  const double M[9] = {0, 0.3, -0.2, 0, 1.1, 0.4, 0, 0.2, 0.7};  // M e_x = 0: F = [M t1, 0]
  const double eps = 0.3, k = 1.0;
  double K6[36];
  physics::smoothed_surface_hessian_in_tangents(M, a, eps, k, t, false, K6);
  Matrix9 K, FD;
  physics::surface_hessian_from_tangents(K6, t, K.data());
  const double h = 1e-5;
  for (int c = 0; c < 9; ++c) {
    double Mp[9], Mm[9], gp[9], gm[9];
    for (int i = 0; i < 9; ++i) Mp[i] = Mm[i] = M[i];
    Mp[c] += h;
    Mm[c] -= h;
    physics::smoothed_surface_energy_gradient<3>(Mp, a, eps, gp);
    physics::smoothed_surface_energy_gradient<3>(Mm, a, eps, gm);
    for (int i = 0; i < 9; ++i) FD(i, c) = k * (gp[i] - gm[i]) / (2 * h);
  }
  EXPECT_GT(K.norm(), 0.1);
  EXPECT_LT((K - FD).cwiseAbs().maxCoeff(), 1e-8 * K.norm());
  // No negative eigenvalue at g = 0: the projection keeps it.
  double P6[36];
  physics::smoothed_surface_hessian_in_tangents(M, a, eps, k, t, true, P6);
  for (int i = 0; i < 36; ++i) EXPECT_NEAR(P6[i], K6[i], 1e-15 * K.norm());
  const double zero[9] = {};
  physics::smoothed_surface_hessian_in_tangents(zero, a, eps, k, t, true, K6);
  for (int i = 0; i < 36; ++i) EXPECT_EQ(K6[i], 0.0);
}
