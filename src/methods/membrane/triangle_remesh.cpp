#include "methods/membrane/triangle_remesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <unordered_map>

namespace meniscus::membrane {

namespace {

using P3 = std::array<double, 3>;
using Tri = std::array<int, 3>;

P3 sub(const P3& a, const P3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
P3 cross(const P3& a, const P3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const P3& a, const P3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double length(const P3& a) { return std::sqrt(dot(a, a)); }
P3 lerp(const P3& a, const P3& b, double s) {
  return {a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]), a[2] + s * (b[2] - a[2])};
}

std::uint64_t edge_key(int a, int b) {
  const auto lo = static_cast<std::uint64_t>(std::min(a, b)), hi = static_cast<std::uint64_t>(std::max(a, b));
  return (lo << 32) | hi;
}

// Smallest angle (radians) of the triangle p0 p1 p2.
double min_angle(const P3& p0, const P3& p1, const P3& p2) {
  const P3* p[3] = {&p0, &p1, &p2};
  double lo = M_PI;
  for (int c = 0; c < 3; ++c) {
    const P3 e1 = sub(*p[(c + 1) % 3], *p[c]), e2 = sub(*p[(c + 2) % 3], *p[c]);
    lo = std::min(lo, std::atan2(length(cross(e1, e2)), dot(e1, e2)));
  }
  return lo;
}

// The mesh being remeshed, with the adjacency of its live triangles (rebuilt after each pass) and
// the triangles an operation has changed in the current pass (no second operation may read them).
class Remesher {
 public:
  Remesher(geometry::TriangleMesh& mesh, std::vector<P3>& vel, std::vector<int>& kind, const TriangleRemeshOptions& o)
      : x_(mesh.vertices), v_(vel), kind_(kind), tri_(mesh.triangles), o_(o) {}

  void run(TriangleRemeshStats& stats) {
    rebuild();
    const double volume0 = volume_and_gradient(nullptr);
    for (stats.passes = 0; stats.passes < o_.max_passes;) {
      ++stats.passes;
      long changes = 0;
      rebuild();
      changes += split_pass(stats);
      rebuild();
      changes += collapse_pass(stats);
      rebuild();
      changes += flip_pass(stats);
      rebuild();
      smooth_pass(stats);
      if (changes == 0) break;
    }
    rebuild();
    stats.volume_change_before_offset = volume_and_gradient(nullptr) - volume0;
    stats.restore_offset = restore_volume(volume0);
    // The offset stretches edges by about its size over the radius: split what it pushed past the
    // bound (splits do not move the surface, so the volume stays restored).
    rebuild();
    split_pass(stats);
    compact();
  }

 private:
  std::vector<P3>& x_;
  std::vector<P3>& v_;
  std::vector<int>& kind_;
  std::vector<Tri>& tri_;
  const TriangleRemeshOptions& o_;
  std::vector<char> tri_dead_, vert_dead_, touched_, fixed_;
  std::unordered_map<std::uint64_t, std::vector<int>> edge_tris_;
  std::vector<std::vector<int>> vert_tris_;

  void rebuild() {
    tri_dead_.resize(tri_.size(), 0);
    vert_dead_.resize(x_.size(), 0);
    touched_.assign(tri_.size(), 0);
    edge_tris_.clear();
    vert_tris_.assign(x_.size(), {});
    for (int t = 0; t < static_cast<int>(tri_.size()); ++t) {
      if (tri_dead_[t]) continue;
      for (int c = 0; c < 3; ++c) {
        vert_tris_[tri_[t][c]].push_back(t);
        edge_tris_[edge_key(tri_[t][c], tri_[t][(c + 1) % 3])].push_back(t);
      }
    }
    // Fixed: not free, or on an edge with one triangle (the boundary of an open membrane).
    fixed_.assign(x_.size(), 0);
    for (size_t i = 0; i < x_.size(); ++i) fixed_[i] = kind_[i] != 0;
    for (const auto& [key, ts] : edge_tris_)
      if (ts.size() == 1) {
        fixed_[key >> 32] = 1;
        fixed_[key & 0xffffffffu] = 1;
      }
  }

  // Edges of live triangles with their lengths, each once, in the order of their keys (the hash
  // map's order depends on the standard library; the remeshed mesh should not).
  std::vector<std::pair<double, std::uint64_t>> edges() const {
    std::vector<std::pair<double, std::uint64_t>> out;
    out.reserve(edge_tris_.size());
    for (const auto& [key, ts] : edge_tris_)
      out.emplace_back(length(sub(x_[key >> 32], x_[key & 0xffffffffu])), key);
    std::sort(out.begin(), out.end(), [](const auto& p, const auto& q) { return p.second < q.second; });
    return out;
  }

