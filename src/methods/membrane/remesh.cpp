#include "methods/membrane/remesh.hpp"

#include <cmath>
#include <vector>

namespace meniscus::membrane {

namespace {
struct Vertex {
  double x[2], v[2];
  int kind;
  bool pinned;
};
// Which end of a collapsing edge survives: a wall end over a pinned (contact) vertex over a free one.
int priority(const Vertex& v) { return v.kind != kFree ? 2 : v.pinned ? 1 : 0; }
double edge_length(const Vertex& a, const Vertex& b) { return std::hypot(b.x[0] - a.x[0], b.x[1] - a.x[1]); }
Vertex midpoint(const Vertex& a, const Vertex& b) {
  Vertex m;
  for (int d = 0; d < 2; ++d) {
    m.x[d] = 0.5 * (a.x[d] + b.x[d]);
    m.v[d] = 0.5 * (a.v[d] + b.v[d]);
  }
  m.kind = kFree;
  m.pinned = a.pinned && b.pinned;
  return m;
}
}  // namespace

RemeshStats remesh_chain(Polyline& m, bool closed, double L0, double split_ratio, double collapse_ratio,
                         const std::vector<int>& pinned) {
  RemeshStats stats;
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.v);
  auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.kind);
  std::vector<Vertex> chain(m.vertices());
  for (long i = 0; i < m.vertices(); ++i) chain[i] = {{hx(i, 0), hx(i, 1)}, {hv(i, 0), hv(i, 1)}, hk(i), !pinned.empty() && pinned[i] != 0};

  // Collapses, in passes that do not depend on the direction of traversal: a short edge collapses
  // when it is strictly shorter than each neighbouring edge (two such edges never share a vertex),
  // and passes repeat until no short edge is left or none can go. The earlier single walk from the
  // first vertex merged a run of short edges from its left end, so that a mirror-symmetric chain
  // (a disc held mid-tank) was remeshed asymmetrically and its meniscus became lopsided.
  std::vector<Vertex> merged = chain;
  const auto min_vertices = static_cast<size_t>(closed ? 3 : 2);
  for (int pass = 0; pass < 64; ++pass) {
    const size_t nv = merged.size();
    const size_t ne = closed ? nv : nv - 1;
    if (nv <= min_vertices + 1 || ne < 1) break;
    std::vector<double> len(ne);
    for (size_t e = 0; e < ne; ++e) len[e] = edge_length(merged[e], merged[(e + 1) % nv]);
    std::vector<char> go(ne, 0);
    size_t count = 0;
    for (size_t e = 0; e < ne; ++e) {
      const Vertex &a = merged[e], &b = merged[(e + 1) % nv];
      if (len[e] >= collapse_ratio * L0 || (a.kind != kFree && b.kind != kFree)) continue;
      const bool has_prev = closed || e > 0, has_next = closed || e + 1 < ne;
      if (has_prev && !(len[e] < len[(e + ne - 1) % ne])) continue;
      if (has_next && !(len[e] < len[(e + 1) % ne])) continue;
      go[e] = 1;
      ++count;
    }
    if (count == 0) break;
    if (nv - count < min_vertices + 1) break;  // keep a chain of at least four vertices
    std::vector<Vertex> next;
    std::vector<char> drop(nv, 0);
    std::vector<Vertex> replaced = merged;
    for (size_t e = 0; e < ne; ++e) {
      if (!go[e]) continue;
      const size_t ia = e, ib = (e + 1) % nv;
      const Vertex &a = merged[ia], &b = merged[ib];
      replaced[ia] = priority(b) > priority(a) ? b : priority(a) > priority(b) ? a : midpoint(a, b);
      drop[ib] = 1;
      ++stats.collapses;
    }
    for (size_t q = 0; q < nv; ++q)
      if (!drop[q]) next.push_back(replaced[q]);
    if (closed && drop[0]) {  // the wrap-around edge's survivor took the last slot: keep vertex 0 first
      next.insert(next.begin(), next.back());
      next.pop_back();
    }
    merged.swap(next);
  }
  // Splits: a long edge gets as many midpoints as it needs (recursive halving).
  std::vector<Vertex> out;
  const size_t nm = merged.size();
  const size_t edges = closed ? nm : nm - 1;
  for (size_t i = 0; i < nm; ++i) {
    out.push_back(merged[i]);
    if (i >= edges) continue;
    const Vertex& a = merged[i];
    const Vertex& b = merged[(i + 1) % nm];
    const double len = edge_length(a, b);
    if (len <= split_ratio * L0) continue;
    const int pieces = 1 << static_cast<int>(std::ceil(std::log2(len / (split_ratio * L0))));
    for (int q = 1; q < pieces; ++q) {
      const double t = static_cast<double>(q) / pieces;
      Vertex s;
      for (int d = 0; d < 2; ++d) {
        s.x[d] = (1 - t) * a.x[d] + t * b.x[d];
        s.v[d] = (1 - t) * a.v[d] + t * b.v[d];
      }
      s.kind = kFree;
      s.pinned = false;
      out.push_back(s);
      ++stats.splits;
    }
  }
  if (stats.splits == 0 && stats.collapses == 0) return stats;

  std::vector<double> xy;
  for (const auto& v : out) {
    xy.push_back(v.x[0]);
    xy.push_back(v.x[1]);
  }
  Polyline r = make_polyline(xy, closed);
  auto rv = Kokkos::create_mirror_view(r.v);
  auto rk = Kokkos::create_mirror_view(r.kind);
  for (size_t i = 0; i < out.size(); ++i) {
    rv(i, 0) = out[i].v[0];
    rv(i, 1) = out[i].v[1];
    rk(i) = out[i].kind;
  }
  Kokkos::deep_copy(r.v, rv);
  Kokkos::deep_copy(r.kind, rk);
  m = r;
  return stats;
}

}  // namespace meniscus::membrane
