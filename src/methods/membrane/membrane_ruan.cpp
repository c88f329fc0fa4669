#include "methods/membrane/membrane_ruan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "particles/balance.hpp"
#include "grid/domain_deck.hpp"
#include "methods/membrane/fluid_kernels.hpp"
#include "methods/membrane/grid_state.hpp"
#include "methods/membrane/rank_layout.hpp"

namespace meniscus::membrane {


MembraneRuan::MembraneRuan(const MethodContext& ctx) : comm_(ctx.comm) {
  const auto root = ctx.root;
  check_membrane_geometry(root);  // the refusals `meniscus check` shares
  deck_ = read_membrane_deck(root);
  const auto spec = grid::read_domain<2>(root, 2, kDofs);
  const auto dom = root.section("domain");
  double lower[2];
  int cells[2];
  const double dx = spec.dx;
  for (int d = 0; d < 2; ++d) {
    lower[d] = spec.lower[d];
    cells[d] = static_cast<int>(std::lround((spec.upper[d] - spec.lower[d]) / dx));
  }
  // Rank cuts (rank_layout.hpp, shared with 3D).
  std::array<int, 2> procs{spec.procs[0], spec.procs[1]};
  std::array<std::vector<int>, 2> ranges;
  membrane_rank_layout<2>(root, deck_, deck_.bodies, lower, cells, dx, spec.stencil_width, procs, ranges, comm_);
  grid_ = std::make_unique<MacGrid>(comm_, lower, cells, dx, dom.file(), procs, ranges);
  particles::warn_no_rebalancing(root, "membrane-ruan2021", comm_);
  deck_.flow.h = deck_.thickness_over_dx * dx;
  if (deck_.remesh) deck_.flow.remesh_edge = deck_.edge_over_dx * dx;
  const double edge = deck_.edge_over_dx * dx;
  Polyline m;
  bool closed = false;
  const double upper[2] = {lower[0] + cells[0] * dx, lower[1] + cells[1] * dx};
  if (deck_.shape == "pool") {
    m = make_polyline(pool_surface(lower[0], upper[0], deck_.level, edge, deck_.bodies), false);
  } else {
    const int n = std::max(8, static_cast<int>(std::ceil(2 * M_PI * deck_.radius / edge)));
    m = make_circle(deck_.center[0], deck_.center[1], deck_.radius, n, deck_.perturbation);
    closed = true;
  }
  closed_ = closed;
  flow_ = std::make_unique<MembraneFlow>(*grid_, std::move(m), closed, deck_.flow, deck_.solve, deck_.bodies);
  volume0_ = flow_->volume();
  set_.add_field("position", 2);
  set_.add_field("velocity", 2);
  // Each vertex's equal share rho A / N of the liquid mass (A the enclosed area): its sum is the
  // liquid mass, which the run's stability guard watches. It is not the membrane mass rho h L / 2,
  // whose sum changes with the surface length, and it stays constant when remeshing changes N.
  set_.add_field("mass", 1, false);
  publish_vertices();
}


void MembraneRuan::publish_vertices() {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  auto& m = flow_->membrane();
  const long n = rank == 0 ? m.vertices() : 0;
  set_.resize(static_cast<size_t>(n));
  if (n == 0) return;
  copy_vertices(set_, m.x, m.v, n, deck_.flow.rho * flow_->volume() / static_cast<double>(n));
}

double MembraneRuan::stable_dt() { return flow_->stable_dt(deck_.cfl, deck_.capillary_factor, deck_.dt_max); }

void MembraneRuan::step(double dt) {
  last_ = flow_->step(dt);
  last_dt_ = dt;
  ++steps_;
  const double u = max_face_speed(*grid_);
  if (!std::isfinite(u)) throw RuntimeError("membrane-ruan2021: non-finite face velocity at step " + std::to_string(steps_));
  publish_vertices();
}

void MembraneRuan::diagnostics(DiagnosticRow& row) {
  const double vol = flow_->volume();
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), flow_->membrane().v);
  double vmax = 0;
  for (long i = 0; i < flow_->membrane().vertices(); ++i) vmax = std::max(vmax, std::hypot(v(i, 0), v(i, 1)));
  row.emplace_back("liquid_volume", vol);
  row.emplace_back("volume_change", vol / volume0_ - 1);
  row.emplace_back("max_face_speed", max_face_speed(*grid_));
  row.emplace_back("max_membrane_speed", vmax);
  row.emplace_back("volume_correction_speed", last_.volume_correction_speed);
  row.emplace_back("solve1_iterations", last_.first.iterations);
  row.emplace_back("solve2_iterations", last_.second.iterations);
  row.emplace_back("fluid_air_faces", static_cast<double>(last_.second.fluid_air_faces));
  row.emplace_back("uncoupled_components", static_cast<double>(last_.second.uncoupled_components));
  row.emplace_back("membrane_vertices", static_cast<double>(flow_->membrane().vertices()));
  if (!flow_->bodies().empty()) {
    row.emplace_back("contact_vertices", static_cast<double>(last_.contact_vertices));
    row.emplace_back("fluid_rigid_faces", static_cast<double>(last_.second.fluid_rigid_faces));
    if (flow_->bodies().size() > 1) row.emplace_back("body_contacts", static_cast<double>(last_.body_contacts));
  }
  // Each body's state (Ruan 2021 §4.3 generalized coordinates and velocities).
  for (size_t b = 0; b < flow_->bodies().size(); ++b) {
    const Disc& body = flow_->bodies()[b];
    const std::string p = "body" + std::to_string(b) + "_";
    row.emplace_back(p + "x", body.c[0]);
    row.emplace_back(p + "y", body.c[1]);
    row.emplace_back(p + "angle", body.angle);
    row.emplace_back(p + "vx", body.v[0]);
    row.emplace_back(p + "vy", body.v[1]);
    row.emplace_back(p + "omega", body.omega);
    // The hold's reaction, negated: the force of the liquid and the membrane along each held axis
    // over the last step (membrane.bodies[N].held).
    if (body.held_x) row.emplace_back(p + "held_fx", b < last_.second.held_force.size() / 2 ? last_.second.held_force[2 * b] : 0.0);
    if (body.held_y)
      row.emplace_back(p + "held_fy", b < last_.second.held_force.size() / 2 ? last_.second.held_force[2 * b + 1] : 0.0);
  }
}