  bool any_touched(const std::vector<int>& ts) const {
    return std::any_of(ts.begin(), ts.end(), [&](int t) { return touched_[t] != 0; });
  }

  int add_triangle(const Tri& t) {
    tri_.push_back(t);
    tri_dead_.push_back(0);
    touched_.push_back(1);
    return static_cast<int>(tri_.size()) - 1;
  }

  // Corner of t at vertex a (t must contain a).
  int corner(int t, int a) const { return tri_[t][0] == a ? 0 : (tri_[t][1] == a ? 1 : 2); }

  long split_pass(TriangleRemeshStats& stats) {
    auto list = edges();
    std::sort(list.begin(), list.end(), [](const auto& p, const auto& q) { return p.first > q.first; });
    long n = 0;
    for (const auto& [len, key] : list) {
      if (len <= o_.split_ratio * o_.L0) break;
      const int a = static_cast<int>(key >> 32), b = static_cast<int>(key & 0xffffffffu);
      const auto ts = edge_tris_.at(key);
      if (any_touched(ts)) continue;
      const int m = static_cast<int>(x_.size());
      x_.push_back(lerp(x_[a], x_[b], 0.5));
      v_.push_back(lerp(v_[a], v_[b], 0.5));
      kind_.push_back(kind_[a] == kind_[b] ? kind_[a] : 0);
      vert_dead_.push_back(0);
      for (int t : ts) {
        // t = (p, q, r) cyclically with {p, q} = {a, b}: (p, m, r) and (m, q, r) keep the orientation.
        const int ca = corner(t, a);
        const bool a_first = tri_[t][(ca + 1) % 3] == b;
        const int p = a_first ? a : b, q = a_first ? b : a;
        const int r = tri_[t][(corner(t, p) + 2) % 3];
        tri_[t] = {p, m, r};
        touched_[t] = 1;
        add_triangle({m, q, r});
      }
      ++n;
    }
    stats.splits += n;
    return n;
  }

  // Signed volume of triangle t with vertex `moved` at p (others as they are), relative to `origin`:
  // closed, the divergence-theorem cone volume; open, the column down to z = origin_z.
  double triangle_volume(const Tri& t, int moved, const P3& p, const P3& origin) const {
    P3 q[3];
    for (int c = 0; c < 3; ++c) q[c] = sub(t[c] == moved ? p : x_[t[c]], origin);
    if (o_.closed) return dot(q[0], cross(q[1], q[2])) / 6;
    const double axy = 0.5 * ((q[1][0] - q[0][0]) * (q[2][1] - q[0][1]) - (q[2][0] - q[0][0]) * (q[1][1] - q[0][1]));
    return axy * (q[0][2] + q[1][2] + q[2][2]) / 3;
  }

  double patch_volume(const std::vector<Tri>& ts, int moved, const P3& p, const P3& origin) const {
    double vol = 0;
    for (const auto& t : ts) vol += triangle_volume(t, moved, p, origin);
    return vol;
  }

