#pragma once
// Surface particles for surface tension (Chen et al. 2021, Sec. 4.1.1-4.1.3), rebuilt every step:
// a union-of-spheres level set around the interior particles on the MPM nodes, its zero contour on
// the cells each rank owns, Poisson samples s_r with area-weighted outward normals dA_r, and for each
// sample its parent: the nearest interior particle (lowest id on ties). A sample whose parent lives
// on another rank is sent there, so every sample ends on its parent's rank and none is lost or
// duplicated at rank boundaries. Balance particles b_r = 2 x_p - s_r and the split mass
// m_p / (2|group| + 1) follow from the parent.
// 2D contours by marching squares, 3D by marching tetrahedra (geometry/contour_*d).
#include <cstdint>

#include "geometry/contour_2d.hpp"
#include "grid/decomposition.hpp"
#include "particles/halo.hpp"
#include "particles/particle_set.hpp"
#include "physics/collider.hpp"

namespace meniscus::mpm {

struct ResamplingOptions {
  double radius_factor = 0.73;  // level-set sphere radius in cells (0.73 in 2D, 0.867 in 3D)
  double samples_per_dx = 4;    // expected samples per cell length of contour (2D); squared per dx^2 in 3D
  geometry::AreaWeight weight = geometry::AreaWeight::PerElement;
  uint64_t seed = 20210801;
  bool stratified = false;  // midpoint placement instead of Poisson (geometry/contour_2d.hpp, contour_3d.hpp)
};

template <int Dim>
struct SurfaceSamples {
  Kokkos::View<double**, Kokkos::LayoutRight> position;  // s_r (samples x Dim)
  Kokkos::View<double**, Kokkos::LayoutRight> area;      // dA_r
  particles::IndexList parent;      // local index of the owned parent particle
  Kokkos::View<double*> coefficient;  // k^sigma per sample (surface_coefficient.hpp), after sampling
  Kokkos::View<uint8_t*> interface;   // mpm::Interface per sample (liquid-gas, solid-liquid), with coefficient
  // Solid-liquid samples: the parent's k_LG and the wall's unit normal; the sample's energy is
  // k_SL h + k_LG (|dA| - h), h its footprint on the wall (physics::wall_footprint_gradient). For a
  // liquid-gas sample liquid_gas = coefficient and the normal is zero.
  Kokkos::View<double*> liquid_gas;
  Kokkos::View<double**, Kokkos::LayoutRight> wall_normal;
  // Distance phi of a solid-liquid sample to its wall at sampling; its wetting energy is weighted by
  // w(phi) (wetting_adhesion.hpp). Zero for liquid-gas samples.
  Kokkos::View<double*> wall_distance;
  // Length (2D) or area (3D) of each contour element of this rank's owned cells, before sampling: kept
  // per element so that the global measure is an exact sum (surface_measures, surface_coefficient.hpp).
  Kokkos::View<double*> element_measure;
  size_t size() const { return position.extent(0); }
};

// The halo width resampling needs: ghosts cover the level-set spheres and the parent search.
template <int Dim>
double resampling_halo_width(double dx, const ResamplingOptions& opt) {
  return (opt.radius_factor + 3.0) * dx;
}

// `halo` must be built for the current positions with at least resampling_halo_width(). Collective.
// `walls`: colliders that cut the surface (wetting walls under the adhesive model): the level set is
// max(phi, -phi_wall), so the union of spheres, which reaches about 0.6 dx past the particles, ends on
// the wall's surface instead of inside the solid. The solid-liquid interface then lies on the wall, as in
// Young's picture, with a sharp contact line where the liquid-gas surface meets it; the rounded rim and
// the underside half a cell inside the floor are gone (their area depended on where the wall lies among
// the nodes, like a line tension of the discrete contact line).
template <int Dim>
SurfaceSamples<Dim> resample_surface(const particles::ParticleSet& set, int position_field,
                                     const grid::Decomposition<Dim>& decomp, particles::HaloPlan<Dim>& halo,
                                     const ResamplingOptions& opt, int64_t step,
                                     const physics::ColliderSet<Dim>& walls = physics::ColliderSet<Dim>{});

// The contour's length (2D) or area (3D) over every rank: the exact sum of element_measure
// (reproducible_sum, Demmel & Nguyen 2013), the same bits at any rank count. Collective.
template <int Dim>
double contour_measure(MPI_Comm comm, const SurfaceSamples<Dim>& samples);

// Each parent's samples Pi_p in ascending row order: rows members(start(p)) .. members(start(p + 1) - 1).
// A sum over a parent's samples taken in this order is the same in every run. Atomic adds per sample
// (before) added in the order the threads arrived, which moved particle temperatures by an ulp from
// run to run at two threads (and, through a Marangoni coefficient, the positions after them).
struct SampleGroups {
  Kokkos::View<int*> size;     // |Pi_p| per particle
  Kokkos::View<int*> start;    // particles + 1 offsets into members
  Kokkos::View<int*> members;  // sample rows, grouped by parent
};
SampleGroups sample_groups(const particles::IndexList& parent, size_t particles);

}  // namespace meniscus::mpm