std::vector<io::BodyRecord> MembraneRuan::body_records() {
  std::vector<io::BodyRecord> out;
  for (const Disc& body : flow_->bodies()) {  // replicated on every rank
    io::BodyRecord r;
    for (int d = 0; d < 2; ++d) {
      r.position[d] = body.c[d];
      r.velocity[d] = body.v[d];
    }
    r.angular_velocity = body.omega;
    r.angle = body.angle;
    r.radius = body.radius;
    r.density = body.density;
    out.push_back(r);
  }
  return out;
}

namespace {
// Prepares an empty 2D polyline; true on rank 0, which alone fills it (the membrane and the bodies
// are replicated, so one rank writes them).
bool fills_polyline(MPI_Comm comm, io::SurfaceMesh& out) {
  out.nodes_per_cell = 2;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank == 0;
}
}  // namespace

io::SurfaceMesh MembraneRuan::body_outlines() {
  io::SurfaceMesh out;
  if (!fills_polyline(comm_, out)) return out;
  for (const Disc& body : flow_->bodies()) {
    // Corners kept; curved outlines with points half a cell apart.
    const auto ring = outline_points(body, 0.5 * grid_->dx());
    const int64_t first = static_cast<int64_t>(out.position.size() / 3), n = static_cast<int64_t>(ring.size() / 2);
    for (int64_t k = 0; k < n; ++k) {
      const double* x = &ring[2 * k];
      out.position.insert(out.position.end(), {x[0], x[1], 0.0});
      out.velocity.insert(out.velocity.end(), {body.point_velocity(0, x), body.point_velocity(1, x), 0.0});
      out.cells.insert(out.cells.end(), {first + k, first + (k + 1) % n});
    }
  }
  return out;
}

