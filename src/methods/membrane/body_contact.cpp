#include "methods/membrane/body_contact.hpp"

#include <algorithm>
#include <cmath>

namespace meniscus::membrane {

namespace {
// Inverse mass of a body along its three velocity unknowns (v_x, v_y, omega): zero where the body
// takes no impulse (fixed, held along an axis, not rotating); a root carries its links' inertia.
void inverse_mass(const std::vector<Disc>& bodies, size_t b, double* im) {
  const Disc& d = bodies[b];
  double m[3];
  composite_inertia(bodies, b, m);
  im[0] = d.fixed || d.held_x ? 0.0 : 1 / m[0];
  im[1] = d.fixed || d.held_y ? 0.0 : 1 / m[1];
  im[2] = d.fixed || !d.rotates || d.held_rotation ? 0.0 : 1 / m[2];
}

// Outward unit normal of body b at x, whose closest surface point is q and signed distance phi: along
// x - q off the surface, else by central differences of the exact signed distance.
void outward_normal(const Disc& b, const double* x, const double* q, double phi, double h, double* n) {
  const double dx = x[0] - q[0], dy = x[1] - q[1], len = std::hypot(dx, dy);
  if (len > 1e-9 * b.radius) {
    const double s = phi < 0 ? -1.0 : 1.0;
    n[0] = s * dx / len;
    n[1] = s * dy / len;
    return;
  }
  const double px[2] = {x[0] + h, x[1]}, mx[2] = {x[0] - h, x[1]}, py[2] = {x[0], x[1] + h}, my[2] = {x[0], x[1] - h};
  n[0] = b.phi(px) - b.phi(mx);
  n[1] = b.phi(py) - b.phi(my);
  const double g = std::hypot(n[0], n[1]);
  if (g > 0) {
    n[0] /= g;
    n[1] /= g;
  } else {  // at a medial point: away from the centre
    n[0] = x[0] - b.c[0];
    n[1] = x[1] - b.c[1];
    const double r = std::hypot(n[0], n[1]);
    n[0] = r > 0 ? n[0] / r : 1.0;
    n[1] = r > 0 ? n[1] / r : 0.0;
  }
}

// A contact: the point x (world), the unit normal n pointing from body b into body a, the gap along
// it (negative when overlapping).
struct ContactPoint {
  size_t a = 0, b = 0;
  double x[2] = {0, 0}, n[2] = {0, 0}, gap = 0;
  double normal_impulse = 0;   // accumulated over the sweeps (clamped at 0: contacts only push)
  double tangent_impulse = 0;  // accumulated over the sweeps (clamped to the friction cone)
};

// Velocity of body d at x along e, and the body's inverse effective mass along e at x.
double velocity_along(const Disc& d, const double* x, const double* e) {
  return d.point_velocity(0, x) * e[0] + d.point_velocity(1, x) * e[1];
}
double inverse_mass_along(const Disc& d, const double* im, const double* x, const double* e) {
  const double r_cross_e = (x[0] - d.c[0]) * e[1] - (x[1] - d.c[1]) * e[0];
  return im[0] * e[0] * e[0] + im[1] * e[1] * e[1] + im[2] * r_cross_e * r_cross_e;
}
// Applies the impulse P e at x to body d (+) with inverse masses im.
void apply_impulse(Disc& d, const double* im, const double* x, const double* e, double P) {
  const double r_cross_e = (x[0] - d.c[0]) * e[1] - (x[1] - d.c[1]) * e[0];
  d.v[0] += im[0] * P * e[0];
  d.v[1] += im[1] * P * e[1];
  d.omega += im[2] * P * r_cross_e;
}
}  // namespace

int resolve_body_contacts(std::vector<Disc>& bodies, double dt, const BodyContactParameters& p) {
  const size_t nb = bodies.size();
  if (nb < 2 || !(dt > 0)) return 0;
  std::vector<double> im(3 * nb, 0.0);
  for (size_t b = 0; b < nb; ++b) inverse_mass(bodies, b, &im[3 * b]);
  auto active = [&](size_t b) { return bodies[b].root < 0; };
  // Gather the contact points: for each pair within reach of each other this step, every sampled
  // point of either outline whose predicted gap (gap + dt times the approach speed) is negative.
  std::vector<ContactPoint> contacts;
  for (size_t a = 0; a < nb; ++a)
    for (size_t b = a + 1; b < nb; ++b) {
      if (!active(a) || !active(b)) continue;
      const Disc &A = bodies[a], &B = bodies[b];
      if (im[3 * a] + im[3 * a + 1] + im[3 * a + 2] + im[3 * b] + im[3 * b + 1] + im[3 * b + 2] == 0) continue;
      const double reach = dt * (std::hypot(A.v[0] - B.v[0], A.v[1] - B.v[1]) + std::abs(A.omega) * A.radius +
                                 std::abs(B.omega) * B.radius);
      if (std::hypot(A.c[0] - B.c[0], A.c[1] - B.c[1]) > A.radius + B.radius + reach) continue;
      const double spacing = p.spacing > 0 ? p.spacing : 0.25 * std::min(A.radius, B.radius);
      const double h = 1e-7 * std::max(A.radius, B.radius);
      // Points of `from`'s outline against `into`'s signed distance; n points from b into a. A point
      // whose closest point on `into` is one of its corners is left to the other scan, which samples
      // that corner against this outline's face: the corner's normal is not defined, and a diagonal
      // one would push a body sliding past it backwards (a block sliding along a slab has its
      // trailing and leading corners over slab points).
      auto scan = [&](const Disc& from, const Disc& into, double sign) {
        const auto ring = outline_points(from, spacing);
        const auto corners = outline_corners(into), own_corners = outline_corners(from);
        auto is_corner = [](const std::vector<double>& list, const double* x, double tol) {
          for (size_t k = 0; k + 1 < list.size(); k += 2)
            if (std::hypot(x[0] - list[k], x[1] - list[k + 1]) < tol) return true;
          return false;
        };
        for (size_t i = 0; i + 1 < ring.size(); i += 2) {
          ContactPoint c;
          c.a = a;
          c.b = b;
          c.x[0] = ring[i];
          c.x[1] = ring[i + 1];
          c.gap = into.phi(c.x);
          if (c.gap > reach) continue;
          double q[2];
          into.project(c.x, q);
          if (is_corner(corners, q, 1e-9 * into.radius)) continue;
          outward_normal(into, c.x, q, c.gap, h, c.n);
          // Off its own corners, a point touches `into` only where the two surfaces face each other:
          // a point of a slab entering under a block's corner lies nearest the block's side face,
          // whose normal, along the slab, would brake the block.
          if (!is_corner(own_corners, c.x, 1e-9 * from.radius)) {
            double own[2];
            outward_normal(from, c.x, c.x, 0.0, h, own);
            if (own[0] * c.n[0] + own[1] * c.n[1] > -0.5) continue;
          }
          c.n[0] *= sign;
          c.n[1] *= sign;
          const double vn = velocity_along(A, c.x, c.n) - velocity_along(B, c.x, c.n);  // > 0: separating
          if (c.gap + dt * vn < 0) contacts.push_back(c);
        }
      };
      scan(A, B, 1.0);   // A's points near B: B's outward normal points into A's side
      scan(B, A, -1.0);  // B's points near A: A's outward normal points away from A
    }
  int first_sweep = 0;
  for (int sweep = 0; sweep < p.sweeps; ++sweep) {
    for (auto& c : contacts) {
      Disc &A = bodies[c.a], &B = bodies[c.b];
      const double* ia = &im[3 * c.a];
      const double* ib = &im[3 * c.b];
      // Normal: the relative velocity along n may close the gap but not cross it (restitution 0).
      const double target = -std::max(c.gap, 0.0) / dt;
      const double vn = velocity_along(A, c.x, c.n) - velocity_along(B, c.x, c.n);
      const double kn = inverse_mass_along(A, ia, c.x, c.n) + inverse_mass_along(B, ib, c.x, c.n);
      if (!(kn > 0)) continue;
      const double total = std::max(c.normal_impulse + (target - vn) / kn, 0.0);
      const double dPn = total - c.normal_impulse;
      c.normal_impulse = total;
      if (dPn != 0) {
        apply_impulse(A, ia, c.x, c.n, dPn);
        apply_impulse(B, ib, c.x, c.n, -dPn);
        if (sweep == 0) ++first_sweep;
      }
      // Tangent: Coulomb friction within mu times this contact's normal impulse.
      const double t[2] = {-c.n[1], c.n[0]};
      const double vt = velocity_along(A, c.x, t) - velocity_along(B, c.x, t);
      const double kt = inverse_mass_along(A, ia, c.x, t) + inverse_mass_along(B, ib, c.x, t);
      if (!(kt > 0)) continue;  // a contact whose normal impulse fell to 0 loses its friction too
      const double bound = p.friction * c.normal_impulse;
      const double total_t = std::clamp(c.tangent_impulse - vt / kt, -bound, bound);
      const double dPt = total_t - c.tangent_impulse;
      c.tangent_impulse = total_t;
      apply_impulse(A, ia, c.x, t, dPt);
      apply_impulse(B, ib, c.x, t, -dPt);
    }
  }
  return first_sweep;
}

}  // namespace meniscus::membrane
