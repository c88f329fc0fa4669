// The rigid bodies of the membrane method (Ruan et al. 2021 §4.3) are their own ParaView dataset:
// DIR/bodies_NNNNNN.h5 + .xdmf per output and the collection DIR/bodies.xdmf, beside the membrane's
// particles series. The file written at a step holds the state the method has after that step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "io/h5_file.hpp"
#include "methods/membrane/membrane_ruan.hpp"
#include "methods/membrane/membrane_ruan_3d.hpp"
#include "run/simulation.hpp"
#include "run_folder.hpp"
#include "scene.hpp"

using namespace meniscus;

namespace {
// The scene run for `steps` steps with its output in `dir`.
std::unique_ptr<run::Simulation> run_scene(const std::string& scene, const std::string& dir, long steps) {
  return test::run_for_steps(test::deck_from_string(scene, {}), dir, steps);
}


const std::string kScene =
    "simulation: {dimension: 2, method: membrane-ruan2021, end_time: 1.0, name: membrane-bodies-output}\n"
    "domain: {lower: [0, 0], upper: [1.0, 0.6], cell_size: 0.025}\n"
    "membrane: {shape: pool, level: 0.4, surface_tension: 0.9, gravity: [0, -9.8], rtol: 1.0e-8,\n"
    "           bodies: [{center: [0.3, 0.42], radius: 0.1, density: 3.0},\n"
    "                    {center: [0.7, 0.40], radius: 0.08, density: 2.0, velocity: [0.5, 0], fixed: true}]}\n"
    "output: {every: 3}\n";
}  // namespace

