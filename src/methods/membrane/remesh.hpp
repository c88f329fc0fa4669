#pragma once
// Remeshing of the 2D membrane chain (Ruan et al. 2021 §5 Stage 6 uses El Topo's split / collapse /
// flip; a polyline needs only the first two). Edges longer than split_ratio L0 are split at their
// midpoint (the shape is unchanged); edges shorter than collapse_ratio L0 are collapsed to their
// midpoint, or onto the end that lies on a wall. New vertices take the average velocity of the
// edge's ends. Without it, tangential drift bunches vertices together and leaves long edges.
// The gap between the two thresholds (a collapse leaves edges well below split_ratio L0, a split
// leaves halves well above collapse_ratio L0) keeps an edge from flipping back and forth.
// Pinned vertices (the contact particles of a rigid body) are kept where they are: a short edge
// between a pinned and a free vertex collapses onto the pinned one, as onto a wall end, so that
// remeshing does not move the contact line.
#include <vector>

#include "methods/membrane/polyline.hpp"

namespace meniscus::membrane {

struct RemeshStats {
  long splits = 0, collapses = 0;
};

// Rebuilds `m` (a chain: segments i -> i+1, closed or open) with every edge within
// [collapse_ratio, split_ratio] x L0 where possible. Host work on the (small, replicated) membrane.
// pinned: empty, or one flag per vertex (nonzero: pinned).
RemeshStats remesh_chain(Polyline& m, bool closed, double L0, double split_ratio = 1.5, double collapse_ratio = 0.5,
                         const std::vector<int>& pinned = {});

}  // namespace meniscus::membrane
