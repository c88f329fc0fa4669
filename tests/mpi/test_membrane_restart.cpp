// Checkpoint and restart of the liquid-membrane method (Ruan et al. 2021): 16 steps straight equal
// 8 steps + checkpoint + restart + 8 steps, bit for bit at the same rank count, for the membrane
// (positions, velocities, vertex count after remeshing) and for every dof of every MAC-grid node;
// a checkpoint written by one rank count and read by another continues to the solver tolerance (2D
// and 3D);
// with a floating rigid body, the body's state continues bit for bit as well.
#include <gtest/gtest.h>
#include <petscsys.h>

#include <cmath>
#include <cstring>
#include <algorithm>
#include <memory>

#include "core/mpi_gather.hpp"
#include "io/checkpoint.hpp"
#include "methods/membrane/grid_state.hpp"
#include "methods/membrane/membrane_ruan.hpp"
#include "methods/membrane/membrane_ruan_3d.hpp"
#include "run/simulation.hpp"
#include "run_folder.hpp"
#include "scene.hpp"

using namespace meniscus;

namespace {

// The CI drop of inputs/membrane-drop-2d-ci.yaml with remeshing on (the vertex count changes).
const std::string kScene =
    "simulation: {dimension: 2, method: membrane-ruan2021, end_time: 1.0, name: membrane-restart}\n"
    "domain: {lower: [0, 0], upper: [1, 1], cell_size: 0.03125}\n"
    "membrane: {density: 1.0, surface_tension: 0.9, gravity: [0, 0], shape: drop, center: [0.5, 0.5],\n"
    "           radius: 0.3, perturbation: 0.1, remesh: true}\n"
    "diagnostics: {every: 4}\n";
constexpr long kSteps = 16, kSplit = 8;

struct Result {
  test::Gathered vertices;
  std::vector<double> grid;  // every node's row, ordered by (i, j)
};

// All ranks' grid rows on every rank, sorted by node.
std::vector<double> gather_grid(MPI_Comm comm, membrane::MembraneRuan& m) {
  const auto tables = m.grid_state();
  std::vector<double> all = allgather_vector(comm, tables.at(0).values);
  const int c = membrane::kGridStateColumns;
  const size_t n = all.size() / c;
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_pair(all[a * c + 1], all[a * c]) < std::make_pair(all[b * c + 1], all[b * c]);
  });
  std::vector<double> out;
  for (size_t r : order) out.insert(out.end(), all.begin() + r * c, all.begin() + (r + 1) * c);
  return out;
}

// A dense cylinder floating on the CI pool of inputs/membrane-float-cylinder-2d-ci.yaml, released
// 0.01 cm above its rest depth so that it moves (three-way solve, contact vertices, remeshing).
const std::string kBodyScene =
    "simulation: {dimension: 2, method: membrane-ruan2021, end_time: 1.0, name: membrane-body-restart}\n"
    "domain: {lower: [0, 0], upper: [1.0, 0.6], cell_size: 0.025}\n"
    "membrane: {shape: pool, level: 0.4, surface_tension: 0.9, gravity: [0, -9.8], remesh: true, rtol: 1.0e-8,\n"
    "           bodies: [{center: [0.5, 0.42], radius: 0.1, density: 3.0}]}\n"
    "diagnostics: {every: 4}\n";

struct BodyResult {
  Result all;
  std::vector<double> body;  // x, y, angle, vx, vy, omega of body 0
};

// Runs `scene` for `steps` steps (from a checkpoint when `restart` is set, writing one every `every`
// steps); M is the method's class, `grid` its grid state as one vector.
template <class M, class GridOf>
Result run_method(MPI_Comm comm, const std::string& dir, long steps, const std::string& restart, long every,
                  const std::string& scene, const GridOf& grid, std::vector<double>* body = nullptr) {
  auto d = test::deck_from_string(scene, {"checkpoint.every=" + std::to_string(every)});
  run::RunOptions opt;
  opt.output_dir = dir;
  opt.max_steps = steps;
  opt.restart_file = restart;
  run::Simulation sim(comm, d, opt);
  sim.run();
  auto& m = dynamic_cast<M&>(sim.method());
  if (body)
    for (const auto& [k, v] : m.state())
      if (k.rfind("body0_", 0) == 0) body->push_back(v);
  return {test::gather_particles(comm, m.particles()), grid(m)};
}

