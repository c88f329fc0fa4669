// Operator tests of the 3D liquid membrane (Ruan et al. 2021, §4.2, Eqs. 9-11): capillary force
// against finite differences of sigma A, its zero net force and torque, the cotangent stiffness
// (symmetric, positive semidefinite, f = -K_c x) against the exact Hessian and finite differences,
// the sphere's curvature, and the enclosed volume with its gradient. Each compares with an exact
// identity or an analytic value with the stated tolerance.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <random>

#include "methods/membrane/kkt_assembly.hpp"
#include "methods/membrane/rigid_body.hpp"
#include "methods/membrane/triangle_membrane.hpp"
#include "test_membrane3d_support.hpp"

namespace mm = meniscus::membrane;
namespace geo = meniscus::geometry;
using namespace meniscus::membrane::testing;

namespace {

// An icosphere whose vertices are moved radially and tangentially by up to `jitter` of the edge
// length: no longer a sphere, still a non-degenerate closed surface.
geo::TriangleMesh jittered_sphere(int level, double jitter, const std::array<double, 3>& c, unsigned seed) {
  auto mesh = mm::make_icosphere(c, 1.0, level);
  const double edge = 1.1 / (1 << level);  // the icosahedron's edge on the unit sphere, halved per level
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-jitter * edge, jitter * edge);
  for (auto& p : mesh.vertices)
    for (auto& q : p) q += u(gen);
  return mesh;
}

// x + s * dir
Host3 shifted(const Host3& x, const Host3& dir, double s) {
  Host3 y = x;
  for (size_t i = 0; i < x.size(); ++i)
    for (int d = 0; d < 3; ++d) y[i][d] += s * dir[i][d];
  return y;
}

double max_abs_diff(const Host3& a, const Host3& b) {
  double e = 0;
  for (size_t i = 0; i < a.size(); ++i)
    for (int d = 0; d < 3; ++d) e = std::max(e, std::abs(a[i][d] - b[i][d]));
  return e;
}

double max_abs(const Host3& a) { return max_abs_diff(a, Host3(a.size(), {0, 0, 0})); }

// Central difference of the force along dir: (f(x + eps dir) - f(x - eps dir)) / (2 eps).
Host3 force_derivative(mm::TriangleMembrane& m, double sigma, const Host3& dir, double eps) {
  const Host3 x0 = to_host(m.x);
  mm::Vec3Array f("f", m.vertices());
  from_host(shifted(x0, dir, eps), m.x);
  mm::capillary_force(m, sigma, f);
  Host3 fp = to_host(f);
  from_host(shifted(x0, dir, -eps), m.x);
  mm::capillary_force(m, sigma, f);
  const Host3 fm = to_host(f);
  from_host(x0, m.x);
  for (size_t i = 0; i < fp.size(); ++i)
    for (int d = 0; d < 3; ++d) fp[i][d] = (fp[i][d] - fm[i][d]) / (2 * eps);
  return fp;
}

// The operator u -> out as a dense matrix, one unit vector at a time.
template <class Apply>
Eigen::MatrixXd dense(long n, const Apply& apply) {
  Eigen::MatrixXd k(3 * n, 3 * n);
  mm::Vec3Array u("u", n), out("out", n);
  Host3 e(n, {0, 0, 0});
  for (long c = 0; c < 3 * n; ++c) {
    e[c / 3][c % 3] = 1;
    from_host(e, u);
    apply(u, out);
    const Host3 col = to_host(out);
    for (long r = 0; r < 3 * n; ++r) k(r, c) = col[r / 3][r % 3];
    e[c / 3][c % 3] = 0;
  }
  return k;
}

Host3 random_field(long n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Host3 r(n);
  for (auto& p : r) p = {u(gen), u(gen), u(gen)};
  return r;
}

}  // namespace

