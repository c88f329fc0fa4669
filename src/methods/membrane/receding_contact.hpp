#pragma once
// A receding contact line for the membrane (not in Ruan et al. 2021; deck key membrane.receding_angle).
// The paper's contact rules (§5.2) pin a contact line: a contact vertex moves with its body, and a
// vertex within epsilon of the body stays a contact vertex, so the line moves only where a body pushes
// the membrane (the two-solve scheme of §6 lets a line go only where the first solve carries its
// vertices off the body). A body pulled out of the liquid then carries a meniscus up with it
// (docs/theory-membrane.md, "Pulling a body out of the liquid"). Contact angle hysteresis (de Gennes
// 1985, Sec. III.A) pins a line between a receding and an advancing angle and lets it recede once the
// angle through the liquid falls below the receding one; that is the rule here, with no advancing
// limit (a line advances where the body meets the membrane, as before).
#include <vector>

#include "methods/membrane/rigid_body.hpp"

namespace meniscus::membrane {

// The contact angle through the liquid at a contact line's vertex x_i (radians, in [0, 2 pi)), from
// the body's outward unit normal n there, a direction s along the wetted surface (toward the line's
// contact neighbours; its part along n is dropped) and a direction t along the free membrane: the
// angle from s toward n (the liquid lies on the body's outer side of the wetted surface) of t's part
// in that plane. pi: the membrane leaves along the surface's tangent; pi / 2: straight away from the
// body; near 0: folded back over the wetted surface. dim: 2 or 3.
double angle_through_liquid(const double* n, const double* s, const double* t, int dim);

// The same in 2D for a contact vertex x_i on `body` with its contact neighbour x_k and free neighbour x_j.
double contact_angle_through_liquid(const Disc& body, const double* xi, const double* xk, const double* xj);

// The vertices to release: those on the edge of a contact region whose angle through the liquid is
// below `receding` (radians). contact[i] is the body of vertex i or -1 (x: Body::kDim coordinates per vertex;
// edges: vertex pairs, a triangle's edges in 3D); only vertices i < `owned` are judged (their one ring
// must be complete). An edge vertex has contact neighbours on its body and free neighbours; s is the sum
// of the directions to the contact ones, t the sum of the unit directions to the free ones. At most one
// ring of vertices goes per call (a line recedes by about one membrane edge per step). The caller
// releases them and applies rule 3 of Ruan 2021 §5.2 again (contact_set).
template <class Body>
std::vector<int> receding_vertices(const std::vector<Body>& bodies, const std::vector<double>& x,
                                   const std::vector<int>& edges, long owned, double receding,
                                   const std::vector<int>& contact);

// 2D, the whole membrane on this rank: releases receding_vertices and applies rule 3 again. Returns
// the number of vertices released by either.
int release_receding_ends(const std::vector<Disc>& bodies, const std::vector<double>& xy, const std::vector<int>& edges,
                          double receding, std::vector<int>& contact);

}  // namespace meniscus::membrane
