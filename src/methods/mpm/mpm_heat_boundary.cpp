// The boundary quadrature of the heat solve: where, and with what measure, the Robin term h (T - T-bar)
// and the boundary flux b of each surface sample are integrated (Chen et al. 2021, Sec. 4.3.2 integrate
// them at the samples s_r with their areas |dA_r|).
//
// The samples lie on the union-of-spheres contour, 0.73 dx (2D) from the nearest particle centre, about
// half a cell outside the material. Taken there, both the point and the measure are off:
//  - The point. Nodes beyond the material are coupled to it by conduction only through the samples' own
//    share of their parent's volume, so the grid temperature interpolated at s_r is too low, and with it
//    the Robin loss: a disc of R = 19 dx at Bi = 1.5 kept 0.045 too much of its mean excess at t = 0.5 s
//    (now -0.002, test_mpm_heat.cpp, RobinDiscSeriesConservative).
//    The point y_r used instead is s_r moved along its normal n_r = dA_r / |dA_r| to the level of its
//    parent, y_r = s_r - ((s_r - x_p) . n_r) n_r, where the particles themselves carry the temperature
//    (the outermost particle centres, a quarter of the particle spacing inside the material).
//  - The measure. The contour is longer than the material boundary, by the offset delta_r = (s_r -
//    x_p) . n_r - l_p / 2 of the contour from the parent's outer face (l_p = (V_p J)^(1/Dim), the side of
//    its cell), times the curvature kappa_r: |dA| (1 - kappa_r delta_r)^(Dim-1) is the element's image on
//    the face (exact for a circle or a sphere). It is also longer by the zig-zag of the contour over the
//    particles: each parent's samples are scaled by |sum dA_r| / sum |dA_r| over its group, which removes
//    the zig-zag within the group and leaves a smooth surface unchanged (to second order in the angle the
//    group spans); not at corners, lone particles or one-particle sheets (see the kernel). Together: on a disc of R = 19 dx the sampled contour measures 2 pi R (1 + 3.9 %),
//    the corrected measure 2 pi R (1 + 0.7 %) (test_mpm_heat.cpp, FluxEnergyBalanceConservative).
// The curvature: a weighted least-squares fit over the sample's B-spline stencil of the nodal mean normal
// and mean position of the samples around each node, kappa_r = sum_i W_i (n_i - n_r) . (s_i - s_r) /
// sum_i W_i |s_i - s_r|^2 (W_i = N_i(s_r) times the node's sample area). On a circle or sphere of radius
// rho, n(s) = (s - c) / rho is affine in s, so n_i - n_r = (s_i - s_r) / rho and the fit gives 1 / rho
// exactly; elsewhere it is an average of the normal curvatures. The nodal moments are summed over the
// ranks before the fit, so the result does not depend on the decomposition.
// The heat is spread at y_r with the coupled nodes' weights N_i(y_r) / sum_coupled N_k(y_r), which sum to one
// over the nodes in the system, so the boundary heat enters them whole and the conservative transfer keeps
// its exact balance (for_each_coupled_node, mpm_heat.hpp).
#include <Kokkos_ScatterView.hpp>
#include <cstring>

#include "grid/bspline.hpp"
#include "grid/stencil_loop.hpp"
#include "methods/mpm/mpm_heat.hpp"
#include "solvers/petsc_check.hpp"

namespace meniscus::mpm {

using solvers::petsc_check;

template <int Dim>
void HeatSolver<Dim>::boundary_quadrature(const Particles& p, const Samples& s) {
  constexpr int M = 1 + 2 * Dim;  // per node: sum w |dA|, sum w |dA| n, sum w |dA| s
  if (!dm_shape_) {
    petsc_check(DMDACreateCompatibleDMDA(decomp_.dm(), M, &dm_shape_), "DMDACreateCompatibleDMDA(heat shape)");
    petsc_check(DMCreateGlobalVector(dm_shape_, &shape_global_), "DMCreateGlobalVector(heat shape)");
    petsc_check(DMCreateLocalVector(dm_shape_, &shape_local_), "DMCreateLocalVector(heat shape)");
  }
  const auto gbox = gbox_;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_.lower()[d];
  const double dx = decomp_.dx(), inv_dx = 1.0 / dx;
  auto pos = s.position, area = s.area;
  auto par = s.parent;
  auto x = p.x, vol = p.volume, J = p.J;
  const long ns = static_cast<long>(s.size);

  // Per parent: the vector and scalar sums of its samples' areas, over its samples in row order
  // (sample_groups), so that they do not depend on the threads; per node: the sample moments.
  Kokkos::View<double**, Kokkos::LayoutRight> group_area("heat_group_area", p.size, Dim + 1);
  {
    auto start = s.group_start, members = s.group_members;
    Kokkos::parallel_for(
        "heat::group_area", Kokkos::RangePolicy<>(0, static_cast<long>(p.size)), KOKKOS_LAMBDA(const long q) {
          for (int m = start(q); m < start(q + 1); ++m) {
            const int r = members(m);
            double a = 0;
            for (int d = 0; d < Dim; ++d) {
              a += area(r, d) * area(r, d);
              group_area(q, d) += area(r, d);
            }
            group_area(q, Dim) += kmath::sqrt(a);
          }
        });
  }
  Kokkos::View<double**, Kokkos::LayoutRight> moments("heat_shape_moments", gbox.size(), M);
  {
    auto sc = Kokkos::Experimental::create_scatter_view(moments);
    Kokkos::parallel_for(
        "heat::boundary_moments", Kokkos::RangePolicy<>(0, ns), KOKKOS_LAMBDA(const long r) {
          double a = 0, sp[Dim];
          for (int d = 0; d < Dim; ++d) {
            a += area(r, d) * area(r, d);
            sp[d] = pos(r, d);
          }
          a = kmath::sqrt(a);
          if (a <= 0) return;
          grid::Stencil<Dim> st;
          st.compute(sp, lower, inv_dx);
          auto acc = sc.access();
          grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, sp, [&](long idx, double w, const double*, const double*) {
            acc(idx, 0) += w * a;
            for (int d = 0; d < Dim; ++d) {
              acc(idx, 1 + d) += w * area(r, d);  // w |dA| n
              acc(idx, 1 + Dim + d) += w * a * sp[d];
            }
          });
        });
    Kokkos::Experimental::contribute(moments, sc);
  }
  // Sum the ghosted moments into the owners and bring the totals back to every ghost copy.
  {
    sum_ghosted_into_owners(dm_shape_,
                            Kokkos::View<const double*, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(moments.data(), moments.size()),
                            shape_local_, shape_global_, "heat shape");
    petsc_check(DMGlobalToLocalBegin(dm_shape_, shape_global_, INSERT_VALUES, shape_local_), "DMGlobalToLocalBegin(heat shape)");
    petsc_check(DMGlobalToLocalEnd(dm_shape_, shape_global_, INSERT_VALUES, shape_local_), "DMGlobalToLocalEnd(heat shape)");
    auto host = Kokkos::create_mirror_view(moments);
    const PetscScalar* b = nullptr;
    petsc_check(VecGetArrayRead(shape_local_, &b), "VecGetArrayRead(heat shape)");
    std::memcpy(host.data(), b, sizeof(double) * host.size());
    petsc_check(VecRestoreArrayRead(shape_local_, &b), "VecRestoreArrayRead(heat shape)");
    Kokkos::deep_copy(moments, host);
  }

