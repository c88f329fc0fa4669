// The 3D membrane split across ranks (triangle_membrane.hpp's layout): each rank owns the vertices
// of one slab of x, holds the triangles that touch them and ghost copies of their other vertices.
// After the owned vertices move, one halo update makes the ghosts current; the owned rows of the
// capillary force (Ruan et al. 2021 Eqs. 9-10) and of K_c u (Eq. 11), and the area and volume summed
// over ranks, then match the whole membrane on one rank to round-off.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "methods/membrane/triangle_membrane.hpp"

namespace mm = meniscus::membrane;

namespace {
// The displacement applied to every vertex, a smooth function of the original position.
std::array<double, 3> moved(const std::array<double, 3>& p) {
  return {p[0] + 0.05 * std::sin(3 * p[1]), p[1] + 0.04 * std::cos(2 * p[2]), p[2] + 0.03 * p[0] * p[1]};
}
}  // namespace

TEST(Membrane3dRanks, HaloUpdateGivesTheWholeMembranesForcesAndSums) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double sigma = 72.8;
  const auto mesh = mm::make_icosphere({0.0, 0.0, 0.0}, 0.5, 3);
  const long nv = static_cast<long>(mesh.vertices.size());
  std::vector<int> owner(nv);
  for (long g = 0; g < nv; ++g)
    owner[g] = std::min(size - 1, static_cast<int>((mesh.vertices[g][0] + 0.5) / 1.0 * size));
  auto part = mm::local_triangle_membrane(mesh, owner, rank);
  const auto halo = mm::make_membrane_halo(part, MPI_COMM_WORLD);

  // Move the owned vertices only; the ghosts are stale until the update.
  auto gid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), part.gid);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), part.x);
  for (long i = 0; i < part.owned_vertices; ++i) {
    const auto p = moved(mesh.vertices[gid(i)]);
    for (int d = 0; d < 3; ++d) hx(i, d) = p[d];
  }
  Kokkos::deep_copy(part.x, hx);
  mm::update_ghosts(halo, part.x, MPI_COMM_WORLD);
  Kokkos::deep_copy(hx, part.x);
  double ghost_err = 0;
  for (long i = part.owned_vertices; i < part.vertices(); ++i) {
    const auto p = moved(mesh.vertices[gid(i)]);
    for (int d = 0; d < 3; ++d) ghost_err = std::max(ghost_err, std::abs(hx(i, d) - p[d]));
  }

  auto whole_mesh = mesh;
  for (auto& p : whole_mesh.vertices) p = moved(p);
  auto whole = mm::make_triangle_membrane(whole_mesh);
  auto rows = [&](const mm::TriangleMembrane& m, mm::Vec3Array& f, mm::Vec3Array& ku) {
    mm::CornerArray w("w", m.triangles());
    mm::capillary_force(m, sigma, f);
    mm::cotangent_weights(m, sigma, w);
    mm::apply_cotangent_stiffness(m, w, m.x, ku);  // u = x: K_c x = -f on owned rows
  };
  mm::Vec3Array fp("fp", part.vertices()), kp("kp", part.vertices());
  mm::Vec3Array fw("fw", whole.vertices()), kw("kw", whole.vertices());
  rows(part, fp, kp);
  rows(whole, fw, kw);
  auto hfp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fp);
  auto hkp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), kp);
  auto hfw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fw);
  auto hkw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), kw);
  double ferr = 0, kerr = 0, fscale = 0, kscale = 0;
  for (long i = 0; i < whole.vertices(); ++i)
    for (int d = 0; d < 3; ++d) {
      fscale = std::max(fscale, std::abs(hfw(i, d)));
      kscale = std::max(kscale, std::abs(hkw(i, d)));
    }
  for (long i = 0; i < part.owned_vertices; ++i)
    for (int d = 0; d < 3; ++d) {
      ferr = std::max(ferr, std::abs(hfp(i, d) - hfw(gid(i), d)));
      kerr = std::max(kerr, std::abs(hkp(i, d) - hkw(gid(i), d)));
    }
  double local[4] = {mm::total_area(part), mm::enclosed_volume(part, true, 0.0), ferr / fscale, kerr / kscale};
  double sums[2], worst[2];
  long owned = part.owned_vertices, owned_sum = 0;
  MPI_Allreduce(local, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(local + 2, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&owned, &owned_sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &ghost_err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double a0 = mm::total_area(whole), v0 = mm::enclosed_volume(whole, true, 0.0);
  if (rank == 0)
    std::printf("membrane3d ranks %d: ghosts %.1e, force %.1e, K_c x %.1e, area %.1e, volume %.1e\n", size, ghost_err,
                worst[0], worst[1], std::abs(sums[0] - a0) / a0, std::abs(sums[1] - v0) / v0);
  EXPECT_EQ(owned_sum, nv);
  EXPECT_EQ(ghost_err, 0.0);
  EXPECT_LT(worst[0], 1e-13);
  EXPECT_LT(worst[1], 1e-13);
  EXPECT_LT(std::abs(sums[0] - a0) / a0, 1e-14);
  EXPECT_LT(std::abs(sums[1] - v0) / v0, 1e-14);
  if (size > 1) EXPECT_GT(part.vertices(), part.owned_vertices);
}
