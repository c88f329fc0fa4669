#include "methods/membrane/rigid_body.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/log.hpp"

namespace meniscus::membrane {

void Disc::project(const double* x, double* out) const {
  const double dx = x[0] - c[0], dy = x[1] - c[1];
  if (outline == Outline::Ellipse || outline == Outline::Polygon) {
    const double ca = std::cos(angle), sa = std::sin(angle);
    double p[2] = {0, 0};
    if (outline == Outline::Ellipse)
      geometry::ellipse_closest(half[0], half[1], ca * dx + sa * dy, -sa * dx + ca * dy, p);
    else
      geometry::polygon_closest(corner_xy, corner_count, ca * dx + sa * dy, -sa * dx + ca * dy, p);
    out[0] = c[0] + ca * p[0] - sa * p[1];
    out[1] = c[1] + sa * p[0] + ca * p[1];
    return;
  }
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

void Disc::extent(int d, double* below, double* above) const {
  const double ca = std::cos(angle), sa = std::sin(angle);
  switch (outline) {
    case Outline::Box:
      *below = *above = d == 0 ? std::abs(ca) * half[0] + std::abs(sa) * half[1] : std::abs(sa) * half[0] + std::abs(ca) * half[1];
      return;
    case Outline::Ellipse: {
      // Support function of the turned ellipse along axis d.
      const double e0 = d == 0 ? ca : sa, e1 = d == 0 ? -sa : ca;
      *below = *above = std::hypot(e0 * half[0], e1 * half[1]);
      return;
    }
    case Outline::Polygon: {
      double lo = 0, hi = 0;
      for (int k = 0; k < corner_count; ++k) {
        const double u = corner_xy[2 * k], w = corner_xy[2 * k + 1];
        const double p = d == 0 ? ca * u - sa * w : sa * u + ca * w;
        lo = std::min(lo, p);
        hi = std::max(hi, p);
      }
      *below = -lo;
      *above = hi;
      return;
    }
    default: *below = *above = radius;
  }
}

void Disc::set_polygon(const std::vector<double>& xy) {
  const int n = static_cast<int>(xy.size() / 2);
  if (xy.size() % 2 != 0 || n < 3 || n > kMaxCorners)
    throw std::invalid_argument("a polygon needs 3 to " + std::to_string(kMaxCorners) + " corners (got " +
                                std::to_string(xy.size() / 2) + ")");
  for (double v : xy)
    if (!std::isfinite(v)) throw std::invalid_argument("a polygon corner is not finite");
  for (int k = 0; k < n; ++k) {
    const double* p = xy.data() + 2 * k;
    const double* q = xy.data() + 2 * ((k + 1) % n);
    if (p[0] == q[0] && p[1] == q[1])
      throw std::invalid_argument("polygon corners " + std::to_string(k) + " and " + std::to_string((k + 1) % n) +
                                  " coincide");
  }
  // Simple: no two edges that do not share a corner may touch.
  auto orient = [](const double* a, const double* b, const double* p) {
    return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
  };
  auto within = [](const double* a, const double* b, const double* p) {
    return std::min(a[0], b[0]) <= p[0] && p[0] <= std::max(a[0], b[0]) && std::min(a[1], b[1]) <= p[1] &&
           p[1] <= std::max(a[1], b[1]);
  };
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      if (j == i + 1 || (i == 0 && j == n - 1)) continue;
      const double *a = xy.data() + 2 * i, *b = xy.data() + 2 * ((i + 1) % n);
      const double *p = xy.data() + 2 * j, *q = xy.data() + 2 * ((j + 1) % n);
      const double o1 = orient(a, b, p), o2 = orient(a, b, q), o3 = orient(p, q, a), o4 = orient(p, q, b);
      const bool cross = ((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0));
      const bool touch = (o1 == 0 && within(a, b, p)) || (o2 == 0 && within(a, b, q)) || (o3 == 0 && within(p, q, a)) ||
                         (o4 == 0 && within(p, q, b));
      if (cross || touch)
        throw std::invalid_argument("polygon edges " + std::to_string(i) + " and " + std::to_string(j) +
                                    " cross (the corners must trace a simple outline)");
    }
  // Area, centroid and polar moment about the origin by the shoelace sums (Green's theorem).
  double a2 = 0, sx = 0, sy = 0, j0 = 0;
  for (int k = 0; k < n; ++k) {
    const double *p = xy.data() + 2 * k, *q = xy.data() + 2 * ((k + 1) % n);
    const double cr = p[0] * q[1] - q[0] * p[1];
    a2 += cr;
    sx += (p[0] + q[0]) * cr;
    sy += (p[1] + q[1]) * cr;
    j0 += cr * (p[0] * p[0] + p[0] * q[0] + q[0] * q[0] + p[1] * p[1] + p[1] * q[1] + q[1] * q[1]);
  }
  const double signed_area = 0.5 * a2;
  if (!(std::abs(signed_area) > 0)) throw std::invalid_argument("the polygon has no area");
  const double gx = sx / (3 * a2), gy = sy / (3 * a2);
  const double area = std::abs(signed_area);
  outline = Outline::Polygon;
  corner_count = n;
  polygon_area = area;
  // Parallel axis theorem: the polar moment about the centroid.
  polygon_polar = std::abs(j0 / 12) - area * (gx * gx + gy * gy);
  radius = 0;
  for (int k = 0; k < n; ++k) {
    const int src = signed_area > 0 ? k : n - 1 - k;  // counter-clockwise
    corner_xy[2 * k] = xy[2 * src] - gx;
    corner_xy[2 * k + 1] = xy[2 * src + 1] - gy;
    radius = std::max(radius, std::hypot(corner_xy[2 * k], corner_xy[2 * k + 1]));
  }
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

// Where the level crosses an ellipse: the two world x of the turned ellipse on y = level (roots of
// its quadratic), left first; false when the level misses it.
bool ellipse_level_crossings(const Disc& b, double level, double* left, double* right) {
  const double ca = std::cos(b.angle), sa = std::sin(b.angle), ia = 1 / (b.half[0] * b.half[0]),
               ib = 1 / (b.half[1] * b.half[1]), l = level - b.c[1];
  const double qa = ca * ca * ia + sa * sa * ib, qb = l * ca * sa * (ia - ib), qc = l * l * (sa * sa * ia + ca * ca * ib) - 1;
  const double disc = qb * qb - qa * qc;
  if (!(disc > 0)) return false;
  *left = b.c[0] + (-qb - std::sqrt(disc)) / qa;
  *right = b.c[0] + (-qb + std::sqrt(disc)) / qa;
  return true;
}

// The wetted part of a box's, polygon's or ellipse's outline below `level`, counter-clockwise (left
// to right along the bottom) with points about `edge` apart and every corner kept: from the left
// contact point (on the level, included) to the right one (excluded), which goes to *right. Empty
// when the level does not cut the body.
std::vector<double> wetted_outline(const Disc& b, double level, double edge, double* right) {
  const auto ring = outline_points(b, edge);
  const long m = static_cast<long>(ring.size() / 2);
  long start = -1;  // a point at or above the level whose successor lies below it
  for (long i = 0; i < m && start < 0; ++i)
    if (ring[2 * i + 1] >= level && ring[2 * ((i + 1) % m) + 1] < level) start = i;
  std::vector<double> out;
  if (start < 0) return out;
  long rising = 0;  // a convex outline rises through the level once
  for (long i = 0; i < m; ++i) rising += ring[2 * i + 1] < level && ring[2 * ((i + 1) % m) + 1] >= level;
  if (rising > 1)
    throw std::invalid_argument(log::format("a body at (%g, %g) crosses the pool's level %g more than twice; the pool "
                                            "surface wraps one wetted part per body (move it or make it convex)",
                                            b.c[0], b.c[1], level));
  double ellipse_left = 0, ellipse_right = 0;
  const bool ellipse = b.outline == Disc::Outline::Ellipse;
  if (ellipse && !ellipse_level_crossings(b, level, &ellipse_left, &ellipse_right)) return out;
  auto crossing = [&](long i, long j) {  // straight edges are exact; an ellipse's chord is not
    const double t = (ring[2 * i + 1] - level) / (ring[2 * i + 1] - ring[2 * j + 1]);
    out.push_back(ellipse ? ellipse_left : ring[2 * i] + t * (ring[2 * j] - ring[2 * i]));
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
  // The right contact point: where the outline climbs back through the level (the last wetted
  // sample's successor along the outline lies on or above it).
  if (ellipse) {
    *right = ellipse_right;
  } else {
    const auto corner = outline_corners(b);
    const size_t n = corner.size() / 2;
    *right = -1e300;
    for (size_t k = 0; k < n; ++k) {
      const double* p = corner.data() + 2 * k;
      const double* q = corner.data() + 2 * ((k + 1) % n);
      if (p[1] < level && q[1] >= level) *right = p[0] + (level - p[1]) / (q[1] - p[1]) * (q[0] - p[0]);
    }
  }
  return out;
}
}  // namespace

std::vector<double> outline_corners(const Disc& b) {
  if (b.outline != Disc::Outline::Box && b.outline != Disc::Outline::Polygon) return {};
  if (b.is_box()) {
    std::vector<double> out(8);
    b.corners(out.data());
    return out;
  }
  const double ca = std::cos(b.angle), sa = std::sin(b.angle);
  std::vector<double> out(2 * static_cast<size_t>(b.corner_count));
  for (int k = 0; k < b.corner_count; ++k) {
    const double u = b.corner_xy[2 * k], w = b.corner_xy[2 * k + 1];
    out[2 * k] = b.c[0] + ca * u - sa * w;
    out[2 * k + 1] = b.c[1] + sa * u + ca * w;
  }
  return out;
}

std::vector<double> outline_points(const Disc& b, double edge) {
  std::vector<double> ring;
  if (b.outline == Disc::Outline::Disc) {
    const int n = std::max(16, static_cast<int>(std::ceil(2 * M_PI * b.radius / edge)));
    for (int k = 0; k < n; ++k) {
      const double t = 2 * M_PI * k / n;
      ring.push_back(b.c[0] + b.radius * std::cos(t));
      ring.push_back(b.c[1] + b.radius * std::sin(t));
    }
    return ring;
  }
  if (b.outline == Disc::Outline::Ellipse) {
    // Arc length along the parameter t (x = a cos t, y = b sin t) on a fine table, then inverted.
    const int fine = 4096;
    std::vector<double> arc(fine + 1, 0.0);
    for (int i = 1; i <= fine; ++i) {
      const double t = 2 * M_PI * (i - 0.5) / fine;
      arc[i] = arc[i - 1] + 2 * M_PI / fine * std::hypot(b.half[0] * std::sin(t), b.half[1] * std::cos(t));
    }
    const int n = std::max(16, static_cast<int>(std::ceil(arc[fine] / edge)));
    const double ca = std::cos(b.angle), sa = std::sin(b.angle);
    for (int k = 0, i = 0; k < n; ++k) {
      const double target = arc[fine] * k / n;
      while (arc[i + 1] < target) ++i;
      const double t = 2 * M_PI * (i + (target - arc[i]) / (arc[i + 1] - arc[i])) / fine;
      const double u = b.half[0] * std::cos(t), w = b.half[1] * std::sin(t);
      ring.push_back(b.c[0] + ca * u - sa * w);
      ring.push_back(b.c[1] + sa * u + ca * w);
    }
    return ring;
  }
  const auto corner = outline_corners(b);
  const size_t m = corner.size() / 2;
  for (size_t k = 0; k < m; ++k) {
    const double* p = corner.data() + 2 * k;
    const double* q = corner.data() + 2 * ((k + 1) % m);
    const int n = std::max(1, static_cast<int>(std::ceil(std::hypot(q[0] - p[0], q[1] - p[1]) / edge)));
    for (int i = 0; i < n; ++i) {
      ring.push_back(p[0] + (q[0] - p[0]) * i / n);
      ring.push_back(p[1] + (q[1] - p[1]) * i / n);
    }
  }
  return ring;
}

std::vector<double> pool_surface(double x0, double x1, double level, double edge, std::vector<Disc> bodies) {
  std::vector<Disc> cut;
  for (const auto& b : bodies) {
    double below = 0, above = 0;
    b.extent(1, &below, &above);
    if (level - b.c[1] > -below && level - b.c[1] < above) cut.push_back(b);
  }
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
    if (b.outline != Disc::Outline::Disc) {
      double right = 0;
      const auto wet = wetted_outline(b, level, edge, &right);
      if (wet.empty()) continue;
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

namespace {
// A link does not spin: in 2D it takes its root's angle, in 3D it keeps its own orientation.
void align_link(Disc& link, const Disc& root) {
  link.angle = root.angle;
  link.omega = 0;
}
void align_link(RigidBody3& link, const RigidBody3&) {
  for (double& w : link.omega) w = 0;
}

template <class Body>
void attach_links_of(std::vector<Body>& bodies, double t) {
  for (auto& link : bodies) {
    if (link.root < 0) continue;
    const Body& root = bodies[static_cast<size_t>(link.root)];
    double r[Body::kDim];
    link_stroke(link, t, r, link.v_kin);
    for (int d = 0; d < Body::kDim; ++d) {
      link.c[d] = root.c[d] + r[d];
      link.v[d] = root.v[d] + link.v_kin[d];
    }
    align_link(link, root);
  }
}
}  // namespace

void attach_links(std::vector<Disc>& bodies, double t) { attach_links_of(bodies, t); }
void attach_links(std::vector<RigidBody3>& bodies, double t) { attach_links_of(bodies, t); }

double composite_mass(const std::vector<RigidBody3>& bodies, size_t b) {
  double m = bodies[b].mass();
  for (const auto& link : bodies)
    if (link.root == static_cast<int>(b)) m += link.mass();
  return m;
}

void composite_mass_matrix(const std::vector<RigidBody3>& bodies, size_t b, double* out) {
  bodies[b].mass_matrix(out);
  for (const auto& link : bodies) {
    if (link.root != static_cast<int>(b)) continue;
    const double m = link.mass();
    double I[9];
    link.world_inertia(I);
    const double d[3] = {link.c[0] - bodies[b].c[0], link.c[1] - bodies[b].c[1], link.c[2] - bodies[b].c[2]};
    const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (int e = 0; e < 3; ++e) {
      out[7 * e] += m;
      for (int f = 0; f < 3; ++f) out[6 * (3 + e) + 3 + f] += I[3 * e + f] + m * ((e == f ? dd : 0.0) - d[e] * d[f]);
    }
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
