#include "grid/grid_field.hpp"

#include <mpi.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "core/error.hpp"
#include "core/mpi_exchange.hpp"
#include "solvers/petsc_check.hpp"

namespace meniscus::grid {

namespace {
// A Vec made (and zeroed) on first use.
Vec made(DM dm, Vec& v, PetscErrorCode (*create)(DM, Vec*), const char* what) {
  if (!v) {
    solvers::petsc_check(create(dm, &v), what);
    solvers::petsc_check(VecZeroEntries(v), "VecZeroEntries");
  }
  return v;
}
}  // namespace

template <int Dim>
GridField<Dim>::GridField(const Decomposition<Dim>& decomp, int active_dof) : decomp_(decomp), active_dof_(active_dof) {}

template <int Dim>
Vec GridField<Dim>::local() const {
  return made(decomp_.dm(), local_, DMCreateLocalVector, "DMCreateLocalVector");
}

template <int Dim>
Vec GridField<Dim>::global() const {
  return made(decomp_.dm(), global_, DMCreateGlobalVector, "DMCreateGlobalVector");
}

template <int Dim>
GridField<Dim>::~GridField() {
  if (global_) solvers::petsc_check_noexcept(VecDestroy(&global_), "VecDestroy");
  if (local_) solvers::petsc_check_noexcept(VecDestroy(&local_), "VecDestroy");
}

template <int Dim>
NodeBox<Dim> GridField<Dim>::owned_box() const {
  NodeBox<Dim> b;
  for (int d = 0; d < Dim; ++d) {
    b.lo[d] = decomp_.owned_lo()[d];
    b.n[d] = decomp_.owned_hi()[d] - decomp_.owned_lo()[d];
  }
  return b;
}

template <int Dim>
NodeBox<Dim> GridField<Dim>::ghost_box() const {
  NodeBox<Dim> b;
  for (int d = 0; d < Dim; ++d) {
    b.lo[d] = decomp_.ghost_lo()[d];
    b.n[d] = decomp_.ghost_hi()[d] - decomp_.ghost_lo()[d];
  }
  return b;
}

template <int Dim>
NodeArray GridField<Dim>::acquire_local(bool zero) {
  if (zero) solvers::petsc_check(VecZeroEntries(local()), "VecZeroEntries");
  solvers::petsc_check(VecGetArray(local(), &local_ptr_), "VecGetArray");
  local_host_ = HostNodeArray(local_ptr_, ghost_box().size(), dof());
  return Kokkos::create_mirror_view_and_copy(MemSpace(), local_host_);
}

template <int Dim>
void GridField<Dim>::release_local(NodeArray& a) {
  Kokkos::deep_copy(local_host_, a);  // a no-op when the views alias (host backends)
  a = NodeArray();
  local_host_ = HostNodeArray();
  solvers::petsc_check(VecRestoreArray(local_, &local_ptr_), "VecRestoreArray");
}

template <int Dim>
NodeArray GridField<Dim>::acquire_owned() {
  solvers::petsc_check(VecGetArray(global(), &owned_ptr_), "VecGetArray");
  owned_host_ = HostNodeArray(owned_ptr_, owned_box().size(), dof());
  return Kokkos::create_mirror_view_and_copy(MemSpace(), owned_host_);
}

template <int Dim>
void GridField<Dim>::release_owned(NodeArray& a) {
  Kokkos::deep_copy(owned_host_, a);
  a = NodeArray();
  owned_host_ = HostNodeArray();
  solvers::petsc_check(VecRestoreArray(global_, &owned_ptr_), "VecRestoreArray");
}

template <int Dim>
void GridField<Dim>::local_to_global_add() {
  solvers::petsc_check(VecZeroEntries(global()), "VecZeroEntries");
  solvers::petsc_check(DMLocalToGlobalBegin(decomp_.dm(), local(), ADD_VALUES, global_), "DMLocalToGlobalBegin");
  solvers::petsc_check(DMLocalToGlobalEnd(decomp_.dm(), local(), ADD_VALUES, global_), "DMLocalToGlobalEnd");
}

template <int Dim>
void GridField<Dim>::global_to_local() {
  solvers::petsc_check(DMGlobalToLocalBegin(decomp_.dm(), global(), INSERT_VALUES, local()), "DMGlobalToLocalBegin");
  solvers::petsc_check(DMGlobalToLocalEnd(decomp_.dm(), global_, INSERT_VALUES, local()), "DMGlobalToLocalEnd");
}

template <int Dim>
void GridField<Dim>::sum_ghosts_in_place() {
  const NodeBox<Dim> gbox = ghost_box();
  if (!overlaps_known_) {
    // The ranks whose ghosted boxes meet ours: the same box seen from both sides, so the messages
    // pair up. Not only the face/edge/corner neighbours: a block thinner than the ghost width
    // reaches further.
    int lo[Dim], hi[Dim];
    decomp_.ghost_box_of(decomp_.rank(), lo, hi);
    for (int d = 0; d < Dim; ++d)
      if (lo[d] != gbox.lo[d] || hi[d] != gbox.lo[d] + gbox.n[d])
        throw std::logic_error("GridField: the ghosted box disagrees with the DMDA's");
    for (int r = 0; r < decomp_.size(); ++r) {
      if (r == decomp_.rank()) continue;
      Overlap o{};
      o.rank = r;
      decomp_.ghost_box_of(r, o.lo, o.hi);
      bool empty = false;
      for (int d = 0; d < Dim; ++d) {
        o.lo[d] = std::max(o.lo[d], lo[d]);
        o.hi[d] = std::min(o.hi[d], hi[d]);
        empty = empty || o.lo[d] >= o.hi[d];
      }
      if (!empty) overlaps_.push_back(o);
    }
    overlaps_known_ = true;
  }
  PetscScalar* a = nullptr;
  solvers::petsc_check(VecGetArray(local(), &a), "VecGetArray");
  sum_overlaps(a, gbox, overlaps_, dof());
  solvers::petsc_check(VecRestoreArray(local_, &a), "VecRestoreArray");
}

template <int Dim>
NodeArray GridField<Dim>::acquire_active(const NodeBox<Dim>& box) {
  const auto g = ghost_box();
  for (int d = 0; d < Dim; ++d)
    if (box.lo[d] < g.lo[d] || box.n[d] < 0 || box.lo[d] + box.n[d] > g.lo[d] + g.n[d])
      throw std::logic_error("GridField::acquire_active: the box leaves the ghosted box");
  const size_t rows = static_cast<size_t>(box.size()), capacity = active_store_.extent(0);
  active_ = NodeArray();
  if (rows > capacity || 2 * rows < capacity) {
    active_store_ = NodeArray();  // the old store first: the two never coexist
    active_store_ = NodeArray(Kokkos::view_alloc(Kokkos::WithoutInitializing, "active_nodes"), rows + rows / 8, active_dof());
  }
  active_ = Kokkos::subview(active_store_, std::make_pair(size_t(0), rows), Kokkos::ALL());
  active_box_ = box;
  Kokkos::deep_copy(active_, 0.0);
  return active_;
}

template <int Dim>
void GridField<Dim>::sum_active_in_place() {
  const int size = decomp_.size();
  std::vector<Overlap> overlaps;
  if (size > 1) {
    std::vector<int> mine(2 * Dim), all(2 * Dim * size);
    for (int d = 0; d < Dim; ++d) {
      mine[d] = active_box_.lo[d];
      mine[Dim + d] = active_box_.lo[d] + active_box_.n[d];
    }
    MPI_Allgather(mine.data(), 2 * Dim, MPI_INT, all.data(), 2 * Dim, MPI_INT, decomp_.comm());
    for (int r = 0; r < size; ++r) {
      if (r == decomp_.rank()) continue;
      Overlap o{};
      o.rank = r;
      bool empty = false;
      for (int d = 0; d < Dim; ++d) {
        o.lo[d] = std::max(all[2 * Dim * r + d], mine[d]);
        o.hi[d] = std::min(all[2 * Dim * r + Dim + d], mine[Dim + d]);
        empty = empty || o.lo[d] >= o.hi[d];
      }
      if (!empty) overlaps.push_back(o);
    }
  }
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), active_);
  sum_overlaps(host.data(), active_box_, overlaps, active_dof());
  Kokkos::deep_copy(active_, host);  // a no-op when the views alias (host backends)
}

