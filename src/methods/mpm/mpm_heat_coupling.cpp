// Temperature in the MPM step (Chen et al. 2021, Sec. 3.5, 4.3.2 and 5): the particle fields T and
// grad T (persistent, so checkpoints, migration and HDF5 output carry them), their initial values from
// the sources, and the call of the grid heat solve (mpm_heat.hpp) between the velocity update and G2P,
// at the particle positions x^n and with this step's surface samples as Robin quadrature points.
#include "methods/mpm/mpm_method.hpp"

namespace meniscus::mpm {

template <int Dim>
void MpmMethod<Dim>::setup_heat(const config::Section& root) {
  const HeatOptions options = read_heat_options(root);
  if (!options.enabled) return;
  heat_.T = set_.add_field("temperature", 1);
  heat_.gradT = set_.add_field("temperature_gradient", Dim);
  heat_.solver = std::make_unique<HeatSolver<Dim>>(*decomp_, options, read_thermal_materials(root));
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
    s.size = st_.samples.size();
  }
  heat_.last = heat_.solver->solve(dt, p, s);
  heat_.iterations += heat_.last.iterations;
}

template void MpmMethod<2>::setup_heat(const config::Section&);
template void MpmMethod<3>::setup_heat(const config::Section&);
template void MpmMethod<2>::seed_temperature(const config::Section&, const particles::SeededParticles&);
template void MpmMethod<3>::seed_temperature(const config::Section&, const particles::SeededParticles&);
template void MpmMethod<2>::heat_update(double);
template void MpmMethod<3>::heat_update(double);

}  // namespace meniscus::mpm
