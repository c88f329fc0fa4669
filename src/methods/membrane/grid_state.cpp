#include "methods/membrane/grid_state.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <numeric>

namespace meniscus::membrane {

namespace {

// Rows of grid_state_columns<Dim>() doubles: the node, then its dofs.
template <int Dim>
std::vector<double> pack_rows(MacGridT<Dim>& grid) {
  const MacGeometryT<Dim> g = grid.geometry();
  constexpr int dofs = mac_dofs<Dim>(), columns = grid_state_columns<Dim>();
  const long n = g.owned.size();
  Kokkos::View<double**, Kokkos::LayoutRight, grid::MemSpace> rows("membrane_grid_rows", n, columns);
  auto owned = grid.field().acquire_owned();
  Kokkos::parallel_for(
      "membrane_pack_grid_rows", n, KOKKOS_LAMBDA(const long q) {
        int c[Dim];
        g.owned.node(q, c);
        for (int e = 0; e < Dim; ++e) rows(q, e) = c[e];
        for (int d = 0; d < dofs; ++d) rows(q, Dim + d) = owned(q, d);
      });
  grid.field().release_owned(owned);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
  return std::vector<double>(h.data(), h.data() + h.size());
}

template <int Dim>
long unpack_rows(MacGridT<Dim>& grid, const std::vector<double>& rows) {
  const MacGeometryT<Dim> g = grid.geometry();
  constexpr int dofs = mac_dofs<Dim>(), columns = grid_state_columns<Dim>();
  const long count = static_cast<long>(rows.size()) / columns;
  Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> table(
      rows.data(), count, columns);
  auto dev = Kokkos::create_mirror_view_and_copy(grid::MemSpace(), table);
  auto owned = grid.field().acquire_owned();
  long used = 0;
  Kokkos::parallel_reduce(
      "membrane_unpack_grid_rows", count,
      KOKKOS_LAMBDA(const long r, long& acc) {
        int c[Dim];
        for (int e = 0; e < Dim; ++e) {
          c[e] = static_cast<int>(dev(r, e));
          if (c[e] < g.owned.lo[e] || c[e] >= g.owned.lo[e] + g.owned.n[e]) return;
        }
        const long q = g.owned.index(c);
        for (int d = 0; d < dofs; ++d) owned(q, d) = dev(r, Dim + d);
        ++acc;
      },
      used);
  grid.field().release_owned(owned);
  grid.field().global_to_local();
  return used;
}

template <int Dim>
void snapshot(MacGridT<Dim>& grid, double last_dt, GridSnapshot& out, bool shared_faces) {
  const MacGeometryT<Dim> g = grid.geometry();
  constexpr int p_dof = 0, type_dof = Dim == 2 ? static_cast<int>(kCell) : static_cast<int>(k3Cell);
  constexpr int u_dof = MacDofs<Dim>::u;
  long lo[3] = {0, 0, 0}, n[3] = {1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    out.lower[d] = d < Dim ? g.lower[d] + 0.5 * g.dx : 0.0;  // cell centres
    out.nodes[d] = d < Dim ? g.cells[d] : 1;
    if (d < Dim) {
      lo[d] = g.owned.lo[d];
      long hi = std::min<long>(g.owned.lo[d] + g.owned.n[d], g.cells[d]);
      if (shared_faces && hi < g.cells[d]) ++hi;  // the neighbour's first row, from the ghosts
      n[d] = std::max<long>(0, hi - lo[d]);
    }
    out.owned_lo[d] = lo[d];
    out.owned_n[d] = n[d];
  }
  out.dx = g.dx;
  auto dev = grid.field().acquire_local(false);
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dev);
  grid.field().release_local(dev);
  GridSnapshot::Field p{"pressure", 1, {}}, type{"cell_type", 1, {}}, vel{"velocity", 3, {}};
  const double inv_dt = last_dt > 0 ? 1.0 / last_dt : 0.0;
  for (long k = lo[2]; k < lo[2] + n[2]; ++k)
    for (long j = lo[1]; j < lo[1] + n[1]; ++j)
      for (long i = lo[0]; i < lo[0] + n[0]; ++i) {
        const int c[3] = {static_cast<int>(i), static_cast<int>(j), static_cast<int>(k)};
        const long l = g.local(c);
        p.values.push_back(a(l, p_dof) * inv_dt);
        type.values.push_back(a(l, type_dof));
        for (int d = 0; d < 3; ++d) {
          if (d >= Dim) {
            vel.values.push_back(0.0);
            continue;
          }
          int up[3] = {c[0], c[1], c[2]};
          ++up[d];
          vel.values.push_back(0.5 * (a(l, u_dof + d) + a(g.local(up), u_dof + d)));
        }
      }
  out.fields = {p, type, vel};
}

}  // namespace

