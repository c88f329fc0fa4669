#include "methods/membrane/grid_state.hpp"

#include <algorithm>
#include <numeric>

namespace meniscus::membrane {

std::vector<double> pack_grid_rows(MacGrid& grid) {
  const MacGeometry g = grid.geometry();
  const long n = g.owned.size();
  Kokkos::View<double**, Kokkos::LayoutRight, grid::MemSpace> rows("membrane_grid_rows", n, kGridStateColumns);
  auto owned = grid.field().acquire_owned();
  Kokkos::parallel_for(
      "membrane_pack_grid_rows", n, KOKKOS_LAMBDA(const long q) {
        int ij[2];
        g.owned.node(q, ij);
        rows(q, 0) = ij[0];
        rows(q, 1) = ij[1];
        for (int d = 0; d < kDofs; ++d) rows(q, 2 + d) = owned(q, d);
      });
  grid.field().release_owned(owned);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
  return std::vector<double>(h.data(), h.data() + h.size());
}

long unpack_grid_rows(MacGrid& grid, const std::vector<double>& rows) {
  const MacGeometry g = grid.geometry();
  const long count = static_cast<long>(rows.size()) / kGridStateColumns;
  Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> table(
      rows.data(), count, kGridStateColumns);
  auto dev = Kokkos::create_mirror_view_and_copy(grid::MemSpace(), table);
  auto owned = grid.field().acquire_owned();
  long used = 0;
  Kokkos::parallel_reduce(
      "membrane_unpack_grid_rows", count,
      KOKKOS_LAMBDA(const long r, long& acc) {
        const int i = static_cast<int>(dev(r, 0)), j = static_cast<int>(dev(r, 1));
        const int di = i - g.owned.lo[0], dj = j - g.owned.lo[1];
        if (di < 0 || dj < 0 || di >= g.owned.n[0] || dj >= g.owned.n[1]) return;
        const long q = di + static_cast<long>(dj) * g.owned.n[0];
        for (int d = 0; d < kDofs; ++d) owned(q, d) = dev(r, 2 + d);
        ++acc;
      },
      used);
  grid.field().release_owned(owned);
  grid.field().global_to_local();
  return used;
}

namespace {
// (id, x, y, vx, vy) rows of this rank's vertices.
std::vector<double> pack_vertices(particles::ParticleSet& set) {
  const long n = static_cast<long>(set.size());
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(0));
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(1));
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  std::vector<double> out(5 * n);
  Kokkos::parallel_for(
      "membrane_pack_vertices", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n), [&](const long i) {
        out[5 * i] = static_cast<double>(id(i));
        out[5 * i + 1] = x(i, 0);
        out[5 * i + 2] = x(i, 1);
        out[5 * i + 3] = v(i, 0);
        out[5 * i + 4] = v(i, 1);
      });
  return out;
}
}  // namespace

void gather_vertices_to_root(MPI_Comm comm, particles::ParticleSet& set) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::vector<double> mine = pack_vertices(set);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), offsets(size, 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<double> all;
  if (rank == 0) {
    std::partial_sum(counts.begin(), counts.end() - 1, offsets.begin() + 1);
    all.resize(static_cast<size_t>(offsets.back() + counts.back()));
  }
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, comm);
  const long n = rank == 0 ? static_cast<long>(all.size() / 5) : 0;
  // Id order is chain order (vertex i of the membrane has id i).
  std::vector<long> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](long a, long b) { return all[5 * a] < all[5 * b]; });
  set.resize(static_cast<size_t>(n));
  auto x = Kokkos::create_mirror_view(set.field(0));
  auto v = Kokkos::create_mirror_view(set.field(1));
  auto id = Kokkos::create_mirror_view(set.id());
  auto mat = Kokkos::create_mirror_view(set.material());
  Kokkos::parallel_for(
      "membrane_unpack_vertices", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n), [&](const long i) {
        const double* r = &all[5 * order[i]];
        id(i) = static_cast<int64_t>(r[0]);
        x(i, 0) = r[1];
        x(i, 1) = r[2];
        v(i, 0) = r[3];
        v(i, 1) = r[4];
        mat(i) = 0;
      });
  Kokkos::deep_copy(set.field(0), x);
  Kokkos::deep_copy(set.field(1), v);
  Kokkos::deep_copy(set.id(), id);
  Kokkos::deep_copy(set.material(), mat);
}

Polyline broadcast_membrane(MPI_Comm comm, particles::ParticleSet& set, bool closed) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<double> rows = rank == 0 ? pack_vertices(set) : std::vector<double>();
  long n = static_cast<long>(rows.size() / 5);
  MPI_Bcast(&n, 1, MPI_LONG, 0, comm);
  rows.resize(5 * n);
  MPI_Bcast(rows.data(), static_cast<int>(5 * n), MPI_DOUBLE, 0, comm);
  std::vector<double> xy(2 * n);
  Kokkos::parallel_for(
      "membrane_restart_positions", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n), [&](const long i) {
        xy[2 * i] = rows[5 * i + 1];
        xy[2 * i + 1] = rows[5 * i + 2];
      });
  Polyline m = make_polyline(xy, closed);
  auto hv = Kokkos::create_mirror_view(m.v);
  Kokkos::parallel_for(
      "membrane_restart_velocities", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n), [&](const long i) {
        hv(i, 0) = rows[5 * i + 3];
        hv(i, 1) = rows[5 * i + 4];
      });
  Kokkos::deep_copy(m.v, hv);
  return m;
}

}  // namespace meniscus::membrane
