#include "methods/membrane/body_contact.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace meniscus::membrane {

namespace {
// What the sweeps need of a body, per dimension: how it takes an impulse (inverse mass along each
// axis, zero where held or fixed; inverse inertia, zero where it does not turn) and its sampled
// surface with the outward normals there.
template <int Dim>
struct Rigid {
  static constexpr int kSpin = Dim == 2 ? 1 : 3;  // components of omega
  double inv_mass[Dim] = {};
  double inv_inertia[kSpin * kSpin] = {};  // world frame, row major
};

// (r x e) as omega's components: a scalar in 2D.
template <int Dim>
void lever(const double* r, const double* e, double* out) {
  if constexpr (Dim == 2) {
    out[0] = r[0] * e[1] - r[1] * e[0];
  } else {
    out[0] = r[1] * e[2] - r[2] * e[1];
    out[1] = r[2] * e[0] - r[0] * e[2];
    out[2] = r[0] * e[1] - r[1] * e[0];
  }
}

// The body-specific parts, overloaded on the body type.
void point_velocity(const Disc& b, const double* x, double* out) {
  for (int d = 0; d < 2; ++d) out[d] = b.point_velocity(d, x);
}
void point_velocity(const RigidBody3& b, const double* x, double* out) {
  for (int d = 0; d < 3; ++d) out[d] = b.point_velocity(d, x);
}
double* spin(Disc& b) { return &b.omega; }
double* spin(RigidBody3& b) { return b.omega; }
const double* spin(const Disc& b) { return &b.omega; }
const double* spin(const RigidBody3& b) { return b.omega; }
bool takes_part(const Disc& b) { return b.root < 0; }  // links follow their root
bool takes_part(const RigidBody3& b) { return b.root < 0; }

Rigid<2> rigid_of(const std::vector<Disc>& bodies, size_t k) {
  const Disc& d = bodies[k];
  double m[3];
  composite_inertia(bodies, k, m);  // a root carries its links
  Rigid<2> r;
  r.inv_mass[0] = d.fixed || d.held_x ? 0.0 : 1 / m[0];
  r.inv_mass[1] = d.fixed || d.held_y ? 0.0 : 1 / m[1];
  r.inv_inertia[0] = d.fixed || !d.rotates || d.held_rotation ? 0.0 : 1 / m[2];
  return r;
}
Rigid<3> rigid_of(const std::vector<RigidBody3>& bodies, size_t k) {
  const RigidBody3& b = bodies[k];
  Rigid<3> r;
  if (b.fixed) return r;
  const double m = composite_mass(bodies, k);  // a root carries its links
  for (int d = 0; d < 3; ++d) r.inv_mass[d] = b.held[d] ? 0.0 : 1 / m;
  if (!b.rotates) return r;
  double I[9];
  b.world_inertia(I);
  const double c0 = I[4] * I[8] - I[5] * I[7], c1 = I[5] * I[6] - I[3] * I[8], c2 = I[3] * I[7] - I[4] * I[6];
  const double det = I[0] * c0 + I[1] * c1 + I[2] * c2;
  const double inv[9] = {c0, I[2] * I[7] - I[1] * I[8], I[1] * I[5] - I[2] * I[4],
                         c1, I[0] * I[8] - I[2] * I[6], I[2] * I[3] - I[0] * I[5],
                         c2, I[1] * I[6] - I[0] * I[7], I[0] * I[4] - I[1] * I[3]};
  for (int k2 = 0; k2 < 9; ++k2) r.inv_inertia[k2] = inv[k2] / det;
  return r;
}

// Outward unit normal of body b at x, whose closest surface point is q and signed distance phi: along
// x - q off the surface, else by central differences of the exact signed distance (and away from
// the centre at a point where they vanish).
template <int Dim, class Body>
void outward_normal(const Body& b, const double* x, const double* q, double phi, double* n) {
  double len = 0;
  for (int d = 0; d < Dim; ++d) len += (x[d] - q[d]) * (x[d] - q[d]);
  len = std::sqrt(len);
  if (len > 1e-9 * b.radius) {
    const double s = phi < 0 ? -1.0 : 1.0;
    for (int d = 0; d < Dim; ++d) n[d] = s * (x[d] - q[d]) / len;
    return;
  }
  surface_normal_by_differences(b, x, n);
}

// Points on the surface of a body about `spacing` apart (world frame).
std::vector<double> surface_points(const Disc& b, double spacing) { return outline_points(b, spacing); }
std::vector<double> surface_points(const RigidBody3& b, double spacing) {
  std::vector<double> out;
  if (b.sphere) {  // a Fibonacci lattice on the sphere
    const long n = std::max(32L, static_cast<long>(std::ceil(4 * M_PI * b.radius * b.radius / (spacing * spacing))));
    const double golden = M_PI * (3 - std::sqrt(5.0));
    for (long k = 0; k < n; ++k) {
      const double z = 1 - (2 * k + 1.0) / n, r = std::sqrt(std::max(0.0, 1 - z * z)), t = golden * k;
      out.insert(out.end(), {b.c[0] + b.radius * r * std::cos(t), b.c[1] + b.radius * r * std::sin(t), b.c[2] + b.radius * z});
    }
    return out;
  }
  // Lattice points within a cell diagonal of the shape's surface, stepped onto it (body frame).
  double R[9];
  b.rotation(R);
  double lo[3], hi[3];
  b.shape.bounds(lo, hi);
  int n[3];
  for (int d = 0; d < 3; ++d) n[d] = static_cast<int>(std::ceil((hi[d] - lo[d]) / spacing)) + 2;
  for (int k = 0; k <= n[2]; ++k)
    for (int j = 0; j <= n[1]; ++j)
      for (int i = 0; i <= n[0]; ++i) {
        double y[3] = {lo[0] + (i - 1) * spacing, lo[1] + (j - 1) * spacing, lo[2] + (k - 1) * spacing};
        const double dist = b.shape.distance(y);
        if (std::abs(dist) > 0.87 * spacing) continue;
        double nb[3];
        b.shape.normal(y, nb);
        for (int d = 0; d < 3; ++d) y[d] -= dist * nb[d];
        for (int d = 0; d < 3; ++d) out.push_back(b.c[d] + R[3 * d] * y[0] + R[3 * d + 1] * y[1] + R[3 * d + 2] * y[2]);
      }
  return out;
}

// Corners of an outline (2D box or polygon); 3D shapes list none and rely on the facing rule alone.
std::vector<double> sharp_points(const Disc& b) { return outline_corners(b); }
std::vector<double> sharp_points(const RigidBody3&) { return {}; }

template <int Dim>
struct ContactPoint {
  size_t a = 0, b = 0;
  double x[Dim] = {}, n[Dim] = {};  // the point and the unit normal from body b into body a
  double gap = 0;                   // signed distance along n (negative when overlapping)
  double normal_impulse = 0;        // accumulated over the sweeps (clamped at 0: contacts only push)
  double tangent_impulse[Dim] = {};  // accumulated over the sweeps (clamped to the friction cone)
};

template <int Dim, class Body>
void relative_velocity(const Body& A, const Body& B, const double* x, double* out) {
  double va[Dim], vb[Dim];
  point_velocity(A, x, va);
  point_velocity(B, x, vb);
  for (int d = 0; d < Dim; ++d) out[d] = va[d] - vb[d];
}

// The body's inverse effective mass for an impulse along unit e at x.
template <int Dim, class Body>
double inverse_mass_along(const Body& b, const Rigid<Dim>& r, const double* x, const double* e) {
  double rel[Dim], l[Rigid<Dim>::kSpin];
  for (int d = 0; d < Dim; ++d) rel[d] = x[d] - b.c[d];
  lever<Dim>(rel, e, l);
  double k = 0;
  for (int d = 0; d < Dim; ++d) k += r.inv_mass[d] * e[d] * e[d];
  for (int i = 0; i < Rigid<Dim>::kSpin; ++i)
    for (int j = 0; j < Rigid<Dim>::kSpin; ++j) k += l[i] * r.inv_inertia[Rigid<Dim>::kSpin * i + j] * l[j];
  return k;
}

// Applies the impulse P (a vector) at x to body b.
template <int Dim, class Body>
void apply_impulse(Body& b, const Rigid<Dim>& r, const double* x, const double* P) {
  double rel[Dim], l[Rigid<Dim>::kSpin];
  for (int d = 0; d < Dim; ++d) rel[d] = x[d] - b.c[d];
  lever<Dim>(rel, P, l);
  for (int d = 0; d < Dim; ++d) b.v[d] += r.inv_mass[d] * P[d];
  double* w = spin(b);
  for (int i = 0; i < Rigid<Dim>::kSpin; ++i)
    for (int j = 0; j < Rigid<Dim>::kSpin; ++j) w[i] += r.inv_inertia[Rigid<Dim>::kSpin * i + j] * l[j];
}

template <int Dim, class Body>
double speed_bound(const Body& A, const Body& B) {
  double dv = 0, wa = 0, wb = 0;
  for (int d = 0; d < Dim; ++d) dv += (A.v[d] - B.v[d]) * (A.v[d] - B.v[d]);
  for (int i = 0; i < Rigid<Dim>::kSpin; ++i) {
    wa += spin(A)[i] * spin(A)[i];
    wb += spin(B)[i] * spin(B)[i];
  }
  return std::sqrt(dv) + std::sqrt(wa) * A.radius + std::sqrt(wb) * B.radius;
}

template <int Dim, class Body>
int resolve(std::vector<Body>& bodies, double dt, const BodyContactParameters& p) {
  const size_t nb = bodies.size();
  if (nb < 2 || !(dt > 0)) return 0;
  std::vector<Rigid<Dim>> rigid;
  for (size_t k = 0; k < nb; ++k) rigid.push_back(rigid_of(bodies, k));
  auto immovable = [&](size_t k) {
    const auto& r = rigid[k];
    double s = 0;
    for (double v : r.inv_mass) s += v;
    for (double v : r.inv_inertia) s += std::abs(v);
    return s == 0;
  };
  // Gather the contact points: for each pair within reach of each other this step, every sampled
  // surface point of either body whose predicted gap (gap + dt times the normal relative velocity)
  // is negative.
  std::vector<ContactPoint<Dim>> contacts;
  for (size_t a = 0; a < nb; ++a)
    for (size_t b = a + 1; b < nb; ++b) {
      if (!takes_part(bodies[a]) || !takes_part(bodies[b]) || (immovable(a) && immovable(b))) continue;
      const Body &A = bodies[a], &B = bodies[b];
      const double reach = dt * speed_bound<Dim>(A, B);
      double dc = 0;
      for (int d = 0; d < Dim; ++d) dc += (A.c[d] - B.c[d]) * (A.c[d] - B.c[d]);
      if (std::sqrt(dc) > A.radius + B.radius + reach) continue;
      const double spacing = p.spacing > 0 ? p.spacing : 0.25 * std::min(A.radius, B.radius);
      // Points of `from`'s surface against `into`'s signed distance; n points from b into a. A point
      // whose closest point on `into` is one of its corners is left to the other scan, which samples
      // that corner against this surface: a corner has no normal, and a diagonal one would push a
      // body sliding past it backwards (a block sliding along a slab has its trailing and leading
      // corners over slab points). Away from its own corners a point counts only where the two
      // surfaces face each other (a slab point entering under a block's corner lies nearest the
      // block's side face, whose normal, along the slab, would brake the block); in 3D, where
      // shapes list no corners, the facing rule is stricter and does both jobs.
      const double facing = Dim == 2 ? -0.5 : -0.9;
      auto scan = [&](const Body& from, const Body& into, double sign) {
        const auto points = surface_points(from, spacing);
        const auto corners = sharp_points(into), own_corners = sharp_points(from);
        auto is_corner = [](const std::vector<double>& list, const double* x, double tol) {
          for (size_t k = 0; k + Dim - 1 < list.size(); k += Dim) {
            double d2 = 0;
            for (int d = 0; d < Dim; ++d) d2 += (x[d] - list[k + d]) * (x[d] - list[k + d]);
            if (std::sqrt(d2) < tol) return true;
          }
          return false;
        };
        for (size_t i = 0; i + Dim - 1 < points.size(); i += Dim) {
          ContactPoint<Dim> c;
          c.a = a;
          c.b = b;
          for (int d = 0; d < Dim; ++d) c.x[d] = points[i + d];
          c.gap = into.phi(c.x);
          if (c.gap > reach) continue;
          double q[Dim];
          into.project(c.x, q);
          if (is_corner(corners, q, 1e-9 * into.radius)) continue;
          outward_normal<Dim>(into, c.x, q, c.gap, c.n);
          if (!is_corner(own_corners, c.x, 1e-9 * from.radius)) {
            double own[Dim], dot = 0;
            outward_normal<Dim>(from, c.x, c.x, 0.0, own);
            for (int d = 0; d < Dim; ++d) dot += own[d] * c.n[d];
            if (dot > facing) continue;
          }
          for (int d = 0; d < Dim; ++d) c.n[d] *= sign;
          double vr[Dim], vn = 0;  // vn > 0: separating
          relative_velocity<Dim>(A, B, c.x, vr);
          for (int d = 0; d < Dim; ++d) vn += vr[d] * c.n[d];
          if (c.gap + dt * vn < 0) contacts.push_back(c);
        }
      };
      scan(A, B, 1.0);   // A's points near B: B's outward normal points into A's side
      scan(B, A, -1.0);  // B's points near A: A's outward normal points away from A
    }
  int first_sweep = 0;
  for (int sweep = 0; sweep < p.sweeps; ++sweep) {
    for (auto& c : contacts) {
      Body &A = bodies[c.a], &B = bodies[c.b];
      const Rigid<Dim>&ra = rigid[c.a], &rb = rigid[c.b];
      // Normal: the relative velocity along n may close the gap but not cross it (restitution 0).
      const double target = -std::max(c.gap, 0.0) / dt;
      double vr[Dim], vn = 0;
      relative_velocity<Dim>(A, B, c.x, vr);
      for (int d = 0; d < Dim; ++d) vn += vr[d] * c.n[d];
      const double kn = inverse_mass_along<Dim>(A, ra, c.x, c.n) + inverse_mass_along<Dim>(B, rb, c.x, c.n);
      if (!(kn > 0)) continue;
      const double total = std::max(c.normal_impulse + (target - vn) / kn, 0.0);
      const double dPn = total - c.normal_impulse;
      c.normal_impulse = total;
      if (dPn != 0) {
        double P[Dim], M[Dim];
        for (int d = 0; d < Dim; ++d) {
          P[d] = dPn * c.n[d];
          M[d] = -P[d];
        }
        apply_impulse<Dim>(A, ra, c.x, P);
        apply_impulse<Dim>(B, rb, c.x, M);
        if (sweep == 0) ++first_sweep;
      }
      // Tangent: Coulomb friction, the accumulated tangential impulse within mu times this contact's
      // normal impulse (a contact whose normal impulse fell to 0 loses its friction too).
      relative_velocity<Dim>(A, B, c.x, vr);
      vn = 0;
      for (int d = 0; d < Dim; ++d) vn += vr[d] * c.n[d];
      double vt[Dim], speed = 0;
      for (int d = 0; d < Dim; ++d) {
        vt[d] = vr[d] - vn * c.n[d];
        speed += vt[d] * vt[d];
      }
      speed = std::sqrt(speed);
      double want[Dim];
      for (int d = 0; d < Dim; ++d) want[d] = c.tangent_impulse[d];
      if (speed > 0) {
        double t[Dim];
        for (int d = 0; d < Dim; ++d) t[d] = vt[d] / speed;
        const double kt = inverse_mass_along<Dim>(A, ra, c.x, t) + inverse_mass_along<Dim>(B, rb, c.x, t);
        if (kt > 0)
          for (int d = 0; d < Dim; ++d) want[d] -= speed / kt * t[d];
      }
      double size = 0;
      for (int d = 0; d < Dim; ++d) size += want[d] * want[d];
      size = std::sqrt(size);
      const double bound = p.friction * c.normal_impulse;
      const double scale = size > bound ? bound / size : 1.0;
      double P[Dim], M[Dim];
      for (int d = 0; d < Dim; ++d) {
        const double next = want[d] * scale;
        P[d] = next - c.tangent_impulse[d];
        M[d] = -P[d];
        c.tangent_impulse[d] = next;
      }
      apply_impulse<Dim>(A, ra, c.x, P);
      apply_impulse<Dim>(B, rb, c.x, M);
    }
  }
  return first_sweep;
}
}  // namespace

int resolve_body_contacts(std::vector<Disc>& bodies, double dt, const BodyContactParameters& p) {
  return resolve<2>(bodies, dt, p);
}

int resolve_body_contacts(std::vector<RigidBody3>& bodies, double dt, const BodyContactParameters& p) {
  return resolve<3>(bodies, dt, p);
}

}  // namespace meniscus::membrane
