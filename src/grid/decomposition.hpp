#pragma once
// The one domain decomposition every method shares: a PETSc DMDA over the nodes of a uniform
// Cartesian grid (node i at lower + i*dx). Nodes are owned by ranks in blocks; a particle belongs to
// the rank that owns its nearest node, so its quadratic stencil (nearest +-1) lies in the owned box
// plus one ghost layer. The process grid is chosen here (not by PETSc) so that a rank count that
// cannot split the grid is reported as an input error instead of a PETSc abort.
#include <petscdmda.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <string>
#include <vector>

#include "core/kmath.hpp"

namespace meniscus::grid {

// Device-copyable map from a point to its owning rank.
template <int Dim>
struct OwnerMap {
  Kokkos::View<int*> starts[Dim];  // ownership start node per process coordinate, plus the end
  int procs[Dim];
  int nodes[Dim];
  double lower[Dim];
  double inv_dx;
  bool periodic[Dim];
  double length[Dim];  // box length upper - lower (the period on periodic axes)

  // Maps a point on a periodic axis back into [lower, lower + length); other axes are untouched.
  KOKKOS_INLINE_FUNCTION void wrap(double* x) const {
    for (int d = 0; d < Dim; ++d) {
      if (!periodic[d]) continue;
      double u = x[d] - lower[d];
      u -= length[d] * kmath::floor(u / length[d]);
      if (!(u < length[d])) u = 0;  // round-off of a point just below lower
      x[d] = lower[d] + u;
    }
  }

  KOKKOS_INLINE_FUNCTION int coordinate(int d, int node) const {
    int lo = 0, hi = procs[d] - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (starts[d](mid) <= node) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  KOKKOS_INLINE_FUNCTION int owner(const double* x) const {
    int rank = 0, stride = 1;
    for (int d = 0; d < Dim; ++d) {
      int i = static_cast<int>(kmath::floor((x[d] - lower[d]) * inv_dx + 0.5));
      i = i < 0 ? 0 : (i >= nodes[d] ? nodes[d] - 1 : i);
      rank += stride * coordinate(d, i);
      stride *= procs[d];
    }
    return rank;
  }
};

template <int Dim>
class Decomposition {
 public:
  struct Spec {
    std::array<double, Dim> lower{};
    std::array<double, Dim> upper{};
    double dx = 0;
    std::array<int, Dim> procs{};  // 0 entries: chosen to minimise the cut surface
    int stencil_width = 2;
    int dof = Dim + 1;
    std::array<bool, Dim> periodic{};  // particles leaving through one face re-enter at the other
    // Ownership ranges: nodes per block along each axis (a particle-balanced layout, grid/balance.hpp);
    // their counts are the process grid and override `procs`. Empty: the even split.
    std::array<std::vector<int>, Dim> ranges{};
    std::string deck_file;  // for error messages
  };

  // A copy of a rank's region that this rank's particles can see: ghosts for `rank` are this rank's
  // particles within the halo width of region(rank) - shift, sent with their position + shift. shift is
  // zero for an ordinary neighbour and +-(box length) along the periodic axes crossed; `rank` may be
  // this rank itself (its own periodic images when it spans a periodic axis).
  struct Image {
    int rank;
    std::array<double, Dim> shift;
  };

  Decomposition(MPI_Comm comm, const Spec& spec);
  ~Decomposition();
  Decomposition(const Decomposition&) = delete;
  Decomposition& operator=(const Decomposition&) = delete;

  DM dm() const { return da_; }
  // What this decomposition was built from (ranges empty for the even split).
  const Spec& spec() const { return spec_; }
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  double dx() const { return dx_; }
  int dof() const { return spec_.dof; }
  const std::array<double, Dim>& lower() const { return lower_; }
  const std::array<double, Dim>& upper() const { return upper_; }  // lower + cells*dx
  const std::array<int, Dim>& nodes() const { return nodes_; }
  const std::array<int, Dim>& procs() const { return procs_; }
  const std::array<int, Dim>& owned_lo() const { return owned_lo_; }   // first owned node
  const std::array<int, Dim>& owned_hi() const { return owned_hi_; }   // one past the last
  const std::array<int, Dim>& ghost_lo() const { return ghost_lo_; }
  const std::array<int, Dim>& ghost_hi() const { return ghost_hi_; }
  long owned_node_count() const;
  long ghost_node_count() const;
  // The ghosted node box [lo, hi) of any rank (the DMDA's box stencil, clipped at the box faces;
  // non-periodic axes only, as in MPM).
  void ghost_box_of(int rank, int* lo, int* hi) const;

  // Process coordinates of a rank, and the rank of process coordinates (x fastest, as DMDA).
  std::array<int, Dim> coords_of(int rank) const;
  int rank_of(const std::array<int, Dim>& c) const;
  // The box of points whose nearest node `rank` owns (half-open). Outer faces of non-periodic axes
  // extend to infinity; on a periodic axis the blocks tile [lower, upper) exactly.
  void region(int rank, double* lo, double* hi) const;
  // Distinct neighbouring ranks (face, edge and corner, across periodic faces too), without this rank.
  const std::vector<int>& neighbors() const { return neighbors_; }
  // Every neighbouring region image (see Image), in a fixed order; without (this rank, zero shift).
  const std::vector<Image>& images() const { return images_; }
  const std::array<bool, Dim>& periodic() const { return spec_.periodic; }
  bool any_periodic() const {
    for (int d = 0; d < Dim; ++d)
      if (spec_.periodic[d]) return true;
    return false;
  }
  OwnerMap<Dim> owner_map() const { return owner_map_; }
  int owner_of(const double* x) const;

  // Chooses a process grid for `size` ranks, or returns an empty string and fills `procs`;
  // otherwise the reason it cannot.
  static std::string choose_procs(const std::array<int, Dim>& nodes, int size, int min_nodes,
                                  std::array<int, Dim>& procs);

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  Spec spec_;
  DM da_ = nullptr;
  double dx_ = 0;
  std::array<double, Dim> lower_{}, upper_{};
  std::array<int, Dim> nodes_{}, procs_{}, owned_lo_{}, owned_hi_{}, ghost_lo_{}, ghost_hi_{};
  std::array<std::vector<int>, Dim> starts_;
  std::vector<int> neighbors_;
  std::vector<Image> images_;
  OwnerMap<Dim> owner_map_;
};

}  // namespace meniscus::grid
