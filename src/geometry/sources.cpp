#include "geometry/sources.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace meniscus::geometry {
// Named rather than anonymous: device compilers want kernel argument types with external linkage.
namespace detail {

// The part of the global lattice a rank scans: node counts of the whole lattice, and the index range
// [first, first + extent) per axis that can contain owned points.
template <int Dim>
struct LatticeWindow {
  double lower[Dim], owned_lower[Dim], owned_upper[Dim];
  double spacing;
  int64_t count[Dim], first[Dim], extent[Dim];

  KOKKOS_INLINE_FUNCTION int64_t size() const {
    int64_t n = 1;
    for (int d = 0; d < Dim; ++d) n *= extent[d];
    return n;
  }

  // Position and global lattice index of the k-th point of the window (axis 0 fastest); true when
  // the point is owned. Positions are computed the same way on every rank, so the half-open test
  // assigns a point on a shared face to exactly one owner.
  KOKKOS_INLINE_FUNCTION bool point(int64_t k, double x[Dim], int64_t& global) const {
    bool owned = true;
    int64_t stride = 1;
    global = 0;
    for (int d = 0; d < Dim; ++d) {
      const int64_t i = first[d] + k % extent[d];
      k /= extent[d];
      x[d] = lattice_coordinate(lower[d], i, spacing);
      owned = owned && x[d] >= owned_lower[d] && x[d] < owned_upper[d];
      global += i * stride;
      stride *= count[d];
    }
    return owned;
  }
};

// Index range covering every point of [0, count) whose position may fall in [lo, hi); one index of
// margin each side absorbs rounding, and the exact test happens per point.
void window_range(double lattice_lower, double spacing, int64_t count, double lo, double hi, int64_t& first,
                  int64_t& extent) {
  const double a = std::floor((lo - lattice_lower) / spacing - 0.5) - 1.0;
  const double b = std::ceil((hi - lattice_lower) / spacing - 0.5) + 1.0;
  const double first_d = std::max(0.0, std::min(a, static_cast<double>(count)));
  const double end_d = std::max(0.0, std::min(b, static_cast<double>(count)));
  first = static_cast<int64_t>(first_d);
  extent = std::max<int64_t>(0, static_cast<int64_t>(end_d) - first);
}

}  // namespace detail

int64_t lattice_count(double length, double spacing) {
  if (!(spacing > 0) || !std::isfinite(spacing)) throw std::invalid_argument("seeding spacing must be positive");
  if (!(length > 0) || !std::isfinite(length)) throw std::invalid_argument("seeding box is empty");
  // A length that is a whole number of spacings up to rounding must not gain a spurious layer.
  const double cells = std::ceil(length / spacing * (1.0 - 1e-12));
  if (cells > 4e18) throw std::invalid_argument("seeding lattice too large");
  return std::max<int64_t>(1, static_cast<int64_t>(cells));
}

template <int Dim>
Seeds<Dim> seed_lattice(const Shape<Dim>& shape, std::array<double, Dim> bbox_lower, std::array<double, Dim> bbox_upper,
                        double spacing, std::array<double, Dim> owned_lower, std::array<double, Dim> owned_upper) {
  if (!(spacing > 0) || !std::isfinite(spacing)) throw std::invalid_argument("seeding spacing must be positive");
  detail::LatticeWindow<Dim> win;
  win.spacing = spacing;
  for (int d = 0; d < Dim; ++d) {
    try {
      win.count[d] = lattice_count(bbox_upper[d] - bbox_lower[d], spacing);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(e.what()) + " along axis " + std::to_string(d));
    }
    win.lower[d] = bbox_lower[d];
    win.owned_lower[d] = owned_lower[d];
    win.owned_upper[d] = owned_upper[d];
    detail::window_range(bbox_lower[d], spacing, win.count[d], owned_lower[d], owned_upper[d], win.first[d], win.extent[d]);
  }

  const int64_t m = win.size();
  using Policy = Kokkos::RangePolicy<Kokkos::IndexType<int64_t>>;
  Kokkos::View<uint8_t*> keep("seed_keep", m);
  int64_t kept = 0;
  Kokkos::parallel_reduce(
      "seed_classify", Policy(0, m),
      KOKKOS_LAMBDA(const int64_t k, int64_t& sum) {
        double x[Dim];
        int64_t global;
        const bool take = win.point(k, x, global) && shape.distance(x) < 0;
        keep(k) = take ? 1 : 0;
        sum += take ? 1 : 0;
      },
      kept);

  Seeds<Dim> seeds;
  seeds.x = Kokkos::View<double**, Kokkos::LayoutRight>("seed_x", kept, Dim);
  seeds.lattice_index = Kokkos::View<int64_t*>("seed_lattice_index", kept);
  const auto out_x = seeds.x;
  const auto out_index = seeds.lattice_index;
  // Window order is global-index order, so the scan leaves the seeds sorted by lattice index.
  Kokkos::parallel_scan(
      "seed_fill", Policy(0, m), KOKKOS_LAMBDA(const int64_t k, int64_t& offset, const bool final) {
        if (!keep(k)) return;
        if (final) {
          double x[Dim];
          int64_t global;
          win.point(k, x, global);
          for (int d = 0; d < Dim; ++d) out_x(offset, d) = x[d];
          out_index(offset) = global;
        }
        offset += 1;
      });
  Kokkos::fence();
  return seeds;
}

