#include "methods/membrane/body_shape.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "geometry/point_triangle.hpp"
#include "geometry/triangle_mesh.hpp"

namespace meniscus::membrane {

namespace {

// Closest point of segment (a, b) to y and its parameter along the segment.
void closest_on_segment(const std::array<double, 6>& s, const double* y, double* out) {
  double ab[3], ay[3];
  for (int d = 0; d < 3; ++d) {
    ab[d] = s[3 + d] - s[d];
    ay[d] = y[d] - s[d];
  }
  const double len2 = kmath::dot<3>(ab, ab);
  const double t = len2 > 0 ? std::clamp(kmath::dot<3>(ay, ab) / len2, 0.0, 1.0) : 0.0;
  for (int d = 0; d < 3; ++d) out[d] = s[d] + t * ab[d];
}

// Index of the capsule whose axis lies nearest to y and the squared distance to it.
size_t nearest_capsule(const BodyShape3& s, const double* y, double& d2) {
  size_t best = 0;
  d2 = kmath::huge;
  for (size_t k = 0; k < s.capsule.size(); ++k) {
    const double e = geometry::segment_distance2(y, s.capsule[k].data(), s.capsule[k].data() + 3);
    if (e < d2) {
      d2 = e;
      best = k;
    }
  }
  return best;
}

// Adds the exact moments of the cube of centre p and half width h times `fraction`.
void add_cube(RegionMoments& m, const double* p, double h, double fraction) {
  const double v = 8 * h * h * h * fraction;
  m.volume += v;
  for (int i = 0; i < 3; ++i) {
    m.m1[i] += v * p[i];
    for (int j = 0; j < 3; ++j) m.m2[3 * i + j] += v * (p[i] * p[j] + (i == j ? h * h / 3 : 0.0));
  }
}

// Fraction of the cube [-h, h]^3 on the side n.y < -d of a plane (n a unit normal, d the signed
// distance of the centre): in unit-cube coordinates (every component of n made non-negative by
// reflection) the region is {x in [0, 1]^3 : a.x <= t}, a = |n|, t = (a_0 + a_1 + a_2 - d / h) / 2,
// whose volume by inclusion-exclusion over the cube's corners k is
// sum_k (-1)^|k| max(0, t - a.k)^3 / (6 a_0 a_1 a_2). Components below 1e-4 are raised to it (an
// error of that order instead of the division by zero of an axis-aligned plane).
double plane_fraction(const double* n, double d, double h) {
  double a[3];
  for (int e = 0; e < 3; ++e) a[e] = std::max(std::abs(n[e]), 1e-4);
  const double t = 0.5 * (a[0] + a[1] + a[2] - d / h);
  double v = 0;
  for (int k = 0; k < 8; ++k) {
    const double ak = ((k & 1) ? a[0] : 0.0) + ((k & 2) ? a[1] : 0.0) + ((k & 4) ? a[2] : 0.0);
    const double r = std::max(0.0, t - ak);
    v += (__builtin_popcount(k) % 2 ? -1.0 : 1.0) * r * r * r;
  }
  return std::clamp(v / (6 * a[0] * a[1] * a[2]), 0.0, 1.0);
}

void integrate_cube(const std::function<double(const double*)>& phi, const double* p, double h, double leaf,
                    RegionMoments& m) {
  const double d = phi(p);
  if (d > std::sqrt(3.0) * h) return;
  if (d < -std::sqrt(3.0) * h) return add_cube(m, p, h, 1.0);
  if (h <= leaf) {
    // The surface as the plane through the centre's nearest point, its normal by central differences.
    double n[3];
    for (int e = 0; e < 3; ++e) {
      double q[3] = {p[0], p[1], p[2]};
      q[e] = p[e] + 0.25 * h;
      const double up = phi(q);
      q[e] = p[e] - 0.25 * h;
      n[e] = up - phi(q);
    }
    const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (len == 0) return add_cube(m, p, h, std::clamp(0.5 - d / (2 * h), 0.0, 1.0));
    for (double& x : n) x /= len;
    return add_cube(m, p, h, plane_fraction(n, d, h));
  }
  for (int k = 0; k < 8; ++k) {
    double q[3];
    for (int e = 0; e < 3; ++e) q[e] = p[e] + ((k >> e) & 1 ? 0.5 : -0.5) * h;
    integrate_cube(phi, q, 0.5 * h, leaf, m);
  }
}

// A body-frame point of a solid of revolution in its (r, z) half-plane.
std::array<double, 2> meridian_point(const BodyShape3& s, const double* y) {
  return {std::hypot(y[0] - s.offset[0], y[1] - s.offset[1]), y[2] - s.offset[2]};
}

// The nearest point of the profile (its segments, not the closing axis) to p, the index of its
// segment and whether p is inside the polygon closed by the axis (crossing number).
std::array<double, 2> nearest_on_profile(const BodyShape3& s, const std::array<double, 2>& p, size_t& seg,
                                         bool& inside) {
  const auto& q = s.profile;
  double best = kmath::huge;
  std::array<double, 2> out{};
  inside = false;
  for (size_t k = 0; k < q.size(); ++k) {
    const auto& a = q[k];
    const auto& b = q[(k + 1) % q.size()];
    if ((a[1] > p[1]) != (b[1] > p[1]) && p[0] < a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1])) inside = !inside;
    if (k + 1 == q.size()) break;  // the axis closes the polygon: no surface
    const double ab[2] = {b[0] - a[0], b[1] - a[1]};
    const double len2 = ab[0] * ab[0] + ab[1] * ab[1];
    const double t = std::clamp(((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1]) / len2, 0.0, 1.0);
    const std::array<double, 2> c = {a[0] + t * ab[0], a[1] + t * ab[1]};
    const double d2 = (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]);
    if (d2 < best) {
      best = d2;
      out = c;
      seg = k;
    }
  }
  return out;
}

}  // namespace

