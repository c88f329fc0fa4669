#include "methods/membrane/rigid_body.hpp"

#include <algorithm>
#include <cmath>

namespace meniscus::membrane {

void Disc::project(const double* x, double* out) const {
  const double dx = x[0] - c[0], dy = x[1] - c[1];
  if (is_box()) {
    // In the body frame: a point outside clamps to the box; one inside moves to the nearest side.
    const double ca = std::cos(angle), sa = std::sin(angle);
    double u = ca * dx + sa * dy, w = -sa * dx + ca * dy;
    const double qx = std::abs(u) - half[0], qy = std::abs(w) - half[1];
    if (qx > 0 || qy > 0) {
      u = std::clamp(u, -half[0], half[0]);
      w = std::clamp(w, -half[1], half[1]);
    } else if (qx > qy) {
      u = std::copysign(half[0], u);
    } else {
      w = std::copysign(half[1], w);
    }
    out[0] = c[0] + ca * u - sa * w;
    out[1] = c[1] + sa * u + ca * w;
    return;
  }
  const double r = std::hypot(dx, dy);
  if (r == 0) {  // the centre itself: any surface point is closest; take the top
    out[0] = c[0];
    out[1] = c[1] + radius;
    return;
  }
  out[0] = c[0] + radius * dx / r;
  out[1] = c[1] + radius * dy / r;
}

std::vector<int> contact_set(const std::vector<int>& near, const std::vector<int>& edges) {
  std::vector<int> neighbours(near.size(), 0);
  for (size_t e = 0; e + 1 < edges.size(); e += 2) {
    const int a = edges[e], b = edges[e + 1];
    if (near[a] >= 0 && near[a] == near[b]) {
      ++neighbours[a];
      ++neighbours[b];
    }
  }
  std::vector<int> out(near.size(), -1);
  for (size_t i = 0; i < near.size(); ++i)
    if (near[i] >= 0 && neighbours[i] > 0) out[i] = near[i];
  return out;
}

// A flat pool surface at `level` from x0 to x1 with edges about `edge`, which wraps the wetted lower
// arc of every disc that the level cuts: the liquid starts in contact with the body's submerged
// part, its contact line at the level.
namespace {
// The wetted part of a box's outline below `level`, counter-clockwise (left to right along the
// bottom) with points about `edge` apart and every corner kept: from the left contact point (on the
// level, included) to the right one (excluded). Empty when the level does not cut the box.
std::vector<double> wetted_box_outline(const Disc& b, double level, double edge) {
  double corner[8];
  b.corners(corner);
  std::vector<double> ring;  // the closed outline, counter-clockwise, sampled
  for (int k = 0; k < 4; ++k) {
    const double* p = corner + 2 * k;
    const double* q = corner + 2 * ((k + 1) % 4);
    const int n = std::max(1, static_cast<int>(std::ceil(std::hypot(q[0] - p[0], q[1] - p[1]) / edge)));
    for (int i = 0; i < n; ++i) {
      ring.push_back(p[0] + (q[0] - p[0]) * i / n);
      ring.push_back(p[1] + (q[1] - p[1]) * i / n);
    }
  }
  const long m = static_cast<long>(ring.size() / 2);
  long start = -1;  // a point at or above the level whose successor lies below it
  for (long i = 0; i < m && start < 0; ++i)
    if (ring[2 * i + 1] >= level && ring[2 * ((i + 1) % m) + 1] < level) start = i;
  std::vector<double> out;
  if (start < 0) return out;
  auto crossing = [&](long i, long j) {
    const double t = (ring[2 * i + 1] - level) / (ring[2 * i + 1] - ring[2 * j + 1]);
    out.push_back(ring[2 * i] + t * (ring[2 * j] - ring[2 * i]));
    out.push_back(level);
  };
  crossing(start, (start + 1) % m);
  for (long k = 1; k < m; ++k) {
    const long i = (start + k) % m;
    if (ring[2 * i + 1] >= level) break;
    // Drop a sample closer than a fifth of an edge to the crossing (a corner just below the level).
    if (std::hypot(ring[2 * i] - out[out.size() - 2], ring[2 * i + 1] - level) < 0.2 * edge && out.size() == 2) continue;
    out.push_back(ring[2 * i]);
    out.push_back(ring[2 * i + 1]);
  }
  return out;
}
}  // namespace

std::vector<double> pool_surface(double x0, double x1, double level, double edge, std::vector<Disc> bodies) {
  std::vector<Disc> cut;
  for (const auto& b : bodies)
    if (std::abs(level - b.c[1]) < b.reach(1)) cut.push_back(b);
  std::sort(cut.begin(), cut.end(), [](const Disc& a, const Disc& b) { return a.c[0] < b.c[0]; });
  std::vector<double> xy;
  auto flat = [&](double from, double to) {
    const int n = std::max(1, static_cast<int>(std::ceil((to - from) / edge)));
    for (int i = 0; i < n; ++i) {
      xy.push_back(from + (to - from) * i / n);
      xy.push_back(level);
    }
  };
  double x = x0;
  for (const auto& b : cut) {
    if (b.is_box()) {
      const auto wet = wetted_box_outline(b, level, edge);
      if (wet.empty()) continue;
      // The right contact point: where the outline climbs back through the level (the last wetted
      // sample's successor along the outline lies on or above it).
      double corner[8];
      b.corners(corner);
      double right = -1e300;
      for (int k = 0; k < 4; ++k) {
        const double* p = corner + 2 * k;
        const double* q = corner + 2 * ((k + 1) % 4);
        if (p[1] < level && q[1] >= level) right = p[0] + (level - p[1]) / (q[1] - p[1]) * (q[0] - p[0]);
      }
      flat(x, wet[0]);
      xy.insert(xy.end(), wet.begin(), wet.end());
      // A last sample within a fifth of an edge of the right contact point (a corner just below the
      // level) would make a near-zero edge.
      if (xy.size() > 2 && std::hypot(xy[xy.size() - 2] - right, xy.back() - level) < 0.2 * edge) xy.resize(xy.size() - 2);
      x = right;
      continue;
    }
    const double dy = level - b.c[1], hw = std::sqrt(b.radius * b.radius - dy * dy);
    flat(x, b.c[0] - hw);
    // Counter-clockwise along the bottom, from the left contact point to the right one.
    double tl = std::atan2(dy, -hw), tr = std::atan2(dy, hw);
    if (tl < 0) tl += 2 * M_PI;
    tr += 2 * M_PI;
    const int n = std::max(2, static_cast<int>(std::ceil(b.radius * (tr - tl) / edge)));
    for (int i = 0; i < n; ++i) {
      const double t = tl + (tr - tl) * i / n;
      xy.push_back(b.c[0] + b.radius * std::cos(t));
      xy.push_back(b.c[1] + b.radius * std::sin(t));
    }
    x = b.c[0] + hw;
  }
  flat(x, x1);
  xy.push_back(x1);
  xy.push_back(level);
  return xy;
}

void attach_links(std::vector<Disc>& bodies, double t) {
  for (auto& link : bodies) {
    if (link.root < 0) continue;
    const Disc& root = bodies[static_cast<size_t>(link.root)];
    const double w = 2 * M_PI * link.stroke_frequency, th = w * t + link.stroke_phase;
    const double r[2] = {link.stroke_centre[0] - link.stroke_amplitude[0] * std::cos(th),
                         link.stroke_centre[1] + link.stroke_amplitude[1] * std::sin(th)};
    link.v_kin[0] = w * link.stroke_amplitude[0] * std::sin(th);
    link.v_kin[1] = w * link.stroke_amplitude[1] * std::cos(th);
    for (int d = 0; d < 2; ++d) {
      link.c[d] = root.c[d] + r[d];
      link.v[d] = root.v[d] + link.v_kin[d];
    }
    link.angle = root.angle;
    link.omega = 0;
  }
}

void composite_inertia(const std::vector<Disc>& bodies, size_t b, double* out) {
  const Disc& body = bodies[b];
  out[0] = out[1] = body.mass();
  out[2] = body.inertia();
  for (const auto& link : bodies) {
    if (link.root != static_cast<int>(b)) continue;
    const double dx = link.c[0] - body.c[0], dy = link.c[1] - body.c[1];
    out[0] += link.mass();
    out[1] += link.mass();
    out[2] += link.inertia() + link.mass() * (dx * dx + dy * dy);
  }
}

void predict_positions(std::vector<Disc>& bodies, double dt) {
  for (auto& b : bodies) {
    b.c[0] += dt * b.v[0];
    b.c[1] += dt * b.v[1];
    b.angle += dt * b.omega;
  }
}

void RigidBody3::rotation(double* r) const {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  r[0] = 1 - 2 * (y * y + z * z);
  r[1] = 2 * (x * y - w * z);
  r[2] = 2 * (x * z + w * y);
  r[3] = 2 * (x * y + w * z);
  r[4] = 1 - 2 * (x * x + z * z);
  r[5] = 2 * (y * z - w * x);
  r[6] = 2 * (x * z - w * y);
  r[7] = 2 * (y * z + w * x);
  r[8] = 1 - 2 * (x * x + y * y);
}

void RigidBody3::set_shape(const BodyShape3& s) {
  const MassProperties p = mass_properties(s);
  const double to_origin[3] = {-p.centroid[0], -p.centroid[1], -p.centroid[2]};
  shape = s.translated(to_origin);
  sphere = false;
  volume = p.volume;
  for (int k = 0; k < 9; ++k) unit_inertia[k] = p.inertia[k];
  double lo[3], hi[3];
  shape.bounds(lo, hi);
  radius = 0;
  for (int d = 0; d < 3; ++d) {
    half_extent[d] = std::max(-lo[d], hi[d]);
    box_lo[d] = lo[d];
    box_hi[d] = hi[d];
    radius += half_extent[d] * half_extent[d];
  }
  radius = std::sqrt(radius);
}

void RigidBody3::body_inertia(double* out) const {
  for (int k = 0; k < 9; ++k) out[k] = sphere ? (k % 4 == 0 ? 0.4 * mass() * radius * radius : 0.0) : density * unit_inertia[k];
}

void RigidBody3::world_inertia(double* out) const {
  double ib[9], r[9];
  body_inertia(ib);
  rotation(r);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) s += r[3 * i + k] * ib[3 * k + l] * r[3 * j + l];
      out[3 * i + j] = s;
    }
}