void mac_grid_snapshot(MacGrid& grid, double last_dt, GridSnapshot& out, bool shared_faces) {
  snapshot<2>(grid, last_dt, out, shared_faces);
}
void mac_grid_snapshot(MacGrid3& grid, double last_dt, GridSnapshot& out, bool shared_faces) {
  snapshot<3>(grid, last_dt, out, shared_faces);
}

std::vector<double> pack_grid_rows(MacGrid& grid) { return pack_rows<2>(grid); }
std::vector<double> pack_grid_rows(MacGrid3& grid) { return pack_rows<3>(grid); }
long unpack_grid_rows(MacGrid& grid, const std::vector<double>& rows) { return unpack_rows<2>(grid, rows); }
long unpack_grid_rows(MacGrid3& grid, const std::vector<double>& rows) { return unpack_rows<3>(grid, rows); }

namespace {
// (id, x, vx) rows of this rank's vertices, 1 + 2 dim columns (dim from the position field).
std::vector<double> pack_vertices(particles::ParticleSet& set, int& dim) {
  const long n = static_cast<long>(set.size());
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(0));
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(1));
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  dim = static_cast<int>(x.extent(1));
  const int cols = 1 + 2 * dim, nd = dim;
  std::vector<double> out(cols * n);
  Kokkos::parallel_for(
      "membrane_pack_vertices", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n), [&](const long i) {
        out[cols * i] = static_cast<double>(id(i));
        for (int d = 0; d < nd; ++d) {
          out[cols * i + 1 + d] = x(i, d);
          out[cols * i + 1 + nd + d] = v(i, d);
        }
      });
  return out;
}
}  // namespace

void gather_vertices_to_root(MPI_Comm comm, particles::ParticleSet& set) {
  int rank = 0, size = 1, dim = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::vector<double> mine = pack_vertices(set, dim);
  const int cols = 1 + 2 * dim;
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), offsets(size, 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<double> all;
  if (rank == 0) {
    std::partial_sum(counts.begin(), counts.end() - 1, offsets.begin() + 1);
    all.resize(static_cast<size_t>(offsets.back() + counts.back()));
  }
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, comm);
  const long n = rank == 0 ? static_cast<long>(all.size() / cols) : 0;
  // Id order is the membrane's vertex order (vertex i has id i).
  std::vector<long> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](long a, long b) { return all[cols * a] < all[cols * b]; });
  set.resize(static_cast<size_t>(n));
  auto x = Kokkos::create_mirror_view(set.field(0));
  auto v = Kokkos::create_mirror_view(set.field(1));
  auto id = Kokkos::create_mirror_view(set.id());
  auto mat = Kokkos::create_mirror_view(set.material());
  Kokkos::parallel_for(
      "membrane_unpack_vertices", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n), [&](const long i) {
        const double* r = &all[cols * order[i]];
        id(i) = static_cast<int64_t>(r[0]);
        for (int d = 0; d < dim; ++d) {
          x(i, d) = r[1 + d];
          v(i, d) = r[1 + dim + d];
        }
        mat(i) = 0;
      });
  Kokkos::deep_copy(set.field(0), x);
  Kokkos::deep_copy(set.field(1), v);
  Kokkos::deep_copy(set.id(), id);
  Kokkos::deep_copy(set.material(), mat);
}

MembraneVertexRows broadcast_vertices(MPI_Comm comm, particles::ParticleSet& set) {
  int rank = 0, dim = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<double> rows = pack_vertices(set, dim);  // every rank knows dim from its (maybe empty) set
  const int cols = 1 + 2 * dim;
  long n = rank == 0 ? static_cast<long>(rows.size() / cols) : 0;
  MPI_Bcast(&n, 1, MPI_LONG, 0, comm);
  rows.resize(cols * n);
  MPI_Bcast(rows.data(), static_cast<int>(cols * n), MPI_DOUBLE, 0, comm);
  MembraneVertexRows out;
  out.dim = dim;
  out.x.assign(dim * n, 0.0);
  out.v.assign(dim * n, 0.0);
  for (long i = 0; i < n; ++i) {
    const long k = static_cast<long>(rows[cols * i]);
    if (k < 0 || k >= n) return MembraneVertexRows{dim, {}, {}, true};
    for (int d = 0; d < dim; ++d) {
      out.x[dim * k + d] = rows[cols * i + 1 + d];
      out.v[dim * k + d] = rows[cols * i + 1 + dim + d];
    }
  }
  return out;
}

Polyline broadcast_membrane(MPI_Comm comm, particles::ParticleSet& set, bool closed) {
  const MembraneVertexRows rows = broadcast_vertices(comm, set);
  if (rows.bad_id) throw InputError("--restart", "particles/id", "membrane vertex id out of range");
  Polyline m = make_polyline(rows.x, closed);
  auto hv = Kokkos::create_mirror_view(m.v);
  for (long i = 0; i < m.vertices(); ++i)
    for (int d = 0; d < 2; ++d) hv(i, d) = rows.v[2 * i + d];
  Kokkos::deep_copy(m.v, hv);
  return m;
}

}  // namespace meniscus::membrane