double BodyShape3::distance(const double* y) const {
  if (kind == Kind::Solid) return solid.distance(y);
  if (kind == Kind::Revolved) {
    const auto p = meridian_point(*this, y);
    size_t seg = 0;
    bool inside = false;
    const auto c = nearest_on_profile(*this, p, seg, inside);
    const double d = std::hypot(p[0] - c[0], p[1] - c[1]);
    return inside ? -d : d;
  }
  double d2 = 0;
  nearest_capsule(*this, y, d2);
  return std::sqrt(d2) - wire;
}

void BodyShape3::normal(const double* y, double* n) const {
  if (kind == Kind::Solid) return solid.normal(y, n);
  if (kind == Kind::Revolved) {
    const auto p = meridian_point(*this, y);
    size_t seg = 0;
    bool inside = false;
    const auto c = nearest_on_profile(*this, p, seg, inside);
    double g[2] = {p[0] - c[0], p[1] - c[1]};
    const double len = std::hypot(g[0], g[1]);
    if (len > 1e-14 * (std::abs(p[0]) + std::abs(p[1]) + 1e-300)) {
      g[0] = (inside ? -g[0] : g[0]) / len;
      g[1] = (inside ? -g[1] : g[1]) / len;
    } else {  // on the surface: the segment's outward normal (the profile is counter-clockwise)
      const auto& a = profile[seg];
      const auto& b = profile[seg + 1];
      const double l = std::hypot(b[0] - a[0], b[1] - a[1]);
      g[0] = (b[1] - a[1]) / l;
      g[1] = -(b[0] - a[0]) / l;
    }
    const double r = p[0];
    n[0] = r > 0 ? g[0] * (y[0] - offset[0]) / r : g[0];
    n[1] = r > 0 ? g[0] * (y[1] - offset[1]) / r : 0.0;
    n[2] = g[1];
    return;
  }
  double d2 = 0, p[3];
  closest_on_segment(capsule[nearest_capsule(*this, y, d2)], y, p);
  for (int d = 0; d < 3; ++d) n[d] = y[d] - p[d];
  if (kmath::norm<3>(n) == 0) {  // on the axis: any direction normal to it
    const auto& s = capsule[nearest_capsule(*this, y, d2)];
    const double ab[3] = {s[3] - s[0], s[4] - s[1], s[5] - s[2]};
    const double e[3] = {std::abs(ab[0]) < std::abs(ab[2]) ? 1.0 : 0.0, 0.0, std::abs(ab[0]) < std::abs(ab[2]) ? 0.0 : 1.0};
    kmath::cross(ab, e, n);
  }
  kmath::normalize<3>(n);
}

