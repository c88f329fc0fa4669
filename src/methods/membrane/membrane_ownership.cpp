#include "methods/membrane/membrane_ownership.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/mpi_gather.hpp"

namespace meniscus::membrane {

namespace {

// One vertex as it travels between ranks.
template <int Dim>
struct VertexRecord {
  long gid;
  double x[Dim], v[Dim];
  int kind;
  int owner;
};

// An element (segment or triangle) by the global ids of its Ends vertices, in its local order.
template <int Ends>
using Element = std::array<long, Ends>;

// A message unit: a vertex the receiver will own (ends[0] = -1), or an element with the record of
// one of its other ends.
template <int Dim, int Ends>
struct Unit {
  Element<Ends> ends;
  VertexRecord<Dim> rec;
};

// What a rank holds after a split or a migration: owned vertices, ghosts (the other ends of the
// elements), and the elements with an owned end, all keyed by global id.
template <int Dim, int Ends>
struct Held {
  std::map<long, VertexRecord<Dim>> owned, ghosts;
  std::set<Element<Ends>> elements;
  // Adds an element and, as ghosts, the records of its ends that this rank does not own.
  void add_element(const Element<Ends>& e, const VertexRecord<Dim>& other) {
    elements.insert(e);
    if (!owned.count(other.gid)) ghosts[other.gid] = other;
  }
};

// Host records of every local vertex (global ids `gid`, owners of their cells).
template <int Dim, class X, class K>
std::vector<VertexRecord<Dim>> records(const X& x, const X& v, const K& kind, const long* gid,
                                       const grid::Decomposition<Dim>& dec) {
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), kind);
  std::vector<VertexRecord<Dim>> out(x.extent(0));
  for (size_t i = 0; i < out.size(); ++i) {
    VertexRecord<Dim>& r = out[i];
    r.gid = gid[i];
    for (int d = 0; d < Dim; ++d) {
      r.x[d] = hx(i, d);
      r.v[d] = hv(i, d);
    }
    r.kind = hk(i);
    r.owner = cell_owner(dec, r.x);
  }
  return out;
}

// Elements of a local layout (a view of local ids, Ends per row) as host arrays of local ids.
template <int Ends, class E>
std::vector<std::array<int, Ends>> host_elements(const E& elements) {
  auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), elements);
  std::vector<std::array<int, Ends>> out(elements.extent(0));
  for (size_t e = 0; e < out.size(); ++e)
    for (int c = 0; c < Ends; ++c) out[e][c] = he(e, c);
  return out;
}

// The migration of both dimensions: every owned vertex (records [0, owned)) goes to the owner of its
// cell with each of its elements and the records of the elements' other ends. One MPI_Alltoallv.
template <int Dim, int Ends>
Held<Dim, Ends> exchange(const std::vector<VertexRecord<Dim>>& rec, long owned,
                         const std::vector<std::array<int, Ends>>& elements, const grid::Decomposition<Dim>& dec) {
  const int size = dec.size();
  std::vector<std::vector<Unit<Dim, Ends>>> out(size);
  for (long i = 0; i < owned; ++i) {
    Unit<Dim, Ends> u{};
    u.ends[0] = -1;
    u.rec = rec[i];
    out[rec[i].owner].push_back(u);
  }
  for (const auto& local : elements) {
    Element<Ends> ends;
    for (int c = 0; c < Ends; ++c) ends[c] = rec[local[c]].gid;
    for (int c = 0; c < Ends; ++c) {
      if (local[c] >= owned) continue;
      for (int o = 0; o < Ends; ++o)
        if (o != c) out[rec[local[c]].owner].push_back({ends, rec[local[o]]});
    }
  }
  const std::vector<Unit<Dim, Ends>> in = alltoall_vectors(dec.comm(), out);
  Held<Dim, Ends> held;
  for (const auto& u : in)
    if (u.ends[0] < 0) held.owned[u.rec.gid] = u.rec;
  for (const auto& u : in)
    if (u.ends[0] >= 0) held.add_element(u.ends, u.rec);
  for (const auto& [g, r] : held.owned)
    if (r.owner != dec.rank()) throw std::logic_error("membrane migration: a vertex reached a rank that does not own it");
  return held;
}

