#include "methods/mpm/surface_resampling.hpp"

#include <Kokkos_ScatterView.hpp>

#include "core/kmath.hpp"
#include "grid/grid_field.hpp"

namespace meniscus::mpm {

namespace {
// Union-of-spheres level set on the ghosted node box: phi_i = min_p |x_i - x_p| - r, clamped at
// r + dx far from every particle (exact wherever it matters for the contour).
Kokkos::View<double*> level_set_2d(const Kokkos::View<double**>& x, const grid::NodeBox<2>& box, const double* lower,
                                   double dx, double radius) {
  Kokkos::View<double*> phi("phi", box.size());
  const double far = radius + dx;
  Kokkos::deep_copy(phi, far);
  auto scatter = Kokkos::Experimental::create_scatter_view<Kokkos::Experimental::ScatterMin>(phi);
  const double lx = lower[0], ly = lower[1], inv = 1.0 / dx;
  Kokkos::parallel_for(
      "surface::level_set", Kokkos::RangePolicy<>(0, x.extent(0)), KOKKOS_LAMBDA(const int p) {
        auto acc = scatter.access();
        const int ci = static_cast<int>(kmath::floor((x(p, 0) - lx) * inv + 0.5));
        const int cj = static_cast<int>(kmath::floor((x(p, 1) - ly) * inv + 0.5));
        for (int j = cj - 2; j <= cj + 2; ++j)
          for (int i = ci - 2; i <= ci + 2; ++i) {
            if (i < box.lo[0] || j < box.lo[1] || i >= box.lo[0] + box.n[0] || j >= box.lo[1] + box.n[1]) continue;
            const double dxp = lx + i * dx - x(p, 0), dyp = ly + j * dx - x(p, 1);
            const double d = kmath::sqrt(dxp * dxp + dyp * dyp) - radius;
            if (d < far) {
              const int node[2] = {i, j};
              acc(box.index(node)).update(d);
            }
          }
      });
  Kokkos::Experimental::contribute(phi, scatter);
  return phi;
}
}  // namespace

Kokkos::View<int*> group_sizes(const particles::IndexList& parent, size_t particles) {
  Kokkos::View<int*> count("group_size", particles);
  Kokkos::parallel_for(
      "surface::group_sizes", Kokkos::RangePolicy<>(0, parent.extent(0)),
      KOKKOS_LAMBDA(const int r) { Kokkos::atomic_increment(&count(parent(r))); });
  return count;
}

template <>
SurfaceSamples<2> resample_surface<2>(const particles::ParticleSet& set, int position_field,
                                      const grid::Decomposition<2>& decomp, particles::HaloPlan<2>& halo,
                                      const ResamplingOptions& opt, int64_t step) {
  const double dx = decomp.dx(), radius = opt.radius_factor * dx;
  const int nown = static_cast<int>(set.size());
  const auto xo = set.field(position_field);
  const auto xg = halo.refresh(xo);
  const int ng = static_cast<int>(xg.extent(0));
  // Owned particles first, then ghosts: one position array for the level set and the search.
  Kokkos::View<double**> x("surface_x", nown + ng, 2);
  auto ids_o = set.id();
  auto ids_g = halo.ghost_ids();
  Kokkos::View<int64_t*> ids("surface_ids", nown + ng);
  Kokkos::parallel_for(
      "surface::gather_positions", Kokkos::RangePolicy<>(0, nown + ng), KOKKOS_LAMBDA(const int p) {
        const bool own = p < nown;
        for (int d = 0; d < 2; ++d) x(p, d) = own ? xo(p, d) : xg(p - nown, d);
        ids(p) = own ? ids_o(p) : ids_g(p - nown);
      });

  grid::NodeBox<2> box;
  double lower[2];
  for (int d = 0; d < 2; ++d) {
    box.lo[d] = decomp.ghost_lo()[d];
    box.n[d] = decomp.ghost_hi()[d] - decomp.ghost_lo()[d];
    lower[d] = decomp.lower()[d];
  }
  const auto phi = level_set_2d(x, box, lower, dx, radius);

  // Contour the cells this rank owns (a cell is owned with its lower-left node).
  geometry::Lattice2D lattice{{lower[0], lower[1]}, dx, {box.n[0], box.n[1]}, {box.lo[0], box.lo[1]}};
  int lo[2], hi[2];
  for (int d = 0; d < 2; ++d) {
    lo[d] = decomp.owned_lo()[d] - box.lo[d];
    hi[d] = std::min(decomp.owned_hi()[d], decomp.nodes()[d] - 1) - box.lo[d];
  }
  const auto segments = geometry::marching_squares(phi, lattice, lo, hi, decomp.nodes()[0]);
  SurfaceSamples<2> out;
  {
    auto e = segments.ends;
    double len = 0;
    Kokkos::parallel_reduce(
        "surface::length", Kokkos::RangePolicy<>(0, segments.size()),
        KOKKOS_LAMBDA(const int q, double& s) {
          const double a = e(q, 1, 0) - e(q, 0, 0), b = e(q, 1, 1) - e(q, 0, 1);
          s += kmath::sqrt(a * a + b * b);
        },
        len);
    out.contour_length = len;
  }
  const auto samples = geometry::sample_segments(segments, opt.samples_per_dx / dx, opt.weight, opt.seed, step);
  const int ns = static_cast<int>(samples.size());

  // Bucket particles by nearest node of the ghost box (counting sort), then search +-3 nodes.
  const int nb = static_cast<int>(box.size());
  Kokkos::View<int*> start("bucket_start", nb + 1), fill("bucket_fill", nb), members("bucket_members", nown + ng);
  const double lx = lower[0], ly = lower[1], inv = 1.0 / dx;
  auto bucket_of = KOKKOS_LAMBDA(const double px, const double py)->int {
    int i = static_cast<int>(kmath::floor((px - lx) * inv + 0.5)) - box.lo[0];
    int j = static_cast<int>(kmath::floor((py - ly) * inv + 0.5)) - box.lo[1];
    i = i < 0 ? 0 : (i >= box.n[0] ? box.n[0] - 1 : i);
    j = j < 0 ? 0 : (j >= box.n[1] ? box.n[1] - 1 : j);
    return i + box.n[0] * j;
  };
  Kokkos::parallel_for(
      "surface::bucket_count", Kokkos::RangePolicy<>(0, nown + ng),
      KOKKOS_LAMBDA(const int p) { Kokkos::atomic_increment(&start(bucket_of(x(p, 0), x(p, 1)) + 1)); });
  Kokkos::parallel_scan(
      "surface::bucket_scan", Kokkos::RangePolicy<>(0, nb + 1), KOKKOS_LAMBDA(const int b, int& sum, const bool final) {
        sum += start(b);
        if (final) start(b) = sum;
      });
  Kokkos::parallel_for(
      "surface::bucket_fill", Kokkos::RangePolicy<>(0, nown + ng), KOKKOS_LAMBDA(const int p) {
        const int b = bucket_of(x(p, 0), x(p, 1));
        members(start(b) + Kokkos::atomic_fetch_add(&fill(b), 1)) = p;
      });
  Kokkos::View<int*> nearest("nearest", ns);
  auto s = samples.position;
  Kokkos::parallel_for(
      "surface::parent_search", Kokkos::RangePolicy<>(0, ns), KOKKOS_LAMBDA(const int r) {
        const int b = bucket_of(s(r, 0), s(r, 1));
        const int bi = b % box.n[0], bj = b / box.n[0];
        int best = -1;
        double best_d = 1e300;
        for (int j = bj - 3; j <= bj + 3; ++j)
          for (int i = bi - 3; i <= bi + 3; ++i) {
            if (i < 0 || j < 0 || i >= box.n[0] || j >= box.n[1]) continue;
            const int c = i + box.n[0] * j;
            for (int m = start(c); m < start(c + 1); ++m) {
              const int p = members(m);
              const double a = x(p, 0) - s(r, 0), bb = x(p, 1) - s(r, 1);
              const double d = a * a + bb * bb;
              if (d < best_d || (d == best_d && best >= 0 && ids(p) < ids(best))) {
                best_d = d;
                best = p;
              }
            }
          }
        nearest(r) = best;
      });

  // Keep samples whose parent is owned; send the others to their parent's owner.
  int nlocal = 0;
  Kokkos::parallel_reduce(
      "surface::count_local", Kokkos::RangePolicy<>(0, ns),
      KOKKOS_LAMBDA(const int r, int& c) { c += (nearest(r) >= 0 && nearest(r) < nown) ? 1 : 0; }, nlocal);
  int nremote = 0;
  Kokkos::parallel_reduce(
      "surface::count_remote", Kokkos::RangePolicy<>(0, ns),
      KOKKOS_LAMBDA(const int r, int& c) { c += nearest(r) >= nown ? 1 : 0; }, nremote);
  particles::IndexList ghost_of_row("ghost_of_row", nremote), local_rows("local_rows", nlocal);
  particles::RealField remote("remote_rows", nremote, 4);
  auto a = samples.area;
  Kokkos::parallel_scan(
      "surface::local_rows", Kokkos::RangePolicy<>(0, ns), KOKKOS_LAMBDA(const int r, int& c, const bool final) {
        const int p = nearest(r);
        if (p >= 0 && p < nown) {
          if (final) local_rows(c) = r;
          c += 1;
        }
      });
  Kokkos::parallel_scan(
      "surface::remote_rows", Kokkos::RangePolicy<>(0, ns), KOKKOS_LAMBDA(const int r, int& c, const bool final) {
        const int p = nearest(r);
        if (p >= nown) {
          if (final) {
            ghost_of_row(c) = p - nown;
            remote(c, 0) = s(r, 0);
            remote(c, 1) = s(r, 1);
            remote(c, 2) = a(r, 0);
            remote(c, 3) = a(r, 1);
          }
          c += 1;
        }
      });
  auto back = halo.send_to_owners(ghost_of_row, {remote});
  const int nin = static_cast<int>(back.owner_index.extent(0));
  out.position = Kokkos::View<double**>("surface_position", nlocal + nin, 2);
  out.area = Kokkos::View<double**>("surface_area", nlocal + nin, 2);
  out.parent = particles::IndexList("surface_parent", nlocal + nin);
  auto pos = out.position;
  auto area = out.area;
  auto par = out.parent;
  Kokkos::parallel_for(
      "surface::keep_local", Kokkos::RangePolicy<>(0, nlocal), KOKKOS_LAMBDA(const int k) {
        const int r = local_rows(k);
        for (int d = 0; d < 2; ++d) {
          pos(k, d) = s(r, d);
          area(k, d) = a(r, d);
        }
        par(k) = nearest(r);
      });
  auto rows = back.fields[0];
  auto owner = back.owner_index;
  Kokkos::parallel_for(
      "surface::append_remote", Kokkos::RangePolicy<>(0, nin), KOKKOS_LAMBDA(const int k) {
        for (int d = 0; d < 2; ++d) {
          pos(nlocal + k, d) = rows(k, d);
          area(nlocal + k, d) = rows(k, 2 + d);
        }
        par(nlocal + k) = owner(k);
      });
  return out;
}

}  // namespace meniscus::mpm
