#pragma once
// Deck section `domain`: the box, the cell size and (optionally) the process grid.
#include "core/deck.hpp"
#include "core/schema.hpp"
#include "grid/decomposition.hpp"

namespace meniscus::grid {

void declare_domain(config::Schema& root);

template <int Dim>
typename Decomposition<Dim>::Spec read_domain(const config::Section& root, int stencil_width, int dof);

}  // namespace meniscus::grid
