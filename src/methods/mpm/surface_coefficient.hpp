#pragma once
// The surface tension coefficient k^sigma of each surface sample (seed 000, section 4.3). Kept apart
// from sampling and from the force kernels because the coefficient is where the physics varies:
// constant (liquid-gas), piecewise by interface type (k_SL next to colliders gives Young's angle),
// or a function of a particle scalar (Marangoni; later temperature).
#include "methods/mpm/surface_resampling.hpp"

namespace meniscus::mpm {

struct SurfaceCoefficientModel {
  double liquid_gas = 0;  // k_LG (N/m; per unit depth in 2D)
  // The largest coefficient any sample can get: it sets the capillary time step limit.
  double max_coefficient() const { return liquid_gas; }
};

// Fills samples.coefficient (one value per sample).
template <int Dim>
void assign_surface_coefficients(SurfaceSamples<Dim>& samples, const SurfaceCoefficientModel& model);

}  // namespace meniscus::mpm
