#include "methods/mpm/incremental_potential.hpp"

#include <Kokkos_ScatterView.hpp>
#include <utility>

#include "grid/stencil_loop.hpp"
#include "physics/fixed_corotated_hessian.hpp"
#include "physics/fluid_energy.hpp"
#include "physics/psd_projection.hpp"
#include "physics/smoothed_surface_energy.hpp"

namespace meniscus::mpm {

namespace {

// grad v at a point: G[a*Dim + b] = sum_i v_i[a] dN_i/dx_b.
template <int Dim>
KOKKOS_INLINE_FUNCTION void point_gradient(const grid::Stencil<Dim>& st, const grid::NodeBox<Dim>& box,
                                           const double* lower, double dx, const double* q, const grid::NodeArray& v,
                                           double* G) {
  for (int i = 0; i < Dim * Dim; ++i) G[i] = 0;
  grid::for_each_stencil_node<Dim>(st, box, lower, dx, q, [&](long idx, double, const double* grad, const double*) {
    for (int a = 0; a < Dim; ++a)
      for (int b = 0; b < Dim; ++b) G[a * Dim + b] += v(idx, a) * grad[b];
  });
}

// v at a point: sum_i N_i(q) v_i.
template <int Dim>
KOKKOS_INLINE_FUNCTION void point_value(const grid::Stencil<Dim>& st, const grid::NodeBox<Dim>& box, const double* lower,
                                        double dx, const double* q, const grid::NodeArray& v, double* u) {
  for (int a = 0; a < Dim; ++a) u[a] = 0;
  grid::for_each_stencil_node<Dim>(st, box, lower, dx, q, [&](long idx, double w, const double*, const double*) {
    for (int a = 0; a < Dim; ++a) u[a] += w * v(idx, a);
  });
}

// The range [first, last) of ghost-box node indices that the stencils of the points reach (the first
// `count` rows of `q`; empty when there are none). A stencil's nodes lie between its base node's index
// and the index of the node two steps further on every axis, and the box's index grows with every
// coordinate, so the extremes of those two over the points bound every node the points touch.
template <int Dim, class Points>
Kokkos::pair<long, long> stencil_index_range(const Points& q, long count,
                                             const grid::NodeBox<Dim>& box, const double* lower, double inv_dx) {
  if (count <= 0) return {0, 0};
  double lo[Dim];
  for (int d = 0; d < Dim; ++d) lo[d] = lower[d];
  long span = 0, stride = 1;
  for (int d = 0; d < Dim; ++d) {
    span += 2 * stride;
    stride *= box.n[d];
  }
  Kokkos::MinMaxScalar<long> mm;
  Kokkos::parallel_reduce(
      "ip::stencil_index_range", Kokkos::RangePolicy<>(0, count),
      KOKKOS_LAMBDA(const long p, Kokkos::MinMaxScalar<long>& acc) {
        double x[Dim];
        for (int d = 0; d < Dim; ++d) x[d] = q(p, d);
        grid::Stencil<Dim> st;
        st.compute(x, lo, inv_dx);
        const long first = box.index(st.base);
        if (first < acc.min_val) acc.min_val = first;
        if (first > acc.max_val) acc.max_val = first;
      },
      Kokkos::MinMax<long>(mm));
  return {mm.min_val, mm.max_val + span + 1};
}

// The union of two index ranges (an empty one does not count).
inline Kokkos::pair<long, long> join_ranges(Kokkos::pair<long, long> a, Kokkos::pair<long, long> b) {
  if (a.second <= a.first) return b;
  if (b.second <= b.first) return a;
  return {a.first < b.first ? a.first : b.first, a.second > b.second ? a.second : b.second};
}

// The node rows that the stencils of the particles and surface samples reach.
template <int Dim>
Kokkos::pair<long, long> point_rows(const PotentialInputs<Dim>& in) {
  const double inv_dx = 1.0 / in.dx;
  return join_ranges(stencil_index_range<Dim>(in.x, static_cast<long>(in.particles), in.gbox, in.lower, inv_dx),
                     stencil_index_range<Dim>(in.sample_position, static_cast<long>(in.sample_position.extent(0)),
                                              in.gbox, in.lower, inv_dx));
}

// A scatter accessor over the node rows [first, ...) of a node array, addressed by the array's own row
// index: the per-thread copies of a ScatterView (Kokkos' default on OpenMP) then cover only the rows
// the points reach instead of the whole ghosted box (2.3 M unknowns on the 3D impact at dx = 1/63
// for about 70 k that particles touch), and their reset and reduction shrink with them. Rows outside
// the range receive nothing either way, so every sum is the same bit for bit.
template <class Scatter>
struct ShiftedAccess {
  decltype(std::declval<const Scatter&>().access()) acc;  // not copyable: built in place
  long first;
  KOKKOS_FORCEINLINE_FUNCTION ShiftedAccess(const Scatter& s, long f) : acc(s.access()), first(f) {}
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) operator()(long i, int d) const { return acc(i - first, d); }
};
template <class Scatter>
KOKKOS_FORCEINLINE_FUNCTION ShiftedAccess<Scatter> shifted(const Scatter& s, long first) {
  return ShiftedAccess<Scatter>(s, first);
}

// out_i += S grad N_i(q) over the point's stencil.
template <int Dim, class Access>
KOKKOS_INLINE_FUNCTION void scatter_stress(const grid::Stencil<Dim>& st, const grid::NodeBox<Dim>& box,
                                           const double* lower, double dx, const double* q, const double* S,
                                           Access& acc) {
  grid::for_each_stencil_node<Dim>(st, box, lower, dx, q, [&](long idx, double, const double* grad, const double*) {
    for (int a = 0; a < Dim; ++a) {
      double f = 0;
      for (int b = 0; b < Dim; ++b) f += S[a * Dim + b] * grad[b];
      acc(idx, a) += f;
    }
  });
}

// out_i[a] += sum_{b,c} K[(a,b),(a,c)] dN_b dN_c: the diagonal of a stored point Hessian.
template <int Dim, class Access, class KRow>
KOKKOS_INLINE_FUNCTION void scatter_diagonal(const grid::Stencil<Dim>& st, const grid::NodeBox<Dim>& box,
                                             const double* lower, double dx, const double* q, const KRow& K,
                                             Access& acc) {
  constexpr int N = Dim * Dim;
  grid::for_each_stencil_node<Dim>(st, box, lower, dx, q, [&](long idx, double, const double* grad, const double*) {
    for (int a = 0; a < Dim; ++a) {
      double s = 0;
      for (int b = 0; b < Dim; ++b)
        for (int c = 0; c < Dim; ++c) s += K((a * Dim + b) * N + a * Dim + c) * grad[b] * grad[c];
      acc(idx, a) += s;
    }
  });
}

template <int Dim>
KOKKOS_INLINE_FUNCTION void load(const particles::RealField& f, int p, double* out) {
  for (int i = 0; i < Dim * Dim; ++i) out[i] = f(p, i);
}

// F = (I + dt G) F^n.
template <int Dim>
KOKKOS_INLINE_FUNCTION void deformed(const double* G, const double* Fn, double dt, double* F) {
  double M[Dim * Dim];
  for (int i = 0; i < Dim * Dim; ++i) M[i] = (i % (Dim + 1) == 0 ? 1.0 : 0.0) + dt * G[i];
  physics::matmul<Dim>(M, Fn, F);
}

}  // namespace