  if (boundary_y_.extent(0) < s.size) {
    boundary_y_ = Kokkos::View<double**, Kokkos::LayoutRight>("heat_boundary_y", s.size, Dim);
    boundary_dA_ = Kokkos::View<double*>("heat_boundary_dA", s.size);
  }
  auto by = boundary_y_;
  auto bdA = boundary_dA_;
  Kokkos::parallel_for(
      "heat::boundary_points", Kokkos::RangePolicy<>(0, ns), KOKKOS_LAMBDA(const long r) {
        const int q = par(r);
        double a = 0, n[Dim], sp[Dim];
        for (int d = 0; d < Dim; ++d) {
          a += area(r, d) * area(r, d);
          sp[d] = pos(r, d);
        }
        a = kmath::sqrt(a);
        if (a <= 0) {
          for (int d = 0; d < Dim; ++d) by(r, d) = sp[d];
          bdA(r) = 0;
          return;
        }
        double depth = 0;
        for (int d = 0; d < Dim; ++d) {
          n[d] = area(r, d) / a;
          depth += (sp[d] - x(q, d)) * n[d];
        }
        for (int d = 0; d < Dim; ++d) by(r, d) = sp[d] - depth * n[d];
        // Curvature of the contour at s_r (least squares over the stencil's nodal moments).
        grid::Stencil<Dim> st;
        st.compute(sp, lower, inv_dx);
        double num = 0, den = 0;
        grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, sp, [&](long idx, double w, const double*, const double*) {
          const double wa = moments(idx, 0);
          if (wa <= 0) return;
          double dn_ds = 0, ds2 = 0;
          for (int d = 0; d < Dim; ++d) {
            const double ds = moments(idx, 1 + Dim + d) / wa - sp[d];
            dn_ds += (moments(idx, 1 + d) / wa - n[d]) * ds;
            ds2 += ds * ds;
          }
          num += w * wa * dn_ds;
          den += w * wa * ds2;
        });
        const double kappa = den > 0 ? num / den : 0.0;
        const double side = Dim == 2 ? kmath::sqrt(vol(q, 0) * J(q, 0)) : kmath::pow(vol(q, 0) * J(q, 0), 1.0 / 3.0);
        const double offset = depth - 0.5 * side > 0 ? depth - 0.5 * side : 0.0;
        double image = 1;
        for (int d = 1; d < Dim; ++d) image *= kmath::clamp(1 - kappa * offset, 0.5, 1.5);
        // The group's zig-zag: |sum dA| / sum |dA| over the parent's samples, taken where the group's
        // normals spread as the scallops of the union of spheres do (about 20 degrees: ratio >= cos 30
        // degrees), not at a corner (two faces at 90 degrees: 0.71), around a lone particle or across a sheet
        // one particle thick (about 0), whose faces all exchange heat; blended linearly in between.
        double vec = 0;
        for (int d = 0; d < Dim; ++d) vec += group_area(q, d) * group_area(q, d);
        const double ratio = group_area(q, Dim) > 0 ? kmath::sqrt(vec) / group_area(q, Dim) : 1.0;
        constexpr double smooth = 0.8660254037844386, corner = 0.7071067811865476;
        const double flat = ratio >= smooth  ? ratio
                            : ratio <= corner ? 1.0
                                              : 1.0 - (1.0 - smooth) * (ratio - corner) / (smooth - corner);
        bdA(r) = a * image * flat;
      });
}

template void HeatSolver<2>::boundary_quadrature(const Particles&, const Samples&);
template void HeatSolver<3>::boundary_quadrature(const Particles&, const Samples&);

}  // namespace meniscus::mpm
