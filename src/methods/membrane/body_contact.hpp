#pragma once
// Rigid-rigid contact of the bodies (2D and 3D). Ruan et al. 2021 resolve membrane-body contact (§5.2) but
// leave body-body contact open; touching Cheerios, push-pins and logs need it. Here, as for the
// walls (stop_at_walls), it is a post-solve projection on the bodies' velocities with restitution 0
// and Coulomb friction: sequential impulses (Gauss-Seidel sweeps over the pairs) at the points of
// each body's surface (its sampled outline in 2D, a lattice stepped onto its surface in 3D) that
// the next position step would carry into the other body. The impulses
// are equal and opposite at one point, so linear and angular momentum are conserved; like any
// post-solve projection it slightly breaks the monolithic consistency of the step's face
// velocities, and it is inactive (bit for bit) while every pair stays apart.
#include <vector>

#include "methods/membrane/rigid_body.hpp"

namespace meniscus::membrane {

struct BodyContactParameters {
  double friction = 0.3;  // Coulomb coefficient of the tangential impulse (|P_t| <= mu P_n)
  double spacing = 0;     // distance between the outline's sample points (cm; 0: a quarter cell)
  int sweeps = 8;         // Gauss-Seidel sweeps over the contact points
};

// Applies the contact impulses to the bodies' velocities for a step of dt: after it no sampled
// outline point of one body moves into another (to round-off, over the sweeps), a point already
// inside stops approaching, and the tangential slip at a contact is reduced within the friction
// cone. Fixed bodies and held axes take no impulse (infinite mass along them); links of an
// articulated body (root >= 0) are left out (their motion is prescribed). Returns the number of
// contact points that received an impulse in the first sweep.
int resolve_body_contacts(std::vector<Disc>& bodies, double dt, const BodyContactParameters& p);
// The same for 3D bodies (fixed bodies and locked rotations take no impulse along them).
int resolve_body_contacts(std::vector<RigidBody3>& bodies, double dt, const BodyContactParameters& p);

}  // namespace meniscus::membrane