// Every rank's owned vertices and each element once (from the rank owning its lowest global id), on
// every rank, in global-id order (the same at every rank count). Collective.
template <int Dim, int Ends>
Held<Dim, Ends> gather_held(const std::vector<VertexRecord<Dim>>& rec, long owned,
                            const std::vector<std::array<int, Ends>>& elements, MPI_Comm comm) {
  std::vector<VertexRecord<Dim>> mine(rec.begin(), rec.begin() + owned);
  for (auto& r : mine) r.owner = 0;  // everything is owned in the gathered layout
  std::vector<long> ends;
  for (const auto& local : elements) {
    int lowest = 0;
    for (int c = 1; c < Ends; ++c)
      if (rec[local[c]].gid < rec[local[lowest]].gid) lowest = c;
    if (local[lowest] >= owned) continue;
    for (int c = 0; c < Ends; ++c) ends.push_back(rec[local[c]].gid);
  }
  Held<Dim, Ends> all;
  for (const auto& r : allgather_vector(comm, mine)) all.owned[r.gid] = r;
  const std::vector<long> all_ends = allgather_vector(comm, ends);
  for (size_t k = 0; k + Ends <= all_ends.size(); k += Ends) {
    Element<Ends> e;
    for (int c = 0; c < Ends; ++c) e[c] = all_ends[k + c];
    all.elements.insert(e);
  }
  const long n = static_cast<long>(all.owned.size());
  if (n > 0 && (all.owned.begin()->first != 0 || all.owned.rbegin()->first != n - 1))
    throw std::logic_error("membrane gather: global ids are not 0 .. n-1");
  return all;
}

// Local ids: owned vertices by increasing global id, then ghosts by increasing global id.
template <int Dim, int Ends>
std::map<long, int> local_ids(const Held<Dim, Ends>& held, std::vector<const VertexRecord<Dim>*>& order) {
  std::map<long, int> local;
  for (const auto* list : {&held.owned, &held.ghosts})
    for (const auto& [g, r] : *list) {
      local[g] = static_cast<int>(order.size());
      order.push_back(&r);
    }
  return local;
}

// The 2D local polyline from what this rank holds.
LocalPolyline assemble(const Held<2, 2>& held) {
  LocalPolyline lp;
  std::vector<const VertexRecord<2>*> order;
  const std::map<long, int> local = local_ids(held, order);
  const long n = static_cast<long>(order.size());
  lp.owned = static_cast<long>(held.owned.size());
  lp.m.x = VertexArray("membrane_x", n, 2);
  lp.m.v = VertexArray("membrane_v", n, 2);
  lp.m.kind = Kokkos::View<int*, MemSpace>("membrane_kind", n);
  lp.m.seg = SegmentArray("membrane_segments", static_cast<long>(held.elements.size()), 2);
  auto hx = Kokkos::create_mirror_view(lp.m.x);
  auto hv = Kokkos::create_mirror_view(lp.m.v);
  auto hk = Kokkos::create_mirror_view(lp.m.kind);
  auto hs = Kokkos::create_mirror_view(lp.m.seg);
  for (long i = 0; i < n; ++i) {
    lp.gid.push_back(order[i]->gid);
    for (int d = 0; d < 2; ++d) {
      hx(i, d) = order[i]->x[d];
      hv(i, d) = order[i]->v[d];
    }
    hk(i) = order[i]->kind;
    if (i >= lp.owned) lp.ghost_owner.push_back(order[i]->owner);
  }
  long e = 0;
  for (const auto& ends : held.elements) {
    for (int c = 0; c < 2; ++c) hs(e, c) = local.at(ends[c]);
    ++e;
  }
  Kokkos::deep_copy(lp.m.x, hx);
  Kokkos::deep_copy(lp.m.v, hv);
  Kokkos::deep_copy(lp.m.kind, hk);
  Kokkos::deep_copy(lp.m.seg, hs);
  return lp;
}