template <int Dim>
double IncrementalPotential<Dim>::energy(const grid::NodeArray& v) const {
  const auto x = in_.x, F = in_.F, J = in_.J, vol = in_.volume;
  const auto mat = in_.material;
  const auto mats = in_.materials;
  const auto box = in_.gbox;
  const double dx = in_.dx, inv_dx = 1.0 / in_.dx, dt = in_.dt;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = in_.lower[d];
  double e = 0;
  Kokkos::parallel_reduce(
      "ip::energy_particles", Kokkos::RangePolicy<>(0, in_.particles),
      KOKKOS_LAMBDA(const int p, double& acc) {
        double q[Dim], G[Dim * Dim];
        for (int d = 0; d < Dim; ++d) q[d] = x(p, d);
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        point_gradient<Dim>(st, box, lower, dx, q, v, G);
        const physics::Material& m = mats(mat(p));
        const double V0 = vol(p, 0), Jn = J(p, 0);
        if (m.model == physics::MaterialModel::FixedCorotated) {
          double Fn[Dim * Dim], Fd[Dim * Dim];
          load<Dim>(F, p, Fn);
          deformed<Dim>(G, Fn, dt, Fd);
          acc += V0 * physics::fixed_corotated_energy<Dim>(m, Fd);
        } else {
          double tr = 0, sym2 = 0;
          for (int a = 0; a < Dim; ++a) {
            tr += G[a * Dim + a];
            for (int b = 0; b < Dim; ++b) {
              const double s = 0.5 * (G[a * Dim + b] + G[b * Dim + a]);
              sym2 += s * s;
            }
          }
          acc += V0 * physics::tait_energy(m, Jn * (1 + dt * tr)) + dt * m.viscosity * Jn * V0 * sym2;
        }
      },
      e);
  const auto s = in_.sample_position, area = in_.sample_area;
  const auto kr = in_.sample_coefficient, klg = in_.sample_liquid_gas;
  const auto wall = in_.sample_wall_normal;
  const auto wphi = in_.sample_wall_distance;
  const WettingRamp ramp = in_.wetting;
  const double eps = in_.surface_smoothing;
  double es = 0;
  Kokkos::parallel_reduce(
      "ip::energy_surface", Kokkos::RangePolicy<>(0, s.extent(0)),
      KOKKOS_LAMBDA(const int r, double& acc) {
        double q[Dim], a[Dim], G[Dim * Dim], M[Dim * Dim];
        for (int d = 0; d < Dim; ++d) {
          q[d] = s(r, d);
          a[d] = area(r, d);
        }
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        point_gradient<Dim>(st, box, lower, dx, q, v, G);
        for (int i = 0; i < Dim * Dim; ++i) M[i] = (i % (Dim + 1) == 0 ? 1.0 : 0.0) + dt * G[i];
        const double k = klg(r), wet = kr(r) - k;
        acc += k * physics::smoothed_surface_energy<Dim>(M, a, eps);
        if (wet != 0) {
          double nw[Dim], dh[Dim * Dim], u[Dim], un = 0;
          for (int d = 0; d < Dim; ++d) nw[d] = wall(r, d);
          point_value<Dim>(st, box, lower, dx, q, v, u);
          for (int d = 0; d < Dim; ++d) un += u[d] * nw[d];
          acc += wet * ramp.weight(wphi(r) + dt * un) * physics::wall_footprint_gradient<Dim>(M, a, nw, dh);
        }
      },
      es);
  return e + es;
}