void BodyShape3::bounds(double* lo, double* hi) const {
  if (kind == Kind::Solid) {
    std::array<double, 3> l{}, h{};
    if (!geometry::bounding_box<3>(solid, l, h)) throw std::invalid_argument("a body's solid must be bounded");
    for (int d = 0; d < 3; ++d) {
      lo[d] = l[d];
      hi[d] = h[d];
    }
    return;
  }
  if (kind == Kind::Revolved) {
    double rmax = 0, zlo = kmath::huge, zhi = -kmath::huge;
    for (const auto& q : profile) {
      rmax = std::max(rmax, q[0]);
      zlo = std::min(zlo, q[1]);
      zhi = std::max(zhi, q[1]);
    }
    for (int d = 0; d < 2; ++d) {
      lo[d] = offset[d] - rmax;
      hi[d] = offset[d] + rmax;
    }
    lo[2] = offset[2] + zlo;
    hi[2] = offset[2] + zhi;
    return;
  }
  for (int d = 0; d < 3; ++d) {
    lo[d] = kmath::huge;
    hi[d] = -kmath::huge;
  }
  for (const auto& s : capsule)
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min({lo[d], s[d] - wire, s[3 + d] - wire});
      hi[d] = std::max({hi[d], s[d] + wire, s[3 + d] + wire});
    }
}

