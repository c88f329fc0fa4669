#pragma once
// The 2D liquid + membrane system of Ruan et al. 2021 and its time step (§5, Fig. 5) without rigid
// bodies: a first fluid-membrane solve without surface tension gives divergence-free advection
// velocities (Eq. 19 with f_c = K_c = 0), the membrane moves with them and the grid velocity is
// advected semi-Lagrangian (Eq. 32), cells are retyped, then gravity and the second solve with the
// implicit capillary force give the new velocities (Eqs. 17-28).
#include <memory>
#include <vector>

#include "core/timers.hpp"
#include "methods/membrane/coupled_solve.hpp"
#include "methods/membrane/mac_grid.hpp"
#include "methods/membrane/polyline.hpp"
#include "methods/membrane/rigid_body.hpp"

namespace meniscus::membrane {

struct FlowParameters {
  double rho = 1.0;        // liquid density (areal in 2D, g/cm^2)
  double sigma = 0.0;      // surface tension (dyn in 2D)
  double gravity[2] = {0.0, -9.8};
  double h = 0.0;          // membrane thickness (paper default 0.5 dx)
  int extrapolation_layers = 4;
  bool two_solve = true;  // false: advect with the previous step's velocities (one-solve control)
  double remesh_edge = 0;  // target edge length L0 of the remesher (0: no remeshing)
  // Add a uniform normal speed to the advection velocities so that every step keeps the enclosed
  // liquid area (volume_correction.hpp; not in the paper, which conserves only the grid flux).
  bool preserve_volume = true;
  // A membrane vertex within this distance (in cells) of a rigid body is a contact particle
  // (Ruan 2021 §6 rule 2: epsilon = 0.1 dx).
  double contact_eps_over_dx = 0.1;
  // Receding contact angle (radians; receding_contact.hpp, not in the paper; deck key
  // membrane.receding_angle in degrees): a contact line's end vertex whose angle through the liquid
  // is below it is not a contact vertex. 0 (default): the paper's pinned lines.
  double receding_angle = 0.0;
  // Adhesion (Ruan 2021 §5.2, Eqs. 20-22; deck key membrane.adhesion): the capillary pull of the
  // membrane on its contact vertices reaches their body (f_a) with its stiffnesses K_{a,s}, K_{a,r},
  // K_{c,r}. false (a negative control, not in the paper): bodies feel the liquid's pressure only;
  // the free membrane still pulls toward its contact vertices, which it sees as anchored for the
  // step (MembraneHost::adhesion).
  bool adhesion = true;
  // Rigid-rigid contact (body_contact.hpp; not in the paper, which leaves it open): a post-solve
  // impulse projection with restitution 0 and Coulomb friction body_friction between 2D bodies.
  bool body_contact = true;
  double body_friction = 0.3;
  // Settle window: velocities of liquid, membrane and bodies decay as (1 - zeta dt) per step while
  // t < settle_until (zeta = settle_damping, 1/s). Not in the paper; 0 switches it off.
  double settle_damping = 0;
  double settle_until = 0;
  // Vertex motion along the membrane (tangential_motion.hpp; not in the paper; deck key
  // membrane.normal_motion): true moves free vertices with the normal part of v-dagger only, keeps
  // only the normal part of their new velocity after the second solve, and pins the contact
  // vertices in remeshing; false (default) moves them with all of v-dagger (Ruan 2021 Stage 5).
  // Measured (normal vs the paper's motion):
  //  * floating cylinder of the Keller test (dx 0.025 cm, last 0.2 s of 0.7 s): remeshing events
  //    at rest 44 against 1080 per second; Keller balance 0.33 % against 1.33 %; Keller ratio
  //    under dt -> dt / 2 (damping kept on, z_inf averaged over 0.1 s) 1.0335 -> 1.0366 (0.3 %);
  //  * Laplace drop: p 0.47 % low against 1.53 %, spurious speed 0.073 against 0.70 cm/s;
  //  * free Cheerios pair: acceleration 0.300 cm/s^2 in the bracket 0.287 .. 0.383 from
  //    rho g h_m^2 / 2 (the paper's motion: 0.653, 15 % above its bracket's top).
  // Not the default because the settled cylinder is less settled at 0.7 s (|v| 0.041 against
  // 0.011 cm/s). Its fitted meniscus length is 0.280 cm against l_c = 0.303 with the exact
  // Young-Laplace fit (0.263 with the paper's motion; test_membrane_keller.cpp; a linearised fit
  // read 0.375). Without the normal-only rule the vertices kept their tangential velocity, which
  // then grew without bound (Laplace drop 10.3 % low).
  bool normal_motion = false;
  // Fraction of the way toward even spacing that a free vertex slides per step (0: no sliding).
  // Off by default: on the floating cylinder (rate 0.5, with normal motion) the slides, which leave
  // the curve by about s^2 kappa / 2 each, shifted the settled meniscus (fitted decay length
  // 0.37-0.52 cm against l_c = 0.303).
  double spacing_rate = 0.0;
};

struct StepReport {
  CoupledSolveResult first, second;
  long splits = 0, collapses = 0;
  long contact_vertices = 0;       // contact particles of the three-way solve (Stage 6 set)
  // Vertices that joined / left the contact set since the previous step's three-way solve (-1 when
  // remeshing changed the vertex numbering this step).
  long contacts_gained = 0, contacts_lost = 0;
  long predicted_contacts = 0;     // penetrating vertices projected in Stage 2
  double volume_correction_speed = 0;  // uniform normal speed added to v-dagger (cm/s)
  long body_contacts = 0;              // outline points of touching bodies that took an impulse
};

class MembraneFlow {
 public:
  // closed: a drop; otherwise an open surface whose ends lie on the x walls (they slide along them).
  // bodies: rigid discs (Ruan 2021 §4.3); with bodies the second solve is the three-way solve.
  MembraneFlow(MacGrid& grid, Polyline membrane, bool closed, FlowParameters params, CoupledSolveOptions solve,
               std::vector<Disc> bodies = {});

