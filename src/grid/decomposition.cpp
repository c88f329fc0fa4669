#include "grid/decomposition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "core/error.hpp"
#include "core/log.hpp"
#include "grid/balance.hpp"
#include "solvers/petsc_check.hpp"

namespace meniscus::grid {

template <int Dim>
std::unique_ptr<Decomposition<Dim>> make_decomposition(MPI_Comm comm, typename Decomposition<Dim>::Spec spec,
                                                       const std::array<std::vector<int>, Dim>& ranges) {
  spec.ranges = ranges;
  return std::make_unique<Decomposition<Dim>>(comm, spec);
}

template <int Dim>
std::array<std::vector<int>, Dim> ownership_ranges(const Decomposition<Dim>& decomp) {
  // From the regions of the blocks along each axis (the others at coordinate 0): a block's region
  // starts half a cell before its first node.
  std::array<std::vector<int>, Dim> out;
  for (int d = 0; d < Dim; ++d) {
    std::vector<int> starts;
    for (int q = 0; q < decomp.procs()[d]; ++q) {
      std::array<int, Dim> c{};
      c[d] = q;
      double lo[Dim], hi[Dim];
      decomp.region(decomp.rank_of(c), lo, hi);
      starts.push_back(q == 0 ? 0 : static_cast<int>(std::lround((lo[d] - decomp.lower()[d]) / decomp.dx() + 0.5)));
    }
    starts.push_back(decomp.nodes()[d]);
    for (int q = 0; q < decomp.procs()[d]; ++q) out[d].push_back(starts[q + 1] - starts[q]);
  }
  return out;
}

template <int Dim>
std::string Decomposition<Dim>::choose_procs(const std::array<int, Dim>& nodes, int size, int min_nodes,
                                             std::array<int, Dim>& procs) {
  // Enumerate every factorisation of `size` into Dim factors (respecting fixed entries) and keep
  // the one with the smallest cut surface whose blocks all hold at least `min_nodes` nodes.
  std::array<int, Dim> best{};
  double best_cost = std::numeric_limits<double>::infinity();
  std::array<int, Dim> p{};
  const std::array<int, Dim> fixed = procs;
  auto visit = [&](auto&& self, int d, int remaining) -> void {
    if (d == Dim - 1) {
      p[d] = remaining;
      if (fixed[d] > 0 && fixed[d] != remaining) return;
      for (int e = 0; e < Dim; ++e)
        if (nodes[e] / p[e] < min_nodes) return;
      double cost = 0;
      for (int e = 0; e < Dim; ++e) {
        double face = 1;
        for (int f = 0; f < Dim; ++f)
          if (f != e) face *= nodes[f];
        cost += (p[e] - 1) * face;
      }
      if (cost < best_cost) {
        best_cost = cost;
        best = p;
      }
      return;
    }
    for (int f = 1; f <= remaining; ++f) {
      if (remaining % f) continue;
      if (fixed[d] > 0 && fixed[d] != f) continue;
      p[d] = f;
      self(self, d + 1, remaining / f);
    }
  };
  visit(visit, 0, size);
  if (!std::isfinite(best_cost)) {
    std::string shape;
    for (int d = 0; d < Dim; ++d) shape += (d ? " x " : "") + std::to_string(nodes[d] - 1);
    return log::format("%d ranks cannot decompose a grid of %s cells: every block needs at least %d nodes "
                       "per axis; use fewer ranks, a smaller domain.cell_size, or set domain.ranks",
                       size, shape.c_str(), min_nodes);
  }
  procs = best;
  return "";
}

template <int Dim>
Decomposition<Dim>::Decomposition(MPI_Comm comm, const Spec& spec) : comm_(comm), spec_(spec) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  dx_ = spec.dx;
  for (int d = 0; d < Dim; ++d) {
    const double extent = spec.upper[d] - spec.lower[d];
    if (!(extent > 0)) throw InputError(spec.deck_file, "domain.upper", "upper must exceed lower on every axis");
    const int cells = static_cast<int>(std::lround(extent / dx_));
    if (cells < 4) throw InputError(spec.deck_file, "domain.cell_size", "fewer than 4 cells on an axis");
    lower_[d] = spec.lower[d];
    upper_[d] = spec.lower[d] + cells * dx_;
    nodes_[d] = cells + 1;
  }
  // Explicit ownership ranges fix the process grid.
  const bool given = !spec.ranges[0].empty();
  procs_ = spec.procs;
  if (given)
    for (int d = 0; d < Dim; ++d) procs_[d] = static_cast<int>(spec.ranges[d].size());
  long prod = 1;
  bool all_fixed = true;
  for (int d = 0; d < Dim; ++d) {
    if (procs_[d] > 0) prod *= procs_[d];
    else all_fixed = false;
  }
  if (all_fixed && prod != size_)
    throw InputError(spec.deck_file, "domain.ranks",
                     log::format("the process grid has %ld blocks but the job has %d ranks", prod, size_));
  // A block must hold at least one stencil width of nodes (DMDA's own requirement) plus one.
  const std::string why = choose_procs(nodes_, size_, spec.stencil_width + 1, procs_);
  if (!why.empty()) throw InputError(spec.deck_file, "domain.cell_size", why);

