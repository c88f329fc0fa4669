#include "methods/membrane/membrane_ruan_3d.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "grid/domain_deck.hpp"
#include "methods/membrane/grid_state.hpp"

namespace meniscus::membrane {

namespace {
// The membrane's vertices become rank 0's particles, each carrying an equal share of the liquid mass.
void publish(MPI_Comm comm, particles::ParticleSet& set, MembraneFlow3& flow, double rho) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const long n = rank == 0 ? flow.membrane().vertices() : 0;
  set.resize(static_cast<size_t>(n));
  if (n > 0) copy_vertices(set, flow.membrane().x, flow.membrane().v, n, rho * flow.volume() / static_cast<double>(n));
}
}  // namespace

MembraneRuan3::MembraneRuan3(const MethodContext& ctx) : comm_(ctx.comm) {
  const auto root = ctx.root;
  check_membrane_geometry(root);
  int size = 1;
  MPI_Comm_size(comm_, &size);
  if (size > 1) {
    const auto sim = root.section("simulation");
    throw InputError(sim.file(), sim.key_path("dimension"),
                     "membrane-ruan2021 in 3D runs on one rank only so far (membrane vertices do not migrate between "
                     "ranks yet); run with 1 rank (this run has " + std::to_string(size) + ")");
  }
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
  grid_ = std::make_unique<MacGrid3>(comm_, lower, cells, dx, dom.file());
  Flow3Parameters p;
  p.rho = deck_.flow.rho;
  p.sigma = deck_.flow.sigma;
  for (int d = 0; d < 3; ++d) p.gravity[d] = deck_.gravity[d];
  p.h = deck_.thickness_over_dx * dx;
  p.preserve_volume = deck_.flow.preserve_volume;
  p.normal_motion = deck_.flow.normal_motion;
  const double edge = deck_.edge_over_dx * dx;
  geometry::TriangleMesh mesh;
  if (deck_.shape == "pool") {
    p.closed = false;
    const int n = std::max(2, static_cast<int>(std::ceil((upper[0] - lower[0]) / edge)));
    if (std::abs((upper[1] - lower[1]) - (upper[0] - lower[0])) > 1e-9 * dx)
      throw InputError(dom.file(), dom.key_path("upper"), "the 3D pool needs a square box in x and y so far");
    mesh = flat_sheet(lower, upper, deck_.level, n);
  } else {
    p.closed = true;
    mesh = perturbed_sphere({deck_.center[0], deck_.center[1], deck_.center[2]}, deck_.radius, deck_.perturbation, edge);
  }
  flow_ = std::make_unique<MembraneFlow3>(*grid_, make_triangle_membrane(mesh), p, deck_.solve);
  volume0_ = flow_->volume();
  set_.add_field("position", 3);
  set_.add_field("velocity", 3);
  set_.add_field("mass", 1, false);
  publish(comm_, set_, *flow_, p.rho);
}

double MembraneRuan3::stable_dt() {
  const auto s = max_speeds_3d(*grid_, flow_->membrane());
  const double dx = grid_->dx(), umax = std::max(s[0], s[1]);
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
  publish(comm_, set_, *flow_, deck_.flow.rho);
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
  row.emplace_back("membrane_vertices", static_cast<double>(flow_->membrane().vertices()));
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
    row.emplace_back("drop_l2_amplitude", l2_amplitude(flow_->membrane(), {c[0], c[1], c[2]}));
    row.emplace_back("laplace_pressure", 2 * deck_.flow.sigma / std::cbrt(3 * vol / (4 * M_PI)));
  }
}

long MembraneRuan3::global_particle_count() { return flow_->membrane().vertices(); }

void MembraneRuan3::restore_state(const std::vector<std::pair<std::string, double>>&) {
  throw InputError("--restart", "simulation.dimension",
                   "restarting the 3D membrane method is not implemented yet (its membrane and grid state are not "
                   "checkpointed)");
}

}  // namespace meniscus::membrane
