#include "methods/membrane/membrane_deck.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>

#include <Kokkos_Core.hpp>

#include "core/error.hpp"
#include "core/log.hpp"
#include "geometry/triangle_mesh.hpp"

namespace meniscus::membrane {

void declare_membrane_sections(config::Schema& root) {
  auto s = std::make_shared<config::Schema>();
  s->real("density", "g/cm^2", "liquid density rho (areal in 2D, g/cm^3 in 3D; Ruan 2021: 1.0)").def(1.0).positive();
  s->real("surface_tension", "dyn", "surface tension sigma carried by the membrane (dyn in 2D, dyn/cm in 3D; Ruan 2021 2D water: 0.9)")
      .def(0.9).nonnegative();
  s->vector("gravity", "cm/s^2", "gravitational acceleration of the liquid (Ruan 2021 2D: 9.8 cm/s^2); the "
            "membrane itself feels none, as in the paper").def_dim("[0, -9.8]", "[0, 0, -980]");
  s->real("thickness_over_dx", "1", "virtual membrane thickness h in cells (Ruan 2021: 0.5; it sets the "
          "membrane mass rho h L / 2 per vertex in 2D, rho h sum A_t / 3 in 3D)").def(0.5).positive();
  s->real("edge_over_dx", "1", "initial membrane edge length in cells (Ruan 2021: 0.5, twice the grid resolution); in 3D the "
          "drop is the icosphere whose edges are at most this long and the pool a sheet of right triangles with legs of "
          "this length")
      .def(0.5).positive();
  s->choice("shape", {"pool", "drop"}, "initial liquid: a flat pool spanning the box (its ends slide on the x "
            "walls; in 3D its boundary slides on the x and y walls and the surface is horizontal, z = level) or a closed "
            "drop").def("pool");
  s->real("level", "cm", "pool: height of the flat surface").def(0.5).positive();
  s->vector("center", "cm", "drop: centre").def_dim("[0.5, 0.5]", "[0.5, 0.5, 0.5]");
  s->real("radius", "cm", "drop: radius").def(0.3).positive();
  s->real("perturbation", "1", "drop: relative amplitude of the n = 2 shape mode r = R (1 + a cos 2 theta); in 3D "
            "the l = 2 mode about the z axis, r = R (1 + a P2(cos theta))")
      .def(0.0).min(-0.5).max(0.5);
  s->real("cfl", "1", "time step <= cfl dx / max|u|").def(0.5).positive();
  s->real("capillary_factor", "1", "time step <= factor sqrt(rho dx^3 / (2 pi sigma)), the capillary wave bound")
      .def(1.0).positive();
  s->real("dt_max", "s", "largest time step").def(2e-3).positive();
  s->integer("extrapolation_layers", "layers of faces the velocity is extended into air before advection")
      .def("4").min(1).max(8);
  s->real("w_support", "1", "extent of the membrane-to-face interpolation support along the face normal, in "
          "dual-cell widths (1: the paper's dual cell; 2 couples far more membrane velocity components to the "
          "liquid, see docs/theory-membrane.md)").def(2.0).min(1.0).max(4.0);
  s->choice("solver", {"minres_blockdiag", "schur_cg", "paper_dpcg", "direct"}, "saddle-point solver: MINRES with "
            "the block-diagonal SPD preconditioner (GAMG on the pressure Schur approximation, Jacobi on the membrane "
            "block); CG on the SPD pressure Schur complement (inner CG solves with the velocity block, options "
            "-membrane_schur_inner_*); Ruan 2021's diagonally preconditioned CG on the indefinite system (for "
            "reproduction: not guaranteed, falls back to MINRES after a breakdown; -membrane_dpcg_rtol, "
            "-membrane_dpcg_max_it); or MUMPS LU for small debug runs. -membrane_solver_mode overrides this key, "
            "and PETSc options under the prefix -membrane_ override each mode's Krylov method and preconditioners")
      .def("minres_blockdiag");
  s->real("rtol", "1", "relative residual of the saddle-point solves").def(1e-10).positive();
  s->integer("max_iterations", "most Krylov iterations per solve").def("2000").min(1);
  s->flag("two_solve", "Ruan 2021's prediction-correction: advect with the velocities of a first solve "
          "without surface tension; false advects with the previous step's velocities").def("true");
  s->flag("preserve_volume", "add a uniform normal speed to the membrane's advection velocities so that every step "
          "keeps the initial liquid area exactly (not in Ruan 2021: its first solve conserves the grid flux, which is "
          "not the membrane's area flux, and a 2D drop then loses 4 % in 0.3 s; docs/theory-membrane.md). The speed "
          "added is the diagnostics column volume_correction_speed").def("true");
  s->flag("normal_motion", "free membrane vertices move with the normal part of the advection velocity only and keep "
          "only the normal part of their new velocity; contact vertices are pinned in remeshing (not in Ruan 2021, "
          "whose vertices move with the whole velocity: the inviscid liquid's tangential velocity then carries them "
          "along the membrane and the remesher splits and collapses about 1000 edges per second beside a body at rest; "
          "docs/theory-membrane.md, \"Normal vertex motion\"; in 3D the vertex normal is the area-weighted one)").def("false");
  s->flag("remesh", "split edges longer than 1.5 and collapse edges shorter than 0.5 times the initial edge length "
          "after every advection (Ruan 2021 Stage 6; in 3D also edge flips, and the initial length is the icosphere's "
          "or sheet's mean edge). Off by default: on the 2D Laplace drop it keeps the edges even "
          "but raises the area loss from 1.5 % to 4.4 % over 0.12 s (docs/theory-membrane.md)").def("false");
  s->flag("remesh_smoothing", "3D remeshing also slides each free vertex along the membrane toward the area-weighted "
          "centre of its triangles, keeping the volume of its one-ring (El Topo's null-space smoothing, Brochu and "
          "Bridson 2009; Ruan 2021 Stage 6 names El Topo). Without it the paper's vertex motion leaves slivers "
          "(smallest angle 1.9 deg on the Rayleigh drop against 36.3 with it; docs/theory-membrane.md). "
          "No effect in 2D or without remesh").def("true");
  auto body = std::make_shared<config::Schema>("A rigid body coupled to the liquid and the membrane (Ruan 2021 §4.3).");
  body->choice("shape", {"disc", "sphere", "box", "ellipse", "polygon", "capsule", "paperclip", "mesh", "revolved"},
               "body shape: in 2D a disc (a cylinder seen end-on), a box (a rectangular log seen end-on, edge "
               "lengths `size`), an ellipse (an elliptic log, axes `size`) or a polygon (a prism seen end-on: "
               "`corners`, a simple outline of 3 to 16 points), each turned by `angle`; in 3D a sphere (analytic volume and inertia), a box "
               "(edge lengths `size` along the body axes), a capsule (a cylinder of axis `length` along the body x "
               "axis with hemispherical caps, radius `radius`) or a paperclip (Ruan 2021 Fig. 4: a wire of radius "
               "`radius` along a standard clip's centreline, three straight pairs joined by semicircles, flat in "
               "the body x-y plane and `length` long along x) or a mesh (a closed OBJ triangle mesh, `file`, scaled by "
               "`scale`, as its signed distance sampled every `sdf_spacing`) or revolved (the solid of revolution of "
               "`profile` about the body z axis: Ruan 2021's push-pins of Figs. 6 and 12 as a disc with a needle, a "
               "round hull for the boat of Fig. 11, a thin disc for a leaf). The volume, centre of mass and inertia "
               "tensor of box, capsule, paperclip, mesh and revolved come from their signed distance (octree "
               "quadrature, relative error below 1e-3); `center` places the centre of mass").def_dim("disc", "sphere");
  body->vector("center", "cm", "initial centre of mass").req();
  body->real("radius", "cm", "disc or sphere radius; wire radius of a capsule or paperclip (not used by a box)")
      .def(0.0).nonnegative();
  body->vector("size", "cm", "box: edge lengths along the body x, y (and z in 3D) axes; 2D ellipse: its axes (full "
               "lengths) along the body x and y axes").def_dim("[0, 0]", "[0, 0, 0]");
  body->file("file", "mesh: closed OBJ triangle mesh (outward-facing triangles), relative to the deck; its "
             "coordinates times `scale` are cm, and it is placed with its centre of mass at `center`");
  auto point = std::make_shared<config::Schema>("A point (r, z) of a profile of revolution.");
  point->real("r", "cm", "distance from the body z axis (>= 0)").req();
  point->real("z", "cm", "height along the body z axis").req();
  auto corner = std::make_shared<config::Schema>("A corner (x, y) of a 2D polygon body.");
  corner->real("x", "cm", "body x coordinate").req();
  corner->real("y", "cm", "body y coordinate").req();
  body->list("corners", corner, "2D polygon: its corners in order around the outline (either orientation; 3 to 16, no "
             "crossing edges; e.g. a triangle apex down: [{x: -0.2, y: 0.1}, {x: 0, y: -0.2}, {x: 0.2, y: 0.1}]); the body "
             "is placed with the polygon's centroid at `center`. The pool level may cross the outline only twice");
  body->list("profile", point, "revolved: the polygon turned about the body z axis, as (r, z) points from one point "
             "on the axis (r: 0) to another (e.g. a push-pin: [{r: 0, z: 0}, {r: 0.4, z: 0}, {r: 0.4, z: 0.16}, "
             "{r: 0.03, z: 0.16}, {r: 0.03, z: 0.76}, {r: 0, z: 0.76}]); the axis closes it");
  body->real("scale", "1", "mesh: factor from the OBJ's coordinates to cm").def(1.0).positive();
  body->real("sdf_spacing", "cm", "mesh: lattice spacing of its sampled signed distance (0: a sixteenth of the "
             "mesh's smallest bounding-box edge)").def(0.0).nonnegative();
  body->real("length", "cm", "capsule: length of its axis (between the caps' centres); paperclip: overall length "
             "(the clip's width is 0.296 of it)").def(0.0).nonnegative();
  body->real("density", "g/cm^2", "density of the body: areal in 2D (g/cm^2), g/cm^3 in 3D (the liquid's is "
             "membrane.density)").def(1.0).positive();
  body->vector("velocity", "cm/s", "initial velocity of the centre (a fixed body keeps it: a kinematic body)")
      .def_dim("[0, 0]", "[0, 0, 0]");
  body->vector("orientation", "deg", "3D: initial orientation as a rotation vector, the body frame turned from the world "
               "frame about the axis along the vector by its length in degrees (e.g. [0, 0, 90]: a quarter turn about "
               "z, so a box's `size[0]` edge lies along y); its length must be below 360. The shape keys (`size`, "
               "`length`, the mesh's coordinates) are in the body frame. Must stay [0, 0] in 2D")
      .def_dim("[0, 0]", "[0, 0, 0]");
  body->real("angle", "deg", "2D: initial orientation, the body frame turned counter-clockwise from the world "
             "frame (a box's `size[0]` edge lies along x at 0). Must stay 0 in 3D (use `orientation`)").def(0.0);
  body->rotation_vector("angular_velocity", "rad/s", "initial angular velocity: in 2D one number (counter-clockwise), "
                        "in 3D the world-frame vector [wx, wy, wz]; with `rotates: false` the body keeps it")
      .def_dim("0", "[0, 0, 0]");
  body->flag("rotates", "false locks the angular velocity at its initial value (for symmetric tests: on a staircase "
             "of grid faces a disc feels a small spurious pressure torque)").def("true");
  body->flag("fixed", "the body moves with its initial velocity whatever the forces (held, or driven kinematically); "
             "its velocity is then not an unknown of the three-way solve").def("false");
  body->choice("held", {"none", "x", "y", "z", "xy", "xz", "yz", "xyz"},
               "hold the body in place along the world axes named (x, y and in 3D z; the held-body "
               "measurement of the Cheerios force, Vella and Mahadevan 2005): that velocity component stays 0 while the "
               "others remain unknowns of the three-way solve, and the diagnostics report the force the liquid and the "
               "membrane exert along each held axis (columns bodyN_held_fx, bodyN_held_fy, bodyN_held_fz; dyn/cm in 2D, "
               "dyn in 3D). Not with fixed; the initial velocity along a held axis must be 0").def("none");
  body->integer("root", "articulated body (the water-strider robot, Ruan 2021 Fig. 10b-e in 2D, Fig. 14 in 3D): index "
                "in membrane.bodies of the free, non-rotating body that carries this one as a kinematically driven link; "
                "the link has no unknowns of its own, adds its mass (and in 3D its inertia) to the root's and follows the "
                "root's centre plus the stroke (stroke_centre - a_x cos th, + a_y sin th) in 2D, (stroke_centre - a_x cos "
                "th, - a_y cos th, + a_z sin th) in 3D (the last axis is up), th = 2 pi stroke_frequency (t - stroke_start) "
                "+ stroke_phase, so that with a_x and the vertical amplitude > 0 it sweeps backward (-x) while low and "
                "returns while high (a link's center and velocity keys are overridden by its root and stroke; in 3D it "
                "keeps its own orientation). -1: not a link").def("-1").min(-1);
  body->vector("stroke_centre", "cm", "link: mean offset of its centre from the root's centre").def_dim("[0, 0]", "[0, 0, 0]");
  body->vector("stroke_amplitude", "cm", "link: stroke half-widths along each axis ((a_x, a_y) in 2D, (a_x, a_y, a_z) "
               "in 3D)").def_dim("[0, 0]", "[0, 0, 0]");
  body->real("stroke_frequency", "Hz", "link: strokes per second").def(0.0).nonnegative();
  body->real("stroke_phase", "rad", "link: phase of the stroke at its start").def(0.0);
  body->real("stroke_start", "s", "link: time the stroke starts; before it the link holds at its starting "
             "position").def(0.0).nonnegative();
  body->real("stroke_cycles", "", "link: number of stroke cycles (fractions allowed); after them the link holds "
             "still. 1 with a_x = 0 and stroke_phase pi/2 is one kick down by 2 a_y and back, from rest to rest (the "
             "jump gait of Ruan 2021 Fig. 10d-e, inputs/membrane-robot-jump-2d.yaml). 0: the stroke never "
             "ends").def(0.0).nonnegative();
  s->list("bodies", body, "rigid bodies: each is an unknown (v_x, v_y, omega) of the three-way solve (in 3D six: "
          "the velocity and the angular velocity, with the orientation a quaternion), couples to the "
          "liquid through the faces between fluid cells and the cells it covers and to the membrane through the "
          "contact vertices it carries");
  s->real("contact_epsilon", "1", "a membrane vertex closer than this (in cells) to a body is a contact vertex "
          "carried by it (Ruan 2021 §6: 0.1)").def(0.1).positive();
  s->real("receding_angle", "deg", "receding contact angle, our addition (Ruan 2021 pins a contact line): a vertex "
          "on the edge of a contact region whose angle through the liquid, between the wetted surface and the "
          "membrane, is below it is released, one edge (in 3D one ring) per step, so that the line slides down a body "
          "pulled out of the liquid (contact angle hysteresis without an advancing limit; docs/theory-membrane.md, "
          "\"Pulling a body out of the liquid\"). 0 (default): the paper's pinned lines").def(0.0).min(0.0).max(180.0);
  s->flag("adhesion", "the membrane's capillary pull on the contact vertices a body carries reaches the body: the "
          "adhesion force f_a = -sigma dA/dq of Ruan 2021 §5.2 (Eq. 20) with its stiffnesses (Eqs. 21-22), as in the "
          "paper. false is a negative control, not in the paper: bodies then feel the liquid's pressure only, and the "
          "free membrane sees its contact vertices as anchored for each step").def("true");
  s->flag("body_contact", "rigid-rigid contact between the bodies, a post-solve impulse projection with "
          "restitution 0 and Coulomb friction at the sampled surface points of each body that the step would carry "
          "into another (Ruan 2021 leaves body-body contact open; the walls stop bodies the same way)").def("true");
  s->real("body_friction", "1", "Coulomb friction coefficient of the rigid-rigid contact").def(0.3).nonnegative();
  s->real("settle_damping", "1/s", "settle window: every velocity (liquid, membrane, bodies) is multiplied by "
          "(1 - settle_damping dt) each step until settle_until; not in Ruan 2021, for scenes placed at rest and "
          "for tests that measure an equilibrium").def(0.0).nonnegative();
  s->real("settle_until", "s", "end of the settle window").def(0.0).nonnegative();
  root.section("membrane", s, "Liquid with a surface-tension membrane on a MAC grid (Ruan et al. 2021).");
}

namespace {
// The keys every body has in both dimensions: centre, velocity, radius, density, fixed, rotates.
template <class Body>
Body read_body(const config::Section& b) {
  Body body;
  const auto c = b.vector("center");
  const auto v = b.vector("velocity");
  for (size_t q = 0; q < static_cast<size_t>(Body::kDim) && q < c.size() && q < v.size(); ++q) {
    body.c[q] = c[q];
    body.v[q] = v[q];
  }
  body.radius = b.real("radius");
  body.density = b.real("density");
  body.fixed = b.flag("fixed");
  body.rotates = b.flag("rotates");
  const std::string shape = b.text("shape");
  const bool needs_radius =
      shape != "box" && shape != "mesh" && shape != "revolved" && shape != "ellipse" && shape != "polygon";
  if (needs_radius && !(body.radius > 0))
    throw InputError(b.file(), b.key_path("radius"), "a " + shape + " body needs a positive radius");
  return body;
}

// The axes `held` names, checked against the body's dimension, `fixed` and initial velocity.
template <class Body>
std::array<bool, 3> read_held(const config::Section& b, const Body& body) {
  const std::string held = b.text("held");
  std::array<bool, 3> axes{};
  if (held == "none") return axes;
  for (int q = 0; q < 3; ++q) axes[q] = held.find(static_cast<char>('x' + q)) != std::string::npos;
  if (axes[2] && Body::kDim == 2)
    throw InputError(b.file(), b.key_path("held"), "a 2D body is held along x, y or xy (z is a 3D axis)");
  if (body.fixed)
    throw InputError(b.file(), b.key_path("held"), "a fixed body has no velocity unknowns to hold; give either fixed or held");
  for (int q = 0; q < Body::kDim; ++q)
    if (axes[q] && body.v[q] != 0)
      throw InputError(b.file(), b.key_path("held"),
                       log::format("a body held along %c must start with velocity component %d = 0 (velocity gives %g)",
                                   static_cast<char>('x' + q), q, body.v[q]));
  return axes;
}

// The link keys (root, stroke_*) of a body of either dimension.
template <class Body>
void read_link(const config::Section& b, Body& body) {
  body.root = static_cast<int>(b.integer("root"));
  const auto sc = b.vector("stroke_centre"), sa = b.vector("stroke_amplitude");
  for (size_t q = 0; q < static_cast<size_t>(Body::kDim) && q < sc.size() && q < sa.size(); ++q) {
    body.stroke_centre[q] = sc[q];
    body.stroke_amplitude[q] = sa[q];
  }
  body.stroke_frequency = b.real("stroke_frequency");
  body.stroke_phase = b.real("stroke_phase");
  body.stroke_start = b.real("stroke_start");
  body.stroke_cycles = b.real("stroke_cycles");
}

bool spins(const Disc& b) { return b.rotates || b.omega != 0; }
bool spins(const RigidBody3& b) { return b.rotates || b.omega[0] != 0 || b.omega[1] != 0 || b.omega[2] != 0; }
bool held_any(const Disc& b) { return b.held_x || b.held_y; }
bool held_any(const RigidBody3& b) { return b.held[0] || b.held[1] || b.held[2]; }

// Every link names another body as its root, a free, non-rotating body that is not a link itself,
// and is neither fixed nor held; then the links are placed at their t = 0 stroke position (the
// initial surface wraps them).
template <class Body>
void check_and_attach_links(const std::vector<config::Section>& listed, std::vector<Body>& bodies) {
  for (size_t k = 0; k < bodies.size(); ++k) {
    const int root = bodies[k].root;
    if (root < 0) continue;
    const auto& b = listed[k];
    if (root >= static_cast<int>(bodies.size()) || root == static_cast<int>(k))
      throw InputError(b.file(), b.key_path("root"),
                       log::format("root %d is not another body of membrane.bodies (%zu bodies)", root, bodies.size()));
    const Body& r = bodies[static_cast<size_t>(root)];
    if (r.root >= 0 || r.fixed || spins(r) || held_any(r))
      throw InputError(b.file(), b.key_path("root"),
                       log::format("the root (body %d) must be a free, non-rotating body that is not itself a link "
                                   "(rotates: false, angular_velocity 0, not fixed or held)", root));
    if (bodies[k].fixed || held_any(bodies[k]))
      throw InputError(b.file(), b.key_path("root"), "a link follows its root: it cannot be fixed or held");
  }
  attach_links(bodies, 0.0);
}

// A 3D body's shape from shape, radius, size and length (a sphere keeps its analytic form).
RigidBody3 read_body_3d(const config::Section& b) {
  RigidBody3 body = read_body<RigidBody3>(b);
  const std::array<bool, 3> held = read_held(b, body);
  for (int q = 0; q < 3; ++q) body.held[q] = held[q];
  const auto spin = b.vector("angular_velocity");
  for (int q = 0; q < 3; ++q) body.omega[q] = spin[q];
  const std::string shape = b.text("shape");
  if (shape == "disc" || shape == "ellipse" || shape == "polygon")
    throw InputError(b.file(), b.key_path("shape"), "a 3D body is a sphere, box, capsule, paperclip, mesh or revolved");
  if (shape == "box") {
    const auto size = b.vector("size");
    for (int d = 0; d < 3; ++d)
      if (!(size[d] > 0))
        throw InputError(b.file(), b.key_path("size"),
                         log::format("a box needs three positive edge lengths (size[%d] is %g)", d, size[d]));
    body.set_shape(box_shape({size[0], size[1], size[2]}));
  } else if (shape == "capsule" || shape == "paperclip") {
    const double length = b.real("length");
    if (!(length > 0)) throw InputError(b.file(), b.key_path("length"), "a " + shape + " needs a positive length");
    if (shape == "paperclip" && !(body.radius < 0.037 * length))
      throw InputError(b.file(), b.key_path("radius"),
                       log::format("a paperclip's wire radius must be below 0.037 of its length (neighbouring wires "
                                   "of the clip lie 0.074 length apart); radius %g, length %g",
                                   body.radius, length));
    body.set_shape(shape == "capsule" ? capsule_shape(length, body.radius) : paperclip_shape(length, body.radius));
  } else if (shape == "revolved") {
    if (!b.has("profile")) throw InputError(b.file(), b.key_path("profile"), "a revolved body needs its profile");
    std::vector<std::array<double, 2>> profile;
    for (const auto& q : b.list("profile")) profile.push_back({q.real("r"), q.real("z")});
    try {
      body.set_shape(revolved_shape(profile));
    } catch (const std::invalid_argument& e) {
      throw InputError(b.file(), b.key_path("profile"), e.what());
    }
  } else if (shape == "mesh") {
    if (!b.has("file")) throw InputError(b.file(), b.key_path("file"), "a mesh body needs its OBJ file");
    auto mesh = geometry::load_obj(b.text("file"), b.file(), b.key_path("file"));
    geometry::transform(mesh, b.real("scale"), {0, 0, 0});
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (const auto& v : mesh.vertices)
      for (int d = 0; d < 3; ++d) {
        lo[d] = std::min(lo[d], v[d]);
        hi[d] = std::max(hi[d], v[d]);
      }
    const double h = b.real("sdf_spacing") > 0 ? b.real("sdf_spacing")
                                                : std::min({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}) / 16;
    if (Kokkos::is_initialized()) {
      body.set_shape(mesh_shape(mesh, h));
    } else {
      // `meniscus check` runs without Kokkos, which the sampled lattice needs: the mesh's bounding box
      // stands in for it (the walls' check then uses the box about the box's centre).
      body.set_shape(box_shape({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}));
    }
  }
  // The initial orientation: the unit quaternion (cos(a/2), sin(a/2) n) of the rotation vector a n.
  const auto rot = b.vector("orientation");
  const double deg = std::sqrt(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2]);
  if (!std::isfinite(deg) || !(deg < 360.0))
    throw InputError(b.file(), b.key_path("orientation"),
                     log::format("a rotation vector's length is its angle in degrees and must be finite and below "
                                 "360 (it is %g)", deg));
  if (deg > 0) {
    const double half = 0.5 * deg * M_PI / 180.0;
    body.q[0] = std::cos(half);
    for (int d = 0; d < 3; ++d) body.q[1 + d] = std::sin(half) * rot[d] / deg;
  }
  read_link(b, body);
  return body;
}
}  // namespace

