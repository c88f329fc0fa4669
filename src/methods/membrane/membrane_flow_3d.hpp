#pragma once
// The 3D liquid + membrane (+ rigid spheres) time step of Ruan et al. 2021 (§5, Fig. 5):
//  1. first solve, fluid-membrane without surface tension (Eq. 19 with f_c = K_c = 0), giving the
//     divergence-free advection velocities u-dagger (grid dofs k3Udag) and v-dagger;
//  2. the membrane moves with v-dagger (Eq. 32), then (not in the paper, as the 2D step does) a
//     shift along the volume gradient restores the initial enclosed volume;
//  3. cells are retyped from the moved membrane (ray parity) and get phi;
//  4. gravity u** = u + g dt, then the second solve with the capillary force f_c(x^{n+1})
//     (Eqs. 9-10) and its implicit stiffness K_c (Eq. 11, linearised as in Eq. 17) gives the new
//     grid and membrane velocities (Eqs. 24-28 without bodies).
//  2b. the grid velocity is extended into the air and advected semi-Lagrangian with u-dagger
//     (Eq. 32, the u.grad u term; fluid_kernels.hpp, shared with 2D);
//  2c. optionally the membrane is remeshed (split / collapse / flip, triangle_remesh.hpp; §5.3
//     Stage 6), new vertices taking the mean velocity of their edge;
// With rigid bodies (spheres, rigid_body.hpp) the step is the 2D one's (membrane_flow.hpp): Stage 1
// predicts the bodies (Eq. 29, the rotation by Rodrigues' formula), vertices whose prediction
// penetrates a body are contact particles of the first solve with the projection velocity of
// Eq. 30, cells inside a body are SOLID, the Stage 6 contact set (epsilon rule 2 and neighbour rule
// 3) is slaved to the bodies in the second, three-way solve (Eq. 28), whose six unknowns per body
// give v_r^{n+1}.
// Not yet in 3D: adhesion with a contact angle; articulated bodies are links riding on a non-rotating root
// (RigidBody3::root), as in 2D.
// Ranks: the MAC grid is split over the ranks (DMDA) and so is the membrane. Each vertex belongs to
// the rank owning its cell (cell_owner, mac_grid.hpp); a rank stores its owned vertices and ghost
// copies of every vertex of the triangles within reach of its cells (layout_reach: what W and the
// cell typing read; the one ring of every owned vertex is inside, triangle_membrane.hpp's layout),
// refreshed from their owners by a halo exchange. The owner computes the vertex's mass, capillary
// force and K_c rows, owns its rows of the velocity block (numbered by owner, contiguous per rank;
// the bodies' six unknowns each on the last rank; coupled_solve_3d.cpp), moves it and restores the
// volume with reproducible sums (advect_preserving_volume, volume_correction.hpp); after advection
// the vertices migrate to the owners of their new cells with their one ring
// (migrate_triangle_membrane) and the layout is widened again. Cell typing reads the local
// triangles, the ray parity completed by the crossing counts of the ranks above (classify); the
// contact rules run per vertex on its one ring, a ghost taking its owner's answer. Still replicated:
// the bodies (a few per scene), and remeshing, which runs on a copy of the whole membrane gathered
// when it is due (gather_triangle_membrane), each rank then keeping its part of the result; output
// and checkpoints gather the membrane onto rank 0.
#include <array>
#include <vector>

#include "core/timers.hpp"
#include "methods/membrane/coupled_solve_3d.hpp"
#include "methods/membrane/mac_grid.hpp"
#include "methods/membrane/triangle_membrane.hpp"