// The 3D local membrane (triangle_membrane.hpp's layout: owned triangles first, a triangle being
// owned by the owner of its lowest global vertex id).
TriangleMembrane assemble(const Held<3, 3>& held, int rank) {
  TriangleMembrane m;
  std::vector<const VertexRecord<3>*> order;
  const std::map<long, int> local = local_ids(held, order);
  const long n = static_cast<long>(order.size());
  m.owned_vertices = static_cast<long>(held.owned.size());
  m.x = Vec3Array("membrane3_x", n);
  m.v = Vec3Array("membrane3_v", n);
  m.gid = Kokkos::View<long*, MemSpace>("membrane3_gid", n);
  m.kind = Kokkos::View<int*, MemSpace>("membrane3_kind", n);
  m.tri = TriangleArray("membrane3_triangles", static_cast<long>(held.elements.size()));
  auto hx = Kokkos::create_mirror_view(m.x);
  auto hv = Kokkos::create_mirror_view(m.v);
  auto hg = Kokkos::create_mirror_view(m.gid);
  auto hk = Kokkos::create_mirror_view(m.kind);
  auto ht = Kokkos::create_mirror_view(m.tri);
  for (long i = 0; i < n; ++i) {
    hg(i) = order[i]->gid;
    for (int d = 0; d < 3; ++d) {
      hx(i, d) = order[i]->x[d];
      hv(i, d) = order[i]->v[d];
    }
    hk(i) = order[i]->kind;
    if (i >= m.owned_vertices) m.ghost_owner.push_back(order[i]->owner);
  }
  auto lowest_owner = [&](const Element<3>& t) {
    const long g = std::min({t[0], t[1], t[2]});
    const auto it = held.owned.find(g);
    return it != held.owned.end() ? rank : held.ghosts.at(g).owner;
  };
  long t = 0;
  for (const bool mine : {true, false})
    for (const auto& ends : held.elements) {
      if ((lowest_owner(ends) == rank) != mine) continue;
      for (int c = 0; c < 3; ++c) ht(t, c) = local.at(ends[c]);
      t += 1;
      if (mine) ++m.owned_triangles;
    }
  Kokkos::deep_copy(m.x, hx);
  Kokkos::deep_copy(m.v, hv);
  Kokkos::deep_copy(m.gid, hg);
  Kokkos::deep_copy(m.kind, hk);
  Kokkos::deep_copy(m.tri, ht);
  return m;
}

}  // namespace

namespace {
// What `rank` holds of a membrane every rank holds whole (global id = index): its owned vertices and
// every element with an owned end, with the other ends as ghosts.
template <int Dim, int Ends>
Held<Dim, Ends> split_by_owner(const std::vector<VertexRecord<Dim>>& rec,
                               const std::vector<std::array<int, Ends>>& elements, int rank) {
  Held<Dim, Ends> held;
  for (const auto& r : rec)
    if (r.owner == rank) held.owned[r.gid] = r;
  for (const auto& e : elements) {
    bool mine = false;
    Element<Ends> ends;
    for (int c = 0; c < Ends; ++c) {
      mine = mine || rec[e[c]].owner == rank;
      ends[c] = e[c];
    }
    if (!mine) continue;
    for (int c = 0; c < Ends; ++c) held.add_element(ends, rec[e[c]]);
  }
  return held;
}
}  // namespace

LocalPolyline distribute_polyline(const Polyline& whole, const grid::Decomposition<2>& dec) {
  std::vector<long> gid(whole.vertices());
  for (long i = 0; i < whole.vertices(); ++i) gid[i] = i;
  const auto rec = records<2>(whole.x, whole.v, whole.kind, gid.data(), dec);
  return assemble(split_by_owner<2, 2>(rec, host_elements<2>(whole.seg), dec.rank()));
}