  bool try_collapse(int a, int b, TriangleRemeshStats& stats) {
    if (fixed_[a] && fixed_[b]) return false;
    const bool onto_fixed = fixed_[a] || fixed_[b];
    if (fixed_[b]) std::swap(a, b);  // a is the vertex kept
    const auto& shared = edge_tris_.at(edge_key(a, b));
    if (shared.size() != 2) return false;
    std::vector<int> ring = vert_tris_[a];
    ring.insert(ring.end(), vert_tris_[b].begin(), vert_tris_[b].end());
    std::sort(ring.begin(), ring.end());
    ring.erase(std::unique(ring.begin(), ring.end()), ring.end());
    if (any_touched(ring)) return false;
    // Link condition: the one-rings of a and b share exactly the two opposite vertices.
    auto neighbours = [&](int v) {
      std::vector<int> nb;
      for (int t : vert_tris_[v])
        for (int c : tri_[t])
          if (c != v) nb.push_back(c);
      std::sort(nb.begin(), nb.end());
      nb.erase(std::unique(nb.begin(), nb.end()), nb.end());
      return nb;
    };
    const auto na = neighbours(a), nb = neighbours(b);
    std::vector<int> common;
    std::set_intersection(na.begin(), na.end(), nb.begin(), nb.end(), std::back_inserter(common));
    if (common.size() != 2) return false;

    std::vector<Tri> before, after;
    std::vector<P3> normal_before;
    P3 dir{0, 0, 0};
    for (int t : ring) {
      before.push_back(tri_[t]);
      if (std::find(shared.begin(), shared.end(), t) != shared.end()) continue;
      Tri nt = tri_[t];
      for (auto& c : nt)
        if (c == b) c = a;
      after.push_back(nt);
      const P3 n = cross(sub(x_[tri_[t][1]], x_[tri_[t][0]]), sub(x_[tri_[t][2]], x_[tri_[t][0]]));
      normal_before.push_back(n);
      for (int d = 0; d < 3; ++d) dir[d] += n[d];
    }
    if (!o_.closed) dir = {0, 0, 1};
    const double dlen = length(dir);
    if (!(dlen > 0)) return false;
    for (auto& d : dir) d /= dlen;
    // The merged vertex p = mid + alpha dir; the patch volume is linear in alpha (p enters each of
    // the new triangles once, and along z the projected areas do not change), and the volume of the
    // patch before equals that after exactly when the enclosed volume is kept (the patch's boundary
    // loop is the same).
    // Onto a fixed vertex, p is that vertex and the volume change is left to the final offset.
    const P3 mid = lerp(x_[a], x_[b], 0.5);
    const double target = patch_volume(before, -1, mid, mid);
    const double v0 = patch_volume(after, a, mid, mid);
    const double v1 = patch_volume(after, a, {mid[0] + dir[0], mid[1] + dir[1], mid[2] + dir[2]}, mid);
    const double edge = length(sub(x_[a], x_[b]));
    if (!onto_fixed && !(std::abs(v1 - v0) > 0)) return false;
    const double alpha = onto_fixed ? 0.0 : (target - v0) / (v1 - v0);
    if (!(std::abs(alpha) <= 0.5 * edge)) return false;
    const P3 p = onto_fixed ? x_[a] : P3{mid[0] + alpha * dir[0], mid[1] + alpha * dir[1], mid[2] + alpha * dir[2]};
    // Quality of the new triangles.
    double old_min = M_PI, new_min = M_PI;
    for (const auto& t : before) old_min = std::min(old_min, min_angle(x_[t[0]], x_[t[1]], x_[t[2]]));
    for (size_t k = 0; k < after.size(); ++k) {
      P3 q[3];
      for (int c = 0; c < 3; ++c) q[c] = after[k][c] == a ? p : x_[after[k][c]];
      const P3 n = cross(sub(q[1], q[0]), sub(q[2], q[0]));
      if (!(dot(n, normal_before[k]) > 0)) return false;
      for (int c = 0; c < 3; ++c)
        if (length(sub(q[(c + 1) % 3], q[c])) > o_.split_ratio * o_.L0) return false;
      new_min = std::min(new_min, min_angle(q[0], q[1], q[2]));
    }
    if (new_min < std::min(old_min, o_.min_angle_deg * M_PI / 180)) return false;

    if (onto_fixed) {
      stats.fixed_collapse_volume_change += patch_volume(after, a, p, mid) - target;
    } else {
      x_[a] = p;
      v_[a] = lerp(v_[a], v_[b], 0.5);
    }
    vert_dead_[b] = 1;
    for (int t : ring) {
      touched_[t] = 1;
      if (std::find(shared.begin(), shared.end(), t) != shared.end()) tri_dead_[t] = 1;
      else
        for (auto& c : tri_[t])
          if (c == b) c = a;
    }
    return true;
  }

  long collapse_pass(TriangleRemeshStats& stats) {
    auto list = edges();
    std::sort(list.begin(), list.end());
    long n = 0;
    for (const auto& [len, key] : list) {
      if (len >= o_.collapse_ratio * o_.L0) break;
      const int a = static_cast<int>(key >> 32), b = static_cast<int>(key & 0xffffffffu);
      if (!vert_dead_[a] && !vert_dead_[b] && try_collapse(a, b, stats)) ++n;
    }
    stats.collapses += n;
    return n;
  }