TEST(Membrane3dOperators, CapillaryForceIsMinusGradientOfSigmaArea) {
  // Eq. 9 against central differences of sigma A on a non-spherical closed mesh (42 vertices).
  const double sigma = 72.8, step = 1e-6;
  auto m = mm::make_triangle_membrane(jittered_sphere(1, 0.2, {0.3, -0.2, 0.5}, 7));
  mm::Vec3Array f("f", m.vertices());
  mm::capillary_force(m, sigma, f);
  const Host3 hf = to_host(f), x0 = to_host(m.x);
  Host3 fd(x0.size()), e(x0.size(), {0, 0, 0});
  for (size_t i = 0; i < x0.size(); ++i)
    for (int d = 0; d < 3; ++d) {
      e[i][d] = 1;
      from_host(shifted(x0, e, step), m.x);
      const double ap = mm::total_area(m);
      from_host(shifted(x0, e, -step), m.x);
      const double am = mm::total_area(m);
      e[i][d] = 0;
      fd[i][d] = -sigma * (ap - am) / (2 * step);
    }
  const double rel = max_abs_diff(fd, hf) / max_abs(hf);
  std::printf("force vs central differences of sigma A: max relative error %.3e\n", rel);
  EXPECT_LT(rel, 1e-6);
}

TEST(Membrane3dOperators, ForceHasNoNetForceOrTorqueAndEqualsMinusKx) {
  // Eq. 10 per triangle: forces perpendicular to the opposite edges, summing to zero with zero
  // moment; Eq. 11: the cotangent stiffness reproduces the force exactly, f = -K_c x.
  const double sigma = 0.9;
  auto m = mm::make_triangle_membrane(jittered_sphere(2, 0.2, {3.0, -2.0, 5.0}, 11));
  mm::Vec3Array f("f", m.vertices()), kx("kx", m.vertices());
  mm::CornerArray w("w", m.triangles());
  mm::capillary_force(m, sigma, f);
  mm::cotangent_weights(m, sigma, w);
  mm::apply_cotangent_stiffness(m, w, m.x, kx);
  const Host3 hf = to_host(f), hx = to_host(m.x), hk = to_host(kx);
  double sum[3] = {0, 0, 0}, torque[3] = {0, 0, 0}, fabs_sum = 0, moment_scale = 0, kerr = 0;
  for (size_t i = 0; i < hf.size(); ++i) {
    const auto& p = hx[i];
    const auto& q = hf[i];
    const double c[3] = {p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]};
    const double fn = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    fabs_sum += fn;
    moment_scale += fn * std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    for (int d = 0; d < 3; ++d) {
      sum[d] += q[d];
      torque[d] += c[d];
      kerr = std::max(kerr, std::abs(q[d] + hk[i][d]));
    }
  }
  const double fsum = std::sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
  const double tsum = std::sqrt(torque[0] * torque[0] + torque[1] * torque[1] + torque[2] * torque[2]);
  std::printf("|sum f| / sum |f| = %.2e, |sum x x f| / sum |x||f| = %.2e, max|f + K_c x| / max|f| = %.2e\n",
              fsum / fabs_sum, tsum / moment_scale, kerr / max_abs(hf));
  EXPECT_LT(fsum / fabs_sum, 1e-13);
  EXPECT_LT(tsum / moment_scale, 1e-13);
  // K_c x sums terms of size |w||x| ~ sigma |x| around a vertex that cancel to |f| ~ sigma h.
  EXPECT_LT(kerr / max_abs(hf), 1e-11);
}

TEST(Membrane3dOperators, CotangentStiffnessIsSymmetricPositiveSemidefinite) {
  // Eq. 11 assembled (162 vertices): symmetric, no eigenvalue below -1e-12 ||K||, and exactly the
  // three rigid translations in its null space.
  const double sigma = 72.8;
  auto m = mm::make_triangle_membrane(jittered_sphere(2, 0.2, {0, 0, 0}, 3));
  mm::CornerArray w("w", m.triangles());
  mm::cotangent_weights(m, sigma, w);
  const Eigen::MatrixXd k = dense(m.vertices(), [&](const mm::Vec3Array& u, const mm::Vec3Array& out) {
    mm::apply_cotangent_stiffness(m, w, u, out);
  });
  const double asym = (k - k.transpose()).norm() / k.norm();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(0.5 * (k + k.transpose()));
  const auto& ev = eig.eigenvalues();
  const double knorm = ev.cwiseAbs().maxCoeff();
  std::printf("K_c: ||K - K^T|| / ||K|| = %.2e, eigenvalues / max: %.2e %.2e %.2e %.2e (4th)\n", asym,
              ev(0) / knorm, ev(1) / knorm, ev(2) / knorm, ev(3) / knorm);
  EXPECT_LT(asym, 1e-14);
  EXPECT_GT(ev(0), -1e-12 * knorm);
  EXPECT_LT(ev(2), 1e-12 * knorm);
  EXPECT_GT(ev(3), 1e-4 * knorm);
}

