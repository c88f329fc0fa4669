#pragma once
// What the membrane's vertices do along the membrane. Ruan et al. 2021 (§5, Stage 5) move every
// vertex with its full velocity v-dagger. The liquid is inviscid, so its tangential velocity at
// the surface is not determined by the physics: near the contact lines of bodies at rest it is a
// small circulation that carries vertices along the membrane for ever. They bunch up against the
// bodies, the remesher splits and collapses hundreds of edges per second, contact vertices come and
// go, and every such event kicks the pressure. The shape of the membrane depends only on the normal
// velocity, so here (not in the paper) a free vertex moves with the normal part of v-dagger only,
// and a separate, smooth tangential rule keeps the vertices evenly spaced: each free vertex between
// two free neighbours slides along the local tangent a fraction of the way toward the arc-length
// midpoint of its neighbours. At an evenly spaced membrane that slide is zero, so a membrane at rest
// stays where it is. After the second solve a free vertex also keeps only the normal part of its
// new velocity: a tangential velocity that never moves the vertex is never restored either (on the
// Laplace drop it grew without bound and lowered the pressure by 10 %). The liquid's own tangential
// velocity at the surface (the grid's faces) is kept; only the membrane's tangential momentum, a
// layer of virtual thickness h, is dropped every step.
#include "methods/membrane/polyline.hpp"

namespace meniscus::membrane {

// Unit vertex tangents (x_next - x_prev normalised; one-sided at chain ends) into t (n x 2), and
// the number of segments at each vertex into degree (n).
void vertex_tangents(const Polyline& m, const VertexArray& t, const Kokkos::View<int*, MemSpace>& degree);

// dv <- (dv . n) n on every vertex with kind(i) == kFree (n the vertex normal); other vertices
// (wall ends, contact vertices marked kContact in `kind`) keep their velocity.
void keep_normal_motion(const Polyline& m, const Kokkos::View<int*, MemSpace>& kind, const VertexArray& dv);

// Moves every free vertex whose two neighbours are also free (in `kind`, kFree == 0) along its
// tangent by rate * (L_next - L_prev) / 2, rate in (0, 1]: the slide that would make its two edges
// equally long. Returns the largest slide (collective-free: the membrane is replicated).
double even_out_spacing(Polyline& m, const Kokkos::View<int*, MemSpace>& kind, double rate);

}  // namespace meniscus::membrane
