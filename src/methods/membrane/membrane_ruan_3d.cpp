#include "methods/membrane/membrane_ruan_3d.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "grid/domain_deck.hpp"
#include "particles/balance.hpp"
#include "methods/membrane/grid_state.hpp"
#include "methods/membrane/rank_layout.hpp"

namespace meniscus::membrane {

namespace {
// Each rank's owned membrane vertices become its particles (id: the vertex's global id), each
// carrying an equal share of the liquid mass. Collective (the volume).
void publish(particles::ParticleSet& set, MembraneFlow3& flow, double rho) {
  const TriangleMembrane& m = flow.membrane();
  const long n = m.owned_vertices, total = flow.global_vertices();
  const double share = total > 0 ? rho * flow.volume() / static_cast<double>(total) : 0.0;
  set.resize(static_cast<size_t>(n));
  if (n == 0) return;
  copy_vertices(set, m.x, m.v, n, share);
  auto id = set.id();
  auto gid = m.gid;
  Kokkos::parallel_for(
      "membrane3_publish_ids", n, KOKKOS_LAMBDA(const long i) { id(i) = gid(i); });
}
}  // namespace

MembraneRuan3::MembraneRuan3(const MethodContext& ctx) : comm_(ctx.comm) {
  const auto root = ctx.root;
  check_membrane_geometry(root);
  deck_ = read_membrane_deck(root);
  const auto spec = grid::read_domain<3>(root, 2, k3Dofs);
  const auto dom = root.section("domain");
  double lower[3], upper[3];
  int cells[3];
  const double dx = spec.dx;
  for (int d = 0; d < 3; ++d) {
    lower[d] = spec.lower[d];
    cells[d] = static_cast<int>(std::lround((spec.upper[d] - spec.lower[d]) / dx));
    upper[d] = lower[d] + cells[d] * dx;
  }
  // The grid is split over the ranks as in 2D (rank_layout.hpp: `domain.ranks`, `domain.balance`;
  // too many ranks for the cells is an input error naming domain.cell_size or domain.ranks); the
  // membrane and the bodies are replicated on every rank (membrane_flow_3d.hpp).
  std::array<int, 3> procs{spec.procs[0], spec.procs[1], spec.procs[2]};
  std::array<std::vector<int>, 3> ranges;
  membrane_rank_layout<3>(root, deck_, deck_.bodies_3d, lower, cells, dx, spec.stencil_width, procs, ranges, comm_);
  grid_ = std::make_unique<MacGrid3>(comm_, lower, cells, dx, dom.file(), procs, ranges);
  particles::warn_no_rebalancing(root, "membrane-ruan2021", comm_);
  Flow3Parameters p;
  p.rho = deck_.flow.rho;
  p.sigma = deck_.flow.sigma;
  for (int d = 0; d < 3; ++d) p.gravity[d] = deck_.gravity[d];
  p.h = deck_.thickness_over_dx * dx;
  p.preserve_volume = deck_.flow.preserve_volume;
  p.normal_motion = deck_.flow.normal_motion;
  p.two_solve = deck_.flow.two_solve;
  p.remesh = deck_.remesh;
  p.remesh_smoothing = deck_.remesh_smoothing;
  p.contact_eps_over_dx = deck_.flow.contact_eps_over_dx;
  p.receding_angle = deck_.flow.receding_angle;
  p.adhesion = deck_.flow.adhesion;
  p.body_contact = deck_.flow.body_contact;
  p.body_friction = deck_.flow.body_friction;
  p.settle_damping = deck_.flow.settle_damping;
  p.settle_until = deck_.flow.settle_until;
  const double edge = deck_.edge_over_dx * dx;
  geometry::TriangleMesh mesh;
  if (deck_.shape == "pool") {
    p.closed = false;
    const int n = std::max(2, static_cast<int>(std::ceil((upper[0] - lower[0]) / edge)));
    mesh = flat_sheet(lower, upper, deck_.level, n);
    wrap_wetted_caps(mesh, deck_.level, deck_.bodies_3d);  // the liquid starts against the bodies' wetted caps
  } else {
    p.closed = true;
    mesh = perturbed_sphere({deck_.center[0], deck_.center[1], deck_.center[2]}, deck_.radius, deck_.perturbation, edge);
  }
  flow_ = std::make_unique<MembraneFlow3>(*grid_, make_triangle_membrane(mesh), p, deck_.solve, deck_.bodies_3d);
  volume0_ = flow_->volume();
  set_.add_field("position", 3);
  set_.add_field("velocity", 3);
  set_.add_field("mass", 1, false);
  publish(set_, *flow_, p.rho);
}

void MembraneRuan3::redistribute_particles() { gather_vertices_to_root(comm_, set_); }

double MembraneRuan3::stable_dt() {
  const auto s = max_speeds_3d(*grid_, flow_->membrane());
  const double dx = grid_->dx();
  double umax = std::max(s[0], s[1]);
  for (const auto& b : flow_->bodies())
    umax = std::max(umax, std::hypot(b.v[0], b.v[1], b.v[2]) + std::hypot(b.omega[0], b.omega[1], b.omega[2]) * b.radius);
  double dt = deck_.dt_max;
  if (umax > 0) dt = std::min(dt, deck_.cfl * dx / umax);
  if (deck_.flow.sigma > 0)
    dt = std::min(dt, deck_.capillary_factor * std::sqrt(deck_.flow.rho * dx * dx * dx / (2 * M_PI * deck_.flow.sigma)));
  return dt;
}

void MembraneRuan3::step(double dt) {
  last_ = flow_->step(dt);
  last_dt_ = dt;
  ++steps_;
  const auto s = max_speeds_3d(*grid_, flow_->membrane());
  if (!std::isfinite(s[0]) || !std::isfinite(s[1]))
    throw RuntimeError("membrane-ruan2021 (3D): non-finite velocity at step " + std::to_string(steps_));
  publish(set_, *flow_, deck_.flow.rho);
}

void MembraneRuan3::diagnostics(DiagnosticRow& row) {
  const double vol = flow_->volume();
  const auto s = max_speeds_3d(*grid_, flow_->membrane());
  row.emplace_back("liquid_volume", vol);
  row.emplace_back("volume_change", vol / volume0_ - 1);
  row.emplace_back("max_face_speed", s[0]);
  row.emplace_back("max_membrane_speed", s[1]);
  row.emplace_back("solve1_iterations", last_.first.iterations);
  row.emplace_back("solve2_iterations", last_.second.iterations);
  row.emplace_back("fluid_air_faces", static_cast<double>(last_.second.fluid_air_faces));
  row.emplace_back("uncoupled_components", static_cast<double>(last_.second.uncoupled_components));
  row.emplace_back("membrane_vertices", static_cast<double>(flow_->global_vertices()));
  row.emplace_back("splits", static_cast<double>(last_.splits));
  row.emplace_back("collapses", static_cast<double>(last_.collapses));
  row.emplace_back("flips", static_cast<double>(last_.flips));
  if (!flow_->bodies().empty()) {
    row.emplace_back("contact_vertices", static_cast<double>(last_.contact_vertices));
    row.emplace_back("fluid_rigid_faces", static_cast<double>(last_.second.fluid_rigid_faces));
    if (flow_->bodies().size() > 1) row.emplace_back("body_contacts", static_cast<double>(last_.body_contacts));
  }
  // Each body's state (Ruan 2021 §4.3 generalized coordinates and velocities; the orientation a
  // unit quaternion).
  for (auto& kv : body_state(flow_->bodies())) row.push_back(std::move(kv));
  // The hold's reaction, negated: the force (dyn) of the liquid and the membrane along each held
  // axis over the last step (membrane.bodies[N].held).
  const std::vector<double>& held = last_.second.held_force;
  for (size_t b = 0; b < flow_->bodies().size(); ++b)
    for (int d = 0; d < 3; ++d)
      if (flow_->bodies()[b].held[d])
        row.emplace_back("body" + std::to_string(b) + "_held_f" + std::string(1, static_cast<char>('x' + d)),
                         3 * b + d < held.size() ? held[3 * b + d] : 0.0);
  if (deck_.shape == "drop") {
    // Mean pressure of the liquid cells more than two cells inside the initial radius, and Laplace's
    // 2 sigma / R for the drop's equal-volume radius.
    const double inner = deck_.radius - 2 * grid_->dx();
    const double* c = deck_.center;
    const double p = last_dt_ > 0 ? mean_fluid_pressure_3d(*grid_, last_dt_, [&](const double* x) {
      return std::hypot(x[0] - c[0], x[1] - c[1], x[2] - c[2]) < inner;
    }) : 0.0;
    row.emplace_back("drop_pressure", p);
    // The l = 2 mode's amplitude about the z axis (membrane.perturbation at t = 0): its oscillation
    // is the Rayleigh period (Lamb 1932 §275).
    row.emplace_back("drop_l2_amplitude", l2_amplitude(flow_->membrane(), {c[0], c[1], c[2]}, comm_));
    row.emplace_back("laplace_pressure", 2 * deck_.flow.sigma / std::cbrt(3 * vol / (4 * M_PI)));
  }
}

bool MembraneRuan3::grid_snapshot(GridSnapshot& out, bool shared_faces) {
  mac_grid_snapshot(*grid_, last_dt_, out, shared_faces);
  return true;
}

io::SurfaceMesh MembraneRuan3::surface_mesh() {
  io::SurfaceMesh out;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  const TriangleMembrane m = flow_->whole_membrane();  // one dataset, written by rank 0
  if (rank != 0) return out;
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.v);
  auto tri = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.tri);
  for (long i = 0; i < m.vertices(); ++i)
    for (int d = 0; d < 3; ++d) {
      out.position.push_back(x(i, d));
      out.velocity.push_back(v(i, d));
    }
  for (long t = 0; t < m.triangles(); ++t)
    for (int c = 0; c < 3; ++c) out.cells.push_back(tri(t, c));
  return out;
}

