#pragma once
// The surface tension coefficient k^sigma of each surface sample (Chen et al. 2021, Sec. 3.6, 4.1). Kept apart
// from sampling and from the force kernels because the coefficient is where the physics varies:
//   - liquid-gas k_LG: mpm.surface_tension.coefficient, or the parent's materials[i].surface_tension;
//   - Marangoni: k_LG(c) = clamp(k_LG + slope (c - reference), min, max) of a per-particle scalar c
//     (the `surfactant` field, or the temperature: k^sigma(T) of Sec. 3.5), read from the parent; a
//     constant k is slope 0, the paper's scenes use linear and clamped-linear laws;
//   - solid-liquid k_SL for samples within delta_SL of a collider (phi_collider(s) <= delta_SL, default
//     0.5 dx; our choice: the paper gives no rule): k_SL = -k_LG cos(theta) from the collider's contact_angle (so that
//     Young's law with k_SG = 0 gives theta), or the collider's solid_liquid_coefficient. A collider
//     without either is non-wetting: theta = 180 deg, k_SL = k_LG (the constant-k surface).
// Every integrator (explicit, implicit) reads samples.coefficient; samples.interface says which kind
// each sample is (diagnostics, output).
#include <mpi.h>

#include <cstdint>

#include "core/deck.hpp"
#include "methods/mpm/mpm_deck.hpp"
#include "methods/mpm/surface_resampling.hpp"
#include "methods/mpm/wetting_adhesion.hpp"
#include "particles/particle_sources.hpp"
#include "physics/collider.hpp"

namespace meniscus::mpm {

enum class Interface : uint8_t { LiquidGas = 0, SolidLiquid = 1 };

struct SurfaceCoefficientModel {
  static constexpr int kMaxColliders = physics::ColliderSet<3>::kMax;
  double liquid_gas = 0;  // default k_LG (N/m; per unit depth in 2D)
  // k_LG per material id (the default where a material sets none).
  Kokkos::View<double*> material_liquid_gas;
  // Wetting per collider, in ColliderSet order: k_SL = sl_coefficient[c] if sl_is_absolute[c], else
  // -k_LG cos_theta[c] with the sample's own k_LG (the angle stays put where k_LG varies).
  double cos_theta[kMaxColliders] = {};
  double sl_coefficient[kMaxColliders] = {};
  bool sl_is_absolute[kMaxColliders] = {};
  double solid_liquid_distance = 0;  // delta_SL in m
  // Width b of the ramp over which the wetting weight falls from 1 to 0, centred on delta_SL
  // (wetting_adhesion.hpp); 0 is the sharp cut at delta_SL.
  double wetting_width = 0;
  KOKKOS_INLINE_FUNCTION WettingRamp wetting_ramp() const {
    return WettingRamp{solid_liquid_distance - 0.5 * wetting_width, solid_liquid_distance + 0.5 * wetting_width};
  }
  // Marangoni law of the parent's scalar.
  bool marangoni = false;
  bool temperature = false;  // the scalar is the particle temperature (mpm.heat), not `surfactant`
  double slope = 0, reference = 0, k_min = 0, k_max = 1e300;
  // Bound on |k| over all samples (capillary time step); set by finish_bounds().
  double bound = 0;

  double max_coefficient() const { return bound; }

  KOKKOS_INLINE_FUNCTION double liquid_gas_at(int material, double scalar) const {
    double k = material_liquid_gas.extent(0) > static_cast<size_t>(material) ? material_liquid_gas(material) : liquid_gas;
    if (marangoni) {
      k += slope * (scalar - reference);
      k = k < k_min ? k_min : (k > k_max ? k_max : k);
    }
    return k;
  }
  KOKKOS_INLINE_FUNCTION double solid_liquid_at(int collider, double k_lg) const {
    return sl_is_absolute[collider] ? sl_coefficient[collider] : -k_lg * cos_theta[collider];
  }
};

// Reads mpm.surface_tension, materials[i].surface_tension and colliders[i].contact_angle /
// solid_liquid_coefficient (InputError on contradictions). `colliders` is the set the method built
// from the same deck (domain walls first, then the `colliders` list).
template <int Dim>
SurfaceCoefficientModel read_surface_coefficients(const config::Section& root, double dx, const MaterialTable& table,
                                                  const physics::ColliderSet<Dim>& colliders);

// Sets model.bound = max |k| any sample can get, given the range [c_min, c_max] of the scalar over
// all particles (the surfactant is only advected, so its range is fixed after seeding; a temperature
// changes, and the bound is refreshed before each step).
void finish_bounds(SurfaceCoefficientModel& model, int materials, int colliders, double c_min, double c_max);

// What the coefficient depends on besides the sample: colliders, and the parent's material and
// scalar (scalar may be an empty view when the model has no Marangoni law).
template <int Dim>
struct SurfaceCoefficientInputs {
  physics::ColliderSet<Dim> colliders;
  particles::IntField material;
  particles::RealField scalar;
};

// Fills samples.coefficient and samples.interface (one value per sample).
template <int Dim>
void assign_surface_coefficients(SurfaceSamples<Dim>& samples, const SurfaceCoefficientModel& model,
                                 const SurfaceCoefficientInputs<Dim>& in);

// The surface's global measures over every rank (lengths in 2D, areas in 3D): the contour before
// sampling, |dA| summed over the liquid-gas and over the solid-liquid samples, and the surface energy
// k_LG |dA| + (k - k_LG) w(phi) h per sample (h: footprint on the wall, w: the wetting weight of the wall
// distance; zero for liquid-gas samples). Exact sums of the per-element and per-sample terms
// (reproducible_sum, Demmel & Nguyen 2013): the same samples give the same bits at any rank or thread
// count. Collective.
struct SurfaceMeasures {
  double contour = 0, liquid_gas = 0, solid_liquid = 0, energy = 0;
};
template <int Dim>
SurfaceMeasures surface_measures(MPI_Comm comm, const SurfaceSamples<Dim>& samples, const WettingRamp& ramp);

// The per-particle scalar of the Marangoni law: each source sets c = surfactant + surfactant_gradient . x
// (sources[i].surfactant, sources[i].surfactant_gradient). Returns the global [min, max] of c.
template <int Dim>
void seed_surface_scalar(const config::Section& root, const particles::SeededParticles& seeded,
                         particles::RealField scalar, MPI_Comm comm, double& c_min, double& c_max);

}  // namespace meniscus::mpm
