#include "run/stability_guard.hpp"

#include <Kokkos_Core.hpp>
#include <cmath>

#include "core/kmath.hpp"
#include "core/log.hpp"
#include "methods/instability.hpp"

namespace meniscus::run {

namespace {

// Index of a field by name, or -1.
int field_index(particles::ParticleSet& set, const std::string& name) {
  const auto& info = set.field_info();
  for (size_t i = 0; i < info.size(); ++i)
    if (info[i].name == name) return static_cast<int>(i);
  return -1;
}

struct VelocityCheck {
  long nonfinite_id = -1;  // a particle with a non-finite position or velocity
  double max_speed = 0;
};

// Kernels live in free functions (not private members), as a CUDA build of Kokkos requires.
VelocityCheck scan_velocities(particles::ParticleSet& set, int xi, int vi, int dim) {
  VelocityCheck out;
  const int n = static_cast<int>(set.size());
  if (n == 0 || vi < 0) return out;
  auto v = set.field(vi);
  auto x = xi >= 0 ? set.field(xi) : set.field(vi);
  auto id = set.id();
  long bad = -1;
  double vmax = 0;
  Kokkos::parallel_reduce(
      "run::scan_velocities", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const int i, long& b, double& m) {
        double s = 0;
        bool finite = true;
        for (int d = 0; d < dim; ++d) {
          s += v(i, d) * v(i, d);
          finite = finite && kmath::isfinite(v(i, d)) && kmath::isfinite(x(i, d));
        }
        if (!finite && static_cast<long>(id(i)) > b) b = static_cast<long>(id(i));
        if (s > m) m = s;
      },
      Kokkos::Max<long>(bad), Kokkos::Max<double>(vmax));
  out.nonfinite_id = bad;
  out.max_speed = std::sqrt(vmax);
  return out;
}

double local_mass(particles::ParticleSet& set, int mi) {
  const int n = static_cast<int>(set.size());
  if (mi < 0) return static_cast<double>(n);  // without a mass field every particle counts as one
  auto m = set.field(mi);
  double sum = 0;
  Kokkos::parallel_reduce(
      "run::total_mass", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i, double& s) { s += m(i, 0); }, sum);
  return sum;
}

// A particle may cross at most this many cells in one step: a rank's block is at least three nodes
// wide, so migration (which only reaches neighbouring ranks) cannot follow a longer jump, and it is
// far beyond the CFL bounds of the explicit methods. Implicit MPM legitimately moves about one cell
// per step, so the bound is not tighter.
constexpr double kMaxCellsPerStep = 3.0;

}  // namespace

std::string time_step_keys(const LoadedDeck& deck) {
  const YAML::Node& r = deck.deck.resolved();
  if (r["mpm"]) return "mpm.cfl or mpm.dt_max";
  if (r["sph"]) return r["sph"]["cfl"] && r["sph"]["cfl"].as<double>() > 0 ? "sph.cfl or sph.dt" : "sph.dt";
  return "the time step";
}

StabilityGuard::StabilityGuard(MPI_Comm comm, const LoadedDeck& deck, Method& method)
    : comm_(comm), file_(deck.deck.file()), step_keys_(time_step_keys(deck)) {
  cell_size_ = deck.deck.root().section("domain").real("cell_size");
  max_removed_ = deck.deck.root().section("run").real("max_removed_mass");
  mass_ = peak_ = total_mass(method);
}

double StabilityGuard::total_mass(Method& method) const {
  auto& set = method.particles();
  double m = local_mass(set, field_index(set, "mass"));
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return m;
}

void StabilityGuard::check(Method& method, long step, double dt) {
  auto& set = method.particles();
  const VelocityCheck local =
      scan_velocities(set, method.position_field(), field_index(set, "velocity"), method.dimension());
  // One reduction for both maxima (ids are exact in a double up to 2^53).
  double worst[2] = {static_cast<double>(local.nonfinite_id), local.max_speed};
  MPI_Allreduce(MPI_IN_PLACE, worst, 2, MPI_DOUBLE, MPI_MAX, comm_);
  const long bad = static_cast<long>(worst[0]);
  const double vmax = worst[1];
  if (bad >= 0)
    throw UnstableRun(log::format("step %ld: non-finite velocity or position at particle %ld: the run is unstable "
                                  "(reduce %s)", step, bad, step_keys_.c_str()));
  if (vmax * dt > kMaxCellsPerStep * cell_size_)
    throw UnstableRun(log::format("step %ld: a particle moved %.3g cells in one step (speed %.3g m/s, dt = %.3g s): "
                                  "the run is unstable (reduce %s)",
                                  step, vmax * dt / cell_size_, vmax, dt, step_keys_.c_str()));
  const double m = total_mass(method);
  if (m < mass_) removed_ += mass_ - m;
  mass_ = m;
  peak_ = std::max(peak_, m + removed_);
  if (peak_ > 0 && removed_ > max_removed_ * peak_ * (1 + 1e-12))
    throw UnstableRun(log::format("step %ld: %.3g %% of the particle mass has left the simulation (limit "
                                  "run.max_removed_mass = %.3g %%): the run is unstable (reduce %s), or raise "
                                  "run.max_removed_mass for a scene whose fluid leaves the box",
                                  step, 100 * removed_ / peak_, 100 * max_removed_, step_keys_.c_str()));
}

}  // namespace meniscus::run