  // The spec's ranges (a particle-balanced layout), or the even split.
  std::array<std::vector<PetscInt>, Dim> ranges;
  for (int d = 0; d < Dim; ++d) {
    if (given) {
      // They must tile the axis with blocks DMDA accepts; they are computed by the code, so a
      // violation is a bug, not bad input.
      long sum = 0;
      bool ok = static_cast<int>(spec.ranges[d].size()) == procs_[d];
      for (int r : spec.ranges[d]) {
        ok = ok && r >= spec.stencil_width + 1;
        sum += r;
      }
      if (!ok || sum != nodes_[d])
        throw RuntimeError(log::format("decomposition: ownership ranges along axis %d do not tile its %d nodes "
                                       "in %d blocks of at least %d nodes",
                                       d, nodes_[d], procs_[d], spec.stencil_width + 1));
    }
    starts_[d].assign(procs_[d] + 1, 0);
    ranges[d].resize(procs_[d]);
    for (int q = 0; q < procs_[d]; ++q) {
      ranges[d][q] = given ? spec.ranges[d][q] : nodes_[d] / procs_[d] + (q < nodes_[d] % procs_[d] ? 1 : 0);
      starts_[d][q + 1] = starts_[d][q] + ranges[d][q];
    }
  }
  PetscErrorCode ierr;
  if constexpr (Dim == 2) {
    ierr = DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, nodes_[0], nodes_[1],
                        procs_[0], procs_[1], spec.dof, spec.stencil_width, ranges[0].data(), ranges[1].data(), &da_);
  } else {
    ierr = DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, nodes_[0],
                        nodes_[1], nodes_[2], procs_[0], procs_[1], procs_[2], spec.dof, spec.stencil_width,
                        ranges[0].data(), ranges[1].data(), ranges[2].data(), &da_);
  }
  solvers::petsc_check(ierr, "DMDACreate");
  solvers::petsc_check(DMSetUp(da_), "DMSetUp");

  PetscInt xs[3] = {0, 0, 0}, xm[3] = {1, 1, 1}, gs[3] = {0, 0, 0}, gm[3] = {1, 1, 1};
  solvers::petsc_check(DMDAGetCorners(da_, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]), "DMDAGetCorners");
  solvers::petsc_check(DMDAGetGhostCorners(da_, &gs[0], &gs[1], &gs[2], &gm[0], &gm[1], &gm[2]), "DMDAGetGhostCorners");
  for (int d = 0; d < Dim; ++d) {
    owned_lo_[d] = xs[d];
    owned_hi_[d] = xs[d] + xm[d];
    ghost_lo_[d] = gs[d];
    ghost_hi_[d] = gs[d] + gm[d];
  }
  // Our rank numbering must be DMDA's.
  const auto c = coords_of(rank_);
  for (int d = 0; d < Dim; ++d)
    if (starts_[d][c[d]] != owned_lo_[d]) throw RuntimeError("decomposition disagrees with DMDA ownership");

  // Neighbours and region images: every offset in {-1, 0, 1}^Dim of the process coordinates; on a
  // periodic axis an offset past the last block wraps to the first (and the image is shifted by the
  // box length), on other axes it has no neighbour.
  std::set<int> nb;
  for (int n = 0; n < static_cast<int>(std::pow(3, Dim)); ++n) {
    std::array<int, Dim> q = c;
    Image img{};
    int code = n;
    bool ok = true;
    for (int d = 0; d < Dim; ++d) {
      q[d] += code % 3 - 1;
      code /= 3;
      const double length = upper_[d] - lower_[d];
      if (q[d] < 0 || q[d] >= procs_[d]) {
        if (!spec.periodic[d]) ok = false;
        img.shift[d] = q[d] < 0 ? length : -length;
        q[d] = q[d] < 0 ? q[d] + procs_[d] : q[d] - procs_[d];
      }
    }
    if (!ok) continue;
    img.rank = rank_of(q);
    bool zero = true;
    for (int d = 0; d < Dim; ++d) zero = zero && img.shift[d] == 0;
    if (img.rank == rank_ && zero) continue;
    // Distinct offsets give distinct (rank, shift) pairs: the unwrapped coordinate is q - shift/L procs.
    images_.push_back(img);
    if (img.rank != rank_) nb.insert(img.rank);
  }
  neighbors_.assign(nb.begin(), nb.end());

  for (int d = 0; d < Dim; ++d) {
    owner_map_.starts[d] = Kokkos::View<int*>("owner_starts", starts_[d].size());
    auto h = Kokkos::create_mirror_view(owner_map_.starts[d]);
    for (size_t q = 0; q < starts_[d].size(); ++q) h(q) = starts_[d][q];
    Kokkos::deep_copy(owner_map_.starts[d], h);
    owner_map_.procs[d] = procs_[d];
    owner_map_.nodes[d] = nodes_[d];
    owner_map_.lower[d] = lower_[d];
  }
  owner_map_.inv_dx = 1.0 / dx_;
  for (int d = 0; d < Dim; ++d) {
    owner_map_.periodic[d] = spec.periodic[d];
    owner_map_.length[d] = upper_[d] - lower_[d];
  }
}