template <int Dim>
void IncrementalPotential<Dim>::add_gradient(const grid::NodeArray& v, grid::NodeArray& out) const {
  const auto x = in_.x, F = in_.F, J = in_.J, vol = in_.volume;
  const auto mat = in_.material;
  const auto mats = in_.materials;
  const auto box = in_.gbox;
  const double dx = in_.dx, inv_dx = 1.0 / in_.dx, dt = in_.dt;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = in_.lower[d];
  const auto range = point_rows<Dim>(in_);
  const long first = range.first;
  auto rows = Kokkos::subview(out, range, Kokkos::ALL);
  auto scatter = Kokkos::Experimental::create_scatter_view(rows);
  Kokkos::parallel_for(
      "ip::gradient_particles", Kokkos::RangePolicy<>(0, in_.particles), KOKKOS_LAMBDA(const int p) {
        double q[Dim], G[Dim * Dim], S[Dim * Dim];
        for (int d = 0; d < Dim; ++d) q[d] = x(p, d);
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        point_gradient<Dim>(st, box, lower, dx, q, v, G);
        const physics::Material& m = mats(mat(p));
        const double V0 = vol(p, 0), Jn = J(p, 0);
        if (m.model == physics::MaterialModel::FixedCorotated) {
          // de/dG = dt V0 P(F) F^nT
          double Fn[Dim * Dim], Fd[Dim * Dim], P[Dim * Dim];
          load<Dim>(F, p, Fn);
          deformed<Dim>(G, Fn, dt, Fd);
          physics::fixed_corotated_piola<Dim>(m, Fd, P);
          physics::matmul_bt<Dim>(P, Fn, S);
          for (int i = 0; i < Dim * Dim; ++i) S[i] *= dt * V0;
        } else {
          // de/dG = V0 psi'(J) J^n dt I + 2 eta V^n dt sym(G)
          double tr = 0;
          for (int a = 0; a < Dim; ++a) tr += G[a * Dim + a];
          const double pressure_part = V0 * physics::tait_energy_slope(m, Jn * (1 + dt * tr)) * Jn * dt;
          const double visc = m.viscosity * Jn * V0 * dt;
          for (int a = 0; a < Dim; ++a)
            for (int b = 0; b < Dim; ++b)
              S[a * Dim + b] = visc * (G[a * Dim + b] + G[b * Dim + a]) + (a == b ? pressure_part : 0.0);
        }
        auto acc = shifted(scatter, first);
        scatter_stress<Dim>(st, box, lower, dx, q, S, acc);
      });
  const auto s = in_.sample_position, area = in_.sample_area;
  const auto kr = in_.sample_coefficient, klg = in_.sample_liquid_gas;
  const auto wall = in_.sample_wall_normal;
  const auto wphi = in_.sample_wall_distance;
  const WettingRamp ramp = in_.wetting;
  const double eps = in_.surface_smoothing;
  Kokkos::parallel_for(
      "ip::gradient_surface", Kokkos::RangePolicy<>(0, s.extent(0)), KOKKOS_LAMBDA(const int r) {
        double q[Dim], a[Dim], G[Dim * Dim], M[Dim * Dim], S[Dim * Dim];
        for (int d = 0; d < Dim; ++d) {
          q[d] = s(r, d);
          a[d] = area(r, d);
        }
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        point_gradient<Dim>(st, box, lower, dx, q, v, G);
        for (int i = 0; i < Dim * Dim; ++i) M[i] = (i % (Dim + 1) == 0 ? 1.0 : 0.0) + dt * G[i];
        physics::smoothed_surface_energy_gradient<Dim>(M, a, eps, S);
        const double k = klg(r), wet = kr(r) - k;
        for (int i = 0; i < Dim * Dim; ++i) S[i] *= dt * k;
        double pull[Dim] = {};  // d/dv(s) of wet w(phi^n + dt n . v(s)) h
        if (wet != 0) {
          double nw[Dim], dh[Dim * Dim], u[Dim], un = 0, slope, curvature;
          for (int d = 0; d < Dim; ++d) nw[d] = wall(r, d);
          point_value<Dim>(st, box, lower, dx, q, v, u);
          for (int d = 0; d < Dim; ++d) un += u[d] * nw[d];
          const double w = ramp.weight(wphi(r) + dt * un, slope, curvature);
          const double h = physics::wall_footprint_gradient<Dim>(M, a, nw, dh);
          for (int i = 0; i < Dim * Dim; ++i) S[i] += dt * wet * w * dh[i];
          for (int d = 0; d < Dim; ++d) pull[d] = wet * h * slope * dt * nw[d];
        }
        auto acc = shifted(scatter, first);
        scatter_stress<Dim>(st, box, lower, dx, q, S, acc);
        if (wet != 0)
          grid::for_each_stencil_node<Dim>(st, box, lower, dx, q, [&](long idx, double w, const double*, const double*) {
            for (int d = 0; d < Dim; ++d) acc(idx, d) += w * pull[d];
          });
      });
  Kokkos::Experimental::contribute(rows, scatter);
}