TEST(MembraneBodiesOutput, BodiesAreTheirOwnSeriesWithTheMethodsState) {
  test::SharedFolder dir(MPI_COMM_WORLD, "membrane-bodies-output");
  const auto sim = run_scene(kScene, dir.path(), 6);
  auto& m = dynamic_cast<membrane::MembraneRuan&>(sim->method());
  const auto& bodies = m.flow().bodies();
  ASSERT_EQ(bodies.size(), 2u);

  io::H5File f = io::H5File::open(MPI_COMM_WORLD, dir.path() + "/bodies_000006.h5");
  ASSERT_EQ(f.shape("position"), (std::vector<hsize_t>{2, 3}));
  double pos[6], vel[6], radius[2], density[2];
  f.read_rows("position", pos, 0, 2, 3);
  f.read_rows("velocity", vel, 0, 2, 3);
  f.read_rows("radius", radius, 0, 2, 0);
  f.read_rows("density", density, 0, 2, 0);
  f.close();
  for (int b = 0; b < 2; ++b) {
    for (int q = 0; q < 2; ++q) {
      EXPECT_EQ(pos[3 * b + q], bodies[b].c[q]) << "body " << b;
      EXPECT_EQ(vel[3 * b + q], bodies[b].v[q]) << "body " << b;
    }
    EXPECT_EQ(pos[3 * b + 2], 0.0);
    EXPECT_EQ(radius[b], bodies[b].radius);
    EXPECT_EQ(density[b], bodies[b].density);
  }
  // The kinematic body moved 6 steps at 0.5 cm/s; the free one fell (it starts above its rest depth).
  EXPECT_GT(pos[3], 0.7);
  EXPECT_LT(pos[1], 0.42);
  EXPECT_NE(vel[1], 0.0);

  // The collection lists the outputs at steps 0, 3 and 6, each a document naming its HDF5 file.
  const std::string text = test::read_text_file(dir.path() + "/bodies.xdmf");
  for (const char* step : {"bodies_000000.xdmf", "bodies_000003.xdmf", "bodies_000006.xdmf"})
    EXPECT_NE(text.find(step), std::string::npos) << step;
  const std::string dtext = test::read_text_file(dir.path() + "/bodies_000006.xdmf");
  EXPECT_NE(dtext.find("bodies_000006.h5"), std::string::npos);
  EXPECT_NE(dtext.find("angular_velocity"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/particles.xdmf"));  // the membrane, its own series
}

// The 2D membrane is its own polyline dataset: DIR/membrane_NNNNNN.h5 + .xdmf (a Polyline topology of
// two-node segments, z = 0) and the collection DIR/membrane.xdmf, holding the method's membrane after
// that step (replicated on every rank, so each rank compares with its own copy).
TEST(MembraneBodiesOutput, Membrane2DIsAPolylineSeries) {
  test::SharedFolder dir(MPI_COMM_WORLD, "membrane2d-output");
  const auto sim = run_scene(kScene, dir.path(), 6);
  auto& m = dynamic_cast<membrane::MembraneRuan&>(sim->method());
  const auto& line = m.flow().membrane();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), line.x);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), line.v);
  auto seg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), line.seg);
  const hsize_t n = static_cast<hsize_t>(line.vertices()), s = static_cast<hsize_t>(line.segments());
  ASSERT_GT(s, 20u);
  io::H5File f = io::H5File::open(MPI_COMM_WORLD, dir.path() + "/membrane_000006.h5");
  ASSERT_EQ(f.shape("segments"), (std::vector<hsize_t>{s, 2}));
  ASSERT_EQ(f.shape("position"), (std::vector<hsize_t>{n, 3}));
  std::vector<int64_t> cells(2 * s);
  std::vector<double> pos(3 * n), vel(3 * n);
  f.read_rows("segments", cells.data(), 0, s, 2);
  f.read_rows("position", pos.data(), 0, n, 3);
  f.read_rows("velocity", vel.data(), 0, n, 3);
  f.close();
  for (hsize_t e = 0; e < s; ++e)
    for (int c = 0; c < 2; ++c) ASSERT_EQ(cells[2 * e + c], seg(e, c)) << "segment " << e;
  double vmax = 0;
  for (hsize_t i = 0; i < n; ++i) {
    for (int d = 0; d < 2; ++d) {
      EXPECT_EQ(pos[3 * i + d], x(i, d)) << "vertex " << i;
      EXPECT_EQ(vel[3 * i + d], v(i, d)) << "vertex " << i;
      vmax = std::max(vmax, std::abs(vel[3 * i + d]));
    }
    EXPECT_EQ(pos[3 * i + 2], 0.0);
  }
  EXPECT_GT(vmax, 0.0);  // the state after six steps (the free disc falls into the pool)
  const std::string text = test::read_text_file(dir.path() + "/membrane.xdmf");
  for (const char* step : {"membrane_000000.xdmf", "membrane_000003.xdmf", "membrane_000006.xdmf"})
    EXPECT_NE(text.find(step), std::string::npos) << step;
  const std::string dtext = test::read_text_file(dir.path() + "/membrane_000006.xdmf");
  EXPECT_NE(dtext.find("TopologyType=\"Polyline\" NumberOfElements=\"" + std::to_string(s) + "\" NodesPerElement=\"2\""),
            std::string::npos);
  EXPECT_NE(dtext.find("membrane_000006.h5:/segments"), std::string::npos);
}