io::SurfaceMesh MembraneRuan::surface_mesh() {
  io::SurfaceMesh out;
  if (!fills_polyline(comm_, out)) return out;
  const Polyline& m = flow_->membrane();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.v);
  auto seg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.seg);
  for (long i = 0; i < m.vertices(); ++i) {
    out.position.insert(out.position.end(), {x(i, 0), x(i, 1), 0.0});
    out.velocity.insert(out.velocity.end(), {v(i, 0), v(i, 1), 0.0});
  }
  for (long e = 0; e < m.segments(); ++e) out.cells.insert(out.cells.end(), {seg(e, 0), seg(e, 1)});
  return out;
}

long MembraneRuan::global_particle_count() { return flow_->membrane().vertices(); }

std::vector<std::pair<std::string, double>> MembraneRuan::state() {
  std::vector<std::pair<std::string, double>> out = {{"steps", static_cast<double>(steps_)},
                                                     {"initial_volume", volume0_},
                                                     {"target_volume", flow_->target_volume()},
                                                     {"last_dt", last_dt_},
                                                     {"flow_time", flow_->time()}};
  // The bodies' positions and velocities (their shape and density come from the deck).
  for (auto& kv : body_state(flow_->bodies())) out.push_back(std::move(kv));
  return out;
}

// The grid's every dof on every node (face velocities, pressure, cell types, distances): the next
// step starts from the face velocities, and the cell types stand for the membrane they came from.
std::vector<Method::GridTable> MembraneRuan::grid_state() {
  return {GridTable{"mac_nodes", kGridStateColumns, pack_grid_rows(*grid_)}};
}

void MembraneRuan::restore_grid_state(const std::vector<GridTable>& tables) {
  for (const auto& t : tables) {
    if (t.name != "mac_nodes") continue;
    long used = unpack_grid_rows(*grid_, t.values), total = 0;
    MPI_Allreduce(&used, &total, 1, MPI_LONG, MPI_SUM, comm_);
    const MacGeometry g = grid_->geometry();
    const long nodes = static_cast<long>(g.cells[0] + 1) * (g.cells[1] + 1);
    if (total != nodes)
      throw InputError("--restart", "domain", "the checkpoint's MAC grid has " + std::to_string(total) + " of the " +
                                                  std::to_string(nodes) + " nodes this deck's domain needs");
  }
}

void MembraneRuan::redistribute_particles() { gather_vertices_to_root(comm_, set_); }

void MembraneRuan::restore_state(const std::vector<std::pair<std::string, double>>& state) {
  for (const auto& [k, v] : state) {
    if (k == "steps") steps_ = static_cast<long>(v);
    else if (k == "initial_volume") volume0_ = v;
    else if (k == "target_volume") flow_->set_target_volume(v);
    else if (k == "last_dt") last_dt_ = v;
    else if (k == "flow_time") flow_->set_time(v);
  }
  if (const long missing = restore_body_state(flow_->bodies(), state); missing >= 0)
    throw InputError("--restart", "membrane.bodies",
                     "the checkpoint holds no state for body " + std::to_string(missing) + " of the deck");
  // The membrane is the checkpoint's vertices (rank 0's particles, in chain order), on every rank.
  flow_->replace_membrane(broadcast_membrane(comm_, set_, closed_));
  publish_vertices();
}

bool MembraneRuan::grid_snapshot(GridSnapshot& out, bool shared_faces) {
  mac_grid_snapshot(*grid_, last_dt_, out, shared_faces);
  return true;
}

}  // namespace meniscus::membrane