TriangleMembrane distribute_triangle_membrane(const TriangleMembrane& whole, const grid::Decomposition<3>& dec) {
  std::vector<long> gid(whole.vertices());
  for (long i = 0; i < whole.vertices(); ++i) gid[i] = i;
  const auto rec = records<3>(whole.x, whole.v, whole.kind, gid.data(), dec);
  return assemble(split_by_owner<3, 3>(rec, host_elements<3>(whole.tri), dec.rank()), dec.rank());
}

void migrate_polyline(LocalPolyline& lp, const grid::Decomposition<2>& dec) {
  const auto rec = records<2>(lp.m.x, lp.m.v, lp.m.kind, lp.gid.data(), dec);
  lp = assemble(exchange<2, 2>(rec, lp.owned, host_elements<2>(lp.m.seg), dec));
}

void migrate_triangle_membrane(TriangleMembrane& m, const grid::Decomposition<3>& dec) {
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.gid);
  const auto rec = records<3>(m.x, m.v, m.kind, hg.data(), dec);
  m = assemble(exchange<3, 3>(rec, m.owned_vertices, host_elements<3>(m.tri), dec), dec.rank());
}

TriangleMembrane widen_ghosts(const TriangleMembrane& m, const grid::Decomposition<3>& dec, double reach) {
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.gid);
  const auto rec = records<3>(m.x, m.v, m.kind, hg.data(), dec);
  const auto tri = host_elements<3>(m.tri);
  Held<3, 3> held;
  for (long i = 0; i < m.owned_vertices; ++i) held.owned[rec[i].gid] = rec[i];
  for (const auto& t : tri)
    for (int c = 0; c < 3; ++c) held.add_element({rec[t[0]].gid, rec[t[1]].gid, rec[t[2]].gid}, rec[t[c]]);
  // Each rank's cells widened by reach (region() is the box of the owned nodes' nearest points;
  // cell i spans half a cell higher).
  const int size = dec.size();
  std::vector<std::array<double, 6>> box(size);
  for (int r = 0; r < size; ++r) {
    dec.region(r, box[r].data(), box[r].data() + 3);
    for (int d = 0; d < 3; ++d) {
      box[r][d] += 0.5 * dec.dx() - reach;
      box[r][3 + d] += 0.5 * dec.dx() + reach;
    }
  }
  std::vector<std::vector<Unit<3, 3>>> out(size);
  for (long t = 0; t < m.owned_triangles; ++t) {
    Element<3> ends;
    double lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min({rec[tri[t][0]].x[d], rec[tri[t][1]].x[d], rec[tri[t][2]].x[d]});
      hi[d] = std::max({rec[tri[t][0]].x[d], rec[tri[t][1]].x[d], rec[tri[t][2]].x[d]});
    }
    for (int c = 0; c < 3; ++c) ends[c] = rec[tri[t][c]].gid;
    for (int r = 0; r < size; ++r) {
      if (r == dec.rank()) continue;
      bool meets = true;
      for (int d = 0; d < 3; ++d) meets = meets && hi[d] >= box[r][d] && lo[d] <= box[r][3 + d];
      if (!meets) continue;
      for (int c = 0; c < 3; ++c) out[r].push_back({ends, rec[tri[t][c]]});
    }
  }
  for (const auto& u : alltoall_vectors(dec.comm(), out)) held.add_element(u.ends, u.rec);
  return assemble(held, dec.rank());
}

Polyline gather_polyline(const LocalPolyline& lp, const grid::Decomposition<2>& dec) {
  const auto rec = records<2>(lp.m.x, lp.m.v, lp.m.kind, lp.gid.data(), dec);
  return assemble(gather_held<2, 2>(rec, lp.owned, host_elements<2>(lp.m.seg), dec.comm())).m;
}

TriangleMembrane gather_triangle_membrane(const TriangleMembrane& m, const grid::Decomposition<3>& dec) {
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.gid);
  const auto rec = records<3>(m.x, m.v, m.kind, hg.data(), dec);
  return assemble(gather_held<3, 3>(rec, m.owned_vertices, host_elements<3>(m.tri), dec.comm()), dec.rank());
}

}  // namespace meniscus::membrane
