#pragma once
// Deck `sources`: shapes filled with particles on a lattice (box, sphere/disc, ellipse/ellipsoid,
// watertight OBJ mesh), or particles placed along a curve (a wick) or on a thin shell of revolution (a
// film, a ring; geometry/shell.hpp), each with a material, a lattice density and an initial velocity field
// v = velocity + omega x (x - rotation_center). Each rank keeps only the lattice points it owns, and a
// particle's id is its lattice index offset by the sources before it, so ids do not depend on the
// rank count.
#include <array>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "grid/decomposition.hpp"
#include "particles/particle_set.hpp"

namespace meniscus::particles {

// Adds the `sources` list to a schema.
void declare_sources(config::Schema& root);

// What seeding produced on this rank; the caller sets method-specific fields from it.
struct SeededParticles {
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> x, v;  // n x Dim
  Kokkos::View<double*, MemSpace> volume;  // lattice cell volume per particle
  IdField id;
  IntField material;
  Kokkos::View<double*, MemSpace> omega;  // angular velocity of the source (about z), per particle
  IntField source;                        // index of the source that made the particle
  // Per source: bounding box and whether it starts at hydrostatic pressure.
  std::vector<std::vector<double>> source_lower, source_upper;
  std::vector<bool> hydrostatic;
};

// material_names: the deck's material names, in material-id order. positions_only: only x is made
// (the other views stay empty), for counting where the particles fall (40 of the 104 bytes per particle).
template <int Dim>
SeededParticles seed_sources(const config::Section& root, const grid::Decomposition<Dim>& decomp,
                             const std::vector<std::string>& material_names, bool positions_only = false);

// Each source's particle positions over the whole box, exactly as seed_sources makes them (curves,
// shells, meshes and a curve's carving of the others), with only the sources flagged in `only` seeded
// (one flag per source; the others come back empty and carve nothing). Host views, one per source.
// For `meniscus check`'s particle count (run/resource_plan.cpp); needs Kokkos, not PETSc.
template <int Dim>
std::vector<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>> seed_positions_by_source(
    const config::Section& root, const std::vector<std::string>& material_names, const std::vector<bool>& only);

// For methods whose particle mass and kernel follow a radius r (SPH, PBD): throws an InputError on
// `sources` of `file` unless every seeded particle's lattice cell is diameter^dim, i.e. the sources'
// lattice spacing is the diameter 2r (`radius_key` names the deck key in the message). Collective.
void require_lattice_spacing(const SeededParticles& seeded, int dim, double diameter, const std::string& radius_key,
                             const std::string& file, MPI_Comm comm);

}  // namespace meniscus::particles