Result run_scene(MPI_Comm comm, const std::string& dir, long steps, const std::string& restart, long every,
                 const std::string& scene = kScene, std::vector<double>* body = nullptr) {
  return run_method<membrane::MembraneRuan>(
      comm, dir, steps, restart, every, scene, [&](membrane::MembraneRuan& m) { return gather_grid(comm, m); }, body);
}

// Membrane vertices (ids and every field) and grid rows of two runs are equal bit for bit.
void expect_same_bits(const Result& a, const Result& b) {
  EXPECT_EQ(a.vertices.id, b.vertices.id);
  auto worst = [](const std::vector<double>& x, const std::vector<double>& y) {
    double d = 0, s = 1e-300;
    for (size_t i = 0; i < x.size(); ++i) {
      d = std::max(d, std::abs(x[i] - y[i]));
      s = std::max(s, std::abs(x[i]));
    }
    return d / s;
  };
  for (const auto& [name, va] : a.vertices.field) {
    const auto& vb = b.vertices.field.at(name);
    ASSERT_EQ(va.size(), vb.size()) << name;
    EXPECT_EQ(std::memcmp(va.data(), vb.data(), va.size() * sizeof(double)), 0)
        << name << " differs, by up to " << worst(va, vb) << " relative";
  }
  ASSERT_EQ(a.grid.size(), b.grid.size());
  EXPECT_EQ(std::memcmp(a.grid.data(), b.grid.data(), a.grid.size() * sizeof(double)), 0)
      << "MAC grid differs, by up to " << worst(a.grid, b.grid) << " relative";
}

BodyResult run_body_scene(MPI_Comm comm, const std::string& dir, long steps, const std::string& restart, long every) {
  BodyResult r;
  r.all = run_scene(comm, dir, steps, restart, every, kBodyScene, &r.body);
  return r;
}

std::string chk(const std::string& dir, long step) {
  char name[32];
  std::snprintf(name, sizeof(name), "chk_%06ld.h5", step);
  return dir + "/checkpoints/" + name;
}

}  // namespace

// PETSc's GAMG setup adds the remote parts of its coarse operators in message arrival order, so
// from 4 ranks (a 2 x 2 grid split) two straight runs with the default pressure preconditioner
// already differ by about 1e-12 relative; there this test uses Jacobi on the pressure block, with
// which the whole step is reproducible, to check that the checkpoint holds the complete state.
// (The method's own assembly adds every rank's contributions in rank order.)
struct PressurePreconditioner {
  static constexpr const char* kKey = "-membrane_fieldsplit_p_pc_type";
  bool set = false;
  char previous[64] = {0};
  PetscBool had = PETSC_FALSE;
  PressurePreconditioner() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 4) return;
    PetscOptionsGetString(nullptr, nullptr, kKey, previous, sizeof(previous), &had);
    PetscOptionsSetValue(nullptr, kKey, "jacobi");
    set = true;
  }
  ~PressurePreconditioner() {
    if (!set) return;
    if (had) PetscOptionsSetValue(nullptr, kKey, previous);
    else PetscOptionsClearValue(nullptr, kKey);
  }
};

TEST(MembraneRestart, SameRankCountContinuesBitForBit) {
  PressurePreconditioner pc;
  test::SharedFolder straight(MPI_COMM_WORLD, "membrane-straight");
  test::SharedFolder split(MPI_COMM_WORLD, "membrane-split");
  const Result a = run_scene(MPI_COMM_WORLD, straight.path(), kSteps, "", 0);
  run_scene(MPI_COMM_WORLD, split.path(), kSplit, "", kSplit);
  const Result b = run_scene(MPI_COMM_WORLD, split.path(), kSteps, chk(split.path(), kSplit), 0);
  ASSERT_GT(a.vertices.id.size(), 100u);
  expect_same_bits(a, b);
  double vmax = 0;
  for (double v : a.vertices.field.at("velocity")) vmax = std::max(vmax, std::abs(v));
  EXPECT_GT(vmax, 0.05);  // the drop moves, so the continuation has something to reproduce
}