// The 2D bodies' outlines are their own polyline series: DIR/body_outlines_NNNNNN.h5 + .xdmf and the
// collection DIR/body_outlines.xdmf, one closed polyline per body whose vertices lie on the body after
// that step and move with its point velocities, so that ParaView draws boxes, ellipses and polygons as
// they are.
TEST(MembraneBodiesOutput, BodyOutlines2DAreAPolylineSeries) {
  test::SharedFolder dir(MPI_COMM_WORLD, "body-outlines-output");
  const auto sim = run_scene(kScene, dir.path(), 6);
  auto& m = dynamic_cast<membrane::MembraneRuan&>(sim->method());
  const auto& bodies = m.flow().bodies();
  io::H5File f = io::H5File::open(MPI_COMM_WORLD, dir.path() + "/body_outlines_000006.h5");
  const auto shape = f.shape("position");
  const auto segs = f.shape("segments");
  ASSERT_EQ(segs[0], shape[0]);  // closed rings: one segment per vertex
  const hsize_t n = shape[0];
  std::vector<double> pos(3 * n), vel(3 * n);
  std::vector<int64_t> cells(2 * n);
  f.read_rows("position", pos.data(), 0, n, 3);
  f.read_rows("velocity", vel.data(), 0, n, 3);
  f.read_rows("segments", cells.data(), 0, n, 2);
  f.close();
  // Each vertex lies on one of the bodies and moves with that body's point velocity.
  long on[2] = {0, 0};
  for (hsize_t i = 0; i < n; ++i) {
    const double x[2] = {pos[3 * i], pos[3 * i + 1]};
    int owner = -1;
    for (int b = 0; b < 2; ++b)
      if (std::abs(bodies[b].phi(x)) < 1e-12) owner = b;
    ASSERT_GE(owner, 0) << "vertex " << i;
    ++on[owner];
    for (int d = 0; d < 2; ++d) EXPECT_NEAR(vel[3 * i + d], bodies[owner].point_velocity(d, x), 1e-14);
    EXPECT_EQ(pos[3 * i + 2], 0.0);
    EXPECT_NE(cells[2 * i], cells[2 * i + 1]);
  }
  EXPECT_GE(on[0], 16);
  EXPECT_GE(on[1], 16);
  const std::string text = test::read_text_file(dir.path() + "/body_outlines.xdmf");
  for (const char* step : {"body_outlines_000000.xdmf", "body_outlines_000003.xdmf", "body_outlines_000006.xdmf"})
    EXPECT_NE(text.find(step), std::string::npos) << step;
  const std::string dtext = test::read_text_file(dir.path() + "/body_outlines_000006.xdmf");
  EXPECT_NE(dtext.find("Name=\"body_outlines\""), std::string::npos);
  EXPECT_NE(dtext.find("TopologyType=\"Polyline\""), std::string::npos);
}