TEST(Membrane3dOperators, ExactHessianMatchesForceDerivativeAndCotangentStiffnessOnlyOnSimilarities) {
  // The exact stiffness -df/dx = sigma d2A/dx2 against central differences of the force along
  // random directions; then the paper's surrogate K_c (Eq. 11). f is invariant under translation,
  // rotates with the mesh and is homogeneous of degree 1 in x, and K_c's weights are invariant under
  // all three; so K_c equals -df/dx on these 7 similarity modes (asserted), but not on a general
  // motion (the measured gap is printed and documented: the surrogate drops d(cot)/dx, which is why
  // it stays positive semidefinite while the exact Hessian is indefinite).
  const double sigma = 72.8, eps = 1e-5;
  auto m = mm::make_triangle_membrane(jittered_sphere(2, 0.2, {0.5, 0.2, -0.1}, 5));
  const long n = m.vertices();
  mm::TriangleHessian h("h", m.triangles());
  mm::CornerArray w("w", m.triangles());
  mm::area_hessian(m, sigma, h);
  mm::cotangent_weights(m, sigma, w);
  mm::Vec3Array u("u", n), out("out", n);
  auto apply = [&](const Host3& dir, bool exact) {
    from_host(dir, u);
    if (exact) mm::apply_triangle_hessian(m, h, u, out);
    else mm::apply_cotangent_stiffness(m, w, u, out);
    Host3 r = to_host(out);
    for (auto& p : r)
      for (auto& q : p) q = -q;  // -K dir, to compare with df
    return r;
  };
  double worst_exact = 0, gap_random = 1e300;
  for (unsigned s = 0; s < 4; ++s) {
    const Host3 dir = random_field(n, 100 + s);
    const Host3 df = force_derivative(m, sigma, dir, eps);
    worst_exact = std::max(worst_exact, max_abs_diff(apply(dir, true), df) / max_abs(df));
    gap_random = std::min(gap_random, max_abs_diff(apply(dir, false), df) / max_abs(df));
  }
  // Similarity modes: translation e_x, rotation about an axis through a point off the centre,
  // dilation about another point.
  const Host3 x = to_host(m.x);
  std::vector<Host3> modes(3, Host3(n));
  const double axis[3] = {0.3, -0.5, 0.8}, o[3] = {0.1, 0.7, -0.4};
  for (long i = 0; i < n; ++i) {
    const double r[3] = {x[i][0] - o[0], x[i][1] - o[1], x[i][2] - o[2]};
    modes[0][i] = {1, 0, 0};
    modes[1][i] = {axis[1] * r[2] - axis[2] * r[1], axis[2] * r[0] - axis[0] * r[2], axis[0] * r[1] - axis[1] * r[0]};
    modes[2][i] = {r[0], r[1], r[2]};
  }
  double worst_mode = 0;
  for (const auto& dir : modes) {
    const Host3 df = force_derivative(m, sigma, dir, eps);
    const double scale = std::max(max_abs(df), sigma);  // a translation gives df = 0
    worst_mode = std::max(worst_mode, max_abs_diff(apply(dir, false), df) / scale);
  }
  // The exact Hessian is indefinite (§4.2), K_c is not.
  const Eigen::MatrixXd hd = dense(n, [&](const mm::Vec3Array& a, const mm::Vec3Array& b) {
    mm::apply_triangle_hessian(m, h, a, b);
  });
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(hd);
  const double lo = eig.eigenvalues()(0), hi = eig.eigenvalues()(3 * n - 1);
  std::printf("exact Hessian vs FD of f: %.2e; K_c vs FD on similarity modes: %.2e, on random "
              "directions: %.3f; exact Hessian eigenvalues [%.3e, %.3e], asymmetry %.2e\n",
              worst_exact, worst_mode, gap_random, lo, hi, (hd - hd.transpose()).norm() / hd.norm());
  EXPECT_LT(worst_exact, 1e-6);
  EXPECT_LT(worst_mode, 1e-6);
  EXPECT_GT(gap_random, 0.05);  // documented: the surrogate is not the derivative
  EXPECT_LT(lo, -1e-3 * hi);
  EXPECT_LT((hd - hd.transpose()).norm() / hd.norm(), 1e-14);
}