MembraneDeck read_membrane_deck(const config::Section& root) {
  const auto s = root.section("membrane");
  MembraneDeck d;
  d.flow.rho = s.real("density");
  d.flow.sigma = s.real("surface_tension");
  const auto g = s.vector("gravity");
  d.flow.gravity[0] = g[0];
  d.flow.gravity[1] = g[1];
  for (size_t q = 0; q < g.size() && q < 3; ++q) d.gravity[q] = g[q];
  d.flow.extrapolation_layers = static_cast<int>(s.integer("extrapolation_layers"));
  d.flow.two_solve = s.flag("two_solve");
  d.flow.preserve_volume = s.flag("preserve_volume");
  d.flow.normal_motion = s.flag("normal_motion");
  d.remesh = s.flag("remesh");
  d.remesh_smoothing = s.flag("remesh_smoothing");
  d.thickness_over_dx = s.real("thickness_over_dx");
  d.edge_over_dx = s.real("edge_over_dx");
  d.shape = s.text("shape");
  d.level = s.real("level");
  const auto c = s.vector("center");
  for (size_t q = 0; q < c.size() && q < 3; ++q) d.center[q] = c[q];
  d.radius = s.real("radius");
  d.perturbation = s.real("perturbation");
  d.cfl = s.real("cfl");
  d.capillary_factor = s.real("capillary_factor");
  d.dt_max = s.real("dt_max");
  d.solve.mode = s.text("solver");
  d.solve.rtol = s.real("rtol");
  d.solve.max_iterations = static_cast<int>(s.integer("max_iterations"));
  d.solve.w_normal_extent = s.real("w_support");
  d.flow.contact_eps_over_dx = s.real("contact_epsilon");
  d.flow.receding_angle = s.real("receding_angle") * M_PI / 180.0;
  d.flow.adhesion = s.flag("adhesion");
  d.flow.body_contact = s.flag("body_contact");
  d.flow.body_friction = s.real("body_friction");
  d.flow.settle_damping = s.real("settle_damping");
  d.flow.settle_until = s.real("settle_until");
  if (root.section("simulation").integer("dimension") == 3) {
    // 3D: spheres, boxes, capsules, paperclips (check_membrane_geometry refuses the 2D-only keys).
    const auto listed = s.has("bodies") ? s.list("bodies") : std::vector<config::Section>{};
    for (const auto& b : listed) d.bodies_3d.push_back(read_body_3d(b));
    check_and_attach_links(listed, d.bodies_3d);
    return d;
  }
  for (const auto& b : s.has("bodies") ? s.list("bodies") : std::vector<config::Section>{}) {
    Disc disc = read_body<Disc>(b);
    disc.omega = b.real("angular_velocity");
    disc.angle = b.real("angle") * M_PI / 180.0;
    if (!std::isfinite(disc.angle))
      throw InputError(b.file(), b.key_path("angle"), "the initial angle must be finite");
    const std::string shape = b.text("shape");
    if (shape == "box" || shape == "ellipse") {
      const auto size = b.vector("size");
      for (int q = 0; q < 2; ++q)
        if (!(size[q] > 0))
          throw InputError(b.file(), b.key_path("size"),
                           log::format("a%s needs two positive %s (size[%d] is %g)", shape == "box" ? " box" : "n ellipse",
                                       shape == "box" ? "edge lengths" : "axes", q, size[q]));
      if (shape == "box")
        disc.set_box(size[0], size[1]);
      else
        disc.set_ellipse(size[0], size[1]);
    } else if (shape == "polygon") {
      if (!b.has("corners")) throw InputError(b.file(), b.key_path("corners"), "a polygon body needs its corners");
      std::vector<double> xy;
      for (const auto& q : b.list("corners")) xy.insert(xy.end(), {q.real("x"), q.real("y")});
      try {
        disc.set_polygon(xy);
      } catch (const std::invalid_argument& e) {
        throw InputError(b.file(), b.key_path("corners"), e.what());
      }
    }
    const std::array<bool, 3> held = read_held(b, disc);
    disc.held_x = held[0];
    disc.held_y = held[1];
    read_link(b, disc);
    d.bodies.push_back(disc);
  }
  check_and_attach_links(s.has("bodies") ? s.list("bodies") : std::vector<config::Section>{}, d.bodies);
  return d;
}

