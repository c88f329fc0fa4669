#pragma once
// Shape measures of a pbd-xing2022 liquid body, taken on the rows of the last constraint sweep
// (predicted positions, fan areas, surface labels and colour-field normals; owned rows, summed over
// ranks):
//  - surface area A = (1/3) sum_i C^A_i (every consistent triangle lies in three fans);
//  - volume V = sum_i m / rho_i;
//  - enclosed volume V_s = (1/3) sum_surface (x_i - c) . n_i A_i / 3 (divergence theorem on the fan
//    surface through the surface particles' centres);
//  - Wadell sphericity psi = pi^(1/3) (6 V_s)^(2/3) / A of that same surface (1 for a sphere, 0.806
//    for a cube);
//  - the mean radius of the surface particles about the centroid c and its relative spread;
//  - the gyration volume V_g = (4 pi / 3) (5/3 R_g^2)^(3/2), R_g^2 = mean |x - c|^2 + s^2 / 4 (every
//    particle stands for a lattice cell of side s = 2r, whose own R_g^2 is s^2 / 4): the volume of a
//    uniform ball with the body's radius of gyration. It needs no surface classification, and for a
//    ball of particles at rest spacing it is the particles' cell volume N s^3 (within a few 0.1 %).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/cubic_spline.hpp"
#include "methods/pbd/pbd_xing.hpp"