namespace {
struct SphereCurvature {
  double mean_err = 0, max_err = 0, max_angle_deg = 0, ratio_err = 0, laplace_err = 0, voronoi_max_err = 0;
};

// On an icosphere of radius r (vertices on the sphere), the curvature each vertex's force implies,
// kappa_i = -f_i . n_i / (sigma A_i) with A_i = sum A_t / 3 (the area of the paper's mass lumping,
// §4.2) and n_i the exact outward normal, against 2 / r; the angle of f_i from -n_i; digest-style
// sum |f_i| / sum A_i against 2 sigma / r; and the uniform pressure jump that best balances the
// forces in the sense of virtual work, dp = sigma (dA/dx . dV/dx) / |dV/dx|^2, against Laplace's
// 2 sigma / r.
SphereCurvature sphere_curvature(int level, double r, double sigma) {
  const std::array<double, 3> c{0.2, -0.1, 0.4};
  auto m = mm::make_triangle_membrane(mm::make_icosphere(c, r, level));
  const long n = m.vertices();
  mm::Vec3Array f("f", n), g("g", n);
  Kokkos::View<double*, mm::MemSpace> a("a", n);
  mm::capillary_force(m, sigma, f);
  mm::volume_gradient(m, true, 0.0, g);
  mm::lumped_vertex_areas(m, 1.0, a);
  const Host3 hf = to_host(f), hx = to_host(m.x), hg = to_host(g);
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  // Circumcentric (Voronoi) vertex areas, sum over edges of cot(opposite angle) |e|^2 / 8.
  mm::CornerArray w("w", m.triangles());
  mm::cotangent_weights(m, 2.0, w);
  auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.tri);
  std::vector<double> av(n, 0.0);
  for (long t = 0; t < m.triangles(); ++t)
    for (int k = 0; k < 3; ++k) {
      const int i = ht(t, (k + 1) % 3), j = ht(t, (k + 2) % 3);
      double e2 = 0;
      for (int d = 0; d < 3; ++d) e2 += (hx[i][d] - hx[j][d]) * (hx[i][d] - hx[j][d]);
      av[i] += hw(t, k) * e2 / 8;
      av[j] += hw(t, k) * e2 / 8;
    }
  SphereCurvature s;
  double fsum = 0, asum = 0, fg = 0, gg = 0;
  for (long i = 0; i < n; ++i) {
    double nrm[3], fn = 0, flen = 0;
    for (int d = 0; d < 3; ++d) nrm[d] = (hx[i][d] - c[d]) / r;
    for (int d = 0; d < 3; ++d) {
      fn -= hf[i][d] * nrm[d];
      flen += hf[i][d] * hf[i][d];
      fg -= hf[i][d] * hg[i][d];  // sigma dA/dx = -f
      gg += hg[i][d] * hg[i][d];
    }
    flen = std::sqrt(flen);
    const double err = std::abs(fn / (sigma * ha(i)) * r / 2 - 1);
    s.mean_err += err / n;
    s.max_err = std::max(s.max_err, err);
    s.voronoi_max_err = std::max(s.voronoi_max_err, std::abs(fn / (sigma * av[i]) * r / 2 - 1));
    s.max_angle_deg = std::max(s.max_angle_deg, std::acos(std::min(1.0, fn / flen)) * 180 / M_PI);
    fsum += flen;
    asum += ha(i);
  }
  s.ratio_err = std::abs(fsum / asum * r / (2 * sigma) - 1);
  s.laplace_err = std::abs(fg / gg * r / (2 * sigma) - 1);
  return s;
}
}  // namespace