  StepReport step(double dt);
  // Largest step allowed by CFL (cfl dx / max|u|), the capillary wave bound c_cap sqrt(rho dx^3 /
  // (2 pi sigma)) and dt_max (collective).
  double stable_dt(double cfl, double c_cap, double dt_max);

  MacGrid& grid() { return grid_; }
  Polyline& membrane() { return m_; }
  // Restart: a membrane with positions and velocities (wall ends are marked again); the grid's
  // cell types are not recomputed (they come back with the grid state).
  void replace_membrane(Polyline membrane);
  bool closed() const { return closed_; }
  const FlowParameters& parameters() const { return params_; }
  // Switches the adhesion term (FlowParameters::adhesion) from the next step on.
  void set_adhesion(bool on) { params_.adhesion = on; }
  // Liquid area enclosed by the membrane (the 2D volume).
  double volume() const;
  // The liquid area the membrane advection keeps (the initial one; a restart sets it back).
  double target_volume() const { return target_volume_; }
  void set_target_volume(double v) { target_volume_ = v; }
  CoupledSolver& solver() { return solver_; }
  // Simulated time of the flow (steps taken so far), for the settle window; restarts set it back.
  double time() const { return time_; }
  void set_time(double t) { time_ = t; }
  std::vector<Disc>& bodies() { return bodies_; }
  // Body of each vertex in the last three-way solve (-1: free), empty without bodies.
  const std::vector<int>& contact() const { return contact_; }
  // Per-stage wall time: solve1, advection, classify, solve2.
  Timers& timers() { return timers_; }
  // Public because it launches a Kokkos kernel (a CUDA build rejects device lambdas in private members).
  void damp_velocities(double factor);

 private:
  MembraneHost host_state(bool tension) const;
  void mark_wall_ends();
  void classify_contacts();
  void project_out_of_bodies();
  MacGrid& grid_;
  Polyline m_;
  bool closed_;
  FlowParameters params_;
  CoupledSolver solver_;
  double ybase_;
  double target_volume_ = 0;
  Timers timers_;
  std::vector<Disc> bodies_;
  std::vector<int> contact_;
  double time_ = 0;
};

}  // namespace meniscus::membrane