// The 3D membrane (written by rank 0, which holds it as the method's particles) is its own surface dataset: DIR/membrane_NNNNNN.h5 + .xdmf (a Triangle
// topology) and the collection DIR/membrane.xdmf; the file of a step holds the method's membrane.
TEST(MembraneBodiesOutput, Membrane3DIsATriangleSurfaceSeries) {
  test::SharedFolder dir(MPI_COMM_WORLD, "membrane3d-output");
  const auto sim = run_scene(
      "simulation: {dimension: 3, method: membrane-ruan2021, end_time: 1.0, name: membrane3d-output}\n"
      "domain: {lower: [0, 0, 0], upper: [1, 1, 1], cell_size: 0.08333333333333333}\n"
      "membrane: {surface_tension: 0.9, gravity: [0, 0, 0], shape: drop, center: [0.5, 0.5, 0.5], radius: 0.3,\n"
      "           perturbation: 0.1, edge_over_dx: 0.7, rtol: 1.0e-8, dt_max: 4.0e-3}\n"
      "output: {every: 1, grid: true}\n",
      dir.path(), 2);
  auto& m = dynamic_cast<membrane::MembraneRuan3&>(sim->method());
  auto mesh = m.surface_mesh();  // rank 0's; the other ranks take its copy
  long sizes[3] = {static_cast<long>(mesh.position.size()), static_cast<long>(mesh.velocity.size()),
                   static_cast<long>(mesh.cells.size())};
  MPI_Bcast(sizes, 3, MPI_LONG, 0, MPI_COMM_WORLD);
  mesh.position.resize(sizes[0]);
  mesh.velocity.resize(sizes[1]);
  mesh.cells.resize(sizes[2]);
  MPI_Bcast(mesh.position.data(), static_cast<int>(sizes[0]), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(mesh.velocity.data(), static_cast<int>(sizes[1]), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(mesh.cells.data(), static_cast<int>(sizes[2]), MPI_INT64_T, 0, MPI_COMM_WORLD);
  const hsize_t n = mesh.position.size() / 3, t = mesh.cells.size() / 3;
  ASSERT_GT(t, 1000u);
  io::H5File f = io::H5File::open(MPI_COMM_WORLD, dir.path() + "/membrane_000002.h5");
  ASSERT_EQ(f.shape("triangles"), (std::vector<hsize_t>{t, 3}));
  ASSERT_EQ(f.shape("position"), (std::vector<hsize_t>{n, 3}));
  std::vector<int64_t> tri(3 * t);
  std::vector<double> pos(3 * n), vel(3 * n);
  f.read_rows("triangles", tri.data(), 0, t, 3);
  f.read_rows("position", pos.data(), 0, n, 3);
  f.read_rows("velocity", vel.data(), 0, n, 3);
  f.close();
  EXPECT_EQ(tri, mesh.cells);
  EXPECT_EQ(pos, mesh.position);
  EXPECT_EQ(vel, mesh.velocity);
  double vmax = 0;
  for (double v : vel) vmax = std::max(vmax, std::abs(v));
  EXPECT_GT(vmax, 0.0);  // the state after two steps, not the initial one
  const std::string text = test::read_text_file(dir.path() + "/membrane.xdmf");
  for (const char* step : {"membrane_000000.xdmf", "membrane_000001.xdmf", "membrane_000002.xdmf"})
    EXPECT_NE(text.find(step), std::string::npos) << step;
  const std::string dtext = test::read_text_file(dir.path() + "/membrane_000002.xdmf");
  EXPECT_NE(dtext.find("TopologyType=\"Triangle\" NumberOfElements=\"" + std::to_string(t) + "\""), std::string::npos);
  EXPECT_NE(dtext.find("membrane_000002.h5:/triangles"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/grid_000002.h5"));  // the 3D grid output
}

// 3D bodies (spheres): the bodies series holds the centre, the velocity, the angular
// velocity as a vector and the orientation as a rotation matrix (a Tensor), as the method has them.
TEST(MembraneBodiesOutput, Spheres3DAreABodiesSeriesWithOrientation) {
  test::SharedFolder dir(MPI_COMM_WORLD, "membrane3d-bodies-output");
  const auto sim = run_scene(
      test::membrane3d_deck("membrane3d-bodies-output", "0.125",
                            "surface_tension: 0.0, shape: pool, level: 0.4, rtol: 1.0e-8, dt_max: 2.0e-3, "
                            "bodies: [{center: [0.5, 0.5, 0.45], radius: 0.2, density: 0.6}]",
                            "output: {every: 2}\n"),
      dir.path(), 2);
  auto& m = dynamic_cast<membrane::MembraneRuan3&>(sim->method());
  const auto& b = m.flow().bodies().at(0);
  io::H5File f = io::H5File::open(MPI_COMM_WORLD, dir.path() + "/bodies_000002.h5");
  ASSERT_EQ(f.shape("angular_velocity"), (std::vector<hsize_t>{1, 3}));
  ASSERT_EQ(f.shape("orientation"), (std::vector<hsize_t>{1, 9}));
  double pos[3], vel[3], spin[3], rot[9], expected[9];
  f.read_rows("position", pos, 0, 1, 3);
  f.read_rows("velocity", vel, 0, 1, 3);
  f.read_rows("angular_velocity", spin, 0, 1, 3);
  f.read_rows("orientation", rot, 0, 1, 9);
  f.close();
  b.rotation(expected);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(pos[d], b.c[d]);
    EXPECT_EQ(vel[d], b.v[d]);
    EXPECT_EQ(spin[d], b.omega[d]);
  }
  for (int q = 0; q < 9; ++q) EXPECT_EQ(rot[q], expected[q]);
  EXPECT_LT(vel[2], 0.0);  // released above its floating depth, the sphere moves down
  const std::string dtext = test::read_text_file(dir.path() + "/bodies_000002.xdmf");
  EXPECT_NE(dtext.find("orientation"), std::string::npos);
}