TEST(Membrane3dOperators, SphereForcesGiveMeanCurvatureAndConverge) {
  // Drop of radius 0.5 cm, sigma = 72.8 dyn/cm (water): Laplace pressure 2 sigma / r = 291.2.
  // Measured (levels 1..5): mean |kappa r / 2 - 1| 5.2e-2, 1.8e-2, 4.8e-3, 1.3e-3, 3.6e-4 (second
  // order); virtual-work dp 5.7e-2 ... 2.1e-4 (second order); largest angle of f_i from the inward
  // normal 0.96, 0.48, 0.24, 0.12 deg (first order). The pointwise error with the lumped area A_t / 3
  // does not converge: it stays near 14.6 % at the vertices where A_t / 3 and the circumcentric area
  // differ (around the icosahedron's 12 five-valent vertices). With the circumcentric area the
  // normal part is exact on every mesh inscribed in a sphere, since (x_i - x_j) . n_i =
  // |x_i - x_j|^2 / (2 r) turns the cotangent sum into 2 A_i^vor / r: an identity, checked to round-off.
  const double r = 0.5, sigma = 72.8;
  SphereCurvature prev;
  for (int level = 1; level <= 5; ++level) {
    const auto s = sphere_curvature(level, r, sigma);
    std::printf("level %d (%ld vertices): kappa r / 2 - 1 mean %.3e max %.3e; max angle %.3f deg; "
                "sum|f|/sum A %.3e; virtual-work dp %.3e; circumcentric max %.1e\n",
                level, 10L * (1L << (2 * level)) + 2, s.mean_err, s.max_err, s.max_angle_deg, s.ratio_err,
                s.laplace_err, s.voronoi_max_err);
    EXPECT_LT(s.voronoi_max_err, 1e-11);
    EXPECT_LT(s.max_err, 0.16);
    if (level == 4) {
      EXPECT_LT(s.mean_err, 2e-3);       // 0.13 % measured
      EXPECT_LT(s.laplace_err, 1e-3);    // 0.086 % measured
      EXPECT_LT(s.ratio_err, 0.02);      // the digest's sum |f| / sum A within 2 %
      EXPECT_LT(s.max_angle_deg, 0.3);   // the digest asks 5 deg
    }
    if (level >= 3) {
      EXPECT_GT(prev.mean_err / s.mean_err, 3.4);
      EXPECT_GT(prev.laplace_err / s.laplace_err, 3.8);
      EXPECT_GT(prev.max_angle_deg / s.max_angle_deg, 1.9);
    }
    prev = s;
  }
}

TEST(Membrane3dOperators, VolumeAndItsGradient) {
  // Closed: the icosphere's volume approaches 4/3 pi r^3 from below at second order; the gradient
  // matches central differences; V does not change when the mesh is translated. Open: a linear
  // surface z = a + b x + c y over the unit square bounds exactly a + b / 2 + c / 2 above z = 0, and
  // the gradient of a curved sheet matches central differences.
  const double r = 0.5, exact = 4.0 / 3 * M_PI * r * r * r;
  double prev_err = 0;
  for (int level = 2; level <= 5; ++level) {
    auto m = mm::make_triangle_membrane(mm::make_icosphere({1.0, 2.0, -3.0}, r, level));
    const double err = 1 - mm::enclosed_volume(m, true, 0.0) / exact;
    std::printf("icosphere level %d: 1 - V / (4/3 pi r^3) = %.3e\n", level, err);
    EXPECT_GT(err, 0);
    if (level > 2) EXPECT_GT(prev_err / err, 3.8);
    prev_err = err;
  }
  auto gradient_error = [](mm::TriangleMembrane& m, bool closed, double zbase) {
    const long n = m.vertices();
    mm::Vec3Array g("g", n);
    mm::volume_gradient(m, closed, zbase, g);
    const Host3 hg = to_host(g), x0 = to_host(m.x);
    Host3 fd(n), e(n, {0, 0, 0});
    const double step = 1e-6;
    for (long i = 0; i < n; ++i)
      for (int d = 0; d < 3; ++d) {
        e[i][d] = 1;
        from_host(shifted(x0, e, step), m.x);
        const double vp = mm::enclosed_volume(m, closed, zbase);
        from_host(shifted(x0, e, -step), m.x);
        const double vm = mm::enclosed_volume(m, closed, zbase);
        e[i][d] = 0;
        fd[i][d] = (vp - vm) / (2 * step);
      }
    from_host(x0, m.x);
    return max_abs_diff(fd, hg) / max_abs(hg);
  };
  auto closed = mm::make_triangle_membrane(jittered_sphere(1, 0.2, {0.4, 0.1, -0.3}, 9));
  const double v0 = mm::enclosed_volume(closed, true, 0.0);
  const double closed_err = gradient_error(closed, true, 0.0);
  auto moved_mesh = mm::to_triangle_mesh(closed);
  geo::transform(moved_mesh, 1.0, {30.0, -20.0, 10.0});
  const double v1 = mm::enclosed_volume(mm::make_triangle_membrane(moved_mesh), true, 0.0);
  auto plane = mm::make_triangle_membrane(sheet(6, [](double x, double y) { return 0.7 + 0.2 * x - 0.1 * y; }));
  const double vplane = mm::enclosed_volume(plane, false, 0.0);
  auto bump = mm::make_triangle_membrane(
      sheet(6, [](double x, double y) { return 0.5 + 0.1 * std::sin(3 * x) * std::cos(2 * y); }));
  const double open_err = gradient_error(bump, false, -0.2);
  std::printf("closed gradient vs FD %.2e, translated |dV|/V %.2e; plane volume error %.2e; open gradient "
              "vs FD %.2e\n",
              closed_err, std::abs(v1 - v0) / v0, std::abs(vplane - 0.75), open_err);
  EXPECT_LT(closed_err, 1e-8);
  EXPECT_LT(std::abs(v1 - v0) / v0, 1e-12);
  EXPECT_LT(std::abs(vplane - 0.75), 1e-14);
  EXPECT_LT(open_err, 1e-8);
}

