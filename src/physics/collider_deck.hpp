#pragma once
// Deck `colliders` plus the box faces of `domain.walls`, turned into a ColliderSet.
#include "core/deck.hpp"
#include "core/schema.hpp"
#include "grid/decomposition.hpp"
#include "physics/collider.hpp"

namespace meniscus::physics {

void declare_colliders(config::Schema& root);

template <int Dim>
ColliderSet<Dim> read_colliders(const config::Section& root, const grid::Decomposition<Dim>& decomp);

}  // namespace meniscus::physics
