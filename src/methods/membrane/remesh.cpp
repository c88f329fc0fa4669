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

  // Collapses: walk the chain once, merging each short edge; a wall vertex absorbs its neighbour.
  std::vector<Vertex> merged;
  for (size_t i = 0; i < chain.size(); ++i) {
    if (merged.empty()) {
      merged.push_back(chain[i]);
      continue;
    }
    Vertex& last = merged.back();
    if (edge_length(last, chain[i]) < collapse_ratio * L0 && merged.size() + (chain.size() - i) > 3) {
      if (last.kind != kFree && chain[i].kind != kFree) {
        merged.push_back(chain[i]);  // two wall vertices: keep both ends of an open chain
        continue;
      }
      if (priority(chain[i]) > priority(last)) last = chain[i];
      else if (priority(chain[i]) == priority(last)) last = midpoint(last, chain[i]);
      ++stats.collapses;
      continue;
    }
    merged.push_back(chain[i]);
  }
  if (closed && merged.size() > 3 && edge_length(merged.back(), merged.front()) < collapse_ratio * L0) {
    if (priority(merged.back()) > priority(merged.front())) merged.front() = merged.back();
    else if (priority(merged.back()) == priority(merged.front())) merged.front() = midpoint(merged.back(), merged.front());
    merged.pop_back();
    ++stats.collapses;
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
