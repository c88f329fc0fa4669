// MPM surface-tension coupling (Chen et al. 2021, Sec. 3.2-3.4): each step the liquid surface is
// resampled into area-weighted samples, whose surface-energy gradient is scattered to the grid (P2G) and
// whose grid velocities return to their parents (G2P). Split from the time step so each file holds one job.
#include <Kokkos_ScatterView.hpp>
#include <cmath>
#include <limits>

#include "core/log.hpp"
#include "grid/bspline.hpp"
#include "grid/stencil_loop.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "methods/mpm/wetting_adhesion.hpp"
#include "physics/surface_energy.hpp"

namespace meniscus::mpm {

template <int Dim>
double MpmMethod<Dim>::capillary_dt() const {
  double rho = std::numeric_limits<double>::infinity();
  for (const auto& m : table_.materials) rho = std::min(rho, m.density);
  const double dx = decomp_->dx();
  return std::sqrt(rho * dx * dx * dx / (M_PI * st_.coefficient.max_coefficient()));
}

template <int Dim>
void MpmMethod<Dim>::resample_surface_particles() {
  auto t = timers_.scope("surface_sampling");
  st_.halo.build(set_, *decomp_, f_.x, resampling_halo_width<Dim>(decomp_->dx(), st_.options));
  const auto placed = colliders_.at_time(time_);
  auto samples = resample_surface<Dim>(set_, f_.x, *decomp_, st_.halo, st_.options, steps_, wetting_walls<Dim>(placed));
  // Keep only samples whose own and balance stencils lie inside this rank's ghosted grid (drop them
  // before the mass split of Chen et al. 2021 Sec. 4.1.3, never after, so the split stays conservative). With the 5-node ghost layer this is rare.
  const auto gbox = grid_->ghost_box();
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double inv_dx = 1.0 / decomp_->dx();
  auto x = set_.field(f_.x);
  auto s = samples.position;
  auto par = samples.parent;
  auto fits = KOKKOS_LAMBDA(const int r)->bool {
    for (int d = 0; d < Dim; ++d) {
      const double q[2] = {s(r, d), 2 * x(par(r), d) - s(r, d)};
      for (int which = 0; which < 2; ++which) {
        const int base = static_cast<int>(kmath::floor((q[which] - lower[d]) * inv_dx - 0.5));
        if (base < gbox.lo[d] || base + 2 >= gbox.lo[d] + gbox.n[d]) return false;
      }
    }
    return true;
  };
  const int ns = static_cast<int>(samples.size());
  int nkeep = 0;
  Kokkos::parallel_reduce(
      "surface::count_fitting", Kokkos::RangePolicy<>(0, ns), KOKKOS_LAMBDA(const int r, int& k) { k += fits(r) ? 1 : 0; },
      nkeep);
  st_.dropped += ns - nkeep;
  if (nkeep < ns) {
    particles::IndexList keep("keep_samples", nkeep);
    Kokkos::parallel_scan(
        "surface::list_fitting", Kokkos::RangePolicy<>(0, ns), KOKKOS_LAMBDA(const int r, int& k, const bool final) {
          const bool ok = fits(r);
          if (final && ok) keep(k) = r;
          k += ok ? 1 : 0;
        });
    SurfaceSamples<Dim> kept;
    kept.element_measure = samples.element_measure;
    kept.position = Kokkos::View<double**, Kokkos::LayoutRight>("surface_position", nkeep, Dim);
    kept.area = Kokkos::View<double**, Kokkos::LayoutRight>("surface_area", nkeep, Dim);
    kept.parent = particles::IndexList("surface_parent", nkeep);
    auto kp = kept.position, ka = kept.area;
    auto kpar = kept.parent;
    auto a = samples.area;
    Kokkos::parallel_for(
        "surface::keep_fitting", Kokkos::RangePolicy<>(0, nkeep), KOKKOS_LAMBDA(const int k) {
          const int r = keep(k);
          for (int d = 0; d < Dim; ++d) {
            kp(k, d) = s(r, d);
            ka(k, d) = a(r, d);
          }
          kpar(k) = par(r);
        });
    samples = kept;
  }
  SurfaceCoefficientInputs<Dim> in{placed, set_.material(),
                                   st_.scalar_field >= 0 ? set_.field(st_.scalar_field) : particles::RealField()};
  assign_surface_coefficients<Dim>(samples, st_.coefficient, in);
  st_.samples = samples;
  const auto groups = sample_groups(samples.parent, set_.size());
  st_.group = groups.size;
  st_.group_start = groups.start;
  st_.group_members = groups.members;
  st_.active = true;
}

template <int Dim>
void MpmMethod<Dim>::p2g_surface(double dt, grid::NodeArray& local) {
  // Each sample r of parent p: mass m_p/(2|group|+1) at s_r and at b_r = 2 x_p - s_r with the parent's
  // velocity and affine field, plus the surface force -k dg/dM(I) grad N_i(s_r) at s_r, where
  // dg/dM(I) = |dA| (I - n n^T) (Chen et al. 2021, Eq. 16, explicit). Massless samples only add the force.
  // Timed as "split" (Chen et al. 2021 Sec. 4.1.3's split into surface and balance particles happens here, on the fly),
  // apart from the interior particles' "p2g"; the surface force rides along.
  auto sc = timers_.scope("split");
  const auto gbox = grid_->ghost_box();
  auto scatter = Kokkos::Experimental::create_scatter_view(local);
  auto x = set_.field(f_.x), v = set_.field(f_.v), C = set_.field(f_.C), mass = set_.field(f_.mass);
  auto s = st_.samples.position, area = st_.samples.area;
  auto par = st_.samples.parent;
  auto kr = st_.samples.coefficient, klg = st_.samples.liquid_gas;
  auto wall = st_.samples.wall_normal;
  auto wphi = st_.samples.wall_distance;
  const WettingRamp ramp = st_.coefficient.wetting_ramp();
  auto group = st_.group;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx;
  const bool massless = st_.massless;
  const bool line_hold = st_.line_hold;
  const auto walls = wetting_walls<Dim>(colliders_.at_time(time_));
  Kokkos::parallel_for(
      "mpm::p2g_surface", Kokkos::RangePolicy<>(0, st_.samples.size()), KOKKOS_LAMBDA(const int r) {
        const int p = par(r);
        auto acc = scatter.access();
        const double share = massless ? 0.0 : mass(p, 0) / (2 * group(p) + 1);
        double q[2][Dim], a[Dim], nw[Dim], I[Dim * Dim], dg[Dim * Dim], dh[Dim * Dim];
        for (int d = 0; d < Dim; ++d) {
          q[0][d] = s(r, d);
          q[1][d] = 2 * x(p, d) - s(r, d);
          a[d] = area(r, d);
          nw[d] = wall(r, d);
        }
        for (int i = 0; i < Dim * Dim; ++i) I[i] = (i % (Dim + 1) == 0) ? 1.0 : 0.0;
        // k_LG d|dA| + (k_SL - k_LG) d(footprint): a liquid-gas sample has k = k_LG and only the first
        // term; a solid-liquid one pays k_SL only for the area that lies on the wall.
        // The wetting part is weighted by w(phi) of the sample's distance to the wall, and its
        // dependence on that distance pulls the sample towards the wall (adhesion, wetting_adhesion.hpp):
        // d/ds [(k_SL - k_LG) w(phi(s)) h] = (k_SL - k_LG) h w'(phi) n.
        physics::surface_energy_gradient<Dim>(I, a, dg);
        const double k = klg(r), wet = kr(r) - klg(r);
        for (int i = 0; i < Dim * Dim; ++i) dg[i] *= k;
        double pull[Dim] = {}, ramp_pull = 0;
        if (wet != 0) {
          double slope, curvature;
          const double w = ramp.weight(wphi(r), slope, curvature);
          const double h = physics::wall_footprint_gradient<Dim>(I, a, nw, dh);
          for (int i = 0; i < Dim * Dim; ++i) dg[i] += wet * w * dh[i];
          for (int d = 0; d < Dim; ++d) pull[d] = wet * h * slope * nw[d];
          ramp_pull = wet * h * slope;
        }
        if (line_hold && wet != 0) {  // this sample's share of the contact-line hold, on the held nodes
          double an = 0, a2 = 0;
          for (int d = 0; d < Dim; ++d) {
            an += a[d] * nw[d];
            a2 += a[d] * a[d];
          }
          // Young's reaction less what the ramp already pulls here (wet h w' >= 0 towards the wall).
          const double cap =
              contact_line_cap(k, kr(r), kmath::sqrt(a2 > an * an ? a2 - an * an : 0.0), ramp.upper) - ramp_pull;
          grid::Stencil<Dim> st;
          st.compute(q[0], lower, inv_dx);
          double held = 0;
          auto at_held = [&](const double* rr, double w) {
            double xi[Dim];
            for (int d = 0; d < Dim; ++d) xi[d] = q[0][d] + rr[d];
            for (int c = 0; c < walls.count; ++c)
              if (walls.items[c].holds(xi)) return w;
            return 0.0;
          };
          grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, q[0], [&](long, double w, const double*, const double* rr) {
            held += at_held(rr, w);
          });
          if (cap != 0 && held > 0)
            grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, q[0], [&](long idx, double w, const double*, const double* rr) {
              acc(idx, 1 + Dim) += cap * at_held(rr, w) / held;
            });
        }
        for (int which = 0; which < 2; ++which) {
          if (massless && which == 1) break;
          grid::Stencil<Dim> st;
          st.compute(q[which], lower, inv_dx);
          grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, q[which], [&](long idx, double w, const double* grad, const double* rr) {
            acc(idx, 0) += w * share;
            for (int c = 0; c < Dim; ++c) {
              double val = v(p, c);
              for (int b = 0; b < Dim; ++b) val += C(p, c * Dim + b) * rr[b];
              double force = 0;
              if (which == 0) {
                for (int b = 0; b < Dim; ++b) force += dg[c * Dim + b] * grad[b];
                force += pull[c] * w;
              }
              acc(idx, 1 + c) += w * share * val - dt * force;
            }
          });
        }
      });
  Kokkos::Experimental::contribute(local, scatter);
}

