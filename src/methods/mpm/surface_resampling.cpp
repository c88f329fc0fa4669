#include "methods/mpm/surface_resampling.hpp"

#include <Kokkos_ScatterView.hpp>

#include <algorithm>
#include <cmath>

#include "core/kmath.hpp"
#include "core/reproducible_sum.hpp"
#include "geometry/contour_3d.hpp"
#include "grid/grid_field.hpp"

namespace meniscus::mpm {

namespace {
// Union-of-spheres level set on the ghosted node box: phi_i = min_p |x_i - x_p| - r, clamped at
// r + dx far from every particle (exact wherever it matters for the contour).
template <int Dim>
Kokkos::View<double*> level_set(const Kokkos::View<double**, Kokkos::LayoutRight>& x, const grid::NodeBox<Dim>& box, const double* lower_in,
                                double dx, double radius) {
  Kokkos::View<double*> phi("phi", box.size());
  const double far = radius + dx;
  Kokkos::deep_copy(phi, far);
  auto scatter = Kokkos::Experimental::create_scatter_view<Kokkos::Experimental::ScatterMin>(phi);
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = lower_in[d];
  const double inv = 1.0 / dx;
  constexpr int kSpan = Dim == 2 ? 25 : 125;  // 5^Dim nodes around the nearest one
  // Nodes farther than r + far never lower phi; a slightly larger bound on r^2 skips their sqrt
  // (the exact test below still decides, so phi is the same bit for bit).
  const double skip_r2 = (far + radius) * (far + radius) * (1 + 1e-9);
  Kokkos::parallel_for(
      "surface::level_set", Kokkos::RangePolicy<>(0, x.extent(0)), KOKKOS_LAMBDA(const int p) {
        auto acc = scatter.access();
        int c[Dim];
        for (int d = 0; d < Dim; ++d) c[d] = static_cast<int>(kmath::floor((x(p, d) - lower[d]) * inv + 0.5));
        for (int k = 0; k < kSpan; ++k) {
          int node[Dim], code = k;
          bool inside = true;
          double r2 = 0;
          for (int d = 0; d < Dim; ++d) {
            node[d] = c[d] + code % 5 - 2;
            code /= 5;
            inside = inside && node[d] >= box.lo[d] && node[d] < box.lo[d] + box.n[d];
            const double e = lower[d] + node[d] * dx - x(p, d);
            r2 += e * e;
          }
          if (!inside || r2 > skip_r2) continue;
          const double dist = kmath::sqrt(r2) - radius;
          if (dist < far) acc(box.index(node)).update(dist);
        }
      });
  Kokkos::Experimental::contribute(phi, scatter);
  return phi;
}

// Contour of the owned cells and its samples, as (position, area) views with Dim columns.
struct RawSamples {
  Kokkos::View<double**, Kokkos::LayoutRight> position, area;
  Kokkos::View<double*> measure;  // each element's length (2D) or area (3D)
};

template <int Dim>
RawSamples contour_and_sample(const Kokkos::View<double*>& phi, const grid::NodeBox<Dim>& box,
                              const grid::Decomposition<Dim>& decomp, const ResamplingOptions& opt, int64_t step,
                              const int* near_lo, const int* near_hi) {
  const double dx = decomp.dx();
  int lo[Dim], hi[Dim];
  for (int d = 0; d < Dim; ++d) {
    lo[d] = std::max(decomp.owned_lo()[d], near_lo[d]) - box.lo[d];
    hi[d] = std::min({decomp.owned_hi()[d], decomp.nodes()[d] - 1, near_hi[d]}) - box.lo[d];
  }
  RawSamples out;
  if constexpr (Dim == 2) {
    geometry::Lattice2D lattice{{decomp.lower()[0], decomp.lower()[1]}, dx, {box.n[0], box.n[1]}, {box.lo[0], box.lo[1]}};
    const auto segments = geometry::marching_squares(phi, lattice, lo, hi, decomp.nodes()[0]);
    auto e = segments.ends;
    auto length = out.measure = Kokkos::View<double*>("surface_element_length", segments.size());
    Kokkos::parallel_for(
        "surface::length", Kokkos::RangePolicy<>(0, segments.size()), KOKKOS_LAMBDA(const int q) {
          const double a = e(q, 1, 0) - e(q, 0, 0), b = e(q, 1, 1) - e(q, 0, 1);
          length(q) = kmath::sqrt(a * a + b * b);
        });
    const auto smp = geometry::sample_segments(segments, opt.samples_per_dx / dx, opt.weight, opt.seed, step,
                                                opt.stratified);
    out.position = Kokkos::View<double**, Kokkos::LayoutRight>("raw_position", smp.size(), 2);
    out.area = Kokkos::View<double**, Kokkos::LayoutRight>("raw_area", smp.size(), 2);
    Kokkos::deep_copy(out.position, smp.position);
    Kokkos::deep_copy(out.area, smp.area);
  } else {
    geometry::Lattice3D lattice{{decomp.lower()[0], decomp.lower()[1], decomp.lower()[2]},
                                dx,
                                {box.n[0], box.n[1], box.n[2]},
                                {box.lo[0], box.lo[1], box.lo[2]}};
    const int64_t gn[2] = {decomp.nodes()[0], decomp.nodes()[1]};
    const auto tris = geometry::marching_tetrahedra(phi, lattice, lo, hi, gn);
    auto T = tris.corners;
    auto area = out.measure = Kokkos::View<double*>("surface_element_area", tris.size());
    Kokkos::parallel_for(
        "surface::area", Kokkos::RangePolicy<>(0, tris.size()), KOKKOS_LAMBDA(const int q) {
          double e1[3], e2[3];
          for (int d = 0; d < 3; ++d) {
            e1[d] = T(q, 1, d) - T(q, 0, d);
            e2[d] = T(q, 2, d) - T(q, 0, d);
          }
          const double n0 = e1[1] * e2[2] - e1[2] * e2[1], n1 = e1[2] * e2[0] - e1[0] * e2[2],
                       n2 = e1[0] * e2[1] - e1[1] * e2[0];
          area(q) = 0.5 * kmath::sqrt(n0 * n0 + n1 * n1 + n2 * n2);
        });
    const auto smp = geometry::sample_triangles(tris, opt.samples_per_dx * opt.samples_per_dx / (dx * dx), opt.weight,
                                                opt.seed, step, opt.stratified);
    out.position = Kokkos::View<double**, Kokkos::LayoutRight>("raw_position", smp.size(), 3);
    out.area = Kokkos::View<double**, Kokkos::LayoutRight>("raw_area", smp.size(), 3);
    Kokkos::deep_copy(out.position, smp.position);
    Kokkos::deep_copy(out.area, smp.area);
  }
  return out;
}
}  // namespace

SampleGroups sample_groups(const particles::IndexList& parent, size_t particles) {
  SampleGroups g;
  g.size = Kokkos::View<int*>("group_size", particles);
  g.start = Kokkos::View<int*>("group_start", particles + 1);
  g.members = Kokkos::View<int*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "group_members"), parent.extent(0));
  auto count = g.size, start = g.start, members = g.members;
  Kokkos::parallel_for(
      "surface::group_sizes", Kokkos::RangePolicy<>(0, parent.extent(0)),
      KOKKOS_LAMBDA(const int r) { Kokkos::atomic_increment(&count(parent(r))); });
  Kokkos::parallel_scan(
      "surface::group_start", Kokkos::RangePolicy<>(0, particles + 1), KOKKOS_LAMBDA(const int p, int& sum, const bool final) {
        if (final) start(p) = sum;
        if (p < static_cast<int>(particles)) sum += count(p);
      });
  Kokkos::View<int*> fill("group_fill", particles);
  Kokkos::parallel_for(
      "surface::group_fill", Kokkos::RangePolicy<>(0, parent.extent(0)), KOKKOS_LAMBDA(const int r) {
        const int p = parent(r);
        members(start(p) + Kokkos::atomic_fetch_add(&fill(p), 1)) = r;
      });
  // The fill's order within a group is the threads'; sort each group's rows (a few per parent).
  Kokkos::parallel_for(
      "surface::group_sort", Kokkos::RangePolicy<>(0, particles), KOKKOS_LAMBDA(const int p) {
        for (int i = start(p) + 1; i < start(p + 1); ++i) {
          const int r = members(i);
          int j = i;
          for (; j > start(p) && members(j - 1) > r; --j) members(j) = members(j - 1);
          members(j) = r;
        }
      });
  return g;
}