void check_membrane_geometry(const config::Section& root) {
  const auto sim = root.section("simulation");
  const int dim = static_cast<int>(sim.integer("dimension"));
  const auto dom = root.section("domain");
  const auto lo = dom.vector("lower"), hi = dom.vector("upper");
  const double dx = dom.real("cell_size");
  double lower[3] = {0, 0, 0}, upper[3] = {0, 0, 0};
  for (int d = 0; d < dim; ++d) {
    const double n = (hi[d] - lo[d]) / dx;
    const double cells = std::round(n);
    if (!(cells >= 1) || std::abs(n - cells) > 1e-6 * n)
      throw InputError(dom.file(), dom.key_path("cell_size"), "the box must hold a whole number of cells on every axis");
    lower[d] = lo[d];
    upper[d] = lo[d] + cells * dx;
  }
  const auto ms = root.section("membrane");
  const MembraneDeck deck = read_membrane_deck(root);
  if (dim == 3) {
    for (const auto& bs : ms.has("bodies") ? ms.list("bodies") : std::vector<config::Section>{}) {
      if (bs.real("angle") != 0)
        throw InputError(bs.file(), bs.key_path("angle"),
                         "`angle` is the 2D orientation, `orientation` the 3D one; remove it or run in 2D");
    }
  } else {
    for (const auto& bs : ms.has("bodies") ? ms.list("bodies") : std::vector<config::Section>{})
      if (bs.text("shape") != "disc" && bs.text("shape") != "box" && bs.text("shape") != "ellipse" &&
          bs.text("shape") != "polygon")
        throw InputError(bs.file(), bs.key_path("shape"), "a 2D body is a disc, a box, an ellipse or a polygon");
      else if (bs.vector("orientation")[0] != 0 || bs.vector("orientation")[1] != 0)
        throw InputError(bs.file(), bs.key_path("orientation"),
                         "a 2D body's initial orientation is `angle` (the rotation vector is 3D only); remove it");
  }
  const int up = dim - 1;  // the vertical axis
  if (deck.shape == "pool") {
    if (!(deck.level > lower[up] + dx && deck.level < upper[up] - dx))
      throw InputError(ms.file(), ms.key_path("level"), "the pool surface must lie inside the box, a cell away from its top and bottom");
    // The 3D pool's sheet (flat_sheet) has as many edges along y as along x.
    if (dim == 3 && std::abs((upper[1] - lower[1]) - (upper[0] - lower[0])) > 1e-9 * dx)
      throw InputError(dom.file(), dom.key_path("upper"), "the 3D pool needs a square box in x and y so far");
  } else {
    const double reach = deck.radius * (1 + std::abs(deck.perturbation));
    for (int d = 0; d < dim; ++d)
      if (deck.center[d] - reach < lower[d] + dx || deck.center[d] + reach > upper[d] - dx)
        throw InputError(ms.file(), ms.key_path("radius"), "the drop must lie inside the box, a cell away from its walls");
  }
  const size_t nbodies = dim == 3 ? deck.bodies_3d.size() : deck.bodies.size();
  for (size_t b = 0; b < nbodies; ++b) {
    const double* c = dim == 3 ? deck.bodies_3d[b].c : deck.bodies[b].c;
    const auto bs = ms.list("bodies")[b];
    for (int d = 0; d < dim; ++d) {
      double below = 0, above = 0;
      if (dim == 3)
        deck.bodies_3d[b].extent(d, &below, &above);
      else
        deck.bodies[b].extent(d, &below, &above);
      if (!(c[d] - below >= lower[d] + dx && c[d] + above <= upper[d] - dx))
        throw InputError(bs.file(), bs.key_path("center"),
                         log::format("the body must lie inside the box, a cell away from its walls (on axis %d "
                                     "it spans %g .. %g, the box %g .. %g)",
                                     d, c[d] - below, c[d] + above, lower[d], upper[d]));
    }
    // The pool's surface wraps one wetted part per body (pool_surface): a non-convex polygon that
    // the level cuts more than twice is refused here, naming its corners.
    if (dim == 2 && deck.shape == "pool" && deck.bodies[b].outline == Disc::Outline::Polygon) {
      try {
        pool_surface(lower[0], upper[0], deck.level, dx, {deck.bodies[b]});
      } catch (const std::invalid_argument& e) {
        throw InputError(bs.file(), bs.key_path("corners"), e.what());
      }
    }
  }
}

}  // namespace meniscus::membrane