TEST(Membrane3dOperators, RankLocalPartsReproduceTheWholeMembrane) {
  // The distributed layout (triangle_membrane.hpp): the mesh split into 3 slabs of x, each part
  // holding its owned vertices, the triangles that touch them and ghost copies of their other
  // vertices. Owned rows of the force and of K_c u equal the whole membrane's; area and volume
  // summed over the parts equal the whole's (each triangle owned once).
  const double sigma = 72.8;
  const auto mesh = jittered_sphere(2, 0.2, {0.0, 0.0, 0.0}, 13);
  const long nv = static_cast<long>(mesh.vertices.size());
  std::vector<int> owner(nv);
  for (long g = 0; g < nv; ++g) owner[g] = mesh.vertices[g][0] < -0.3 ? 0 : (mesh.vertices[g][0] < 0.3 ? 1 : 2);
  auto whole = mm::make_triangle_membrane(mesh);
  const Host3 u = random_field(nv, 21);
  auto rows = [&](mm::TriangleMembrane& m, const Host3& field, Host3& force, Host3& ku) {
    mm::Vec3Array f("f", m.vertices()), du("u", m.vertices()), k("k", m.vertices());
    mm::CornerArray w("w", m.triangles());
    mm::capillary_force(m, sigma, f);
    mm::cotangent_weights(m, sigma, w);
    from_host(field, du);
    mm::apply_cotangent_stiffness(m, w, du, k);
    force = to_host(f);
    ku = to_host(k);
  };
  Host3 f_all, k_all;
  rows(whole, u, f_all, k_all);
  double area = 0, volume = 0, ferr = 0, kerr = 0;
  long owned = 0, triangles = 0;
  for (int rank = 0; rank < 3; ++rank) {
    auto part = mm::local_triangle_membrane(mesh, owner, rank);
    auto gid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), part.gid);
    Host3 ul(part.vertices()), fl, kl;
    for (long i = 0; i < part.vertices(); ++i) ul[i] = u[gid(i)];
    rows(part, ul, fl, kl);
    for (long i = 0; i < part.owned_vertices; ++i)
      for (int d = 0; d < 3; ++d) {
        ferr = std::max(ferr, std::abs(fl[i][d] - f_all[gid(i)][d]));
        kerr = std::max(kerr, std::abs(kl[i][d] - k_all[gid(i)][d]));
      }
    area += mm::total_area(part);
    volume += mm::enclosed_volume(part, true, 0.0);
    owned += part.owned_vertices;
    triangles += part.owned_triangles;
    EXPECT_GT(part.vertices(), part.owned_vertices);  // each part has ghosts
  }
  const double a0 = mm::total_area(whole), v0 = mm::enclosed_volume(whole, true, 0.0);
  std::printf("parts vs whole: force %.2e, K_c u %.2e (relative), area %.2e, volume %.2e\n", ferr / max_abs(f_all),
              kerr / max_abs(k_all), std::abs(area - a0) / a0, std::abs(volume - v0) / v0);
  EXPECT_EQ(owned, nv);
  EXPECT_EQ(triangles, whole.triangles());
  EXPECT_LT(ferr / max_abs(f_all), 1e-13);
  EXPECT_LT(kerr / max_abs(k_all), 1e-13);
  EXPECT_LT(std::abs(area - a0) / a0, 1e-14);
  EXPECT_LT(std::abs(volume - v0) / v0, 1e-14);
}