  long flip_pass(TriangleRemeshStats& stats) {
    if (!(o_.max_flip_dihedral_deg > 0)) return 0;
    const double cos_max = std::cos(o_.max_flip_dihedral_deg * M_PI / 180);
    long n = 0;
    for (const auto& [len, key] : edges()) {
      const auto& ts = edge_tris_.at(key);
      if (ts.size() != 2 || any_touched(ts)) continue;
      const int a = static_cast<int>(key >> 32), b = static_cast<int>(key & 0xffffffffu);
      // t1 runs a -> b (opposite vertex c), t2 runs b -> a (opposite d).
      int t1 = ts[0], t2 = ts[1];
      if (tri_[t1][(corner(t1, a) + 1) % 3] != b) std::swap(t1, t2);
      const int c = tri_[t1][(corner(t1, b) + 1) % 3], d = tri_[t2][(corner(t2, a) + 1) % 3];
      if (c == d || edge_tris_.count(edge_key(c, d)) || vert_tris_[a].size() <= 3 || vert_tris_[b].size() <= 3)
        continue;
      const P3 n1 = cross(sub(x_[b], x_[a]), sub(x_[c], x_[a])), n2 = cross(sub(x_[a], x_[b]), sub(x_[d], x_[b]));
      if (dot(n1, n2) < cos_max * length(n1) * length(n2)) continue;
      const P3 m1 = cross(sub(x_[d], x_[a]), sub(x_[c], x_[a])), m2 = cross(sub(x_[c], x_[b]), sub(x_[d], x_[b]));
      const P3 nsum{n1[0] + n2[0], n1[1] + n2[1], n1[2] + n2[2]};
      if (!(dot(m1, nsum) > 0 && dot(m2, nsum) > 0)) continue;
      const double old_min = std::min(min_angle(x_[a], x_[b], x_[c]), min_angle(x_[b], x_[a], x_[d]));
      const double new_min = std::min(min_angle(x_[a], x_[d], x_[c]), min_angle(x_[b], x_[c], x_[d]));
      if (!(new_min > old_min + 1e-9)) continue;
      // Volume change: the new pair minus the old pair, the tetrahedron (a, b, c, d).
      const std::vector<Tri> old_pair{tri_[t1], tri_[t2]}, new_pair{{a, d, c}, {b, c, d}};
      stats.flip_volume_change += patch_volume(new_pair, -1, x_[a], x_[a]) - patch_volume(old_pair, -1, x_[a], x_[a]);
      tri_[t1] = {a, d, c};
      tri_[t2] = {b, c, d};
      touched_[t1] = touched_[t2] = 1;
      ++n;
    }
    stats.flips += n;
    return n;
  }

  // Barycentric coordinates of p projected onto the plane of the triangle q0 q1 q2 (false for a
  // degenerate triangle).
  static bool barycentric(const P3& p, const P3& q0, const P3& q1, const P3& q2, double w[3]) {
    const P3 n = cross(sub(q1, q0), sub(q2, q0));
    const double nn = dot(n, n);
    if (!(nn > 0)) return false;
    w[0] = dot(cross(sub(q1, p), sub(q2, p)), n) / nn;
    w[1] = dot(cross(sub(q2, p), sub(q0, p)), n) / nn;
    w[2] = 1 - w[0] - w[1];
    return true;
  }

