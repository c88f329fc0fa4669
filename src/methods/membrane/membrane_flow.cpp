#include "methods/membrane/membrane_flow.hpp"

#include <algorithm>
#include <cmath>

#include "methods/membrane/body_contact.hpp"
#include "methods/membrane/fluid_kernels.hpp"
#include "methods/membrane/receding_contact.hpp"
#include "methods/membrane/remesh.hpp"
#include "methods/membrane/tangential_motion.hpp"
#include "methods/membrane/volume_correction.hpp"

namespace meniscus::membrane {

MembraneFlow::MembraneFlow(MacGrid& grid, Polyline membrane, bool closed, FlowParameters params,
                           CoupledSolveOptions solve, std::vector<Disc> bodies)
    : grid_(grid),
      m_(std::move(membrane)),
      closed_(closed),
      params_(params),
      solver_(grid, std::move(solve)),
      bodies_(std::move(bodies)) {
  const MacGeometry g = grid_.geometry();
  ybase_ = g.lower[1];
  for (auto& b : bodies_) {  // held in place
    if (b.held_x) b.v[0] = 0.0;
    if (b.held_y) b.v[1] = 0.0;
    if (b.held_rotation) b.omega = 0.0;
  }
  attach_links(bodies_, time_);
  mark_wall_ends();
  classify_cells(grid_, m_, bodies_);
  classify_contacts();
  target_volume_ = volume();
}

// A free vertex can end inside a body although its prediction x + v^n dt did not (it moved with
// v-dagger, a remeshing midpoint lies on a chord, the area correction moved it): it goes back to
// the closest surface point, where the contact rules of Stage 6 then find it.
void MembraneFlow::project_out_of_bodies() {
  if (bodies_.empty()) return;
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.x);
  auto kind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.kind);
  std::vector<char> skip(m_.vertices());
  for (long i = 0; i < m_.vertices(); ++i) skip[i] = kind(i) != kFree;
  if (project_out_of(bodies_, x.data(), m_.vertices(), skip)) Kokkos::deep_copy(m_.x, x);
}

// Stage 6 contact set (Ruan 2021 §6, after Eq. 32): rule 2, a vertex within epsilon of a body (inside included)
// is a contact particle; rule 3, one with no contact neighbour is not. Rule 1 (every vertex whose
// one ring meets no fluid-air dual cell) is not applied: on a disc the vertices it would add lie on
// the body already and are caught by rule 2. Wall ends stay wall vertices.
void MembraneFlow::classify_contacts() {
  contact_.clear();
  if (bodies_.empty()) return;
  const long n = m_.vertices();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.x);
  auto kind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.kind);
  auto seg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.seg);
  std::vector<int> near(n, -1);
  const double eps = params_.contact_eps_over_dx * grid_.dx();
  for (long i = 0; i < n; ++i) {
    if (kind(i) != kFree) continue;
    const double p[2] = {x(i, 0), x(i, 1)};
    near[i] = body_within(bodies_, p, eps);
  }
  std::vector<int> edges(2 * m_.segments());
  for (long e = 0; e < m_.segments(); ++e) {
    edges[2 * e] = seg(e, 0);
    edges[2 * e + 1] = seg(e, 1);
  }
  contact_ = contact_set(near, edges);
  if (params_.receding_angle > 0) {
    const std::vector<double> xy(x.data(), x.data() + 2 * n);
    release_receding_ends(bodies_, xy, edges, params_.receding_angle, contact_);
  }
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
  classify_contacts();
}