TEST(Membrane3dOperators, LaplacianRowsAssembleTheStiffnessOnEveryPart) {
  // The triplets the solve inserts into PETSc (K_c = L (x) I_3) give the same matrix as the
  // matrix-free product; split into 3 parts, each part's owned rows are the whole mesh's rows.
  const double sigma = 0.9;
  const auto mesh = jittered_sphere(2, 0.2, {0.1, 0.2, 0.3}, 17);
  auto whole = mm::make_triangle_membrane(mesh);
  const long n = whole.vertices();
  mm::CornerArray w("w", whole.triangles());
  mm::cotangent_weights(whole, sigma, w);
  const auto rows = mm::cotangent_laplacian_rows(whole, w);
  Eigen::MatrixXd k = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (size_t e = 0; e < rows.value.size(); ++e)
    for (int d = 0; d < 3; ++d) k(3 * rows.row[e] + d, 3 * rows.col[e] + d) += rows.value[e];
  const Eigen::MatrixXd kref = dense(n, [&](const mm::Vec3Array& u, const mm::Vec3Array& out) {
    mm::apply_cotangent_stiffness(whole, w, u, out);
  });
  std::vector<int> owner(n);
  for (long g = 0; g < n; ++g) owner[g] = mesh.vertices[g][2] < 0.2 ? 0 : (mesh.vertices[g][1] < 0.1 ? 1 : 2);
  mm::LaplacianRows merged;
  for (int rank = 0; rank < 3; ++rank) {
    auto part = mm::local_triangle_membrane(mesh, owner, rank);
    mm::CornerArray wp("w", part.triangles());
    mm::cotangent_weights(part, sigma, wp);
    const auto pr = mm::cotangent_laplacian_rows(part, wp);
    merged.row.insert(merged.row.end(), pr.row.begin(), pr.row.end());
    merged.col.insert(merged.col.end(), pr.col.begin(), pr.col.end());
    merged.value.insert(merged.value.end(), pr.value.begin(), pr.value.end());
  }
  double part_err = 0;
  bool same_pattern = merged.row.size() == rows.row.size();
  // The parts own disjoint sets of rows; sorted, their triplets must be the whole's.
  std::vector<size_t> order(merged.row.size());
  for (size_t e = 0; e < order.size(); ++e) order[e] = e;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_pair(merged.row[a], merged.col[a]) < std::make_pair(merged.row[b], merged.col[b]);
  });
  for (size_t e = 0; same_pattern && e < order.size(); ++e) {
    same_pattern = merged.row[order[e]] == rows.row[e] && merged.col[order[e]] == rows.col[e];
    part_err = std::max(part_err, std::abs(merged.value[order[e]] - rows.value[e]));
  }
  const double err = (k - kref).cwiseAbs().maxCoeff() / kref.cwiseAbs().maxCoeff();
  std::printf("triplets vs matrix-free K_c: %.2e; %zu entries (%.1f per row); parts vs whole %.2e\n", err,
              rows.value.size(), double(rows.value.size()) / n, part_err / kref.cwiseAbs().maxCoeff());
  EXPECT_LT(err, 1e-14);
  EXPECT_TRUE(same_pattern);
  EXPECT_LT(part_err / kref.cwiseAbs().maxCoeff(), 1e-14);
}

TEST(Membrane3dOperators, IcosphereIsAValidOutwardMesh) {
  for (int level = 0; level <= 3; ++level) {
    const auto mesh = mm::make_icosphere({1, 2, 3}, 0.25, level);
    EXPECT_EQ(mesh.vertices.size(), 10u * (1u << (2 * level)) + 2);
    EXPECT_EQ(mesh.triangles.size(), 20u * (1u << (2 * level)));
    EXPECT_NO_THROW(geo::validate(mesh, "test", "icosphere"));
    EXPECT_GT(geo::signed_volume(mesh), 0);
    for (const auto& p : mesh.vertices)
      EXPECT_NEAR(std::hypot(p[0] - 1, p[1] - 2, p[2] - 3), 0.25, 1e-15);
  }
  EXPECT_THROW(mm::make_icosphere({0, 0, 0}, 0.0, 1), std::invalid_argument);
  EXPECT_THROW(mm::make_icosphere({0, 0, 0}, 1.0, 9), std::invalid_argument);
}

