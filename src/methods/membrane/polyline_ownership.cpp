#include "methods/membrane/polyline_ownership.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/mpi_gather.hpp"

namespace meniscus::membrane {

namespace {

// One vertex as it travels between ranks.
struct VertexRecord {
  long gid;
  double x[2], v[2];
  int kind;
  int owner;
};

// A message unit: a vertex the receiver will own (a = b = -1), or a segment (a, b) by global ids
// with the record of its end that the receiver does not get as an owned vertex from this unit.
struct Unit {
  long a, b;
  VertexRecord rec;
};

using Segments = std::set<std::pair<long, long>>;

// The local polyline from its owned vertices, ghosts (both keyed by global id) and segments.
LocalPolyline assemble(const std::map<long, VertexRecord>& owned, const std::map<long, VertexRecord>& ghosts,
                       const Segments& segs) {
  LocalPolyline lp;
  lp.owned = static_cast<long>(owned.size());
  const long n = lp.owned + static_cast<long>(ghosts.size());
  lp.m.x = VertexArray("membrane_x", n, 2);
  lp.m.v = VertexArray("membrane_v", n, 2);
  lp.m.kind = Kokkos::View<int*, MemSpace>("membrane_kind", n);
  lp.m.seg = SegmentArray("membrane_segments", static_cast<long>(segs.size()), 2);
  auto hx = Kokkos::create_mirror_view(lp.m.x);
  auto hv = Kokkos::create_mirror_view(lp.m.v);
  auto hk = Kokkos::create_mirror_view(lp.m.kind);
  auto hs = Kokkos::create_mirror_view(lp.m.seg);
  std::map<long, int> local;
  auto put = [&](const VertexRecord& r) {
    const long i = static_cast<long>(lp.gid.size());
    local[r.gid] = static_cast<int>(i);
    lp.gid.push_back(r.gid);
    for (int d = 0; d < 2; ++d) {
      hx(i, d) = r.x[d];
      hv(i, d) = r.v[d];
    }
    hk(i) = r.kind;
  };
  for (const auto& [g, r] : owned) put(r);
  for (const auto& [g, r] : ghosts) {
    put(r);
    lp.ghost_owner.push_back(r.owner);
  }
  long e = 0;
  for (const auto& [a, b] : segs) {
    hs(e, 0) = local.at(a);
    hs(e, 1) = local.at(b);
    ++e;
  }
  Kokkos::deep_copy(lp.m.x, hx);
  Kokkos::deep_copy(lp.m.v, hv);
  Kokkos::deep_copy(lp.m.kind, hk);
  Kokkos::deep_copy(lp.m.seg, hs);
  return lp;
}

// Host records of every local vertex of `m` (global ids `gid`, owners from their positions).
std::vector<VertexRecord> records(const Polyline& m, const std::vector<long>& gid, const grid::Decomposition<2>& dec) {
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.v);
  auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.kind);
  std::vector<VertexRecord> out(m.vertices());
  for (long i = 0; i < m.vertices(); ++i) {
    VertexRecord& r = out[i];
    r.gid = gid[i];
    for (int d = 0; d < 2; ++d) {
      r.x[d] = hx(i, d);
      r.v[d] = hv(i, d);
    }
    r.kind = hk(i);
    r.owner = cell_owner(dec, r.x);
  }
  return out;
}

// Segments of `m` as local id pairs.
std::vector<std::pair<int, int>> host_segments(const Polyline& m) {
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.seg);
  std::vector<std::pair<int, int>> out(m.segments());
  for (long e = 0; e < m.segments(); ++e) out[e] = {hs(e, 0), hs(e, 1)};
  return out;
}

}  // namespace

LocalPolyline distribute_polyline(const Polyline& whole, const grid::Decomposition<2>& dec) {
  std::vector<long> gid(whole.vertices());
  for (long i = 0; i < whole.vertices(); ++i) gid[i] = i;
  const std::vector<VertexRecord> rec = records(whole, gid, dec);
  std::map<long, VertexRecord> owned, ghosts;
  Segments segs;
  for (const auto& r : rec)
    if (r.owner == dec.rank()) owned[r.gid] = r;
  for (const auto& [a, b] : host_segments(whole)) {
    const bool ma = rec[a].owner == dec.rank(), mb = rec[b].owner == dec.rank();
    if (!ma && !mb) continue;
    segs.insert({a, b});
    if (!ma) ghosts[a] = rec[a];
    if (!mb) ghosts[b] = rec[b];
  }
  return assemble(owned, ghosts, segs);
}

