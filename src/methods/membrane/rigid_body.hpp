#pragma once
// 2D rigid bodies of Ruan et al. 2021 (§4.3, Eqs. 12-14): a disc (a cylinder seen end-on) with generalized
// velocity v_r = (v_x, v_y, omega), mass matrix M_r = diag(m, m, I) with m = rho_s pi R^2 (areal
// density in 2D) and I = m R^2 / 2. A body point x moves with x' = J(x) v_r, the point Jacobian
//
//   J(x) = [ 1  0  -(y - c_y) ]
//          [ 0  1   (x - c_x) ]
//
// whose transpose maps a force at x to the body's (force, torque). Its rows on a face of axis d
// (e_d^T J(x_f)) couple the body to the fluid-rigid faces of the MAC grid, and its rows at a
// contact vertex slave that vertex to the body (paper §5.2 contact particles).
#include <Kokkos_Core.hpp>
#include <vector>

#include "core/kmath.hpp"

namespace meniscus::membrane {

struct Disc {
  double c[2] = {0, 0};   // centre of mass
  double angle = 0;       // orientation (only carried: a disc's geometry does not depend on it)
  double v[2] = {0, 0};   // velocity of the centre
  double omega = 0;       // angular velocity (counter-clockwise)
  double radius = 0;
  double density = 1;     // areal density (g/cm^2)
  bool fixed = false;     // kinematic: moves with its (constant) deck velocity, no unknowns
  bool rotates = true;    // false: omega stays at its initial value (J drops its omega column)
  // Held in place along x and/or y (the held-body Cheerios measurement, Vella and Mahadevan 2005): that
  // velocity component stays 0 while the others remain unknowns; the three-way solve returns the
  // force the liquid and the membrane exert along each held axis (the hold's reaction, negated).
  bool held_x = false, held_y = false;
  // Kinematically driven link of an articulated body (the water-strider robot of Ruan 2021 Fig. 10b-e;
  // the reduced form of the paper's articulated bodies: only the root's DOFs are unknowns). root >= 0
  // makes this disc a link of bodies[root] (a non-rotating free body): it has no unknowns of its own,
  // its centre follows the root's centre plus the prescribed stroke
  //   r(t) = (s_x - a_x cos th, s_y + a_y sin th),  th = 2 pi f t + phase,
  // so that a foot with a_x, a_y > 0 sweeps backward (-x) while low and returns forward while high,
  // and its points move with J_root(x) v_root + r'(t) (r' the known part, v_kin). attach_links keeps
  // c, v and v_kin of the links up to date.
  int root = -1;
  double stroke_centre[2] = {0, 0};     // s: mean offset of the link's centre from the root's
  double stroke_amplitude[2] = {0, 0};  // (a_x, a_y)
  double stroke_frequency = 0;          // f (Hz)
  double stroke_phase = 0;              // phase (rad)
  double v_kin[2] = {0, 0};             // r'(t) at the link's current time

  double mass() const { return density * M_PI * radius * radius; }
  double inertia() const { return 0.5 * mass() * radius * radius; }
  KOKKOS_INLINE_FUNCTION double phi(const double* x) const {
    const double dx = x[0] - c[0], dy = x[1] - c[1];
    return kmath::sqrt(dx * dx + dy * dy) - radius;
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

// Index of the first body whose interior holds x (phi < 0), or -1.
int body_containing(const std::vector<Disc>& bodies, const double* x);
// Index of the nearest body with phi(x) < eps, or -1.
int body_within(const std::vector<Disc>& bodies, const double* x, double eps);

// Vertices (x0, y0, x1, y1, ...) of a flat pool surface at `level` from x0 to x1 with edges about
// `edge`, wrapping the wetted lower arc of every disc that the level cuts: the liquid starts in
// contact with each body's submerged part, its contact line at the level.
std::vector<double> pool_surface(double x0, double x1, double level, double edge, std::vector<Disc> bodies);

// Places every link (Disc::root >= 0) on its root at time t: c = c_root + r(t), v_kin = r'(t),
// v = v_root + v_kin, omega = 0.
void attach_links(std::vector<Disc>& bodies, double t);
// Inertia (m, m, I about the centre) of body b with the links it carries (composite: I_k + m_k |c_k -
// c_b|^2 per link), the M_r of its unknowns.
void composite_inertia(const std::vector<Disc>& bodies, size_t b, double* out);

// Stage 1 of the paper's step (Eq. 29 with the Rodrigues form of the rotation): q += v dt.
void predict_positions(std::vector<Disc>& bodies, double dt);

}  // namespace meniscus::membrane