void RigidBody3::mass_matrix(double* out) const {
  for (int i = 0; i < 36; ++i) out[i] = 0;
  const double m = mass();
  double iw[9];
  world_inertia(iw);
  for (int i = 0; i < 3; ++i) {
    out[6 * i + i] = m;
    for (int j = 0; j < 3; ++j) out[6 * (3 + i) + 3 + j] = iw[3 * i + j];
  }
}

double RigidBody3::phi(const double* x) const {
  const double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
  const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (sphere || len > radius) return len - radius;
  double r[9], y[3];
  rotation(r);
  for (int e = 0; e < 3; ++e) y[e] = r[e] * d[0] + r[3 + e] * d[1] + r[6 + e] * d[2];  // R^T (x - c)
  return shape.distance(y);
}

void RigidBody3::project(const double* x, double* out) const {
  const double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
  const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (sphere) {
    for (int e = 0; e < 3; ++e) out[e] = len == 0 ? c[e] + (e == 2 ? radius : 0.0) : c[e] + radius * d[e] / len;
    return;
  }
  // In the body frame: y <- y - phi(y) n(y), which lands on the surface of the nearest part.
  double r[9], y[3];
  rotation(r);
  for (int e = 0; e < 3; ++e) y[e] = r[e] * d[0] + r[3 + e] * d[1] + r[6 + e] * d[2];
  for (int it = 0; it < 16; ++it) {
    const double f = shape.distance(y);
    if (std::abs(f) <= 1e-12 * radius) break;
    double n[3];
    shape.normal(y, n);
    for (int e = 0; e < 3; ++e) y[e] -= f * n[e];
  }
  for (int e = 0; e < 3; ++e) out[e] = c[e] + r[3 * e] * y[0] + r[3 * e + 1] * y[1] + r[3 * e + 2] * y[2];
}

