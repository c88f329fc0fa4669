#include "methods/membrane/membrane_flow.hpp"

#include <algorithm>
#include <cmath>

#include "methods/membrane/fluid_kernels.hpp"
#include "methods/membrane/remesh.hpp"
#include "methods/membrane/volume_correction.hpp"

namespace meniscus::membrane {

MembraneFlow::MembraneFlow(MacGrid& grid, Polyline membrane, bool closed, FlowParameters params,
                           CoupledSolveOptions solve)
    : grid_(grid), m_(std::move(membrane)), closed_(closed), params_(params), solver_(grid, std::move(solve)) {
  const MacGeometry g = grid_.geometry();
  ybase_ = g.lower[1];
  mark_wall_ends();
  classify_cells(grid_, m_);
  target_volume_ = volume();
}

void MembraneFlow::mark_wall_ends() {
  if (closed_) return;
  // The ends of an open surface lie on the x walls: they slide vertically (90 degree contact).
  auto kind = Kokkos::create_mirror_view(m_.kind);
  Kokkos::deep_copy(kind, kFree);
  kind(0) = kWallX;
  kind(m_.vertices() - 1) = kWallX;
  Kokkos::deep_copy(m_.kind, kind);
}

void MembraneFlow::replace_membrane(Polyline membrane) {
  m_ = std::move(membrane);
  mark_wall_ends();
}

MembraneHost MembraneFlow::host_state(bool tension) const {
  MembraneHost h;
  const long n = m_.vertices(), s = m_.segments();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.x);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.v);
  auto seg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.seg);
  auto kind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.kind);
  Kokkos::View<double*, MemSpace> mass("membrane_mass", n), weight("membrane_weight", s);
  VertexArray force("membrane_force", n, 2);
  vertex_masses(m_, params_.rho, params_.h, mass);
  if (tension && params_.sigma > 0) {
    capillary_force(m_, params_.sigma, force);
    stiffness_weights(m_, params_.sigma, weight);
  }
  auto hm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mass);
  auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), weight);
  auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), force);
  h.xy.resize(2 * n);
  h.v.resize(2 * n);
  h.force.resize(2 * n);
  h.kind.resize(n);
  h.mass.resize(n);
  for (long i = 0; i < n; ++i) {
    for (int d = 0; d < 2; ++d) {
      h.xy[2 * i + d] = x(i, d);
      h.v[2 * i + d] = v(i, d);
      h.force[2 * i + d] = hf(i, d);
    }
    h.kind[i] = kind(i);
    h.mass[i] = hm(i);
  }
  h.seg.resize(2 * s);
  h.weight.resize(s);
  for (long e = 0; e < s; ++e) {
    h.seg[2 * e] = seg(e, 0);
    h.seg[2 * e + 1] = seg(e, 1);
    h.weight[e] = hw(e);
  }
  return h;
}

StepReport MembraneFlow::step(double dt) {
  StepReport report;
  const long n = m_.vertices();
  // Stage 4: fluid-membrane solve without surface tension or gravity, geometry of x^n: volume-
  // preserving advection velocities u-dagger (dofs kUdag, kVdag) and v-dagger.
  std::vector<double> vdag;
  auto t_first = timers_.scope("solve1");
  if (params_.two_solve) {
    report.first = solver_.solve(host_state(false), params_.rho, dt, kU, kUdag, vdag);
  } else {
    // One-solve control: advect with the previous step's velocities.
    auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.v);
    vdag.resize(2 * n);
    for (long i = 0; i < n; ++i)
      for (int d = 0; d < 2; ++d) vdag[2 * i + d] = v(i, d);
    auto owned = grid_.field().acquire_owned();
    const long count = static_cast<long>(owned.extent(0));
    Kokkos::parallel_for(
        "membrane_copy_advection_velocity", count, KOKKOS_LAMBDA(const long q) {
          owned(q, kUdag) = owned(q, kU);
          owned(q, kVdag) = owned(q, kV);
        });
    grid_.field().release_owned(owned);
    grid_.field().global_to_local();
  }
  t_first.pause();
  auto t_adv = timers_.scope("advection");
  // Stage 5: advection. The membrane moves with v-dagger; velocities revert to v^n (Stage 6).
  {
    VertexArray dv("vdag", n, 2);
    auto hv = Kokkos::create_mirror_view(dv);
    for (long i = 0; i < n; ++i)
      for (int d = 0; d < 2; ++d) hv(i, d) = vdag[2 * i + d];
    Kokkos::deep_copy(dv, hv);
    // The membrane after the step encloses the initial liquid area (volume_correction.hpp: the W
    // flux of the first solve is not the membrane's area flux). The target is the initial area, not
    // the area at the start of the step, so that the change of a remeshing collapse is restored too.
    if (params_.preserve_volume)
      report.volume_correction_speed = preserve_enclosed_area(m_, closed_, ybase_, dt, target_volume_, dv);
    auto x = m_.x;
    Kokkos::parallel_for(
        "membrane_advect_vertices", n, KOKKOS_LAMBDA(const long i) {
          x(i, 0) += dt * dv(i, 0);
          x(i, 1) += dt * dv(i, 1);
        });
  }
  extrapolate_velocities(grid_, params_.extrapolation_layers);
  advect_velocities(grid_, dt);
  t_adv.pause();
  // Stage 6: remesh (split / collapse; new vertices interpolate v^n), then retype cells with x^{n+1}.
  if (params_.remesh_edge > 0) {
    auto t = timers_.scope("remesh");
    const auto st = remesh_chain(m_, closed_, params_.remesh_edge);
    report.splits = st.splits;
    report.collapses = st.collapses;
  }
  {
    auto t = timers_.scope("classify");
    classify_cells(grid_, m_);
  }
  auto t_second = timers_.scope("solve2");
  // Stage 7: gravity on the liquid (not on the membrane, as in the paper), then the coupled solve
  // with the implicit capillary force.
  apply_gravity(grid_, params_.gravity, dt);
  std::vector<double> vnew;
  const long n1 = m_.vertices();
  report.second = solver_.solve(host_state(true), params_.rho, dt, kU, kU, vnew);
  // Stage 8: write back the membrane velocities.
  {
    auto hv = Kokkos::create_mirror_view(m_.v);
    for (long i = 0; i < n1; ++i)
      for (int d = 0; d < 2; ++d) hv(i, d) = vnew[2 * i + d];
    Kokkos::deep_copy(m_.v, hv);
  }
  return report;
}

double MembraneFlow::stable_dt(double cfl, double c_cap, double dt_max) {
  const double dx = grid_.dx();
  double dt = dt_max;
  const double umax = max_face_speed(grid_);
  if (umax > 0) dt = std::min(dt, cfl * dx / umax);
  if (params_.sigma > 0) dt = std::min(dt, c_cap * std::sqrt(params_.rho * dx * dx * dx / (2 * M_PI * params_.sigma)));
  return dt;
}

double MembraneFlow::volume() const { return enclosed_area(m_, closed_, ybase_); }

}  // namespace meniscus::membrane
