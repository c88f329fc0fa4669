// Temperature in the MPM step (Chen et al. 2021, Sec. 3.5, 4.3.2 and 5): the particle fields T and
// grad T (persistent, so checkpoints, migration and HDF5 output carry them), their initial values from
// the sources, and the call of the grid heat solve (mpm_heat.hpp) between the velocity update and G2P,
// at the particle positions x^n and with this step's surface samples as Robin quadrature points; then
// the phase change (Sec. 3.5): a solid above T_melt becomes its liquid partner (J = 1), a liquid below
// it its solid partner (F = I), mass and V0 kept. With a latent heat L > 0 (an extension; the paper has
// none) each particle carries a liquid fraction phi and the enthalpy e = c_p T + L phi: the heat the solve
// brings, c_p (T_new - T), moves phi first and T only once phi reaches 0 or 1, so T stays at T_melt while
// the latent heat is absorbed or released (the temperature-recovery enthalpy method).
#include <mpi.h>

#include "core/error.hpp"

#include "methods/mpm/mpm_method.hpp"

namespace meniscus::mpm {

template <int Dim>
void MpmMethod<Dim>::setup_heat(const config::Section& root) {
  const HeatOptions options = read_heat_options(root);
  // Collider temperatures in ColliderSet order: the box faces (insulated) first, then the `colliders` list.
  const bool walls = root.section("domain").text("walls") != "none";
  heat_.collider_T.assign(walls ? 2 * Dim : 0, -1.0);
  for (const auto& c : root.list("colliders")) {
    if (c.has("temperature") && !options.enabled)
      throw InputError(c.file(), c.key_path("temperature"), "a collider temperature needs mpm.heat.enabled");
    heat_.collider_T.push_back(c.has("temperature") ? c.real("temperature") : -1.0);
  }
  if (!options.enabled) {
    read_phase_partners(root, false);  // a phase_partner without mpm.heat is an input error
    return;
  }
  heat_.T = set_.add_field("temperature", 1);
  heat_.gradT = set_.add_field("temperature_gradient", Dim);
  heat_.solver = std::make_unique<HeatSolver<Dim>>(*decomp_, options, read_thermal_materials(root));
  heat_.hysteresis = options.hysteresis;
  const auto partner = read_phase_partners(root, options.enabled);
  bool melts = false;
  for (int p : partner) melts = melts || p >= 0;
  if (!melts) return;
  heat_.phi = set_.add_field("liquid_fraction", 1);
  heat_.partner = Kokkos::View<int*>("phase_partner", partner.size());
  auto h = Kokkos::create_mirror_view(heat_.partner);
  for (size_t i = 0; i < partner.size(); ++i) h(i) = partner[i];
  Kokkos::deep_copy(heat_.partner, h);
}

template <int Dim>
void MpmMethod<Dim>::seed_temperature(const config::Section& root, const particles::SeededParticles& seeded) {
  if (heat_.T < 0) return;
  const auto sources = root.list("sources");
  const int ns = static_cast<int>(sources.size());
  Kokkos::View<double* [Dim + 1]> law("temperature_law", ns);  // T at the origin, gradient
  auto h = Kokkos::create_mirror_view(law);
  for (int i = 0; i < ns; ++i) {
    h(i, 0) = sources[i].real("temperature");
    const auto g = sources[i].vector("temperature_gradient");
    for (int d = 0; d < Dim; ++d) h(i, 1 + d) = g[d];
  }
  Kokkos::deep_copy(law, h);
  auto x = seeded.x;
  auto src = seeded.source;
  auto T = set_.field(heat_.T), gT = set_.field(heat_.gradT);
  Kokkos::parallel_for(
      "mpm::seed_temperature", Kokkos::RangePolicy<>(0, x.extent(0)), KOKKOS_LAMBDA(const int p) {
        double t = law(src(p), 0);
        for (int d = 0; d < Dim; ++d) {
          t += law(src(p), 1 + d) * x(p, d);
          gT(p, d) = law(src(p), 1 + d);
        }
        T(p, 0) = t;
      });
  if (heat_.phi < 0) return;
  auto phi = set_.field(heat_.phi);
  auto mat = seeded.material;
  auto mats = materials_;
  Kokkos::parallel_for(
      "mpm::seed_liquid_fraction", Kokkos::RangePolicy<>(0, x.extent(0)), KOKKOS_LAMBDA(const int p) {
        phi(p, 0) = mats(mat(p)).model == physics::MaterialModel::Fluid ? 1.0 : 0.0;
      });
}

template <int Dim>
void MpmMethod<Dim>::heat_update(double dt) {
  auto t = timers_.scope("heat_solve");
  typename HeatSolver<Dim>::Particles p;
  p.x = set_.field(f_.x);
  p.mass = set_.field(f_.mass);
  p.volume = set_.field(f_.volume);
  p.J = set_.field(f_.J);
  p.T = set_.field(heat_.T);
  p.gradT = set_.field(heat_.gradT);
  p.material = set_.material();
  p.size = set_.size();
  typename HeatSolver<Dim>::Samples s;
  if (st_.active && !st_.massless) {
    s.active = true;
    s.position = st_.samples.position;
    s.area = st_.samples.area;
    s.parent = st_.samples.parent;
    s.group = st_.group;
    s.group_start = st_.group_start;
    s.group_members = st_.group_members;
    s.size = st_.samples.size();
  }
  heat_.solver->set_boundary(time_, colliders_.at_time(time_), heat_.collider_T);
  if (wick_.enabled) {
    locate_wick_tip();
    if (wick_.curves.empty()) {
      const double tip[1][3] = {{wick_.tip[0], wick_.tip[1], wick_.tip[2]}};
      heat_.solver->set_flux_tips(1, tip);
    } else {
      double tips[FluxRegion::kMaxTips][3];
      for (size_t k = 0; k < wick_.tips.size(); ++k)
        for (int d = 0; d < 3; ++d) tips[k][d] = wick_.tips[k][d];
      heat_.solver->set_flux_tips(static_cast<int>(wick_.tips.size()), tips);
    }
  }
  heat_.last = heat_.solver->solve(dt, p, s);
  heat_.iterations += heat_.last.iterations;
  if (heat_.phi >= 0) apply_phase_change();
}

template <int Dim>
void MpmMethod<Dim>::apply_phase_change() {
  auto T = set_.field(heat_.T), phi = set_.field(heat_.phi), J = set_.field(f_.J), F = deformation();
  auto mat = set_.material();
  auto mats = materials_;
  auto th = heat_.solver->thermal_materials();
  auto partner = heat_.partner;
  const double hys = heat_.hysteresis;
  long melted = 0, frozen = 0;
  Kokkos::parallel_reduce(
      "mpm::phase_change", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, long& nm, long& nf) {
        const int m = mat(p), other = partner(m);
        if (other < 0) return;
        const physics::ThermalProperties& tp = th(m);
        const double Tm = tp.melting_temperature, c = tp.heat_capacity, L = tp.latent_heat;
        const bool solid = mats(m).model == physics::MaterialModel::FixedCorotated;
        bool flip = false;
        if (L > 0) {
          // T holds c_p T_new with the latent part still in phi: recover (T, phi) from e = c T + L phi.
          const double e = c * T(p, 0) + L * phi(p, 0);
          double f;
          if (e <= c * Tm) {
            T(p, 0) = e / c;
            f = 0;
          } else if (e >= c * Tm + L) {
            T(p, 0) = (e - L) / c;
            f = 1;
          } else {
            T(p, 0) = Tm;
            f = (e - c * Tm) / L;
          }
          phi(p, 0) = f;
          flip = solid ? f >= 1 : f <= 0;
        } else {
          flip = solid ? T(p, 0) > Tm + hys : T(p, 0) < Tm - hys;
          if (flip) phi(p, 0) = solid ? 1.0 : 0.0;
        }
        if (!flip) return;
        mat(p) = other;
        J(p, 0) = 1;  // a new liquid starts at rest volume, a new solid undeformed
        if (!solid)
          for (int i = 0; i < Dim * Dim; ++i) F(p, i) = (i % (Dim + 1) == 0) ? 1.0 : 0.0;
        if (solid)
          nm += 1;
        else
          nf += 1;
      },
      melted, frozen);
  heat_.flips += melted + frozen;
  heat_.melted += melted;
  heat_.frozen += frozen;
}