MembraneHost MembraneFlow::host_state(bool tension) const {
  MembraneHost h;
  h.adhesion = params_.adhesion;
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
  // Stage 1 (Eq. 29): predicted body positions q^{n+1} = q^n + v^n dt (links of articulated bodies
  // at their stroke position of t + dt on the predicted root); the first solve still sees the bodies
  // at q^n, where the cell types of the previous step put them.
  attach_links(bodies_, time_);  // idempotent; places the links after a restart
  const std::vector<Disc> start = bodies_;
  std::vector<Disc> predicted = bodies_;
  predict_positions(predicted, dt);
  attach_links(predicted, time_ + dt);
  // Stages 2-3: a vertex whose predicted position x* = x + v dt penetrates a body is a contact
  // particle of the first solve, projected to the surface, with the velocity v-dagger = (x** - x)/dt
  // (Eq. 30). Penetration, not the epsilon rule, so that the membrane can peel off (paper Fig. 8c).
  MembraneHost first = host_state(false);
  std::vector<int> slaved(n, 0);
  if (!bodies_.empty()) {
    first.body.assign(n, -1);
    first.v_contact.assign(2 * n, 0.0);
    for (long i = 0; i < n; ++i) {
      if (first.kind[i] != kFree) continue;
      // Penetration with a round-off margin: a vertex on the body's surface (the initial membrane
      // wraps the wetted arc, a projection puts vertices there) lies inside or outside by the last
      // bits of its coordinates, which differ between mirror-image vertices; without the margin a
      // symmetric state slaved one side's surface vertices and not the other's.
      const int b = predicted_contact(predicted, &first.xy[2 * i], &first.v[2 * i], dt, kSurfaceMarginCells * grid_.dx(),
                                      &first.v_contact[2 * i]);
      if (b < 0) continue;
      first.body[i] = b;
      slaved[i] = 1;
      ++report.predicted_contacts;
    }
  }
  // Stage 4: fluid-membrane solve without surface tension or gravity, geometry of x^n: volume-
  // preserving advection velocities u-dagger (dofs kUdag, kVdag) and v-dagger. Fluid-rigid faces
  // carry the known J_r v_r^n.
  std::vector<double> vdag, vr_unused;
  auto t_first = timers_.scope("solve1");
  if (params_.two_solve) {
    report.first = solver_.solve(first, RigidHost{start, {}, false}, params_.rho, dt, kU, kUdag, vdag, vr_unused);
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
    // Vertices whose motion is prescribed this step: wall ends (their kind) and contact particles
    // of the first solve (kContact), which must land on the body.
    Kokkos::View<int*, MemSpace> motion_kind("membrane_kind_motion", n);
    {
      // A separate host copy: a mirror view of m_.kind would alias it on host backends.
      auto hk = Kokkos::create_mirror(Kokkos::HostSpace(), motion_kind);
      Kokkos::deep_copy(hk, m_.kind);
      for (long i = 0; i < n; ++i)
        if (slaved[i]) hk(i) = kContact;
      Kokkos::deep_copy(motion_kind, hk);
    }
    // Free vertices move with the normal part of v-dagger (tangential_motion.hpp): the inviscid
    // liquid's tangential velocity would only carry them along the membrane.
    if (params_.normal_motion) keep_normal_motion(m_, motion_kind, dv);
    // The membrane after the step encloses the initial liquid area (volume_correction.hpp: the W
    // flux of the first solve is not the membrane's area flux). The target is the initial area, not
    // the area at the start of the step, so that the change of a remeshing collapse is restored too.
    // Contact particles keep their projection velocity: they must land on the body.
    if (params_.preserve_volume) {
      Polyline pm = m_;
      pm.kind = motion_kind;
      report.volume_correction_speed = preserve_enclosed_area(pm, closed_, ybase_, dt, target_volume_, dv);
    }
    auto x = m_.x;
    Kokkos::parallel_for(
        "membrane_advect_vertices", n, KOKKOS_LAMBDA(const long i) {
          x(i, 0) += dt * dv(i, 0);
          x(i, 1) += dt * dv(i, 1);
        });
    // Even spacing by a smooth tangential slide; the contact set of the last three-way solve stays
    // where it is (a vertex sliding onto or off a body would change the contact set).
    if (params_.spacing_rate > 0) {
      auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), motion_kind);
      for (long i = 0; i < n && i < static_cast<long>(contact_.size()); ++i)
        if (contact_[i] >= 0) hk(i) = kContact;
      Kokkos::deep_copy(motion_kind, hk);
      even_out_spacing(m_, motion_kind, params_.spacing_rate);
    }
  }
  extrapolate_velocities(grid_, params_.extrapolation_layers);
  advect_velocities(grid_, dt);
  bodies_ = predicted;
  t_adv.pause();
  // Stage 6: remesh (split / collapse; new vertices interpolate v^n), then retype cells with x^{n+1}
  // and q^{n+1}, and find the contact particles of the three-way solve.
  if (params_.remesh_edge > 0) {
    auto t = timers_.scope("remesh");
    // With normal motion the contact particles of the last three-way solve are pinned: remeshing
    // keeps the contact line.
    std::vector<int> pinned;
    if (params_.normal_motion) {
      pinned.assign(m_.vertices(), 0);
      for (size_t i = 0; i < contact_.size() && i < pinned.size(); ++i) pinned[i] = contact_[i] >= 0;
    }
    const auto st = remesh_chain(m_, closed_, params_.remesh_edge, 1.5, 0.5, pinned);
    report.splits = st.splits;
    report.collapses = st.collapses;
  }
  {
    auto t = timers_.scope("classify");
    const std::vector<int> before = contact_;
    project_out_of_bodies();
    classify_cells(grid_, m_, bodies_);
    classify_contacts();
    if (before.size() == contact_.size() && report.splits == 0 && report.collapses == 0) {
      for (size_t i = 0; i < before.size(); ++i) {
        report.contacts_gained += before[i] < 0 && contact_[i] >= 0;
        report.contacts_lost += before[i] >= 0 && contact_[i] < 0;
      }
    } else {
      report.contacts_gained = report.contacts_lost = -1;
    }
  }
  auto t_second = timers_.scope("solve2");
  // Stage 7: gravity on the liquid and the bodies (not on the membrane, as in the paper), then the
  // coupled solve with the implicit capillary force: with bodies, the three-way solve of Eq. 28.
  apply_gravity(grid_, params_.gravity, dt);
  std::vector<double> vnew, vr_new;
  const long n1 = m_.vertices();
  MembraneHost second = host_state(true);
  RigidHost rigid{bodies_, std::vector<double>(3 * bodies_.size(), 0.0), true};
  for (size_t b = 0; b < bodies_.size(); ++b) {
    const Disc& body = bodies_[b];
    rigid.v_start[3 * b] = body.held_x ? 0.0 : body.v[0] + (body.fixed ? 0.0 : dt * params_.gravity[0]);
    rigid.v_start[3 * b + 1] = body.held_y ? 0.0 : body.v[1] + (body.fixed ? 0.0 : dt * params_.gravity[1]);
    rigid.v_start[3 * b + 2] = body.held_rotation ? 0.0 : body.omega;
  }
  // Articulated bodies: the momentum of a root and its links, M v_root + sum_k m_k v_kin,k, changes
  // only by the external impulses, so the root's v_r* loses sum_k m_k (v_kin,k^{n+1} - v_kin,k^n) / M
  // (the fictitious force -sum_k m_k a_kin,k; links ride on non-rotating roots, so no torque).
  for (size_t k = 0; k < bodies_.size(); ++k) {
    const Disc& link = bodies_[k];
    if (link.root < 0) continue;
    const auto root = static_cast<size_t>(link.root);
    double mr[3];
    composite_inertia(bodies_, root, mr);
    for (int d = 0; d < 2; ++d)
      if (!(d == 0 ? bodies_[root].held_x : bodies_[root].held_y) && !bodies_[root].fixed)
        rigid.v_start[3 * root + d] -= link.mass() * (link.v_kin[d] - start[k].v_kin[d]) / mr[d];
  }
  if (!bodies_.empty()) {
    second.body = contact_;
    for (int c : contact_) report.contact_vertices += c >= 0;
  }
  report.second = solver_.solve(second, rigid, params_.rho, dt, kU, kU, vnew, vr_new);
  // Stage 8: write back the membrane velocities (contact particles: J_i v_r^{n+1}) and the bodies'.
  {
    auto hv = Kokkos::create_mirror_view(m_.v);
    for (long i = 0; i < n1; ++i)
      for (int d = 0; d < 2; ++d) hv(i, d) = vnew[2 * i + d];
    Kokkos::deep_copy(m_.v, hv);
  }
  // With normal motion the membrane keeps only the normal part of its new velocity (free vertices;
  // contact vertices keep J_i v_r). Its tangential part would never move a vertex, so nothing
  // restores it: on the Laplace drop the staircase of fluid-air faces pushes the membrane along
  // itself, its tangential speed grew by 0.034 cm/s every step (rms 1.7 cm/s after 60 steps), fed
  // spurious currents back through W and lowered the pressure by 10 %; dropped, the drop holds
  // sigma / R within 0.5 % (tangential_motion.hpp).
  if (params_.normal_motion) {
    Kokkos::View<int*, MemSpace> keep_kind("membrane_kind_velocity", n1);
    auto hk = Kokkos::create_mirror(Kokkos::HostSpace(), keep_kind);
    Kokkos::deep_copy(hk, m_.kind);
    for (long i = 0; i < n1 && i < static_cast<long>(contact_.size()); ++i)
      if (contact_[i] >= 0) hk(i) = kContact;
    Kokkos::deep_copy(keep_kind, hk);
    keep_normal_motion(m_, keep_kind, m_.v);
  }
  for (size_t b = 0; b < bodies_.size(); ++b) {
    bodies_[b].v[0] = vr_new[3 * b];
    bodies_[b].v[1] = vr_new[3 * b + 1];
    bodies_[b].omega = vr_new[3 * b + 2];
  }
  // Body-body contact (body_contact.hpp), then body-wall contact (rigid_body.hpp, stop_at_walls),
  // which has the last word; links follow their root.
  if (params_.body_contact) {
    BodyContactParameters contact;
    contact.friction = params_.body_friction;
    contact.spacing = 0.25 * grid_.dx();
    report.body_contacts = resolve_body_contacts(bodies_, dt, contact);
  }
  {
    const MacGeometry g = grid_.geometry();
    for (auto& b : bodies_)
      if (!b.fixed && b.root < 0) stop_at_walls(b, g.lower, g.cells, g.dx, dt);
  }
  // Settle window (tests and "placed at rest" scenes; not in the paper, whose liquid is inviscid):
  // every velocity is multiplied by (1 - zeta dt) until settle_until.
  if (params_.settle_damping > 0 && time_ < params_.settle_until) damp_velocities(1.0 - params_.settle_damping * dt);
  time_ += dt;
  attach_links(bodies_, time_);  // the links' velocities from their root's new one
  return report;
}

void MembraneFlow::damp_velocities(double factor) {
  scale_face_velocities(grid_, factor);
  auto v = m_.v;
  Kokkos::parallel_for(
      "membrane_damp_vertices", m_.vertices(), KOKKOS_LAMBDA(const long i) {
        v(i, 0) *= factor;
        v(i, 1) *= factor;
      });
  for (auto& b : bodies_)
    if (!b.fixed && b.root < 0) {
      b.v[0] *= factor;
      b.v[1] *= factor;
      b.omega *= factor;
    }
}

double MembraneFlow::stable_dt(double cfl, double c_cap, double dt_max) {
  const double dx = grid_.dx();
  double dt = dt_max;
  double umax = max_face_speed(grid_);
  for (const auto& b : bodies_) umax = std::max(umax, std::hypot(b.v[0], b.v[1]) + std::abs(b.omega) * b.radius);
  if (umax > 0) dt = std::min(dt, cfl * dx / umax);
  if (params_.sigma > 0) dt = std::min(dt, c_cap * std::sqrt(params_.rho * dx * dx * dx / (2 * M_PI * params_.sigma)));
  return dt;
}

double MembraneFlow::volume() const { return enclosed_area(m_, closed_, ybase_); }

}  // namespace meniscus::membrane
