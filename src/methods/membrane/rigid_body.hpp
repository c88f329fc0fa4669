#pragma once
// 2D rigid bodies of Ruan et al. 2021 (§4.3, Eqs. 12-14): a disc (a cylinder seen end-on), a box (a
// rectangular log seen end-on), an ellipse (an elliptic log) or a simple polygon (any prism seen
// end-on: a triangular or trapezoidal hull section), each turned by its angle, with generalized
// velocity v_r = (v_x, v_y, omega), mass matrix M_r = diag(m, m, I) with m = rho_s A (areal density in
// 2D; A = pi R^2, w h, pi a b or the polygon's area) and I about the centre of mass (m R^2 / 2,
// m (w^2 + h^2) / 12, m (a^2 + b^2) / 4, the polygon's polar moment). A body point x moves with
// x' = J(x) v_r, the point Jacobian
//
//   J(x) = [ 1  0  -(y - c_y) ]
//          [ 0  1   (x - c_x) ]
//
// whose transpose maps a force at x to the body's (force, torque). Its rows on a face of axis d
// (e_d^T J(x_f)) couple the body to the fluid-rigid faces of the MAC grid, and its rows at a
// contact vertex slave that vertex to the body (paper §5.2 contact particles).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/kmath.hpp"
#include "geometry/outline_2d.hpp"
#include "methods/membrane/body_shape.hpp"

namespace meniscus::membrane {

struct Disc {
  static constexpr int kDim = 2, kDofs = 3;
  double c[2] = {0, 0};   // centre of mass
  double angle = 0;       // orientation (counter-clockwise, rad; a disc's geometry does not depend on it)
  double v[2] = {0, 0};   // velocity of the centre
  double omega = 0;       // angular velocity (counter-clockwise)
  double radius = 0;      // a disc's radius; the circumradius of the other outlines (about c)
  // The outline in the body frame, turned from the world frame by `angle`; a disc unless set_box,
  // set_ellipse or set_polygon made it another.
  enum class Outline : int { Disc, Box, Ellipse, Polygon };
  Outline outline = Outline::Disc;
  // Box: half widths along the body x and y axes; ellipse: its semi-axes along them.
  double half[2] = {0, 0};
  // Polygon: corners about the centre of mass, counter-clockwise, and its area and polar second
  // moment of area about the centre of mass (cm^2, cm^4). Fixed storage keeps the body a plain value
  // that kernels copy.
  static constexpr int kMaxCorners = 16;
  int corner_count = 0;
  double corner_xy[2 * kMaxCorners] = {};
  double polygon_area = 0, polygon_polar = 0;
  double density = 1;     // areal density (g/cm^2)
  bool fixed = false;     // kinematic: moves with its (constant) deck velocity, no unknowns
  bool rotates = true;    // false: omega stays at its initial value (J drops its omega column)
  // Held in place along x and/or y (the held-body Cheerios measurement, Vella and Mahadevan 2005): that
  // velocity component stays 0 while the others remain unknowns; the three-way solve returns the
  // force the liquid and the membrane exert along each held axis (the hold's reaction, negated).
  bool held_x = false, held_y = false;
  // Held at its angle (omega stays 0): the solve returns the torque about c that the liquid and the
  // membrane exert (the restoring torque of a floating body at a fixed tilt).
  bool held_rotation = false;
  // Kinematically driven link of an articulated body (the water-strider robot of Ruan 2021 Fig. 10b-e;
  // the reduced form of the paper's articulated bodies: only the root's DOFs are unknowns). root >= 0
  // makes this disc a link of bodies[root] (a non-rotating free body): it has no unknowns of its own,
  // its centre follows the root's centre plus the prescribed stroke
  //   r(t) = (s_x - a_x cos th, s_y + a_y sin th),  th = 2 pi f tau + phase,  tau = t - t_start,
  // so that a foot with a_x, a_y > 0 sweeps backward (-x) while low and returns forward while high,
  // and its points move with J_root(x) v_root + r'(t) (r' the known part, v_kin). The stroke runs for
  // `stroke_cycles` cycles from `stroke_start` (0 cycles: without end); before and after that window
  // the link holds still at the window's first and last stroke position (the jump gait of Fig. 10d-e:
  // one kick, then the legs held). attach_links keeps c, v and v_kin of the links up to date.
  int root = -1;
  double stroke_centre[2] = {0, 0};     // s: mean offset of the link's centre from the root's
  double stroke_amplitude[2] = {0, 0};  // (a_x, a_y)
  double stroke_frequency = 0;          // f (Hz)
  double stroke_phase = 0;              // phase (rad) at the stroke's start
  double stroke_start = 0;              // t_start (s)
  double stroke_cycles = 0;             // cycles before the link holds still (0: without end)
  double v_kin[2] = {0, 0};             // r'(t) at the link's current time