  // Tangential smoothing (El Topo's "null-space smoothing", Brochu and Bridson 2009, simplified to
  // the tangent plane): each free vertex, in index order (Gauss-Seidel), moves toward the
  // area-weighted mean of its one-ring triangles' centroids with the normal part of that move
  // removed, then along its normal (z for an open membrane) by the amount that keeps the volume of
  // its one-ring patch, so the enclosed volume is kept to round-off, as by the collapses. A move is
  // refused when it would turn a triangle over, create an edge longer than split_ratio L0, or lower
  // the smallest angle of the one-ring. The vertex takes the velocity interpolated linearly in the
  // old one-ring triangle that contains its new position (exact for a linear field on a plane).
  long smooth_pass(TriangleRemeshStats& stats) {
    if (!(o_.smoothing_rate > 0)) return 0;
    long n = 0;
    for (int i = 0; i < static_cast<int>(x_.size()); ++i) {
      if (fixed_[i] || vert_dead_[i] || vert_tris_[i].size() < 3) continue;
      const auto& ring = vert_tris_[i];
      P3 target{0, 0, 0}, normal{0, 0, 0};
      double area = 0;
      for (int t : ring) {
        const Tri& tr = tri_[t];
        const P3 nt = cross(sub(x_[tr[1]], x_[tr[0]]), sub(x_[tr[2]], x_[tr[0]]));
        const double a = length(nt);
        for (int d = 0; d < 3; ++d) {
          target[d] += a * (x_[tr[0]][d] + x_[tr[1]][d] + x_[tr[2]][d]) / 3;
          normal[d] += nt[d];
        }
        area += a;
      }
      const double nlen = length(normal);
      if (!(area > 0 && nlen > 0)) continue;
      for (int d = 0; d < 3; ++d) {
        target[d] /= area;
        normal[d] /= nlen;
      }
      P3 move = sub(target, x_[i]);
      const double along = dot(move, normal);
      for (int d = 0; d < 3; ++d) move[d] = o_.smoothing_rate * (move[d] - along * normal[d]);
      const P3 dir = o_.closed ? normal : P3{0, 0, 1};
      std::vector<Tri> patch;
      patch.reserve(ring.size());
      for (int t : ring) patch.push_back(tri_[t]);
      const P3& xi = x_[i];
      const P3 p0{xi[0] + move[0], xi[1] + move[1], xi[2] + move[2]};
      const P3 p1{p0[0] + dir[0], p0[1] + dir[1], p0[2] + dir[2]};
      const double target_volume = patch_volume(patch, -1, xi, xi);
      const double v0 = patch_volume(patch, i, p0, xi), v1 = patch_volume(patch, i, p1, xi);
      if (!(std::abs(v1 - v0) > 0)) continue;
      const double alpha = (target_volume - v0) / (v1 - v0);
      const P3 p{p0[0] + alpha * dir[0], p0[1] + alpha * dir[1], p0[2] + alpha * dir[2]};
      double old_min = M_PI, new_min = M_PI;
      bool ok = true;
      for (const Tri& tr : patch) {
        P3 q[3];
        for (int c = 0; c < 3; ++c) q[c] = tr[c] == i ? p : x_[tr[c]];
        const P3 before = cross(sub(x_[tr[1]], x_[tr[0]]), sub(x_[tr[2]], x_[tr[0]]));
        const P3 after = cross(sub(q[1], q[0]), sub(q[2], q[0]));
        if (!(dot(before, after) > 0)) ok = false;
        for (int c = 0; c < 3; ++c)
          if (tr[c] == i && length(sub(q[(c + 1) % 3], q[c])) > o_.split_ratio * o_.L0) ok = false;
        old_min = std::min(old_min, min_angle(x_[tr[0]], x_[tr[1]], x_[tr[2]]));
        new_min = std::min(new_min, min_angle(q[0], q[1], q[2]));
      }
      if (!ok || !(new_min > old_min)) continue;
      // Velocity: linear in the old one-ring triangle that holds p best (largest smallest weight).
      double best = -1e300, w_best[3] = {0, 0, 0};
      const Tri* t_best = nullptr;
      for (const Tri& tr : patch) {
        double w[3];
        if (!barycentric(p, x_[tr[0]], x_[tr[1]], x_[tr[2]], w)) continue;
        const double lo = std::min({w[0], w[1], w[2]});
        if (lo > best) {
          best = lo;
          t_best = &tr;
          std::copy(w, w + 3, w_best);
        }
      }
      if (t_best) {
        P3 v{0, 0, 0};
        for (int c = 0; c < 3; ++c)
          for (int d = 0; d < 3; ++d) v[d] += w_best[c] * v_[(*t_best)[c]][d];
        v_[i] = v;
      }
      x_[i] = p;
      ++n;
    }
    stats.smoothed += n;
    return n;
  }

  // Volume of the live triangles (closed: about the first vertex; open: above z = 0) and, if g is
  // given, its gradient (closed: sum_t n_t / 6 per vertex, see triangle_membrane.cpp; open: the
  // column volume's derivative).
  double volume_and_gradient(std::vector<P3>* g) const {
    if (g) g->assign(x_.size(), {0, 0, 0});
    double vol = 0;
    const P3 origin = o_.closed ? x_[0] : P3{0, 0, 0};
    for (size_t t = 0; t < tri_.size(); ++t) {
      if (tri_dead_[t]) continue;
      vol += triangle_volume(tri_[t], -1, origin, origin);
      if (!g) continue;
      const auto& tr = tri_[t];
      const P3 n = cross(sub(x_[tr[1]], x_[tr[0]]), sub(x_[tr[2]], x_[tr[0]]));
      for (int c = 0; c < 3; ++c)
        for (int d = 0; d < 3; ++d) (*g)[tr[c]][d] += (o_.closed || d == 2) ? n[d] / 6 : 0.0;
    }
    return vol;
  }