template <int Dim>
void IncrementalPotential<Dim>::linearize(const grid::NodeArray& v, bool project_request) {
  const auto x = in_.x, F = in_.F, J = in_.J, vol = in_.volume;
  const auto mat = in_.material;
  const auto mats = in_.materials;
  const auto box = in_.gbox;
  const double dx = in_.dx, inv_dx = 1.0 / in_.dx, dt = in_.dt;
  const bool project = in_.project && project_request;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = in_.lower[d];
  const size_t np = in_.particles, ns = in_.sample_position.extent(0);
  if (fluid_curvature_.extent(0) != np) fluid_curvature_ = Kokkos::View<double*>("ip_fluid_curvature", np);
  if (in_.has_solid && solid_K_.extent(0) != np) solid_K_ = Kokkos::View<double**, Kokkos::LayoutRight>("ip_solid_K", np, N * N);
  if (surface_K_.extent(0) != ns) surface_K_ = Kokkos::View<double**, Kokkos::LayoutRight>("ip_surface_K", ns, N * N);
  if (Dim == 3 && surface_tangent_K_.extent(0) != ns)
    surface_tangent_K_ = Kokkos::View<double**, Kokkos::LayoutRight>("ip_surface_tangent_K", ns, 42);
  auto fc = fluid_curvature_;
  auto KP = solid_K_;
  Kokkos::parallel_for(
      "ip::linearize_particles", Kokkos::RangePolicy<>(0, np), KOKKOS_LAMBDA(const int p) {
        double q[Dim], G[Dim * Dim];
        for (int d = 0; d < Dim; ++d) q[d] = x(p, d);
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        point_gradient<Dim>(st, box, lower, dx, q, v, G);
        const physics::Material& m = mats(mat(p));
        const double V0 = vol(p, 0), Jn = J(p, 0);
        if (m.model == physics::MaterialModel::FixedCorotated) {
          fc(p) = 0;
          double Fn[Dim * Dim], Fd[Dim * Dim], K[N * N];
          load<Dim>(F, p, Fn);
          deformed<Dim>(G, Fn, dt, Fd);
          // Column kl: dG = E_kl, so dF = dt E_kl F^n and d(de/dG) = dt V0 dP(F; dF) F^nT.
          for (int k = 0; k < Dim; ++k)
            for (int l = 0; l < Dim; ++l) {
              double dF[Dim * Dim] = {}, dP[Dim * Dim], S[Dim * Dim];
              for (int j = 0; j < Dim; ++j) dF[k * Dim + j] = dt * Fn[l * Dim + j];
              physics::fixed_corotated_dpiola<Dim>(m, Fd, dF, dP);
              physics::matmul_bt<Dim>(dP, Fn, S);
              for (int i = 0; i < N; ++i) K[i * N + k * Dim + l] = dt * V0 * S[i];
            }
          for (int i = 0; i < N; ++i)
            for (int j = i + 1; j < N; ++j) K[i * N + j] = K[j * N + i] = 0.5 * (K[i * N + j] + K[j * N + i]);
          if (project) physics::project_psd<N>(K);
          for (int i = 0; i < N * N; ++i) KP(p, i) = K[i];
        } else {
          double tr = 0;
          for (int a = 0; a < Dim; ++a) tr += G[a * Dim + a];
          fc(p) = V0 * physics::tait_energy_curvature(m, Jn * (1 + dt * tr)) * (Jn * dt) * (Jn * dt);
        }
      });
  const auto s = in_.sample_position, area = in_.sample_area;
  const auto klg = in_.sample_liquid_gas;
  const double eps = in_.surface_smoothing;
  auto KS = surface_K_;
  auto KT = surface_tangent_K_;
  Kokkos::parallel_for(
      "ip::linearize_surface", Kokkos::RangePolicy<>(0, ns), KOKKOS_LAMBDA(const int r) {
        double q[Dim], a[Dim], G[Dim * Dim], M[Dim * Dim], K[N * N];
        for (int d = 0; d < Dim; ++d) {
          q[d] = s(r, d);
          a[d] = area(r, d);
        }
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        point_gradient<Dim>(st, box, lower, dx, q, v, G);
        for (int i = 0; i < N; ++i) M[i] = (i % (Dim + 1) == 0 ? 1.0 : 0.0) + dt * G[i];
        // Every sample's |dA| term carries k_LG > 0. The wetting term (k_SL - k_LG) h is linear in M in
        // 2D (no Hessian) and quadratic in 3D, where its Hessian is indefinite: it is left out and
        // kept in the energy and gradient, which the line search uses (a negative k_SL, theta < 90 deg, makes the energy non-convex; Chen et al. 2021 Sec. 3.6).
        const double scale = (project && klg(r) < 0) ? 0.0 : dt * dt * klg(r);
        if constexpr (Dim == 3) {
          // In 3D the Hessian lives on the 6 directions M t1, M t2 (t1, t2 tangent to the sample), where
          // its eigensystem is known in closed form (smoothed_surface_energy.hpp): K6, projected by
          // dropping its two negative eigenpairs, goes to the assembled Hessian, whose blocks then need
          // the stencil gradients' two tangential components only (incremental_potential_blocks.cpp);
          // K = Q^T K6 Q to the matrix-free product and the Jacobi diagonal. A sample without area has
          // K = 0 (the energy is bilinear in dA).
          double t[2][3] = {{0, 0, 0}, {0, 0, 0}}, K6[36] = {};
          for (int i = 0; i < N * N; ++i) K[i] = 0;
          if (physics::area_norm<3>(a) > 0) {
            physics::surface_tangents(a, t);
            physics::smoothed_surface_hessian_in_tangents(M, a, eps, scale, t, project, K6);
            physics::surface_hessian_from_tangents(K6, t, K);
          }
          for (int i = 0; i < 36; ++i) KT(r, i) = K6[i];
          for (int u = 0; u < 2; ++u)
            for (int d = 0; d < 3; ++d) KT(r, 36 + 3 * u + d) = t[u][d];
        } else {
          physics::smoothed_surface_energy_hessian<Dim>(M, a, eps, K);  // convex in 2D: no projection
          for (int i = 0; i < N * N; ++i) K[i] *= scale;
        }
        for (int i = 0; i < N * N; ++i) KS(r, i) = K[i];
      });
}

