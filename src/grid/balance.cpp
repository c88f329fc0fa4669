#include "grid/balance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/log.hpp"

namespace meniscus::grid {

std::vector<int> balanced_ranges(const std::vector<long>& hist, int blocks, int min_nodes) {
  const int n = static_cast<int>(hist.size());
  std::vector<int> ranges(blocks, 0);
  std::vector<long> cum(n + 1, 0);  // cum[k]: particles on nodes below k
  for (int k = 0; k < n; ++k) cum[k + 1] = cum[k] + hist[k];
  const long total = cum[n];
  int start = 0;
  for (int q = 0; q + 1 < blocks; ++q) {
    // The cut (first node of block q + 1) may go from start + min_nodes up to where the remaining
    // blocks still have min_nodes each.
    const int lo = start + min_nodes, hi = n - (blocks - 1 - q) * min_nodes;
    int cut;
    if (total == 0) {
      cut = start + (n - start) / (blocks - q);  // no particles: the even split
    } else {
      // Aim at the next equal share of what is left, so that an early cut that had to overshoot
      // (minimum width) does not push its error onto every later block.
      const double target = cum[start] + static_cast<double>(total - cum[start]) / (blocks - q);
      cut = static_cast<int>(std::lower_bound(cum.begin(), cum.end(), static_cast<long>(std::ceil(target))) - cum.begin());
      if (cut > 0 && std::fabs(cum[cut - 1] - target) <= std::fabs(cum[std::min(cut, n)] - target)) --cut;
    }
    cut = std::clamp(cut, lo, hi);
    ranges[q] = cut - start;
    start = cut;
  }
  ranges[blocks - 1] = n - start;
  return ranges;
}

template <int Dim>
double predicted_imbalance(const std::array<std::vector<long>, Dim>& hist,
                           const std::array<std::vector<int>, Dim>& ranges) {
  // The largest block of each axis, as a share of that axis's total; their product is the heaviest
  // rank's share when the distribution is separable.
  double heaviest = 1, blocks = 1;
  for (int d = 0; d < Dim; ++d) {
    long total = 0, largest = 0;
    for (long h : hist[d]) total += h;
    if (total == 0) return 1.0;
    size_t k = 0;
    for (int r : ranges[d]) {
      long s = 0;
      for (int i = 0; i < r; ++i) s += hist[d][k++];
      largest = std::max(largest, s);
    }
    heaviest *= static_cast<double>(largest) / total;
    blocks *= static_cast<double>(ranges[d].size());
  }
  return heaviest * blocks;
}

template <int Dim>
std::string balanced_layout(const std::array<std::vector<long>, Dim>& hist, int size, int min_nodes,
                            const std::array<int, Dim>& requested, std::array<int, Dim>& procs,
                            std::array<std::vector<int>, Dim>& ranges) {
  double best_load = std::numeric_limits<double>::infinity(), best_cut = 0;
  std::array<int, Dim> p{};
  auto visit = [&](auto&& self, int d, int remaining) -> void {
    if (d == Dim) {
      if (remaining != 1) return;
      std::array<std::vector<int>, Dim> r;
      double cut = 0;
      for (int e = 0; e < Dim; ++e) {
        const int nodes = static_cast<int>(hist[e].size());
        if (nodes / p[e] < min_nodes) return;
        r[e] = balanced_ranges(hist[e], p[e], min_nodes);
        double face = 1;
        for (int f = 0; f < Dim; ++f)
          if (f != e) face *= static_cast<double>(hist[f].size());
        cut += (p[e] - 1) * face;
      }
      // Loads within 1 % count as equal: then the smaller cut surface (less halo traffic) wins.
      const double load = predicted_imbalance<Dim>(hist, r);
      if (load < best_load * 0.99 || (load <= best_load * 1.01 && cut < best_cut)) {
        best_load = std::min(load, best_load);
        best_cut = cut;
        procs = p;
        ranges = r;
      }
      return;
    }
    for (int f = 1; f <= remaining; ++f) {
      if (remaining % f) continue;
      if (requested[d] > 0 && requested[d] != f) continue;
      p[d] = f;
      self(self, d + 1, remaining / f);
    }
  };
  visit(visit, 0, size);
  if (!std::isfinite(best_load)) {
    std::string shape;
    for (int d = 0; d < Dim; ++d) shape += (d ? " x " : "") + std::to_string(hist[d].size() - 1);
    return log::format("%d ranks cannot decompose a grid of %s cells: every block needs at least %d nodes "
                       "per axis; use fewer ranks, a smaller domain.cell_size, or set domain.ranks",
                       size, shape.c_str(), min_nodes);
  }
  return "";
}

template double predicted_imbalance<2>(const std::array<std::vector<long>, 2>&, const std::array<std::vector<int>, 2>&);
template double predicted_imbalance<3>(const std::array<std::vector<long>, 3>&, const std::array<std::vector<int>, 3>&);
template std::string balanced_layout<2>(const std::array<std::vector<long>, 2>&, int, int, const std::array<int, 2>&,
                                        std::array<int, 2>&, std::array<std::vector<int>, 2>&);
template std::string balanced_layout<3>(const std::array<std::vector<long>, 3>&, int, int, const std::array<int, 3>&,
                                        std::array<int, 3>&, std::array<std::vector<int>, 3>&);

}  // namespace meniscus::grid