namespace meniscus::test {

struct PbdShape {
  double particles = 0, surface = 0;
  double area = 0, volume = 0, enclosed = 0, sphericity = 0;
  double mean_radius = 0, radius_spread = 0;  // surface particles: mean |x - c|, (max - min) / mean
  double gyration_volume = 0;
  double interior_density = 0;               // mean rho / rho0 of the particles with no surface particle within h
  double centre[3] = {0, 0, 0};
};

inline PbdShape pbd_shape(pbd::PbdXing& m) {
  PbdShape s;
  const int n = m.owned();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.total_positions());
  auto rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.density());
  auto area = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.fan_area());
  auto label = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.surface_label());
  auto normal = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.normals());
  const auto& lists = m.neighbor_lists();
  auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lists.offset);
  auto idx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lists.index);
  double sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // count, cx, cy, cz, area, volume, interior rho, interior count
  for (int i = 0; i < n; ++i) {
    sum[0] += 1;
    for (int d = 0; d < 3; ++d) sum[1 + d] += x(i, d);
    sum[4] += area(i);
    sum[5] += m.mass() / rho(i);
    bool deep = !label(i);
    for (int k = off(i); k < off(i + 1) && deep; ++k) deep = !label(idx(k));
    if (deep) {
      sum[6] += rho(i) / m.params().rest_density;
      sum[7] += 1;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, sum, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  s.particles = sum[0];
  for (int d = 0; d < 3; ++d) s.centre[d] = sum[1 + d] / sum[0];
  s.area = sum[4] / 3;
  s.volume = sum[5];
  s.interior_density = sum[7] > 0 ? sum[6] / sum[7] : 0;
  double acc[4] = {0, 0, 0, 0};  // surface count, enclosed volume, radius sum, sum |x - c|^2
  double rmin = 1e300, rmax = 0;
  for (int i = 0; i < n; ++i) {
    double r2 = 0;
    for (int d = 0; d < 3; ++d) r2 += (x(i, d) - s.centre[d]) * (x(i, d) - s.centre[d]);
    acc[3] += r2;
    if (!label(i)) continue;
    double r[3], rn = 0, dot = 0;
    for (int d = 0; d < 3; ++d) {
      r[d] = x(i, d) - s.centre[d];
      rn += r[d] * r[d];
      dot += r[d] * normal(i, d);
    }
    rn = std::sqrt(rn);
    acc[0] += 1;
    acc[1] += dot * area(i) / 9;
    acc[2] += rn;
    rmin = std::min(rmin, rn);
    rmax = std::max(rmax, rn);
  }
  MPI_Allreduce(MPI_IN_PLACE, acc, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &rmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &rmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  s.surface = acc[0];
  const double cell = 2 * m.params().particle_radius;
  const double rg2 = acc[3] / s.particles + cell * cell / 4;
  s.gyration_volume = 4 * M_PI / 3 * std::pow(5.0 / 3.0 * rg2, 1.5);
  s.enclosed = acc[1];
  s.mean_radius = acc[0] > 0 ? acc[2] / acc[0] : 0;
  s.radius_spread = s.mean_radius > 0 ? (rmax - rmin) / s.mean_radius : 0;
  s.sphericity = s.area > 0 && s.enclosed > 0 ? std::cbrt(M_PI) * std::pow(6 * s.enclosed, 2.0 / 3.0) / s.area : 0;
  return s;
}

// Volume of the region where the colour field c(x) = sum_j (m / rho0) W(x - x_j) is at least 1/2
// (the usual SPH liquid body; Mueller et al. 2003), counted on voxels of side `voxel`. Unlike
// sum m / rho it does not count a surface particle's kernel deficit as volume, and unlike the gyration
// volume it needs no round body: the integral of c is N m / rho0 whatever the arrangement, so the
// volume of {c >= 1/2} drops where the particles pack closer. On small bodies the kernel blur makes it
// biased and less sensitive: for the lattice ball of 552 particles (radius 5 spacings) it is 0.918 N
// (2r)^3, and shrinking that ball by 3 % in radius (volume 0.913) lowers it to 0.961 only; compare it
// between states of the same body. Host-side; gathers every rank's particles (tests only).
inline double colour_volume(pbd::PbdXing& m, double voxel) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.total_positions());
  std::vector<double> mine(3 * static_cast<size_t>(m.owned()));
  for (int i = 0; i < m.owned(); ++i)
    for (int d = 0; d < 3; ++d) mine[3 * i + d] = x(i, d);
  int size = 1, count = static_cast<int>(mine.size());
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(static_cast<size_t>(displs[size - 1] + counts[size - 1]));
  MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  const size_t n = all.size() / 3;
  const double h = m.params().support(), f = m.mass() / m.params().rest_density;
  const kernels::CubicSpline<3> w(h);
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], all[3 * i + d] - h);
      hi[d] = std::max(hi[d], all[3 * i + d] + h);
    }
  // Cells of side h hold the particles; a voxel centre sums the 27 cells around its own.
  int nc[3];
  for (int d = 0; d < 3; ++d) nc[d] = static_cast<int>(std::ceil((hi[d] - lo[d]) / h)) + 1;
  std::vector<std::vector<int>> cells(static_cast<size_t>(nc[0]) * nc[1] * nc[2]);
  auto cell_of = [&](const double* p, int* c) {
    for (int d = 0; d < 3; ++d) c[d] = std::min(nc[d] - 1, std::max(0, static_cast<int>((p[d] - lo[d]) / h)));
  };
  for (size_t i = 0; i < n; ++i) {
    int c[3];
    cell_of(&all[3 * i], c);
    cells[(static_cast<size_t>(c[2]) * nc[1] + c[1]) * nc[0] + c[0]].push_back(static_cast<int>(i));
  }
  int nv[3];
  for (int d = 0; d < 3; ++d) nv[d] = static_cast<int>(std::ceil((hi[d] - lo[d]) / voxel));
  long inside = 0;
  for (int k = 0; k < nv[2]; ++k)
    for (int j = 0; j < nv[1]; ++j)
      for (int i = 0; i < nv[0]; ++i) {
        const double p[3] = {lo[0] + (i + 0.5) * voxel, lo[1] + (j + 0.5) * voxel, lo[2] + (k + 0.5) * voxel};
        int c[3];
        cell_of(p, c);
        double sum = 0;
        for (int cz = std::max(0, c[2] - 1); cz <= std::min(nc[2] - 1, c[2] + 1); ++cz)
          for (int cy = std::max(0, c[1] - 1); cy <= std::min(nc[1] - 1, c[1] + 1); ++cy)
            for (int cx = std::max(0, c[0] - 1); cx <= std::min(nc[0] - 1, c[0] + 1); ++cx)
              for (int q : cells[(static_cast<size_t>(cz) * nc[1] + cy) * nc[0] + cx]) {
                double r2 = 0;
                for (int d = 0; d < 3; ++d) r2 += (p[d] - all[3 * q + d]) * (p[d] - all[3 * q + d]);
                if (r2 < h * h) sum += f * w.value(std::sqrt(r2));
              }
        if (sum >= 0.5) ++inside;
      }
  return static_cast<double>(inside) * voxel * voxel * voxel;
}

}  // namespace meniscus::test