double lattice_spacing(double dx, int particles_per_cell, int dim) {
  if (dim != 2 && dim != 3) throw std::invalid_argument("lattice_spacing: dimension must be 2 or 3");
  if (!(dx > 0) || !std::isfinite(dx)) throw std::invalid_argument("lattice_spacing: cell size must be positive");
  const char* power = dim == 2 ? "square (1, 4, 9, 16, ...)" : "cube (1, 8, 27, 64, ...)";
  if (particles_per_cell < 1)
    throw std::invalid_argument("particles per cell must be at least 1, got " + std::to_string(particles_per_cell));
  const long k = std::lround(std::pow(static_cast<double>(particles_per_cell), 1.0 / dim));
  long kd = 1;
  for (int d = 0; d < dim; ++d) kd *= k;
  if (kd != particles_per_cell)
    throw std::invalid_argument("particles per cell must be a perfect " + std::string(power) + ", got " +
                                std::to_string(particles_per_cell));
  return dx / static_cast<double>(k);
}

template <int Dim>
int64_t box_lattice_points(const std::array<double, Dim>& lower, const std::array<double, Dim>& upper, double spacing,
                           const std::array<double, Dim>& keep_lower, const std::array<double, Dim>& keep_upper,
                           std::array<std::array<int64_t, 2>, Dim>* range) {
  const Shape<Dim> shape = box<Dim>(lower, upper);
  int64_t points = 1;
  for (int d = 0; d < Dim; ++d) {
    const int64_t n = lattice_count(upper[d] - lower[d], spacing);
    double x[Dim] = {};
    auto inside = [&](int64_t i) {
      x[d] = lattice_coordinate(lower[d], i, spacing);
      return shape.box_excess(x, d) < 0 && !(x[d] < keep_lower[d]) && !(x[d] > keep_upper[d]);
    };
    // The slab's points are contiguous: only the ends can fall on or beyond a face.
    int64_t a = 0, b = n - 1;
    while (a <= b && !inside(a)) ++a;
    while (b >= a && !inside(b)) --b;
    if (range) (*range)[d] = {a, b};
    points *= std::max<int64_t>(0, b - a + 1);
  }
  return points;
}

template int64_t box_lattice_points<2>(const std::array<double, 2>&, const std::array<double, 2>&, double,
                                       const std::array<double, 2>&, const std::array<double, 2>&,
                                       std::array<std::array<int64_t, 2>, 2>*);
template int64_t box_lattice_points<3>(const std::array<double, 3>&, const std::array<double, 3>&, double,
                                       const std::array<double, 3>&, const std::array<double, 3>&,
                                       std::array<std::array<int64_t, 2>, 3>*);
template Seeds<2> seed_lattice<2>(const Shape<2>&, std::array<double, 2>, std::array<double, 2>, double,
                                  std::array<double, 2>, std::array<double, 2>);
template Seeds<3> seed_lattice<3>(const Shape<3>&, std::array<double, 3>, std::array<double, 3>, double,
                                  std::array<double, 3>, std::array<double, 3>);

}  // namespace meniscus::geometry