// The adhesion force on a rigid body, Ruan 2021 §5.2 Eq. 20: f_a = sum over contact vertices of
// J_i^T f_ci, as the three-way solve assembles it (each contact vertex's capillary force reaches the
// body's six unknowns through its rigid velocity row, rigid_point_velocity + add_vertex_inertia),
// equals -sigma dA/dq_r, the derivative of the surface energy when the contact vertices move rigidly
// with the body (translation, and rotation about the body's centre by Rodrigues' formula). Triangles
// with every vertex in contact keep their area under a rigid motion, so their forces drop out of f_a
// (why the solve may leave them out of K_{a,r}, Eq. 22). Contact set: the cap z > 0.3 of a jittered
// unit icosphere; finite differences with step 1e-5 (measured 4.2e-11 relative).
TEST(Membrane3dOperators, AdhesionForceOnABodyIsMinusGradientOfSigmaArea) {
  const double sigma = 0.7;
  auto m = mm::make_triangle_membrane(jittered_sphere(2, 0.2, {0.0, 0.0, 0.0}, 13));
  const long n = m.vertices();
  mm::RigidBody3 body;
  body.c[0] = 0.1;
  body.c[1] = -0.05;
  body.c[2] = 0.6;
  body.radius = 0.5;
  const Host3 x0 = to_host(m.x);
  std::vector<PetscInt> unknown(3 * n, -1);
  PetscInt nv = 0;
  long contact = 0;
  for (long i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d)
      if (x0[i][2] <= 0.3) unknown[3 * i + d] = nv++;
  const PetscInt first = nv;  // the body's six unknowns follow the free components
  for (long i = 0; i < n; ++i) contact += x0[i][2] > 0.3;
  ASSERT_GT(contact, 10);
  ASSERT_LT(contact, n - 10);
  const auto vmap = mm::vertex_velocities(
      n, 3, unknown, [&](long i) { return x0[i][2] > 0.3 ? 0 : -1; },
      [&](long i, int d) { return mm::rigid_point_velocity(body, first, d, x0[i].data()); });
  mm::Vec3Array f("f", n);
  mm::capillary_force(m, sigma, f);
  const Host3 hf = to_host(f);
  mm::VelocityEntries c;
  std::vector<double> bv(first + 6, 0.0);
  for (long i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d)
      if (x0[i][2] > 0.3) mm::add_vertex_inertia(vmap[3 * i + d], 0.0, hf[i][d], c, bv);  // bv = -J^T f

  // The surface area with the contact vertices moved by the rigid motion k (0-2 translation, 3-5
  // rotation about the body's centre) of size s.
  auto area_moved = [&](int k, double s) {
    Host3 x = x0;
    for (long i = 0; i < n; ++i) {
      if (x0[i][2] <= 0.3) continue;
      if (k < 3) {
        x[i][k] += s;
        continue;
      }
      double e[3] = {0, 0, 0}, r[3];
      e[k - 3] = 1;
      for (int d = 0; d < 3; ++d) r[d] = x0[i][d] - body.c[d];
      const double exr[3] = {e[1] * r[2] - e[2] * r[1], e[2] * r[0] - e[0] * r[2], e[0] * r[1] - e[1] * r[0]};
      const double edr = r[k - 3];
      for (int d = 0; d < 3; ++d)
        x[i][d] = body.c[d] + std::cos(s) * r[d] + std::sin(s) * exr[d] + (1 - std::cos(s)) * edr * e[d];
    }
    from_host(x, m.x);
    const double a = mm::total_area(m);
    from_host(x0, m.x);
    return a;
  };
  const double h = 1e-5;
  double scale = 0, worst = 0;
  for (int k = 0; k < 6; ++k) scale = std::max(scale, std::abs(bv[first + k]));
  for (int k = 0; k < 6; ++k) {
    const double fa = -bv[first + k];
    const double fd = -sigma * (area_moved(k, h) - area_moved(k, -h)) / (2 * h);
    std::printf("f_a[%d] = %+.10e, -sigma dA/dq = %+.10e\n", k, fa, fd);
    worst = std::max(worst, std::abs(fa - fd));
  }
  std::printf("adhesion force: %ld contact vertices, max |f_a - FD| / max |f_a| = %.2e\n", contact, worst / scale);
  EXPECT_GT(scale, 1e-3 * sigma);  // the cap's rim pulls on the body
  EXPECT_LT(worst / scale, 1e-6);
  // The body's rows of the velocity block get no inertia from the zero vertex masses.
  for (const auto& [ij, v] : c) EXPECT_EQ(v, 0.0);
}