template <int Dim>
void MpmMethod<Dim>::heat_diagnostics(DiagnosticRow& row) {
  auto T = set_.field(heat_.T), mass = set_.field(f_.mass);
  auto phi = heat_.phi >= 0 ? set_.field(heat_.phi) : particles::RealField();
  const bool has_phi = heat_.phi >= 0;
  auto mat = set_.material();
  auto th = heat_.solver->thermal_materials();
  double s[3] = {0, 0, 0}, lo = 1e300, hi = -1e300;  // sum m c_p T + m L phi, sum m T, sum m phi
  Kokkos::parallel_reduce(
      "mpm::heat_diagnostics", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, double& e, double& mt, double& mphi, double& mn, double& mx) {
        const physics::ThermalProperties& tp = th(mat(p));
        const double f = has_phi ? phi(p, 0) : 0.0;
        e += mass(p, 0) * (tp.heat_capacity * T(p, 0) + tp.latent_heat * f);
        mt += mass(p, 0) * T(p, 0);
        mphi += mass(p, 0) * f;
        mn = T(p, 0) < mn ? T(p, 0) : mn;
        mx = T(p, 0) > mx ? T(p, 0) : mx;
      },
      s[0], s[1], s[2], Kokkos::Min<double>(lo), Kokkos::Max<double>(hi));
  double m = 0;
  Kokkos::parallel_reduce(
      "mpm::heat_mass", Kokkos::RangePolicy<>(0, set_.size()), KOKKOS_LAMBDA(const int p, double& a) { a += mass(p, 0); }, m);
  double sums[5] = {s[0], s[1], s[2], m, static_cast<double>(heat_.flips)};
  MPI_Allreduce(MPI_IN_PLACE, sums, 5, MPI_DOUBLE, MPI_SUM, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, comm_);
  row.emplace_back("thermal_energy", sums[0]);
  row.emplace_back("temperature_mean", sums[3] > 0 ? sums[1] / sums[3] : 0.0);
  row.emplace_back("temperature_min", sums[3] > 0 ? lo : 0.0);
  row.emplace_back("temperature_max", sums[3] > 0 ? hi : 0.0);
  if (has_phi) {
    row.emplace_back("liquid_fraction", sums[3] > 0 ? sums[2] / sums[3] : 0.0);
    row.emplace_back("phase_changes", sums[4]);
  }
  row.emplace_back("heat_ksp_iterations", static_cast<double>(heat_.last.iterations));
  row.emplace_back("heat_unknowns", static_cast<double>(heat_.last.unknowns));
  // The last solve's parts in wall seconds on this rank (HeatStats): assembly, preconditioner set-up,
  // CG iterations, G2P.
  row.emplace_back("heat_nonzeros", static_cast<double>(heat_.last.nonzeros));
  row.emplace_back("heat_jacobi", heat_.last.jacobi ? 1.0 : 0.0);
  row.emplace_back("heat_conduction_ratio", heat_.last.conduction_ratio);
  row.emplace_back("heat_assemble_s", heat_.last.assemble_s);
  row.emplace_back("heat_setup_s", heat_.last.setup_s);
  row.emplace_back("heat_ksp_s", heat_.last.ksp_s);
  row.emplace_back("heat_gather_s", heat_.last.gather_s);
}

template void MpmMethod<2>::setup_heat(const config::Section&);
template void MpmMethod<3>::setup_heat(const config::Section&);
template void MpmMethod<2>::seed_temperature(const config::Section&, const particles::SeededParticles&);
template void MpmMethod<3>::seed_temperature(const config::Section&, const particles::SeededParticles&);
template void MpmMethod<2>::heat_update(double);
template void MpmMethod<3>::heat_update(double);
template void MpmMethod<2>::apply_phase_change();
template void MpmMethod<3>::apply_phase_change();
template void MpmMethod<2>::heat_diagnostics(DiagnosticRow&);
template void MpmMethod<3>::heat_diagnostics(DiagnosticRow&);

}  // namespace meniscus::mpm