  // Moves the free vertices by mu along their unit volume-gradient direction (closed) or along z
  // (open) so that the volume is `target` again (Newton on the scalar mu, which the flips' small
  // tetrahedra make of order their total volume over the area); returns mu.
  double restore_volume(double target) {
    std::vector<P3> g, dir(x_.size(), {0, 0, 0});
    volume_and_gradient(&g);
    for (size_t i = 0; i < x_.size(); ++i) {
      if (fixed_[i] || vert_dead_[i] || vert_tris_[i].empty()) continue;
      const double len = length(g[i]);
      if (!o_.closed) dir[i] = {0, 0, 1};
      else if (len > 0) dir[i] = {g[i][0] / len, g[i][1] / len, g[i][2] / len};
    }
    double mu = 0;
    for (int it = 0; it < 8; ++it) {
      const double vol = volume_and_gradient(&g);
      const double miss = target - vol;
      if (std::abs(miss) <= 1e-15 * std::abs(target)) break;
      double slope = 0;
      for (size_t i = 0; i < x_.size(); ++i) slope += dot(g[i], dir[i]);
      if (!(std::abs(slope) > 0)) break;
      const double step = miss / slope;
      for (size_t i = 0; i < x_.size(); ++i)
        for (int d = 0; d < 3; ++d) x_[i][d] += step * dir[i][d];
      mu += step;
    }
    return mu;
  }

  void compact() {
    std::vector<int> id(x_.size(), -1);
    size_t nv = 0;
    for (size_t i = 0; i < x_.size(); ++i)
      if (!vert_dead_[i]) {
        id[i] = static_cast<int>(nv);
        x_[nv] = x_[i];
        v_[nv] = v_[i];
        kind_[nv] = kind_[i];
        ++nv;
      }
    x_.resize(nv);
    v_.resize(nv);
    kind_.resize(nv);
    size_t nt = 0;
    for (size_t t = 0; t < tri_.size(); ++t)
      if (!tri_dead_[t]) tri_[nt++] = {id[tri_[t][0]], id[tri_[t][1]], id[tri_[t][2]]};
    tri_.resize(nt);
  }
};

}  // namespace

TriangleRemeshStats remesh_triangles(geometry::TriangleMesh& mesh, std::vector<std::array<double, 3>>& velocity,
                                     std::vector<int>& kind, const TriangleRemeshOptions& options) {
  if (!(options.L0 > 0)) throw std::invalid_argument("remesh_triangles: L0 must be positive");
  if (!(options.collapse_ratio > 0 && 2 * options.collapse_ratio < options.split_ratio))
    throw std::invalid_argument("remesh_triangles: need 0 < collapse_ratio < split_ratio / 2");
  const size_t n = mesh.vertices.size();
  if (velocity.empty()) velocity.assign(n, {0, 0, 0});
  if (kind.empty()) kind.assign(n, 0);
  if (velocity.size() != n || kind.size() != n)
    throw std::invalid_argument("remesh_triangles: one velocity and one kind per vertex are required");
  TriangleRemeshStats stats;
  Remesher(mesh, velocity, kind, options).run(stats);
  return stats;
}

TriangleRemeshStats remesh_membrane(TriangleMembrane& m, const TriangleRemeshOptions& options) {
  if (m.owned_vertices != m.vertices())
    throw std::invalid_argument("remesh_membrane: the membrane must hold the whole mesh (one rank)");
  auto mesh = to_triangle_mesh(m);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.v);
  auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.kind);
  std::vector<std::array<double, 3>> vel(m.vertices());
  std::vector<int> kind(m.vertices());
  for (long i = 0; i < m.vertices(); ++i) {
    vel[i] = {hv(i, 0), hv(i, 1), hv(i, 2)};
    kind[i] = hk(i);
  }
  const auto stats = remesh_triangles(mesh, vel, kind, options);
  m = make_triangle_membrane(mesh);
  auto nv = Kokkos::create_mirror_view(m.v);
  auto nk = Kokkos::create_mirror_view(m.kind);
  for (long i = 0; i < m.vertices(); ++i) {
    for (int d = 0; d < 3; ++d) nv(i, d) = vel[i][d];
    nk(i) = kind[i];
  }
  Kokkos::deep_copy(m.v, nv);
  Kokkos::deep_copy(m.kind, nk);
  return stats;
}

double min_triangle_angle_deg(const geometry::TriangleMesh& mesh) {
  double lo = M_PI;
  for (const auto& t : mesh.triangles)
    lo = std::min(lo, min_angle(mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]));
  return lo * 180 / M_PI;
}

}  // namespace meniscus::membrane
