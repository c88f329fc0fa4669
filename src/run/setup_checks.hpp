#pragma once
// Checks that a run otherwise makes only while it sets up (seeding the sources, loading meshes), done
// on the deck alone so that `meniscus check` refuses what `meniscus run` would: particles per cell
// that are no perfect square (2D) or cube (3D), a box source whose upper corner is not above its
// lower one, an ellipsoid with a non-positive semi-axis, a mesh file (source or collider) that is not
// a valid closed OBJ mesh, a mesh in 2D. Throws InputError naming the key.
#include "run/deck_schema.hpp"

namespace meniscus::run {

void check_setup_inputs(const LoadedDeck& deck);

}  // namespace meniscus::run