template <int Dim>
void MpmMethod<Dim>::g2p_surface(grid::NodeArray& local, Kokkos::View<double**, Kokkos::LayoutRight>& vsum, Kokkos::View<double**, Kokkos::LayoutRight>& bsum) {
  auto t = timers_.scope("merge");  // apart from the interior particles' "g2p"
  const auto gbox = grid_->ghost_box();
  const size_t n = set_.size();
  vsum = Kokkos::View<double**, Kokkos::LayoutRight>("merge_v", n, Dim);
  bsum = Kokkos::View<double**, Kokkos::LayoutRight>("merge_b", n, Dim * Dim);
  auto vs = vsum, bs = bsum;
  auto x = set_.field(f_.x);
  auto s = st_.samples.position;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx;
  // Per parent, its samples in row order (sample_groups): the sums do not depend on the threads.
  auto start = st_.group_start, members = st_.group_members;
  Kokkos::parallel_for(
      "mpm::g2p_surface", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        for (int m = start(p); m < start(p + 1); ++m) {
          const int r = members(m);
          double q[2][Dim];
          for (int d = 0; d < Dim; ++d) {
            q[0][d] = s(r, d);
            q[1][d] = 2 * xp[d] - s(r, d);
          }
          double vr[Dim] = {}, br[Dim * Dim] = {};
          for (int which = 0; which < 2; ++which) {
            grid::Stencil<Dim> st;
            st.compute(q[which], lower, inv_dx);
            grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, q[which], [&](long idx, double w, const double*, const double* rr) {
              for (int c = 0; c < Dim; ++c) {
                const double vi = local(idx, 1 + c);
                vr[c] += w * vi;
                // Moments about the parent: x_i - x_p = (x_i - q) + (q - x_p).
                for (int b = 0; b < Dim; ++b) br[c * Dim + b] += w * vi * (rr[b] + q[which][b] - xp[b]);
              }
            });
          }
          for (int c = 0; c < Dim; ++c) vs(p, c) += vr[c];
          for (int i = 0; i < Dim * Dim; ++i) bs(p, i) += br[i];
        }
      });
}

template double MpmMethod<2>::capillary_dt() const;
template void MpmMethod<2>::resample_surface_particles();
template void MpmMethod<2>::p2g_surface(double, grid::NodeArray&);
template void MpmMethod<2>::g2p_surface(grid::NodeArray&, Kokkos::View<double**, Kokkos::LayoutRight>&, Kokkos::View<double**, Kokkos::LayoutRight>&);
template double MpmMethod<3>::capillary_dt() const;
template void MpmMethod<3>::resample_surface_particles();
template void MpmMethod<3>::p2g_surface(double, grid::NodeArray&);
template void MpmMethod<3>::g2p_surface(grid::NodeArray&, Kokkos::View<double**, Kokkos::LayoutRight>&, Kokkos::View<double**, Kokkos::LayoutRight>&);

}  // namespace meniscus::mpm