namespace meniscus::membrane {

struct Flow3Parameters {
  double rho = 1.0;    // liquid density (g/cm^3)
  double sigma = 0.0;  // surface tension (dyn/cm)
  double gravity[3] = {0.0, 0.0, -980.0};
  double h = 0.0;      // membrane thickness (paper default 0.5 dx)
  bool closed = true;  // a drop; false: an open pool surface whose boundary lies on the x/y walls
  bool preserve_volume = true;
  // false: the one-solve control of Ruan 2021 Fig. 8c (no first solve; the membrane and the liquid are
  // advected with the previous step's velocities), as in 2D (FlowParameters::two_solve).
  bool two_solve = true;
  // Vertices move with the normal part of v-dagger only and keep only the normal part of their new
  // velocity (deck key membrane.normal_motion; not in the paper, as in 2D: tangential_motion.hpp).
  bool normal_motion = false;
  int extrapolation_layers = 4;  // layers of air faces that get the liquid's velocity before advection
  // Remeshing in the step (triangle_remesh.hpp) to the target edge length remesh_edge (0: the initial
  // mesh's mean edge length); split above 1.5, collapse below 0.5 of it.
  bool remesh = false;
  double remesh_edge = 0;
  // Tangential vertex smoothing in the remesher (TriangleRemeshOptions::smoothing_rate 1 or 0).
  bool remesh_smoothing = true;
  // A membrane vertex within this distance (in cells) of a rigid body is a contact particle
  // (Ruan 2021 §6 rule 2: epsilon = 0.1 dx), as in 2D.
  double contact_eps_over_dx = 0.1;
  // Receding contact angle (radians; receding_contact.hpp, not in the paper): as in 2D. 0: pinned lines.
  double receding_angle = 0.0;
  // Adhesion f_a of Ruan 2021 Eqs. 20-22 on (default) or off (negative control), as in 2D
  // (FlowParameters::adhesion).
  bool adhesion = true;
  // Rigid-rigid contact as in 2D (body_contact.hpp; FlowParameters::body_contact).
  bool body_contact = true;
  double body_friction = 0.3;
  // Settle window as in 2D (FlowParameters; not in the paper): velocities of liquid, membrane and
  // bodies decay as (1 - zeta dt) per step while t < settle_until (zeta = settle_damping, 1/s).
  double settle_damping = 0;
  double settle_until = 0;
};

struct Step3Report {
  CoupledSolveResult first, second;
  long splits = 0, collapses = 0, flips = 0, smoothed = 0;  // remeshing operations of the step
  double volume = 0;  // enclosed liquid volume after the step
  long contact_vertices = 0;    // contact particles of the three-way solve (Stage 6 set)
  long predicted_contacts = 0;  // vertices whose prediction penetrated a body (Stage 2)
  long body_contacts = 0;       // surface points of touching bodies that took an impulse
};

class MembraneFlow3 {
 public:
  // bodies: rigid spheres (Ruan 2021 §4.3); with bodies the second solve is the three-way solve.
  MembraneFlow3(MacGrid3& grid, TriangleMembrane membrane, Flow3Parameters params, CoupledSolveOptions solve,
                std::vector<RigidBody3> bodies = {});
  ~MembraneFlow3();
  Step3Report step(double dt);
  double volume() const;
  double target_volume() const { return target_volume_; }
  void set_target_volume(double v) { target_volume_ = v; }
  // Restart: a whole membrane (the same on every rank) with positions, velocities and triangles;
  // each rank keeps its part (wall vertices are marked again); the grid's cell types are not
  // recomputed (they come back with the grid state).
  void replace_membrane(TriangleMembrane membrane);
  // This rank's part of the membrane (owned vertices, then ghosts; triangle_membrane.hpp).
  TriangleMembrane& membrane() { return m_; }
  const TriangleMembrane& membrane() const { return m_; }
  // The whole membrane on every rank (vertices in global-id order). Collective.
  TriangleMembrane whole_membrane() const;
  // Vertices of the whole membrane (the sum of the ranks' owned vertices after the last change).
  long global_vertices() const { return global_vertices_; }
  MacGrid3& grid() { return grid_; }
  const Flow3Parameters& parameters() const { return params_; }
  // Switches the adhesion term (Flow3Parameters::adhesion) from the next step on.
  void set_adhesion(bool on) { params_.adhesion = on; }
  CoupledSolver3& solver() { return solver_; }
  // Retypes the cells (k3Cell) and sets phi (k3Phi) from the current membrane. Collective.
  void classify();
  // Triangles the last classify indexed on this rank (those meeting its columns).
  long column_triangles() const { return column_triangles_; }
  // The solve's host view of this rank's part of the membrane: positions, velocities, wall bits and
  // triangles of its local vertices, the lumped masses, f_c and the rows of K_c complete on its owned
  // vertices; tension false: no f_c and no K_c (the first solve).
  MembraneHost3 host_state(bool tension) const;
  // Positions, velocities, wall bits, triangles and the layout only.
  MembraneHost3 host_geometry() const;
  // Target edge length of the remesher (0 without remeshing); a restart sets it back.
  double remesh_edge() const { return remesh_edge_; }
  void set_remesh_edge(double e) { remesh_edge_ = e; }
  // Per-stage wall time: solve1, advection, remesh_gather (the whole membrane onto every rank),
  // remesh, layout (migration or the split of the remeshed membrane, the ghost layer), classify,
  // solve2.
  Timers& timers() { return timers_; }
  std::vector<RigidBody3>& bodies() { return bodies_; }
  // Body of each vertex in the last three-way solve (-1: free), empty without bodies.
  const std::vector<int>& contact() const { return contact_; }
  // Simulated time (steps taken), for the settle window; restarts set it back.
  double time() const { return time_; }
  void set_time(double t) { time_ = t; }
  // Public because it launches a Kokkos kernel (a CUDA build rejects device lambdas in private members).
  void damp_velocities(double factor);