template <int Dim>
void IncrementalPotential<Dim>::add_hessian(const grid::NodeArray& dv, grid::NodeArray& out) const {
  const auto x = in_.x, J = in_.J, vol = in_.volume;
  const auto mat = in_.material;
  const auto mats = in_.materials;
  const auto box = in_.gbox;
  const double dx = in_.dx, inv_dx = 1.0 / in_.dx, dt = in_.dt;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = in_.lower[d];
  const auto fc = fluid_curvature_;
  const auto KP = solid_K_;
  const auto range = point_rows<Dim>(in_);
  const long first = range.first;
  auto rows = Kokkos::subview(out, range, Kokkos::ALL);
  auto scatter = Kokkos::Experimental::create_scatter_view(rows);
  Kokkos::parallel_for(
      "ip::hessian_particles", Kokkos::RangePolicy<>(0, in_.particles), KOKKOS_LAMBDA(const int p) {
        double q[Dim], dG[Dim * Dim], S[Dim * Dim];
        for (int d = 0; d < Dim; ++d) q[d] = x(p, d);
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        point_gradient<Dim>(st, box, lower, dx, q, dv, dG);
        const physics::Material& m = mats(mat(p));
        if (m.model == physics::MaterialModel::FixedCorotated) {
          for (int i = 0; i < N; ++i) {
            double t = 0;
            for (int j = 0; j < N; ++j) t += KP(p, i * N + j) * dG[j];
            S[i] = t;
          }
        } else {
          double tr = 0;
          for (int a = 0; a < Dim; ++a) tr += dG[a * Dim + a];
          const double visc = m.viscosity * J(p, 0) * vol(p, 0) * dt;
          for (int a = 0; a < Dim; ++a)
            for (int b = 0; b < Dim; ++b)
              S[a * Dim + b] = visc * (dG[a * Dim + b] + dG[b * Dim + a]) + (a == b ? fc(p) * tr : 0.0);
        }
        auto acc = shifted(scatter, first);
        scatter_stress<Dim>(st, box, lower, dx, q, S, acc);
      });
  const auto s = in_.sample_position;
  const auto KS = surface_K_;
  Kokkos::parallel_for(
      "ip::hessian_surface", Kokkos::RangePolicy<>(0, s.extent(0)), KOKKOS_LAMBDA(const int r) {
        double q[Dim], dG[Dim * Dim], S[Dim * Dim];
        for (int d = 0; d < Dim; ++d) q[d] = s(r, d);
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        point_gradient<Dim>(st, box, lower, dx, q, dv, dG);
        for (int i = 0; i < N; ++i) {
          double t = 0;
          for (int j = 0; j < N; ++j) t += KS(r, i * N + j) * dG[j];
          S[i] = t;
        }
        auto acc = shifted(scatter, first);
        scatter_stress<Dim>(st, box, lower, dx, q, S, acc);
      });
  Kokkos::Experimental::contribute(rows, scatter);
}