std::vector<io::BodyRecord> MembraneRuan3::body_records() {
  std::vector<io::BodyRecord> out;
  for (const RigidBody3& body : flow_->bodies()) {
    io::BodyRecord r;
    for (int d = 0; d < 3; ++d) {
      r.position[d] = body.c[d];
      r.velocity[d] = body.v[d];
      r.spin[d] = body.omega[d];
    }
    body.rotation(r.rotation);
    r.radius = body.radius;
    r.density = body.density;
    out.push_back(r);
  }
  return out;
}

long MembraneRuan3::global_particle_count() { return flow_->global_vertices(); }

std::vector<std::pair<std::string, double>> MembraneRuan3::state() {
  std::vector<std::pair<std::string, double>> out = {{"steps", static_cast<double>(steps_)},
                                                     {"initial_volume", volume0_},
                                                     {"target_volume", flow_->target_volume()},
                                                     {"remesh_edge", flow_->remesh_edge()},
                                                     {"last_dt", last_dt_},
                                                     {"flow_time", flow_->time()}};
  // The bodies' positions, orientations and velocities (their shape and density come from the deck).
  for (auto& kv : body_state(flow_->bodies())) out.push_back(std::move(kv));
  return out;
}

std::vector<Method::GridTable> MembraneRuan3::grid_state() {
  // The triangles (3 global vertex ids per row, in the gathered order: the same at every rank
  // count), written by rank 0.
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  std::vector<double> tri;
  const TriangleMembrane whole = flow_->whole_membrane();
  if (rank == 0) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole.tri);
    tri.resize(3 * h.extent(0));
    for (size_t t = 0; t < h.extent(0); ++t)
      for (int c = 0; c < 3; ++c) tri[3 * t + c] = h(t, c);
  }
  return {GridTable{"mac_nodes", grid_state_columns<3>(), pack_grid_rows(*grid_)},
          GridTable{"membrane_triangles", 3, std::move(tri)}};
}

