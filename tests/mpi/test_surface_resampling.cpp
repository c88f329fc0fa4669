// Surface resampling (Chen et al. 2021, Sec. 4.1) across ranks: the samples, their area-weighted normals and
// their parents do not depend on the rank count (none lost or duplicated at rank boundaries), every
// sample's parent is its nearest interior particle, and the sampled length matches the contour.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/mpi_gather.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "methods/mpm/surface_resampling.hpp"
#include "scene.hpp"

using namespace meniscus;

namespace {
const char* kDisc = R"(
simulation: {dimension: 2, method: mpm, end_time: 1}
domain: {lower: [0, 0], upper: [1, 1], cell_size: 0.02, walls: none}
mpm: {gravity: [0, 0]}
materials: [{name: w, model: fluid, density: 1000, bulk_modulus: 1.0e4}]
sources:
  - {type: sphere, material: w, center: [0.47, 0.52], radius: 0.25, particles_per_cell: 4}
  - {type: box, material: w, lower: [0.1, 0.05], upper: [0.2, 0.12], particles_per_cell: 4}
)";

// (s_x, s_y, dA_x, dA_y, parent id) of every sample on every rank, sorted.
using Row = std::array<double, 5>;

std::vector<Row> resample(MPI_Comm comm, mpm::ResamplingOptions opt, double* length, double* sampled) {
  auto d = test::deck_from_string(kDisc);
  mpm::MpmMethod<2> m(MethodContext{comm, d.deck.root(), 2});
  const auto& dec = m.decomposition();
  particles::HaloPlan<2> halo;
  halo.build(m.particles(), dec, m.position_field(), mpm::resampling_halo_width<2>(dec.dx(), opt));
  auto smp = mpm::resample_surface<2>(m.particles(), m.position_field(), dec, halo, opt, 5);
  auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), smp.position);
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), smp.area);
  auto par = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), smp.parent);
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.position_field()));
  auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().id());
  std::vector<Row> mine;
  double sum = 0;
  const double reach = (opt.radius_factor + std::sqrt(2.0)) * dec.dx();
  for (size_t r = 0; r < smp.size(); ++r) {
    const int p = par(r);
    EXPECT_GE(p, 0);
    EXPECT_LT(p, static_cast<int>(m.particles().size())) << "the parent is owned by this rank";
    EXPECT_LE(std::hypot(x(p, 0) - s(r, 0), x(p, 1) - s(r, 1)), reach) << "the parent is near";
    mine.push_back({s(r, 0), s(r, 1), a(r, 0), a(r, 1), static_cast<double>(ids(p))});
    sum += std::hypot(a(r, 0), a(r, 1));
  }
  const double len = mpm::contour_measure<2>(comm, smp);
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  *length = len;
  *sampled = sum;
  auto all = allgather_vector(comm, mine);
  std::sort(all.begin(), all.end());
  return all;
}
}  // namespace

TEST(SurfaceResampling, SamplesDoNotDependOnTheRankCount) {
  mpm::ResamplingOptions opt;
  double len = 0, sum = 0;
  const auto world = resample(MPI_COMM_WORLD, opt, &len, &sum);
  ASSERT_GT(world.size(), 100u);
  for (size_t i = 1; i < world.size(); ++i) EXPECT_NE(world[i], world[i - 1]) << "no duplicated sample";
  MPI_Comm solo = test::rank0_comm(MPI_COMM_WORLD);
  if (solo != MPI_COMM_NULL) {
    double len1 = 0, sum1 = 0;
    const auto one = resample(solo, opt, &len1, &sum1);
    MPI_Comm_free(&solo);
    EXPECT_EQ(world, one) << "same samples, normals and parents on 1 rank";
    EXPECT_EQ(len, len1) << "the contour length is an exact sum (contour_measure): the same bits on 1 rank";
  }
}

TEST(SurfaceResampling, SamplesDoNotDependOnTheRankCountIn3D) {
  const char* deck = R"(
simulation: {dimension: 3, method: mpm, end_time: 1}
domain: {lower: [0, 0, 0], upper: [1, 1, 1], cell_size: 0.04, walls: none}
mpm: {gravity: [0, 0, 0]}
materials: [{name: w, model: fluid, density: 1000, bulk_modulus: 1.0e4}]
sources: [{type: sphere, material: w, center: [0.47, 0.52, 0.5], radius: 0.2, particles_per_cell: 8}]
)";
  auto run = [&](MPI_Comm comm, double* area) {
    auto d = test::deck_from_string(deck);
    mpm::MpmMethod<3> m(MethodContext{comm, d.deck.root(), 3});
    mpm::ResamplingOptions opt;
    opt.radius_factor = 0.867;
    opt.samples_per_dx = 2;
    particles::HaloPlan<3> halo;
    halo.build(m.particles(), m.decomposition(), m.position_field(),
               mpm::resampling_halo_width<3>(m.decomposition().dx(), opt));
    auto smp = mpm::resample_surface<3>(m.particles(), m.position_field(), m.decomposition(), halo, opt, 1);
    auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), smp.position);
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), smp.area);
    auto par = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), smp.parent);
    auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().id());
    std::vector<std::array<double, 7>> mine;
    for (size_t r = 0; r < smp.size(); ++r)
      mine.push_back({s(r, 0), s(r, 1), s(r, 2), a(r, 0), a(r, 1), a(r, 2), static_cast<double>(ids(par(r)))});
    *area = mpm::contour_measure<3>(comm, smp);
    auto all = allgather_vector(comm, mine);
    std::sort(all.begin(), all.end());
    return all;
  };
  double area = 0;
  const auto world = run(MPI_COMM_WORLD, &area);
  ASSERT_GT(world.size(), 100u);
  // The surface sits about r_ls - spacing/2 outside the particles; its area follows.
  const double R = 0.2 + 0.867 * 0.04 - 0.01;
  EXPECT_NEAR(area, 4 * M_PI * R * R, 0.05 * 4 * M_PI * R * R);
  MPI_Comm solo = test::rank0_comm(MPI_COMM_WORLD);
  if (solo != MPI_COMM_NULL) {
    double area1 = 0;
    const auto one = run(solo, &area1);
    MPI_Comm_free(&solo);
    EXPECT_EQ(world, one) << "same samples, normals and parents on 1 rank";
    EXPECT_EQ(area, area1) << "the contour area is an exact sum (contour_measure): the same bits on 1 rank";
  }
}

TEST(SurfaceResampling, SampledLengthMatchesTheContour) {
  mpm::ResamplingOptions opt;
  opt.weight = geometry::AreaWeight::Uniform;
  opt.samples_per_dx = 40;
  double len = 0, sum = 0;
  resample(MPI_COMM_WORLD, opt, &len, &sum);
  // The union-of-spheres contour sits about r_ls - spacing/2 outside the particles: compare the
  // contour itself with the two shapes' perimeters grown by that offset, then the samples with it.
  const double grow = 0.73 * 0.02 - 0.005;
  const double expected = 2 * M_PI * (0.25 + grow) + 2 * (0.1 + 0.07) + 2 * M_PI * grow;
  EXPECT_NEAR(len, expected, 0.03 * expected);
  EXPECT_NEAR(sum, len, 0.02 * len);
}