// Written by this job's ranks, read by one rank: the membrane agrees with the straight run to the
// solver tolerance (rank counts change the reduction order inside the solver only).
TEST(MembraneRestart, OtherRankCountAgreesToSolverTolerance) {
  MPI_Comm solo = test::rank0_comm(MPI_COMM_WORLD);
  test::SharedFolder straight(MPI_COMM_WORLD, "membrane-straight-n");
  test::SharedFolder split(MPI_COMM_WORLD, "membrane-split-n");
  const Result a = run_scene(MPI_COMM_WORLD, straight.path(), kSteps, "", 0);
  run_scene(MPI_COMM_WORLD, split.path(), kSplit, "", kSplit);
  if (solo != MPI_COMM_NULL) {
    const Result b = run_scene(solo, split.path(), kSteps, chk(split.path(), kSplit), 0);
    MPI_Comm_free(&solo);
    ASSERT_EQ(a.vertices.id, b.vertices.id);
    double dx = 0, dv = 0, vmax = 0;
    const auto &xa = a.vertices.field.at("position"), &xb = b.vertices.field.at("position");
    const auto &va = a.vertices.field.at("velocity"), &vb = b.vertices.field.at("velocity");
    for (size_t i = 0; i < xa.size(); ++i) {
      dx = std::max(dx, std::abs(xa[i] - xb[i]));
      dv = std::max(dv, std::abs(va[i] - vb[i]));
      vmax = std::max(vmax, std::abs(va[i]));
    }
    std::printf("membrane restart on another rank count: max |dx| %.3e cm, max |dv|/max|v| %.3e\n", dx, dv / vmax);
    EXPECT_LT(dx, 1e-10);
    EXPECT_LT(dv, 1e-7 * vmax);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// A floating rigid body (Ruan 2021 §4.3) continues bit for bit too: 12 steps straight equal 6 steps
// + checkpoint + restart + 6 steps, for the body's position, angle and velocities, the membrane
// and the grid.
TEST(MembraneRestart, FloatingBodyContinuesBitForBit) {
  PressurePreconditioner pc;
  test::SharedFolder straight(MPI_COMM_WORLD, "membrane-body-straight");
  test::SharedFolder split(MPI_COMM_WORLD, "membrane-body-split");
  const BodyResult a = run_body_scene(MPI_COMM_WORLD, straight.path(), 12, "", 0);
  run_body_scene(MPI_COMM_WORLD, split.path(), 6, "", 6);
  const BodyResult b = run_body_scene(MPI_COMM_WORLD, split.path(), 12, chk(split.path(), 6), 0);
  ASSERT_EQ(a.body.size(), 6u);
  ASSERT_EQ(b.body.size(), 6u);
  for (int q = 0; q < 6; ++q) EXPECT_EQ(a.body[q], b.body[q]) << "body state component " << q;
  EXPECT_GT(std::abs(a.body[4]), 1e-3);  // the body moves (v_y in cm/s), so the restart has something to reproduce
  EXPECT_LT(a.body[1], 0.42);           // it has moved down from its release height
  EXPECT_EQ(a.all.vertices.id, b.all.vertices.id);
  for (const auto& [name, va] : a.all.vertices.field) {
    const auto& vb = b.all.vertices.field.at(name);
    ASSERT_EQ(va.size(), vb.size()) << name;
    EXPECT_EQ(std::memcmp(va.data(), vb.data(), va.size() * sizeof(double)), 0) << name << " differs";
  }
  ASSERT_EQ(a.all.grid.size(), b.all.grid.size());
  EXPECT_EQ(std::memcmp(a.all.grid.data(), b.all.grid.data(), a.all.grid.size() * sizeof(double)), 0);
}

namespace {
// A 3D deck (the grid split over the ranks, the membrane replicated): 8 steps straight equal 4 steps + checkpoint +
// restart + 4 steps, bit for bit, for the vertices (their count changes with any remeshing), the
// triangles, every MAC-grid dof and the checkpoint's state (the bodies' included). Returns the
// straight run's largest vertex speed component.
double expect_3d_restart_bit_for_bit(const std::string& scene, const std::string& name) {
  auto grid = [](membrane::MembraneRuan3& m) {
    std::vector<double> all;
    for (const auto& t : m.grid_state()) all.insert(all.end(), t.values.begin(), t.values.end());
    for (const auto& [k, v] : m.state()) all.push_back(v);
    return all;
  };
  auto run3 = [&](const std::string& dir, long steps, const std::string& restart, long every) {
    return run_method<membrane::MembraneRuan3>(MPI_COMM_WORLD, dir, steps, restart, every, scene, grid);
  };
  test::SharedFolder straight(MPI_COMM_WORLD, name + "-straight");
  test::SharedFolder split(MPI_COMM_WORLD, name + "-split");
  const Result a = run3(straight.path(), 8, "", 0);
  run3(split.path(), 4, "", 4);
  const Result b = run3(split.path(), 8, chk(split.path(), 4), 0);
  EXPECT_GT(a.vertices.id.size(), 100u);
  expect_same_bits(a, b);
  double vmax = 0;
  for (double v : a.vertices.field.at("velocity")) vmax = std::max(vmax, std::abs(v));
  return vmax;
}

// The 3D drop with the l = 2 mode, the paper's vertex motion and remeshing (12^3 cells).
const std::string kDrop3D =
    "simulation: {dimension: 3, method: membrane-ruan2021, end_time: 1.0, name: membrane3d-restart}\n"
    "domain: {lower: [0, 0, 0], upper: [1, 1, 1], cell_size: 0.08333333333333333}\n"
    "membrane: {surface_tension: 0.9, gravity: [0, 0, 0], shape: drop, center: [0.5, 0.5, 0.5], radius: 0.3,\n"
    "           perturbation: 0.1, edge_over_dx: 0.7, rtol: 1.0e-8, dt_max: 4.0e-3, remesh: true}\n"
    "diagnostics: {every: 4}\n";
}  // namespace

TEST(MembraneRestart, Drop3DContinuesBitForBit) {
  EXPECT_GT(expect_3d_restart_bit_for_bit(kDrop3D, "membrane3d"), 0.05);  // the drop moves
}

namespace {
// The membrane of `r` in id order: field `name` (3 per vertex).
std::vector<double> by_id(const Result& r, const std::string& name) {
  const auto& f = r.vertices.field.at(name);
  std::vector<double> out(f.size());
  for (const auto& [id, row] : r.vertices.row_of())
    for (int d = 0; d < 3; ++d) out[3 * id + d] = f[3 * row + d];
  return out;
}
}  // namespace

// A 3D checkpoint written by 2 ranks (1 in a one-rank job) and read by this job's ranks and by one
// rank: both continuations agree with the job's uninterrupted run to the solver tolerance (MINRES
// rtol 1e-8; rank counts change only the reduction order inside the solver), with the same vertex
// count after remeshing. At 4 ranks this is written at 2, read at 4 and at 1.
TEST(MembraneRestart, Drop3DOtherRankCountsAgreeToSolverTolerance) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm writers, solo = test::rank0_comm(MPI_COMM_WORLD);
  MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &writers);
  auto grid = [](membrane::MembraneRuan3&) { return std::vector<double>{}; };
  auto run3 = [&](MPI_Comm comm, const std::string& dir, long steps, const std::string& restart, long every) {
    return run_method<membrane::MembraneRuan3>(comm, dir, steps, restart, every, kDrop3D, grid);
  };
  test::SharedFolder straight(MPI_COMM_WORLD, "membrane3d-straight-n");
  test::SharedFolder split(MPI_COMM_WORLD, "membrane3d-split-n");
  const Result a = run3(MPI_COMM_WORLD, straight.path(), 8, "", 0);
  if (writers != MPI_COMM_NULL) {
    run3(writers, split.path(), 4, "", 4);
    MPI_Comm_free(&writers);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  auto expect_agrees = [&](const Result& b, const char* readers) {
    ASSERT_EQ(a.vertices.id.size(), b.vertices.id.size()) << "read by " << readers;
    const auto xa = by_id(a, "position"), xb = by_id(b, "position");
    const auto va = by_id(a, "velocity"), vb = by_id(b, "velocity");
    double dx = 0, dv = 0, vmax = 0;
    for (size_t i = 0; i < xa.size(); ++i) {
      dx = std::max(dx, std::abs(xa[i] - xb[i]));
      dv = std::max(dv, std::abs(va[i] - vb[i]));
      vmax = std::max(vmax, std::abs(va[i]));
    }
    if (rank == 0)
      std::printf("3D restart written at %d, read by %s: max |dx| %.3e cm, max |dv|/max|v| %.3e\n",
                  std::min(test::ranks(MPI_COMM_WORLD), 2), readers, dx, dv / vmax);
    EXPECT_GT(vmax, 0.05);  // the drop moves
    // Measured: 5.0e-11 cm and 4.6e-9 (written at 2, read at 1), 1.1e-10 / 5.6e-9 (read at 4),
    // 1.5e-10 / 6.3e-9 (read at 1 in a 4-rank job).
    EXPECT_LT(dx, 1e-9) << "read by " << readers;
    EXPECT_LT(dv, 1e-7 * vmax) << "read by " << readers;
  };
  const std::string from = chk(split.path(), 4);
  const Result here = run3(MPI_COMM_WORLD, split.path(), 8, from, 0);
  expect_agrees(here, "this job's ranks");
  if (solo != MPI_COMM_NULL) {
    const Result alone = run3(solo, split.path(), 8, from, 0);
    MPI_Comm_free(&solo);
    expect_agrees(alone, "one rank");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// A sphere of density 0.7 released above its floating depth in a 3D pool (10^3 cells, sigma 20,
// settle window): the body's centre, quaternion and velocities come back from the checkpoint with
// the flow time, and the contact set from the restored membrane.
TEST(MembraneRestart, FloatingSphere3DContinuesBitForBit) {
  const std::string scene = test::membrane3d_deck(
      "membrane3d-sphere-restart", "0.1",
      "surface_tension: 20.0, gravity: [0, 0, -980], shape: pool, level: 0.5, rtol: 1.0e-8, dt_max: 2.0e-3, "
      "settle_damping: 5.0, settle_until: 0.01, bodies: [{center: [0.5, 0.5, 0.55], radius: 0.25, density: 0.7}]",
      "diagnostics: {every: 4}\n");
  EXPECT_GT(expect_3d_restart_bit_for_bit(scene, "membrane3d-sphere"), 0.05);  // the surface moves
}

// An articulated strider (a hull sphere and two rowing feet, links of it; the bodies of
// Membrane3dRanks.ArticulatedStriderMatchesTheSingleRankRun) on a 3D pool: the links' positions and stroke
// velocities are recomputed from the restored hull and flow time, so the continued run is the same bits.
TEST(MembraneRestart, Strider3DContinuesBitForBit) {
  const std::string feet =
      "{center: [0.44, 0.2, 0.57], radius: 0.1, density: 0.4, root: 0, stroke_centre: [0, -0.3, 0.05], "
      "stroke_amplitude: [0.06, 0, 0.05], stroke_frequency: 4.0}, "
      "{center: [0.44, 0.8, 0.57], radius: 0.1, density: 0.4, root: 0, stroke_centre: [0, 0.3, 0.05], "
      "stroke_amplitude: [0.06, 0, 0.05], stroke_frequency: 4.0}";
  const std::string scene = test::membrane3d_deck(
      "membrane3d-strider-restart", "0.1",
      "surface_tension: 72.0, gravity: [0, 0, -980], shape: pool, level: 0.5, rtol: 1.0e-8, dt_max: 2.0e-3, "
      "bodies: [{center: [0.5, 0.5, 0.52], radius: 0.2, density: 0.4, rotates: false}, " + feet + "]",
      "diagnostics: {every: 4}\n");
  EXPECT_GT(expect_3d_restart_bit_for_bit(scene, "membrane3d-strider"), 0.01);  // the surface moves
}