void MembraneRuan3::restore_grid_state(const std::vector<GridTable>& tables) {
  for (const auto& t : tables) {
    if (t.name == "membrane_triangles") restored_triangles_ = t.values;
    if (t.name != "mac_nodes") continue;
    long used = unpack_grid_rows(*grid_, t.values), total = 0;
    MPI_Allreduce(&used, &total, 1, MPI_LONG, MPI_SUM, comm_);
    const MacGeometryT<3> g = grid_->geometry();
    const long nodes = static_cast<long>(g.cells[0] + 1) * (g.cells[1] + 1) * (g.cells[2] + 1);
    if (total != nodes)
      throw InputError("--restart", "domain", "the checkpoint's MAC grid has " + std::to_string(total) + " of the " +
                                                  std::to_string(nodes) + " nodes this deck's domain needs");
  }
}

void MembraneRuan3::restore_state(const std::vector<std::pair<std::string, double>>& state) {
  for (const auto& [k, v] : state) {
    if (k == "steps") steps_ = static_cast<long>(v);
    else if (k == "initial_volume") volume0_ = v;
    else if (k == "target_volume") flow_->set_target_volume(v);
    else if (k == "remesh_edge") flow_->set_remesh_edge(v);
    else if (k == "last_dt") last_dt_ = v;
    else if (k == "flow_time") flow_->set_time(v);
  }
  if (const long missing = restore_body_state(flow_->bodies(), state); missing >= 0)
    throw InputError("--restart", "membrane.bodies",
                     "the checkpoint holds no state for body " + std::to_string(missing) + " of the deck");
  // The membrane: the checkpoint's vertices (every rank's particles, gathered onto rank 0 by id)
  // and triangles (rank 0's table), on every rank; each rank then keeps its part.
  gather_vertices_to_root(comm_, set_);
  const MembraneVertexRows rows = broadcast_vertices(comm_, set_);
  if (rows.bad_id) throw InputError("--restart", "particles/id", "membrane vertex id out of range");
  const long n = rows.vertices();
  long ntri = static_cast<long>(restored_triangles_.size());
  MPI_Bcast(&ntri, 1, MPI_LONG, 0, comm_);
  restored_triangles_.resize(ntri);
  MPI_Bcast(restored_triangles_.data(), static_cast<int>(ntri), MPI_DOUBLE, 0, comm_);
  geometry::TriangleMesh mesh;
  mesh.vertices.resize(n);
  for (long i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) mesh.vertices[i][d] = rows.x[3 * i + d];
  for (size_t t = 0; t + 2 < restored_triangles_.size(); t += 3) {
    std::array<int, 3> tri;
    for (int c = 0; c < 3; ++c) {
      tri[c] = static_cast<int>(restored_triangles_[t + c]);
      if (tri[c] < 0 || tri[c] >= n)
        throw InputError("--restart", "grid/membrane_triangles", "a triangle names a vertex the checkpoint lacks");
    }
    mesh.triangles.push_back(tri);
  }
  TriangleMembrane m = make_triangle_membrane(mesh);
  auto hv = Kokkos::create_mirror_view(m.v);
  for (long i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) hv(i, d) = rows.v[3 * i + d];
  Kokkos::deep_copy(m.v, hv);
  flow_->replace_membrane(std::move(m));
  restored_triangles_.clear();
  publish(set_, *flow_, deck_.flow.rho);
}

}  // namespace meniscus::membrane