  KOKKOS_INLINE_FUNCTION bool is_box() const { return outline == Outline::Box; }
  // Makes the body a box of edge lengths (w, h) along its body axes.
  void set_box(double w, double h) {
    outline = Outline::Box;
    half[0] = 0.5 * w;
    half[1] = 0.5 * h;
    radius = std::hypot(half[0], half[1]);
  }
  // Makes the body an ellipse of axes (w, h) (full lengths) along its body axes.
  void set_ellipse(double w, double h) {
    outline = Outline::Ellipse;
    half[0] = 0.5 * w;
    half[1] = 0.5 * h;
    radius = std::max(half[0], half[1]);
  }
  // Makes the body the simple polygon of the corners xy (x0 y0 x1 y1 ..., 3 to kMaxCorners corners,
  // either orientation, in any frame): it is moved so that its centroid is the body frame's origin
  // (c then places the centroid) and stored counter-clockwise. Throws std::invalid_argument naming
  // the defect (too few or too many corners, a repeated corner, crossing edges, no area).
  void set_polygon(const std::vector<double>& xy);
  double area() const {
    switch (outline) {
      case Outline::Box: return 4 * half[0] * half[1];
      case Outline::Ellipse: return M_PI * half[0] * half[1];
      case Outline::Polygon: return polygon_area;
      default: return M_PI * radius * radius;
    }
  }
  double mass() const {  // the disc's and box's products in their historical order (same bits)
    switch (outline) {
      case Outline::Box: return density * 4 * half[0] * half[1];
      case Outline::Disc: return density * M_PI * radius * radius;
      default: return density * area();
    }
  }
  // Half width of the world-frame bounding box along axis d (body-wall contact, bodies cut by a level).
  double reach(int d) const {
    double below = 0, above = 0;
    extent(d, &below, &above);
    return std::max(below, above);
  }
  // Distances from c to the low and high faces of the world-frame bounding box along axis d
  // (body-wall contact); a disc, a box and an ellipse are symmetric about their centre of mass.
  void extent(int d, double* below, double* above) const;
  double inertia() const {
    switch (outline) {
      case Outline::Box: return mass() * (half[0] * half[0] + half[1] * half[1]) / 3;
      case Outline::Ellipse: return 0.25 * mass() * (half[0] * half[0] + half[1] * half[1]);
      case Outline::Polygon: return density * polygon_polar;
      default: return 0.5 * mass() * radius * radius;
    }
  }
  // The body's state as (name, value) slots for checkpoints and diagnostics (body_state below).
  static constexpr int kStateSize = 6;
  static constexpr const char* kStateNames[kStateSize] = {"x", "y", "angle", "vx", "vy", "omega"};
  void state_slots(double** out) {
    double* slots[kStateSize] = {&c[0], &c[1], &angle, &v[0], &v[1], &omega};
    for (int q = 0; q < kStateSize; ++q) out[q] = slots[q];
  }
  // Signed distance of the world point x (negative inside; exact for every outline).
  KOKKOS_INLINE_FUNCTION double phi(const double* x) const {
    const double dx = x[0] - c[0], dy = x[1] - c[1];
    if (outline == Outline::Disc) return kmath::sqrt(dx * dx + dy * dy) - radius;
    const double ca = kmath::cos(angle), sa = kmath::sin(angle);
    const double u = ca * dx + sa * dy, w = -sa * dx + ca * dy;  // body frame
    double p[2] = {0, 0};
    if (outline == Outline::Ellipse) return geometry::ellipse_closest(half[0], half[1], u, w, p);
    if (outline == Outline::Polygon) return geometry::polygon_closest(corner_xy, corner_count, u, w, p);
    const double qx = kmath::fabs(u) - half[0], qy = kmath::fabs(w) - half[1];
    const double ox = kmath::max(qx, 0.0), oy = kmath::max(qy, 0.0);
    return kmath::sqrt(ox * ox + oy * oy) + kmath::min(kmath::max(qx, qy), 0.0);
  }
  // World coordinates of the box's corners, counter-clockwise from the body frame's (+, +) one.
  void corners(double* out) const {
    const double ca = std::cos(angle), sa = std::sin(angle);
    const double sx[4] = {1, -1, -1, 1}, sy[4] = {1, 1, -1, -1};
    for (int k = 0; k < 4; ++k) {
      const double u = sx[k] * half[0], w = sy[k] * half[1];
      out[2 * k] = c[0] + ca * u - sa * w;
      out[2 * k + 1] = c[1] + sa * u + ca * w;
    }
  }
  // Row d of J(x): coefficients of (v_x, v_y, omega) in the velocity component d of point x.
  KOKKOS_INLINE_FUNCTION void jacobian_row(int d, const double* x, double* row) const {
    row[0] = d == 0 ? 1.0 : 0.0;
    row[1] = d == 1 ? 1.0 : 0.0;
    row[2] = !rotates ? 0.0 : (d == 0 ? -(x[1] - c[1]) : (x[0] - c[0]));
  }
  // Velocity component d of the body point x.
  KOKKOS_INLINE_FUNCTION double point_velocity(int d, const double* x) const {
    double r[3];
    jacobian_row(d, x, r);
    const double w = d == 0 ? -(x[1] - c[1]) : (x[0] - c[0]);
    return r[0] * v[0] + r[1] * v[1] + w * omega;
  }
  // Closest point of the body surface to x.
  void project(const double* x, double* out) const;
};

// A 3D rigid body of Ruan et al. 2021 (§4.3, the 3D form of Eqs. 12-14): generalized velocity
// v_r = (v, omega) in R^6 (world frame), mass matrix M_r = diag(m I_3, R I_body R^T), orientation R
// as a unit quaternion. The point Jacobian is
//
//   J(x) = [ I_3   -[x - c]_x ]      (x' = v + omega x (x - c))
//
// and its transpose maps a force at x to the body's (force, torque (x - c) x f). As in 2D, its rows
// e_d^T J(x_f) couple the body to fluid-rigid faces and its rows at contact vertices slave them.
// The shape (body_shape.hpp) is a sphere of `radius` (analytic volume and inertia) unless set_shape
// gives another one (a box, a capsule, a paperclip), whose volume and inertia tensor come from the
// shape; every use of the body (cells, faces, contact vertices, projection) goes through phi and
// project, one path for all shapes.
struct RigidBody3 {
  static constexpr int kDim = 3, kDofs = 6;
  double c[3] = {0, 0, 0};      // centre of mass
  double q[4] = {1, 0, 0, 0};   // orientation (w, x, y, z), body to world
  double v[3] = {0, 0, 0};      // velocity of the centre
  double omega[3] = {0, 0, 0};  // angular velocity (world frame)
  // A sphere's radius; for other shapes the radius of the sphere about c that holds the body (set by
  // set_shape).
  double radius = 0;
  double density = 1;  // g/cm^3
  bool fixed = false;   // kinematic: keeps its (constant) velocity, no unknowns
  bool rotates = true;  // false: omega stays at its initial value (J drops its omega columns)
  // Held in place along world axis d (the held-body force measurement, Vella and Mahadevan 2005):
  // v[d] stays 0, and the solve reports the force the liquid and the membrane exert along it.
  bool held[3] = {false, false, false};
  // Kinematically driven link of an articulated body (the water strider of Ruan 2021 Fig. 14, in the
  // reduced form of Disc::root): root >= 0 makes this body a link of bodies[root], a free, non-rotating
  // body whose unknowns it shares. Its centre follows the root's centre plus the prescribed stroke
  //   r(t) = (s_x - a_x cos th, s_y - a_y cos th, s_z + a_z sin th),  th = 2 pi f tau + phase,
  // (z up: with a_x, a_z > 0 a foot sweeps backward while low and returns while high), its orientation
  // stays its own (a leg keeps its direction), and its points move with J_root(x) v_root + r'(t).
  int root = -1;
  double stroke_centre[3] = {0, 0, 0};
  double stroke_amplitude[3] = {0, 0, 0};
  double stroke_frequency = 0, stroke_phase = 0, stroke_start = 0, stroke_cycles = 0;
  double v_kin[3] = {0, 0, 0};  // r'(t) at the link's current time
  bool sphere = true;   // false: the body is `shape` (set_shape)
  BodyShape3 shape;     // body frame, centre of mass at the origin (not a sphere)
  double volume = 0;    // not a sphere: the shape's volume
  double unit_inertia[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};  // not a sphere: body-frame inertia per unit density
  double half_extent[3] = {0, 0, 0};  // not a sphere: body-frame half widths about c along the body axes
  double box_lo[3] = {0, 0, 0}, box_hi[3] = {0, 0, 0};  // not a sphere: body-frame bounds about c

