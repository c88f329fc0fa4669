#include "methods/mpm/surface_coefficient.hpp"

namespace meniscus::mpm {

template <int Dim>
void assign_surface_coefficients(SurfaceSamples<Dim>& samples, const SurfaceCoefficientModel& model) {
  const int n = static_cast<int>(samples.size());
  samples.coefficient = Kokkos::View<double*>("surface_coefficient", n);
  auto k = samples.coefficient;
  const double k_lg = model.liquid_gas;
  Kokkos::parallel_for(
      "surface::assign_coefficient", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int r) { k(r) = k_lg; });
}

template void assign_surface_coefficients<2>(SurfaceSamples<2>&, const SurfaceCoefficientModel&);
template void assign_surface_coefficients<3>(SurfaceSamples<3>&, const SurfaceCoefficientModel&);

}  // namespace meniscus::mpm