 private:
  void classify_contacts();
  void project_out_of_bodies();
  std::vector<RigidBody3> bodies_;
  std::vector<int> contact_;
  double time_ = 0;
  Timers timers_;
  MacGrid3& grid_;
  TriangleMembrane m_;
  Flow3Parameters params_;
  CoupledSolver3 solver_;
  void mark_wall_vertices();
  // This rank's part of the membrane from its owned vertices with their one ring: ghosts widened to
  // layout_reach(), the halo, the wall bits and the global vertex count. Collective.
  void set_layout(const TriangleMembrane& one_ring);
  double layout_reach() const;
  MembraneHalo halo_;
  long global_vertices_ = 0;
  std::vector<int> fixed_;
  double zbase_ = 0;
  double remesh_edge_ = 0;
  double target_volume_ = 0;
  long column_triangles_ = 0;
  // The ranks sharing this rank's x and y cells, topmost first (classify's MPI_Exscan); made once,
  // the grid's split does not change during a run.
  MPI_Comm column_ = MPI_COMM_NULL;
};

// An open flat sheet z = level over [lower, upper] in x and y, n x n quads each split into two
// triangles counter-clockwise seen from above (the air side): the surface of a pool whose boundary
// lies on the x and y walls.
geometry::TriangleMesh flat_sheet(const double lower[2], const double upper[2], double level, int n);
// The pool surface around floating bodies: every vertex of `sheet` (a flat sheet at `level`) that
// lies inside a body goes down onto the body's surface below it (surface_below), so that the liquid
// starts in contact with each body's submerged part (the 3D form of pool_surface in rigid_body.hpp).
void wrap_wetted_caps(geometry::TriangleMesh& sheet, double level, const std::vector<RigidBody3>& bodies);
// The icosphere level whose edges are at most `edge` for a sphere of radius r.
int icosphere_level_for_edge(double r, double edge);
// A sphere of radius r around c with the l = 2 axisymmetric shape mode about the z axis,
// r(theta) = r (1 + a P2(cos theta)), P2(s) = (3 s^2 - 1) / 2 (the drop of Lamb 1932 §275), as an
// icosphere with edges at most `edge`.
geometry::TriangleMesh perturbed_sphere(const std::array<double, 3>& c, double r, double a, double edge);

// u += g dt on every face of the owned nodes (dofs k3U + d), then a ghost refresh. Collective.
void add_gravity_3d(MacGrid3& grid, const double g[3], double dt);

// Largest |u| over the faces of the owned nodes (dofs k3U + d) and largest |v| component over the
// membrane vertices (each rank's part), over all ranks.
std::array<double, 2> max_speeds_3d(MacGrid3& grid, const TriangleMembrane& m);

// Amplitude a of the axisymmetric l = 2 shape mode about the z axis through c of a closed membrane,
// r = R (1 + a P2(cos theta)) (R the equal-volume radius): the vertex-area-weighted projection of
// r_i / R - 1 on P2, the signal of the Rayleigh oscillation (Lamb 1932 §275). Host.
// Collective over comm when each rank holds a part of the membrane (sums over owned vertices and
// triangles).
double l2_amplitude(const TriangleMembrane& m, const std::array<double, 3>& c, MPI_Comm comm = MPI_COMM_SELF);

// Mean pressure p-hat / dt over the FLUID cells whose centre satisfies `select`, over all ranks (an exact
// sum: the same pressures give the same bits at any rank count).
template <class F>
double mean_fluid_pressure_3d(MacGrid3& grid, double dt, const F& select);

}  // namespace meniscus::membrane

#include "methods/membrane/membrane_flow_3d_impl.hpp"