  // Makes the body the shape s (given in any frame): s is moved so that its centre of mass is the
  // body frame's origin, and the volume, inertia and extents come from it (mass_properties).
  void set_shape(const BodyShape3& s);
  double mass() const { return density * (sphere ? 4.0 / 3.0 * M_PI * radius * radius * radius : volume); }
  // The body's state as (name, value) slots for checkpoints and diagnostics (body_state below).
  static constexpr int kStateSize = 13;
  static constexpr const char* kStateNames[kStateSize] = {"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                                                          "vx", "vy", "vz", "wx", "wy", "wz"};
  void state_slots(double** out) {
    double* slots[kStateSize] = {&c[0], &c[1], &c[2], &q[0],     &q[1],     &q[2],    &q[3],
                                 &v[0], &v[1], &v[2], &omega[0], &omega[1], &omega[2]};
    for (int k = 0; k < kStateSize; ++k) out[k] = slots[k];
  }
  // Inertia tensor in the body frame (row major; a solid sphere: 2 m R^2 / 5 about every axis).
  void body_inertia(double* out) const;
  // The world inertia R I_body R^T (row major 3 x 3).
  void world_inertia(double* out) const;
  // M_r (6 x 6, row major): m I_3 and the world inertia.
  void mass_matrix(double* out) const;
  // Rotation matrix (row major) of q.
  void rotation(double* r) const;
  // Signed distance of the world point x to the body (negative inside). Beyond the sphere of `radius`
  // about c: the distance to that sphere, a lower bound that keeps far queries cheap.
  double phi(const double* x) const;
  // Row d of J(x): coefficients of (v, omega) in the velocity component d of point x.
  KOKKOS_INLINE_FUNCTION void jacobian_row(int d, const double* x, double* row) const {
    const double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    for (int e = 0; e < 3; ++e) row[e] = d == e ? 1.0 : 0.0;
    // (omega x r)_d = omega_{d+1} r_{d+2} - omega_{d+2} r_{d+1} (indices mod 3).
    row[3 + d] = 0;
    row[3 + (d + 1) % 3] = rotates ? r[(d + 2) % 3] : 0.0;
    row[3 + (d + 2) % 3] = rotates ? -r[(d + 1) % 3] : 0.0;
  }
  // Velocity component d of the body point x.
  KOKKOS_INLINE_FUNCTION double point_velocity(int d, const double* x) const {
    const double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    return v[d] + omega[(d + 1) % 3] * r[(d + 2) % 3] - omega[(d + 2) % 3] * r[(d + 1) % 3];
  }
  // The generalized velocity (v, omega).
  void velocity(double* out) const {
    for (int e = 0; e < 3; ++e) {
      out[e] = v[e];
      out[3 + e] = omega[e];
    }
  }
  void set_velocity(const double* in) {
    for (int e = 0; e < 3; ++e) {
      v[e] = in[e];
      omega[e] = in[3 + e];
    }
  }
  // Closest point of the body surface to x (for other shapes than spheres: steps x - phi n until
  // |phi| < 1e-12 of the body's size, at most 16 steps; exact for a convex shape in one step).
  void project(const double* x, double* out) const;
  // Half width of the body's world-frame bounding box along axis d, symmetric about c (a bound).
  double reach(int d) const;
  // Distances from c to the low and high faces of the world-frame bounding box along axis d: the
  // body-frame box [box_lo, box_hi] rotated with the body, its centre offset from c kept (a push-pin's
  // box reaches 0.09 cm below its centre of mass and 0.67 cm above). Body-wall contact and the deck's
  // check that a body lies inside the box use it.
  void extent(int d, double* below, double* above) const;
};

// The velocity of the momentum right-hand side of a body moved from `start` (q^n) to `end`
// (q^{n+1}): (v, I(q^{n+1})^-1 I(q^n) omega), so that M_r(q^{n+1}) v_r* = M_r(q^n) v_r^n and a
// torque-free body keeps its angular momentum L = I omega exactly (the paper's Eq. 27 with the
// gyroscopic term of f_r, Ruan 2021 §4.3, in momentum form). A sphere, or a body with rotates:
// false, keeps omega.
void momentum_velocity(const RigidBody3& start, const RigidBody3& end, double* out);

// z of the lowest body surface point below (x, y, level) when that point is inside the body (a
// vertical line from it downwards crosses the surface; bisection), else `level`.
double surface_below(const RigidBody3& b, double x, double y, double level);

// Index of the first body whose interior holds x (phi < 0), or -1 (Disc or RigidBody3).
template <class Body>
int body_containing(const std::vector<Body>& bodies, const double* x) {
  for (size_t b = 0; b < bodies.size(); ++b)
    if (bodies[b].phi(x) < 0) return static_cast<int>(b);
  return -1;
}
// Index of the nearest body with phi(x) < eps, or -1.
template <class Body>
int body_within(const std::vector<Body>& bodies, const double* x, double eps) {
  int best = -1;
  double dmin = eps;
  for (size_t b = 0; b < bodies.size(); ++b) {
    const double d = bodies[b].phi(x);
    if (d < dmin) {
      dmin = d;
      best = static_cast<int>(b);
    }
  }
  return best;
}

// Outward unit normal of a body's surface at x (on or near it) by central differences of its exact signed
// distance (step 1e-7 of its radius); radially out from the centre where they vanish.
template <class Body>
void surface_normal_by_differences(const Body& b, const double* x, double* n) {
  constexpr int dim = Body::kDim;
  const double h = 1e-7 * b.radius;
  double g = 0;
  for (int d = 0; d < dim; ++d) {
    double p[dim], m[dim];
    for (int e = 0; e < dim; ++e) p[e] = m[e] = x[e];
    p[d] += h;
    m[d] -= h;
    n[d] = b.phi(p) - b.phi(m);
    g += n[d] * n[d];
  }
  if (!(g > 0))
    for (int d = 0; d < dim; ++d) n[d] = x[d] - b.c[d];
  g = 0;
  for (int d = 0; d < dim; ++d) g += n[d] * n[d];
  g = std::sqrt(g);
  for (int d = 0; d < dim; ++d) n[d] = g > 0 ? n[d] / g : (d == 0 ? 1.0 : 0.0);
}

// Distance (in cells) within which a vertex counts as on a body's surface in predicted_contact: far
// above the round-off of coordinates of order one (1e-16) and far below any motion a step resolves.
inline constexpr double kSurfaceMarginCells = 1e-9;

// Stages 2-3 of Ruan 2021 (Eq. 30): a vertex at x with velocity v whose prediction x + v dt lies
// within `margin` of (or inside) a body of `predicted` is a contact particle of the first solve,
// moving to the prediction's projection on that body: returns the body (-1: none) and writes the
// velocity (projection - x) / dt to v_contact.
template <class Body>
int predicted_contact(const std::vector<Body>& predicted, const double* x, const double* v, double dt, double margin,
                      double* v_contact) {
  constexpr int dim = Body::kDim;
  double xs[dim], proj[dim];
  for (int d = 0; d < dim; ++d) xs[d] = x[d] + dt * v[d];
  const int b = body_within(predicted, xs, margin);
  if (b < 0) return b;
  predicted[b].project(xs, proj);
  for (int d = 0; d < dim; ++d) v_contact[d] = (proj[d] - x[d]) / dt;
  return b;
}

// Stage 6 contact set of Ruan 2021 (§6, after Eq. 32) in either dimension: near[i] is the body within
// epsilon of vertex i (rule 2) or -1; rule 3 drops a vertex that has no neighbour near the same body.
// edges: vertex pairs (a0, b0, a1, b1, ...). Returns the body of each vertex or -1.
std::vector<int> contact_set(const std::vector<int>& near, const std::vector<int>& edges);

// Moves every point x_i (Body::kDim coordinates each, n points) for which skip[i] == 0 and that lies
// inside a body to the closest point of that body's surface; returns whether any moved.
template <class Body>
bool project_out_of(const std::vector<Body>& bodies, double* x, long n, const std::vector<char>& skip) {
  constexpr int dim = Body::kDim;
  bool moved = false;
  for (long i = 0; i < n; ++i) {
    if (skip[i]) continue;
    double* p = x + dim * i;
    const int b = body_containing(bodies, p);
    if (b < 0) continue;
    double q[dim];
    bodies[b].project(p, q);
    for (int d = 0; d < dim; ++d) p[d] = q[d];
    moved = true;
  }
  return moved;
}

// Every body's state as bodyN_<name> values (checkpoint state, diagnostics), Disc or RigidBody3.
template <class Body>
std::vector<std::pair<std::string, double>> body_state(const std::vector<Body>& bodies) {
  std::vector<std::pair<std::string, double>> out;
  for (size_t b = 0; b < bodies.size(); ++b) {
    Body copy = bodies[b];
    double* slots[Body::kStateSize];
    copy.state_slots(slots);
    for (int q = 0; q < Body::kStateSize; ++q)
      out.emplace_back("body" + std::to_string(b) + "_" + Body::kStateNames[q], *slots[q]);
  }
  return out;
}
// Sets every body's state from such values; returns the index of the first body the values lack
// (-1: all found).
template <class Body>
long restore_body_state(std::vector<Body>& bodies, const std::vector<std::pair<std::string, double>>& state) {
  for (size_t b = 0; b < bodies.size(); ++b) {
    double* slots[Body::kStateSize];
    bodies[b].state_slots(slots);
    for (int q = 0; q < Body::kStateSize; ++q) {
      const std::string key = "body" + std::to_string(b) + "_" + Body::kStateNames[q];
      bool found = false;
      for (const auto& [k, v] : state)
        if (k == key) {
          *slots[q] = v;
          found = true;
        }
      if (!found) return static_cast<long>(b);
    }
  }
  return -1;
}

// Body-wall contact (the paper leaves rigid-wall contact open; here a post-solve projection with
// restitution 0): a body whose next position step would cross a wall of the tank [lower, lower +
// cells dx] keeps only the velocity that brings it to the wall. Slightly breaks the monolithic
// consistency of the step's face velocities, as any post-solve projection does.
template <class Body>
void stop_at_walls(Body& b, const double* lower, const int* cells, double dx, double dt) {
  for (int d = 0; d < Body::kDim; ++d) {
    const double lo = lower[d], hi = lower[d] + cells[d] * dx;
    double below = 0, above = 0;
    b.extent(d, &below, &above);
    const double gap_lo = b.c[d] - below - lo, gap_hi = hi - b.c[d] - above;
    b.v[d] = std::max(b.v[d], -std::max(gap_lo, 0.0) / dt);
    b.v[d] = std::min(b.v[d], std::max(gap_hi, 0.0) / dt);
  }
}

// Vertices (x0, y0, x1, y1, ...) of a flat pool surface at `level` from x0 to x1 with edges about
// `edge`, wrapping the wetted lower arc of every disc that the level cuts: the liquid starts in
// contact with each body's submerged part, its contact line at the level.
std::vector<double> pool_surface(double x0, double x1, double level, double edge, std::vector<Disc> bodies);

// Points about `edge` apart on the outline of b (world frame, counter-clockwise; a box's and a
// polygon's corners kept, an ellipse's and a disc's points evenly spaced in arc length).
std::vector<double> outline_points(const Disc& b, double edge);
// World coordinates of the corners of a box or polygon, counter-clockwise (empty for smooth outlines).
std::vector<double> outline_corners(const Disc& b);

// The stroke of a link (Disc or RigidBody3) at time t: its centre's offset r(t) from the root's centre
// and r'(t). The axes below the last (the vertical one) move as s - a cos th, the vertical one as
// s + a sin th; outside the window [stroke_start, stroke_start + stroke_cycles / f] the link holds at
// the window's edge (clamped time, r' = 0).
template <class Body>
void link_stroke(const Body& link, double t, double* r, double* r_dot) {
  constexpr int dim = Body::kDim;
  const double w = 2 * M_PI * link.stroke_frequency;
  const double last = link.stroke_cycles > 0 && w > 0 ? link.stroke_cycles / link.stroke_frequency : HUGE_VAL;
  const double since = t - link.stroke_start, tau = std::clamp(since, 0.0, last);
  const double moving = tau == since ? 1.0 : 0.0;
  const double th = w * tau + link.stroke_phase;
  for (int d = 0; d < dim; ++d) {
    const bool up = d == dim - 1;
    r[d] = up ? link.stroke_centre[d] + link.stroke_amplitude[d] * std::sin(th)
              : link.stroke_centre[d] - link.stroke_amplitude[d] * std::cos(th);
    r_dot[d] = moving * w * link.stroke_amplitude[d] * (up ? std::cos(th) : std::sin(th));
  }
}

// Places every link (root >= 0) on its root at time t: c = c_root + r(t), v_kin = r'(t),
// v = v_root + v_kin, omega = 0 (2D: the root's angle; 3D: the link keeps its orientation).
void attach_links(std::vector<Disc>& bodies, double t);
void attach_links(std::vector<RigidBody3>& bodies, double t);
// M_r (6 x 6, row major) of 3D body b with the links it carries: their masses added to m I_3 and
// I_k + m_k (|d|^2 I - d d^T) (d = c_k - c_b) to the world inertia.
void composite_mass_matrix(const std::vector<RigidBody3>& bodies, size_t b, double* out);
// The composite translational mass of 3D body b (its mass and its links').
double composite_mass(const std::vector<RigidBody3>& bodies, size_t b);
// Inertia (m, m, I about the centre) of body b with the links it carries (composite: I_k + m_k |c_k -
// c_b|^2 per link), the M_r of its unknowns.
void composite_inertia(const std::vector<Disc>& bodies, size_t b, double* out);

// Stage 1 of the paper's step (Eq. 29 with the Rodrigues form of the rotation): q += v dt.
void predict_positions(std::vector<Disc>& bodies, double dt);
// The same in 3D: c += v dt, R <- exp([omega]_x dt) R (the quaternion of the rotation by |omega| dt
// about omega, then normalised).
void predict_positions(std::vector<RigidBody3>& bodies, double dt);

}  // namespace meniscus::membrane