template <int Dim>
void GridField<Dim>::sum_overlaps(double* a, const NodeBox<Dim>& gbox, const std::vector<Overlap>& overlaps,
                                  int dof) const {
  // As the sum into a zeroed global Vec does: a -0 contribution becomes +0.
  const long total = gbox.size() * dof;
  for (long i = 0; i < total; ++i) a[i] = 0.0 + a[i];
  const size_t n = overlaps.size();
  auto box_of = [](const Overlap& o) {
    NodeBox<Dim> b;
    for (int d = 0; d < Dim; ++d) {
      b.lo[d] = o.lo[d];
      b.n[d] = o.hi[d] - o.lo[d];
    }
    return b;
  };
  if (n > 0) {
    std::vector<std::vector<double>> send(n), recv(n);
    std::vector<int> ranks(n);
    for (size_t k = 0; k < n; ++k) {
      const NodeBox<Dim> ob = box_of(overlaps[k]);
      const long m = ob.size();
      ranks[k] = overlaps[k].rank;
      send[k].resize(m * dof);
      recv[k].resize(m * dof);
      for (long i = 0; i < m; ++i) {
        int node[Dim];
        ob.node(i, node);
        const long g = gbox.index(node) * dof;
        for (int c = 0; c < dof; ++c) send[k][i * dof + c] = a[g + c];
      }
    }
    exchange_buffers(decomp_.comm(), ranks, send, ranks, recv, 7613);
    send.clear();
    // Each node of the union once (in the first overlap that holds it): its contributions from +0 in
    // ascending rank order, ours at our place in that order.
    const int me = decomp_.rank();
    for (size_t k = 0; k < n; ++k) {
      const NodeBox<Dim> ob = box_of(overlaps[k]);
      for (long i = 0; i < ob.size(); ++i) {
        int node[Dim];
        ob.node(i, node);
        bool earlier = false;
        for (size_t j = 0; j < k && !earlier; ++j) earlier = overlaps[j].contains(node);
        if (earlier) continue;
        const long g = gbox.index(node) * dof;
        for (int c = 0; c < dof; ++c) {
          double sum = 0.0;
          bool mine = false;
          for (size_t j = 0; j < n; ++j) {
            if (!mine && overlaps[j].rank > me) {
              sum += a[g + c];
              mine = true;
            }
            if (j == k) {
              sum += recv[j][i * dof + c];
            } else if (overlaps[j].contains(node)) {
              sum += recv[j][box_of(overlaps[j]).index(node) * dof + c];
            }
          }
          if (!mine) sum += a[g + c];
          a[g + c] = sum;
        }
      }
    }
  }
}

template class GridField<2>;
template class GridField<3>;

}  // namespace meniscus::grid