double BodyShape3::feature() const {
  if (kind == Kind::Capsules) return wire;
  if (kind == Kind::Revolved) {  // the shortest side of the profile (a needle's radius, a plate's thickness)
    double shortest = kmath::huge;
    for (size_t k = 0; k + 1 < profile.size(); ++k)
      shortest = std::min(shortest, std::hypot(profile[k + 1][0] - profile[k][0], profile[k + 1][1] - profile[k][1]));
    return shortest;
  }
  if (solid.kind == geometry::ShapeKind::Sphere) return solid.r;
  double lo[3], hi[3];
  bounds(lo, hi);
  return 0.5 * std::min({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
}

BodyShape3 BodyShape3::translated(const double* t) const {
  BodyShape3 out = *this;
  if (kind == Kind::Revolved) {
    for (int d = 0; d < 3; ++d) out.offset[d] += t[d];
    return out;
  }
  if (kind == Kind::Capsules) {
    for (auto& s : out.capsule)
      for (int d = 0; d < 6; ++d) s[d] += t[d % 3];
    return out;
  }
  for (int d = 0; d < 3; ++d) {
    out.solid.a[d] += t[d];
    if (solid.kind == geometry::ShapeKind::Box) out.solid.b[d] += t[d];
    out.solid.sampled.origin[d] += t[d];
  }
  return out;
}

RegionMoments region_moments(const std::function<double(const double*)>& phi, const double* lo, const double* hi,
                             double leaf) {
  // Cubes of the largest width that tile [lo, hi] (padded up to whole cubes).
  double h = 0;
  for (int d = 0; d < 3; ++d) h = std::max(h, 0.5 * (hi[d] - lo[d]));
  h = std::max(h, leaf);
  int n[3];
  const double w = std::min(2 * h, 16 * leaf);
  for (int d = 0; d < 3; ++d) n[d] = std::max(1, static_cast<int>(std::ceil((hi[d] - lo[d]) / w)));
  RegionMoments m;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const int c[3] = {i, j, k};
        double p[3];
        for (int d = 0; d < 3; ++d) p[d] = lo[d] + (c[d] + 0.5) * w;
        integrate_cube(phi, p, 0.5 * w, leaf, m);
      }
  return m;
}

MassProperties mass_properties(const BodyShape3& shape) {
  double lo[3], hi[3];
  shape.bounds(lo, hi);
  // Two leaf sizes and Richardson's extrapolation of their second-order errors (the plane model's
  // curvature and edge errors shrink as leaf^2): m = (4 m_fine - m_coarse) / 3.
  auto phi = [&](const double* y) { return shape.distance(y); };
  const RegionMoments coarse = region_moments(phi, lo, hi, shape.feature() / 12);
  RegionMoments m = region_moments(phi, lo, hi, shape.feature() / 24);
  m.volume = (4 * m.volume - coarse.volume) / 3;
  for (int k = 0; k < 3; ++k) m.m1[k] = (4 * m.m1[k] - coarse.m1[k]) / 3;
  for (int k = 0; k < 9; ++k) m.m2[k] = (4 * m.m2[k] - coarse.m2[k]) / 3;
  MassProperties out;
  out.volume = m.volume;
  for (int d = 0; d < 3; ++d) out.centroid[d] = m.m1[d] / m.volume;
  // I = int (|r|^2 1 - r r^T) dV about the centroid, from the second moments about the origin.
  double s[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) s[3 * i + j] = m.m2[3 * i + j] - m.volume * out.centroid[i] * out.centroid[j];
  const double trace = s[0] + s[4] + s[8];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out.inertia[3 * i + j] = (i == j ? trace : 0.0) - s[3 * i + j];
  return out;
}

BodyShape3 capsule_shape(double length, double r) {
  return capsule_chain({-0.5 * length, 0, 0, 0.5 * length, 0, 0}, r);
}

BodyShape3 box_shape(const std::array<double, 3>& size) {
  BodyShape3 s;
  s.solid = geometry::box<3>({-0.5 * size[0], -0.5 * size[1], -0.5 * size[2]},
                             {0.5 * size[0], 0.5 * size[1], 0.5 * size[2]});
  return s;
}

BodyShape3 revolved_shape(const std::vector<std::array<double, 2>>& profile) {
  const size_t n = profile.size();
  if (n < 3) throw std::invalid_argument("a profile of revolution needs at least three (r, z) points");
  if (profile.front()[0] != 0 || profile.back()[0] != 0)
    throw std::invalid_argument("a profile of revolution starts and ends on the axis (r = 0)");
  double area2 = 0;  // twice the signed area of the polygon closed along the axis
  for (size_t k = 0; k < n; ++k) {
    const auto& a = profile[k];
    const auto& b = profile[(k + 1) % n];
    if (!(a[0] >= 0) || !std::isfinite(a[0]) || !std::isfinite(a[1]))
      throw std::invalid_argument("a profile of revolution has finite points with r >= 0");
    if (k + 1 < n && a == b) throw std::invalid_argument("a profile of revolution repeats a point");
    area2 += a[0] * b[1] - b[0] * a[1];
  }
  if (area2 == 0) throw std::invalid_argument("a profile of revolution encloses no area");
  BodyShape3 s;
  s.kind = BodyShape3::Kind::Revolved;
  s.profile = profile;
  if (area2 < 0) std::reverse(s.profile.begin(), s.profile.end());  // counter-clockwise in (r, z)
  return s;
}

BodyShape3 mesh_shape(const geometry::TriangleMesh& mesh, double h) {
  BodyShape3 s;
  s.solid = geometry::sampled<3>(geometry::sdf_from_mesh(mesh, h, 3));
  return s;
}

BodyShape3 capsule_chain(const std::vector<double>& points, double r) {
  if (points.size() < 6 || points.size() % 3 != 0 || !(r > 0))
    throw std::invalid_argument("a capsule chain needs two or more points and a positive radius");
  BodyShape3 s;
  s.kind = BodyShape3::Kind::Capsules;
  s.wire = r;
  for (size_t p = 0; p + 5 < points.size(); p += 3)
    s.capsule.push_back({points[p], points[p + 1], points[p + 2], points[p + 3], points[p + 4], points[p + 5]});
  return s;
}

namespace {
// Centreline of a 3.375 cm clip (x from 0.125 to 3.5, y from -0.5 to 0.5; the paper gives no
// dimensions): straight runs joined by semicircles, each semicircle as `chords` chords.
std::vector<double> paperclip_centreline(double scale) {
  std::vector<double> p;
  auto point = [&](double x, double y) {
    p.push_back(scale * x);
    p.push_back(scale * y);
    p.push_back(0.0);
  };
  auto arc = [&](double cx, double cy, double r, double from_deg, double to_deg) {
    constexpr int chords = 8;
    for (int k = 1; k <= chords; ++k) {
      const double t = (from_deg + (to_deg - from_deg) * k / chords) * M_PI / 180;
      point(cx + r * std::cos(t), cy + r * std::sin(t));
    }
  };
  point(0.3, -0.5);
  point(3.0, -0.5);
  arc(3.0, 0.0, 0.5, -90, 90);
  point(0.5, 0.5);
  arc(0.5, 0.125, 0.375, 90, 270);
  point(2.4, -0.25);
  arc(2.4, 0.0, 0.25, -90, 90);
  point(1.0, 0.25);
  return p;
}
constexpr double kPaperclipLength = 3.375;
}  // namespace

BodyShape3 paperclip_shape(double length, double r) {
  return capsule_chain(paperclip_centreline(length / kPaperclipLength), r);
}

double paperclip_wire_length(double length) {
  const std::vector<double> p = paperclip_centreline(length / kPaperclipLength);
  double sum = 0;
  for (size_t k = 3; k < p.size(); k += 3) sum += std::hypot(p[k] - p[k - 3], p[k + 1] - p[k - 2], p[k + 2] - p[k - 1]);
  return sum;
}

}  // namespace meniscus::membrane