template <int Dim>
void IncrementalPotential<Dim>::add_diagonal(grid::NodeArray& out) const {
  const auto x = in_.x, J = in_.J, vol = in_.volume;
  const auto mat = in_.material;
  const auto mats = in_.materials;
  const auto box = in_.gbox;
  const double dx = in_.dx, inv_dx = 1.0 / in_.dx, dt = in_.dt;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = in_.lower[d];
  const auto fc = fluid_curvature_;
  const auto KP = solid_K_;
  const auto range = point_rows<Dim>(in_);
  const long first = range.first;
  auto rows = Kokkos::subview(out, range, Kokkos::ALL);
  auto scatter = Kokkos::Experimental::create_scatter_view(rows);
  Kokkos::parallel_for(
      "ip::diagonal_particles", Kokkos::RangePolicy<>(0, in_.particles), KOKKOS_LAMBDA(const int p) {
        double q[Dim];
        for (int d = 0; d < Dim; ++d) q[d] = x(p, d);
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        const physics::Material& m = mats(mat(p));
        auto acc = shifted(scatter, first);
        if (m.model == physics::MaterialModel::FixedCorotated) {
          auto row = Kokkos::subview(KP, p, Kokkos::ALL);
          scatter_diagonal<Dim>(st, box, lower, dx, q, row, acc);
        } else {
          // pressure: c dN_a^2; viscosity: eta V dt (|dN|^2 + dN_a^2)
          const double visc = m.viscosity * J(p, 0) * vol(p, 0) * dt, c = fc(p);
          grid::for_each_stencil_node<Dim>(st, box, lower, dx, q, [&](long idx, double, const double* g, const double*) {
            double g2 = 0;
            for (int b = 0; b < Dim; ++b) g2 += g[b] * g[b];
            for (int a = 0; a < Dim; ++a) acc(idx, a) += c * g[a] * g[a] + visc * (g2 + g[a] * g[a]);
          });
        }
      });
  const auto s = in_.sample_position;
  const auto KS = surface_K_;
  Kokkos::parallel_for(
      "ip::diagonal_surface", Kokkos::RangePolicy<>(0, s.extent(0)), KOKKOS_LAMBDA(const int r) {
        double q[Dim];
        for (int d = 0; d < Dim; ++d) q[d] = s(r, d);
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        auto acc = shifted(scatter, first);
        auto row = Kokkos::subview(KS, r, Kokkos::ALL);
        scatter_diagonal<Dim>(st, box, lower, dx, q, row, acc);
      });
  Kokkos::Experimental::contribute(rows, scatter);
}

template class IncrementalPotential<2>;
template class IncrementalPotential<3>;

}  // namespace meniscus::mpm