template <int Dim>
Decomposition<Dim>::~Decomposition() {
  if (da_) solvers::petsc_check_noexcept(DMDestroy(&da_), "DMDestroy");
}

template <int Dim>
long Decomposition<Dim>::owned_node_count() const {
  long n = 1;
  for (int d = 0; d < Dim; ++d) n *= owned_hi_[d] - owned_lo_[d];
  return n;
}

template <int Dim>
void Decomposition<Dim>::ghost_box_of(int rank, int* lo, int* hi) const {
  const auto c = coords_of(rank);
  for (int d = 0; d < Dim; ++d) {
    if (spec_.periodic[d]) throw std::logic_error("ghost_box_of: periodic axes are not supported");
    lo[d] = std::max(0, starts_[d][c[d]] - spec_.stencil_width);
    hi[d] = std::min(nodes_[d], starts_[d][c[d] + 1] + spec_.stencil_width);
  }
}

template <int Dim>
long Decomposition<Dim>::ghost_node_count() const {
  long n = 1;
  for (int d = 0; d < Dim; ++d) n *= ghost_hi_[d] - ghost_lo_[d];
  return n;
}

template <int Dim>
std::array<int, Dim> Decomposition<Dim>::coords_of(int rank) const {
  std::array<int, Dim> c{};
  for (int d = 0; d < Dim; ++d) {
    c[d] = rank % procs_[d];
    rank /= procs_[d];
  }
  return c;
}

template <int Dim>
int Decomposition<Dim>::rank_of(const std::array<int, Dim>& c) const {
  int r = 0, stride = 1;
  for (int d = 0; d < Dim; ++d) {
    r += c[d] * stride;
    stride *= procs_[d];
  }
  return r;
}

template <int Dim>
void Decomposition<Dim>::region(int rank, double* lo, double* hi) const {
  const auto c = coords_of(rank);
  for (int d = 0; d < Dim; ++d) {
    // The outermost blocks extend to infinity so that every point has an owner; on a periodic axis
    // every point is wrapped into [lower, upper) first, so the blocks end there.
    const double inf = std::numeric_limits<double>::infinity();
    const double outer_lo = spec_.periodic[d] ? lower_[d] : -inf, outer_hi = spec_.periodic[d] ? upper_[d] : inf;
    lo[d] = c[d] == 0 ? outer_lo : lower_[d] + (starts_[d][c[d]] - 0.5) * dx_;
    hi[d] = c[d] == procs_[d] - 1 ? outer_hi : lower_[d] + (starts_[d][c[d] + 1] - 0.5) * dx_;
  }
}

template <int Dim>
int Decomposition<Dim>::owner_of(const double* x) const {
  int r = 0, stride = 1;
  for (int d = 0; d < Dim; ++d) {
    int i = static_cast<int>(std::floor((x[d] - lower_[d]) * owner_map_.inv_dx + 0.5));
    i = std::clamp(i, 0, nodes_[d] - 1);
    const int q = static_cast<int>(std::upper_bound(starts_[d].begin(), starts_[d].end() - 1, i) - starts_[d].begin()) - 1;
    r += stride * q;
    stride *= procs_[d];
  }
  return r;
}

template class Decomposition<2>;
template class Decomposition<3>;
template std::unique_ptr<Decomposition<2>> make_decomposition<2>(MPI_Comm, Decomposition<2>::Spec,
                                                                 const std::array<std::vector<int>, 2>&);
template std::unique_ptr<Decomposition<3>> make_decomposition<3>(MPI_Comm, Decomposition<3>::Spec,
                                                                 const std::array<std::vector<int>, 3>&);
template std::array<std::vector<int>, 2> ownership_ranges<2>(const Decomposition<2>&);
template std::array<std::vector<int>, 3> ownership_ranges<3>(const Decomposition<3>&);

}  // namespace meniscus::grid