double RigidBody3::reach(int d) const {
  if (sphere) return radius;
  double r[9];
  rotation(r);
  return std::abs(r[3 * d]) * half_extent[0] + std::abs(r[3 * d + 1]) * half_extent[1] +
         std::abs(r[3 * d + 2]) * half_extent[2];
}

void RigidBody3::extent(int d, double* below, double* above) const {
  if (sphere) {
    *below = *above = radius;
    return;
  }
  double r[9];
  rotation(r);
  double mid = 0, half = 0;
  for (int e = 0; e < 3; ++e) {
    mid += r[3 * d + e] * 0.5 * (box_lo[e] + box_hi[e]);
    half += std::abs(r[3 * d + e]) * 0.5 * (box_hi[e] - box_lo[e]);
  }
  *below = half - mid;
  *above = half + mid;
}

void momentum_velocity(const RigidBody3& start, const RigidBody3& end, double* out) {
  end.velocity(out);
  if (start.sphere || !start.rotates) return;  // omega kept (isotropic, or locked by rotates: false)
  double i0[9], i1[9], l[3];
  start.world_inertia(i0);
  end.world_inertia(i1);
  for (int i = 0; i < 3; ++i) l[i] = i0[3 * i] * start.omega[0] + i0[3 * i + 1] * start.omega[1] + i0[3 * i + 2] * start.omega[2];
  // omega* = I1^-1 L (Cramer's rule; I1 is symmetric positive definite).
  const double det = i1[0] * (i1[4] * i1[8] - i1[5] * i1[7]) - i1[1] * (i1[3] * i1[8] - i1[5] * i1[6]) +
                     i1[2] * (i1[3] * i1[7] - i1[4] * i1[6]);
  for (int k = 0; k < 3; ++k) {
    double m[9];
    for (int e = 0; e < 9; ++e) m[e] = e % 3 == k ? l[e / 3] : i1[e];
    out[3 + k] = (m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                  m[2] * (m[3] * m[7] - m[4] * m[6])) / det;
  }
}

double surface_below(const RigidBody3& b, double x, double y, double level) {
  double p[3] = {x, y, level};
  if (b.phi(p) >= 0) return level;
  double inside = level, outside = b.c[2] - b.radius - 1e-9;
  for (int it = 0; it < 100 && inside - outside > 1e-14 * b.radius; ++it) {
    p[2] = 0.5 * (inside + outside);
    (b.phi(p) < 0 ? inside : outside) = p[2];
  }
  return inside;
}

void predict_positions(std::vector<RigidBody3>& bodies, double dt) {
  for (auto& b : bodies) {
    for (int e = 0; e < 3; ++e) b.c[e] += dt * b.v[e];
    const double w = std::sqrt(b.omega[0] * b.omega[0] + b.omega[1] * b.omega[1] + b.omega[2] * b.omega[2]);
    if (w == 0) continue;
    const double h = 0.5 * w * dt, s = std::sin(h) / w;
    const double p[4] = {std::cos(h), s * b.omega[0], s * b.omega[1], s * b.omega[2]};  // exp(omega dt)
    const double* q = b.q;
    const double r[4] = {p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
                         p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
                         p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
                         p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0]};
    const double n = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; ++k) b.q[k] = r[k] / n;
  }
}

}  // namespace meniscus::membrane
