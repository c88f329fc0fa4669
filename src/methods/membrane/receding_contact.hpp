#pragma once
// A receding contact line for the 2D membrane (not in Ruan et al. 2021; deck key
// membrane.receding_angle). The paper's contact rules (§5.2) pin a contact line: a contact vertex
// moves with its body, and a vertex within epsilon of the body stays a contact vertex, so the line
// moves only where a body pushes the membrane (the two-solve scheme of §6 lets a line go only where
// the first solve carries its vertices off the body). A body pulled out of the liquid then carries a
// meniscus up with it (docs/theory-membrane.md, "Pulling a body out of the liquid"). Contact angle
// hysteresis (de Gennes 1985, Sec. III.A) pins a line between a receding and an advancing angle and
// lets it recede once the angle through the liquid falls below the receding one; that is the rule
// here, with no advancing limit (a line advances where the body meets the membrane, as before).
#include <vector>

#include "methods/membrane/rigid_body.hpp"

namespace meniscus::membrane {

// The contact angle through the liquid at a contact line's end vertex i (radians, in [0, 2 pi)):
// between the body's surface at x_i, pointing from i toward its contact neighbour k (along the
// wetted surface), and the free membrane from i to its free neighbour j, measured on the body's
// outer side of the wetted surface, where the liquid is. pi: the membrane leaves along the surface's
// tangent; pi / 2: straight away from the body; near 0: folded back over the wetted surface.
double contact_angle_through_liquid(const Disc& body, const double* xi, const double* xk, const double* xj);

// Releases the ends of every contact chain whose angle through the liquid is below `receding`
// (radians): contact[i] = body or -1 per vertex (xy: 2 coordinates per vertex; edges: vertex pairs),
// updated in place, after which a contact vertex left with no contact neighbour on the same body is
// released too (Ruan 2021 §5.2 rule 3). At most one vertex per chain end per call: the line recedes
// by one membrane edge per step at most. Returns the number of vertices released.
int release_receding_ends(const std::vector<Disc>& bodies, const std::vector<double>& xy, const std::vector<int>& edges,
                          double receding, std::vector<int>& contact);

}  // namespace meniscus::membrane