// phi <- max(phi, -phi_wall) at every node of the box, for each wall (resample_surface's `walls`).
template <int Dim>
void cut_at_walls(const Kokkos::View<double*>& phi, const grid::NodeBox<Dim>& box, const double* lower_in, double dx,
                  const physics::ColliderSet<Dim>& walls) {
  if (walls.count == 0) return;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = lower_in[d];
  Kokkos::parallel_for(
      "surface::cut_at_walls", Kokkos::RangePolicy<>(0, box.size()), KOKKOS_LAMBDA(const long i) {
        int node[Dim];
        box.node(i, node);
        double xi[Dim];
        for (int d = 0; d < Dim; ++d) xi[d] = lower[d] + node[d] * dx;
        double value = phi(i);
        for (int c = 0; c < walls.count; ++c) {
          const double outside = -walls.items[c].distance(xi);
          value = outside > value ? outside : value;
        }
        phi(i) = value;
      });
}

template <int Dim>
SurfaceSamples<Dim> resample_surface(const particles::ParticleSet& set, int position_field,
                                     const grid::Decomposition<Dim>& decomp, particles::HaloPlan<Dim>& halo,
                                     const ResamplingOptions& opt, int64_t step, const physics::ColliderSet<Dim>& walls) {
  const double dx = decomp.dx(), radius = opt.radius_factor * dx;
  const int nown = static_cast<int>(set.size());
  const auto xo = set.field(position_field);
  const auto xg = halo.refresh(xo);
  const int ng = static_cast<int>(xg.extent(0));
  // Owned particles first, then ghosts: one position array for the level set and the search.
  Kokkos::View<double**, Kokkos::LayoutRight> x("surface_x", nown + ng, Dim);
  auto ids_o = set.id();
  auto ids_g = halo.ghost_ids();
  Kokkos::View<int64_t*> ids("surface_ids", nown + ng);
  Kokkos::parallel_for(
      "surface::gather_positions", Kokkos::RangePolicy<>(0, nown + ng), KOKKOS_LAMBDA(const int p) {
        const bool own = p < nown;
        for (int d = 0; d < Dim; ++d) x(p, d) = own ? xo(p, d) : xg(p - nown, d);
        ids(p) = own ? ids_o(p) : ids_g(p - nown);
      });

  grid::NodeBox<Dim> box;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) {
    box.lo[d] = decomp.ghost_lo()[d];
    box.n[d] = decomp.ghost_hi()[d] - decomp.ghost_lo()[d];
    lower[d] = decomp.lower()[d];
  }
  const auto phi = level_set<Dim>(x, box, lower, dx, radius);
  cut_at_walls<Dim>(phi, box, lower, dx, walls);
  // Only cells with a corner within r of a particle can hold contour: contour the cells of the
  // particles' bounding box, widened by 2 cells (r < dx), not the whole subdomain. The samples are
  // the same (keyed by global cell), and a drop in a large empty domain costs far less.
  int near_lo[Dim], near_hi[Dim];
  for (int d = 0; d < Dim; ++d) {
    double xmin = 0, xmax = 0;
    Kokkos::parallel_reduce(
        "surface::bounds", Kokkos::RangePolicy<>(0, nown + ng),
        KOKKOS_LAMBDA(const int p, double& a, double& b) {
          a = x(p, d) < a ? x(p, d) : a;
          b = x(p, d) > b ? x(p, d) : b;
        },
        Kokkos::Min<double>(xmin), Kokkos::Max<double>(xmax));
    if (nown + ng == 0) {
      near_lo[d] = 0;
      near_hi[d] = 0;  // no cell
    } else {
      near_lo[d] = static_cast<int>(std::floor((xmin - lower[d]) / dx)) - 2;
      near_hi[d] = static_cast<int>(std::ceil((xmax - lower[d]) / dx)) + 3;  // exclusive
    }
  }
  const RawSamples samples = contour_and_sample<Dim>(phi, box, decomp, opt, step, near_lo, near_hi);
  SurfaceSamples<Dim> out;
  out.element_measure = samples.measure;
  const int ns = static_cast<int>(samples.position.extent(0));

  // Bucket particles by nearest node of the ghost box (counting sort), then search +-2 nodes. That
  // finds the nearest particle exactly: a sample lies on a cell (2D) or tetrahedron (3D) edge of
  // length L <= sqrt(Dim) dx whose inside end is within r of a particle, and phi is 1-Lipschitz, so
  // the sample is within r + L/2 <= 1.74 dx of a particle; each coordinate then differs by < 2 dx,
  // and the rounded nodes by at most 2. (Searching +-3 cost 2.7x more in 3D, for the same parents.)
  const int nb = static_cast<int>(box.size());
  Kokkos::View<int*> start("bucket_start", nb + 1), fill("bucket_fill", nb), members("bucket_members", nown + ng);
  const double inv = 1.0 / dx;
  auto node_of = KOKKOS_LAMBDA(const double* px, int* c) {
    for (int d = 0; d < Dim; ++d) {
      int i = static_cast<int>(kmath::floor((px[d] - lower[d]) * inv + 0.5)) - box.lo[d];
      c[d] = i < 0 ? 0 : (i >= box.n[d] ? box.n[d] - 1 : i);
    }
  };
  auto bucket_of = KOKKOS_LAMBDA(const double* px)->int {
    int c[Dim];
    node_of(px, c);
    int b = 0, stride = 1;
    for (int d = 0; d < Dim; ++d) {
      b += c[d] * stride;
      stride *= box.n[d];
    }
    return b;
  };
  Kokkos::parallel_for(
      "surface::bucket_count", Kokkos::RangePolicy<>(0, nown + ng), KOKKOS_LAMBDA(const int p) {
        double px[Dim];
        for (int d = 0; d < Dim; ++d) px[d] = x(p, d);
        Kokkos::atomic_increment(&start(bucket_of(px) + 1));
      });
  Kokkos::parallel_scan(
      "surface::bucket_scan", Kokkos::RangePolicy<>(0, nb + 1), KOKKOS_LAMBDA(const int b, int& sum, const bool final) {
        sum += start(b);
        if (final) start(b) = sum;
      });
  Kokkos::parallel_for(
      "surface::bucket_fill", Kokkos::RangePolicy<>(0, nown + ng), KOKKOS_LAMBDA(const int p) {
        double px[Dim];
        for (int d = 0; d < Dim; ++d) px[d] = x(p, d);
        const int b = bucket_of(px);
        members(start(b) + Kokkos::atomic_fetch_add(&fill(b), 1)) = p;
      });
  Kokkos::View<int*> nearest("nearest", ns);
  auto s = samples.position;
  auto a = samples.area;
  constexpr int kSearch = Dim == 2 ? 25 : 125;  // 5^Dim buckets around the sample's node
  Kokkos::parallel_for(
      "surface::parent_search", Kokkos::RangePolicy<>(0, ns), KOKKOS_LAMBDA(const int r) {
        double sr[Dim];
        for (int d = 0; d < Dim; ++d) sr[d] = s(r, d);
        int c[Dim];
        node_of(sr, c);
        int best = -1;
        double best_d = 1e300;
        // Offsets 0, -1, +1, -2, +2 per axis: the near buckets first, so that the far ones can be
        // skipped when even their closest point is farther than the best particle so far (strictly,
        // so ties still go to the lowest id).
        const int order[5] = {0, -1, 1, -2, 2};
        for (int k = 0; k < kSearch; ++k) {
          int b = 0, stride = 1, code = k;
          bool ok = true;
          double gap2 = 0;
          for (int d = 0; d < Dim; ++d) {
            const int o = order[code % 5];
            const int i = c[d] + o;
            code /= 5;
            ok = ok && i >= 0 && i < box.n[d];
            b += i * stride;
            stride *= box.n[d];
            // A bucket holds particles within half a cell of its node along each axis.
            const double node_x = lower[d] + (box.lo[d] + i) * dx;
            const double gap = kmath::fabs(sr[d] - node_x) - 0.5 * dx;
            if (o != 0 && gap > 0) gap2 += gap * gap;
          }
          if (!ok || gap2 * (1 - 1e-9) > best_d) continue;
          for (int m = start(b); m < start(b + 1); ++m) {
            const int p = members(m);
            double dd = 0;
            for (int d = 0; d < Dim; ++d) dd += (x(p, d) - sr[d]) * (x(p, d) - sr[d]);
            if (dd < best_d || (dd == best_d && best >= 0 && ids(p) < ids(best))) {
              best_d = dd;
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
  particles::RealField remote("remote_rows", nremote, 2 * Dim);
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
            for (int d = 0; d < Dim; ++d) {
              remote(c, d) = s(r, d);
              remote(c, Dim + d) = a(r, d);
            }
          }
          c += 1;
        }
      });
  auto back = halo.send_to_owners(ghost_of_row, {remote});
  const int nin = static_cast<int>(back.owner_index.extent(0));
  out.position = Kokkos::View<double**, Kokkos::LayoutRight>("surface_position", nlocal + nin, Dim);
  out.area = Kokkos::View<double**, Kokkos::LayoutRight>("surface_area", nlocal + nin, Dim);
  out.parent = particles::IndexList("surface_parent", nlocal + nin);
  auto pos = out.position;
  auto area = out.area;
  auto par = out.parent;
  Kokkos::parallel_for(
      "surface::keep_local", Kokkos::RangePolicy<>(0, nlocal), KOKKOS_LAMBDA(const int k) {
        const int r = local_rows(k);
        for (int d = 0; d < Dim; ++d) {
          pos(k, d) = s(r, d);
          area(k, d) = a(r, d);
        }
        par(k) = nearest(r);
      });
  auto rows = back.fields[0];
  auto owner = back.owner_index;
  Kokkos::parallel_for(
      "surface::append_remote", Kokkos::RangePolicy<>(0, nin), KOKKOS_LAMBDA(const int k) {
        for (int d = 0; d < Dim; ++d) {
          pos(nlocal + k, d) = rows(k, d);
          area(nlocal + k, d) = rows(k, Dim + d);
        }
        par(nlocal + k) = owner(k);
      });
  return out;
}

template <int Dim>
double contour_measure(MPI_Comm comm, const SurfaceSamples<Dim>& samples) {
  double measure = 0;
  reproducible_sum(comm, static_cast<long>(samples.element_measure.extent(0)), ViewTerms{samples.element_measure},
                   &measure, "surface::contour_measure");
  return measure;
}

template double contour_measure<2>(MPI_Comm, const SurfaceSamples<2>&);
template double contour_measure<3>(MPI_Comm, const SurfaceSamples<3>&);
template SurfaceSamples<2> resample_surface<2>(const particles::ParticleSet&, int, const grid::Decomposition<2>&,
                                               particles::HaloPlan<2>&, const ResamplingOptions&, int64_t,
                                               const physics::ColliderSet<2>&);
template SurfaceSamples<3> resample_surface<3>(const particles::ParticleSet&, int, const grid::Decomposition<3>&,
                                               particles::HaloPlan<3>&, const ResamplingOptions&, int64_t,
                                               const physics::ColliderSet<3>&);

}  // namespace meniscus::mpm