void migrate_polyline(LocalPolyline& lp, const grid::Decomposition<2>& dec) {
  MPI_Comm comm = dec.comm();
  const int size = dec.size();
  const std::vector<VertexRecord> rec = records(lp.m, lp.gid, dec);
  // Per destination: every owned vertex, then each of its segments with the other end's record.
  std::vector<std::vector<Unit>> out(size);
  for (long i = 0; i < lp.owned; ++i) out[rec[i].owner].push_back({-1, -1, rec[i]});
  for (const auto& [a, b] : host_segments(lp.m)) {
    const Unit ua{lp.gid[a], lp.gid[b], rec[b]}, ub{lp.gid[a], lp.gid[b], rec[a]};
    if (a < lp.owned) out[rec[a].owner].push_back(ua);
    if (b < lp.owned) out[rec[b].owner].push_back(ub);
  }
  std::vector<int> send_counts(size), recv_counts(size), send_displs(size, 0), recv_displs(size, 0);
  std::vector<Unit> flat;
  for (int r = 0; r < size; ++r) {
    send_counts[r] = static_cast<int>(out[r].size() * sizeof(Unit));
    flat.insert(flat.end(), out[r].begin(), out[r].end());
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) {
    send_displs[r] = send_displs[r - 1] + send_counts[r - 1];
    recv_displs[r] = recv_displs[r - 1] + recv_counts[r - 1];
  }
  std::vector<Unit> in((recv_displs[size - 1] + recv_counts[size - 1]) / sizeof(Unit));
  MPI_Alltoallv(flat.data(), send_counts.data(), send_displs.data(), MPI_BYTE, in.data(), recv_counts.data(),
                recv_displs.data(), MPI_BYTE, comm);
  std::map<long, VertexRecord> owned, ghosts;
  Segments segs;
  for (const Unit& u : in)
    if (u.a < 0) owned[u.rec.gid] = u.rec;
  for (const Unit& u : in) {
    if (u.a < 0) continue;
    segs.insert({u.a, u.b});
    if (!owned.count(u.rec.gid)) ghosts[u.rec.gid] = u.rec;
  }
  for (const auto& [g, r] : owned)
    if (r.owner != dec.rank()) throw std::logic_error("migrate_polyline: a vertex reached a rank that does not own it");
  lp = assemble(owned, ghosts, segs);
}

Polyline gather_polyline(const LocalPolyline& lp, MPI_Comm comm) {
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lp.m.x);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lp.m.v);
  auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lp.m.kind);
  std::vector<VertexRecord> mine(lp.owned);
  for (long i = 0; i < lp.owned; ++i)
    mine[i] = {lp.gid[i], {hx(i, 0), hx(i, 1)}, {hv(i, 0), hv(i, 1)}, hk(i), 0};
  // Each segment once: from the rank owning its first end.
  std::vector<long> ends;
  for (const auto& [a, b] : host_segments(lp.m))
    if (a < lp.owned) {
      ends.push_back(lp.gid[a]);
      ends.push_back(lp.gid[b]);
    }
  std::map<long, VertexRecord> all;
  for (const auto& r : allgather_vector(comm, mine)) all[r.gid] = r;
  const std::vector<long> all_ends = allgather_vector(comm, ends);
  Segments segs;
  for (size_t k = 0; k + 1 < all_ends.size(); k += 2) segs.insert({all_ends[k], all_ends[k + 1]});
  const long n = static_cast<long>(all.size());
  if (n > 0 && (all.begin()->first != 0 || all.rbegin()->first != n - 1))
    throw std::logic_error("gather_polyline: global ids are not 0 .. n-1");
  return assemble(all, {}, segs).m;
}

}  // namespace meniscus::membrane
