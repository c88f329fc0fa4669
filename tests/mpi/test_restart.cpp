// Checkpoint and restart: N steps straight equal k steps + checkpoint + restart + N-k steps, bit for
// bit at the same rank count and to 1e-12 at another; damaged, foreign and mismatched checkpoints
// are InputErrors on every rank (no hang); old checkpoints are pruned, .tmp leftovers and damaged
// files are skipped by `latest`; redistribution delivers every particle to the rank asked for.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "validation_support.hpp"
#include "core/error.hpp"
#include "io/checkpoint.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "particles/redistribute.hpp"
#include "run/simulation.hpp"
#include "run_folder.hpp"
#include "scene.hpp"

using namespace meniscus;
namespace fs = std::filesystem;

namespace {

// Water column and a flying elastic sphere: fluid and solid fields, migration between ranks, and a
// cell sort (every 20 steps) after the restart point.
const std::string kScene = test::kWaterAndBlockScene + "diagnostics: {every: 4}\n";
constexpr long kSteps = 36, kSplit = 12;
constexpr double kCell = 0.005;

struct Result {
  std::vector<std::vector<std::string>> rows;  // diagnostics.csv without wall_s
  test::Gathered particles;                    // rank order
  std::vector<int> rank_counts;
};

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  int wall = -1;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, ',')) cells.push_back(c);
    if (wall < 0)
      for (size_t i = 0; i < cells.size(); ++i)
        if (cells[i] == "wall_s") wall = static_cast<int>(i);
    if (wall >= 0) cells.erase(cells.begin() + wall);
    rows.push_back(cells);
  }
  return rows;
}

// Runs the scene (or the deck file `deck`, with `sets`) on `comm` into `dir` until step `steps`, from
// `restart` if given, with checkpoints every `every` steps (0: none).
Result run_scene(MPI_Comm comm, const std::string& dir, long steps, const std::string& restart, long every,
                 const std::string& deck = "", std::vector<std::string> sets = {}) {
  sets.push_back("checkpoint.every=" + std::to_string(every));
  auto d = deck.empty() ? test::deck_from_string(kScene, sets) : run::load_deck(deck, sets);
  run::RunOptions opt;
  opt.output_dir = dir;
  opt.max_steps = steps;
  opt.restart_file = restart;
  run::Simulation sim(comm, d, opt);
  sim.run();
  Result r;
  r.particles = test::gather_particles(comm, sim.method().particles());
  const int n = static_cast<int>(sim.method().particles().size());
  r.rank_counts = allgather_vector(comm, std::vector<int>{n});
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) r.rows = read_csv(dir + "/diagnostics.csv");
  return r;
}

std::string chk(const std::string& dir, long step) {
  char name[32];
  std::snprintf(name, sizeof(name), "chk_%06ld.h5", step);
  return dir + "/checkpoints/" + name;
}

double largest(const std::vector<double>& v) {
  double m = 1e-300;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// Largest difference between two particle sets (matched by id) relative to each field's largest
// magnitude; -1 if the ids differ. The affine field C is a difference of grid velocities divided by
// the cell size, so its round-off scales with max|v| / dx rather than with max|C| (which is small in
// a smooth flow).
double worst_relative(const test::Gathered& a, const test::Gathered& b, double dx) {
  if (a.id.size() != b.id.size()) return -1;
  const auto rows_b = b.row_of();
  double worst = 0;
  for (const auto& [name, va] : a.field) {
    const int nc = a.components.at(name);
    const auto& vb = b.field.at(name);
    double scale = largest(va), w = 0;
    if (name == "affine_velocity") scale = std::max(scale, largest(a.field.at("velocity")) / dx);
    for (size_t i = 0; i < a.id.size(); ++i) {
      auto it = rows_b.find(a.id[i]);
      if (it == rows_b.end() || a.material[i] != b.material[it->second]) return -1;
      for (int c = 0; c < nc; ++c)
        w = std::max(w, std::fabs(va[i * nc + c] - vb[it->second * nc + c]) / scale);
    }
    worst = std::max(worst, w);
  }
  return worst;
}

double worst_row_difference(const std::vector<std::vector<std::string>>& a, const std::vector<std::vector<std::string>>& b) {
  if (a.size() != b.size() || a.empty()) return 1;
  const size_t mass = std::find(a[0].begin(), a[0].end(), "mass") - a[0].begin();
  if (mass >= a[0].size()) return 1;
  double worst = 0;
  for (size_t r = 1; r < a.size(); ++r) {
    if (a[r].size() != b[r].size()) return 1;
    for (size_t c = 0; c < a[r].size(); ++c) {
      const std::string& name = a[0][c];
      if (!test::reproducible_column(name)) continue;
      const double x = std::stod(a[r][c]), y = std::stod(b[r][c]);
      // Momenta are near zero; compare them against a momentum scale (mass x 1 m/s) instead.
      double scale = std::max({std::fabs(x), std::fabs(y), 1e-30});
      if (name.find("momentum") != std::string::npos) scale = std::max(scale, std::stod(a[r][mass]));
      worst = std::max(worst, std::fabs(x - y) / scale);
    }
  }
  return worst;
}

void expect_input_error(MPI_Comm comm, const std::string& file, const std::string& deck_text,
                        const std::string& words) {
  auto d = test::deck_from_string(deck_text);
  run::RunOptions opt;
  test::SharedFolder out(comm, "bad-restart");
  opt.output_dir = out.path();
  opt.restart_file = file;
  try {
    run::Simulation sim(comm, d, opt);
    ADD_FAILURE() << "no error restarting from " << file;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file) << e.what();
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    // Rank 0 prints the error, so its text must say what is wrong.
    if (rank == 0) EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Restart, SameRankCountContinuesBitForBit) {
  test::SharedFolder straight_folder(MPI_COMM_WORLD, "straight");
  const std::string& straight = straight_folder.path();
  test::SharedFolder split_folder(MPI_COMM_WORLD, "split");
  const std::string& split = split_folder.path();
  const Result a = run_scene(MPI_COMM_WORLD, straight, kSteps, "", 0);
  run_scene(MPI_COMM_WORLD, split, kSplit, "", kSplit);
  const Result b = run_scene(MPI_COMM_WORLD, split, kSteps, chk(split, kSplit), 0);

  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    ASSERT_EQ(a.rows.size(), static_cast<size_t>(kSteps / 4 + 2));  // header, step 0, every 4th step
    EXPECT_EQ(a.rows, b.rows) << "diagnostics.csv differs (wall_s aside)";
  }
  // Same particles in the same order on the same ranks, every bit of every field.
  EXPECT_EQ(a.rank_counts, b.rank_counts);
  EXPECT_EQ(a.particles.id, b.particles.id);
  EXPECT_EQ(a.particles.material, b.particles.material);
  for (const auto& [name, va] : a.particles.field) {
    const auto& vb = b.particles.field.at(name);
    ASSERT_EQ(va.size(), vb.size()) << name;
    EXPECT_EQ(std::memcmp(va.data(), vb.data(), va.size() * sizeof(double)), 0) << name << " differs";
  }
}

namespace {

// Two results agree bit for bit: diagnostics (timings aside) on rank 0, every particle field.
void expect_identical(const Result& a, const Result& b) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) EXPECT_EQ(worst_row_difference(a.rows, b.rows), 0.0) << "diagnostics.csv differs (timings aside)";
  for (const auto& [name, va] : a.particles.field) {
    const auto& vb = b.particles.field.at(name);
    ASSERT_EQ(va.size(), vb.size()) << name;
    EXPECT_EQ(std::memcmp(va.data(), vb.data(), va.size() * sizeof(double)), 0) << name << " differs";
  }
}

// A diagnostics column at `step` of a run of `steps` steps with diagnostics every step (rows: header,
// step 0, 1, ...), read on rank 0; every other rank, a missing column or a short file gives 1 (with a
// failure on rank 0 for the latter two).
double step_value(const Result& r, long steps, const std::string& name, long step) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return 1;
  EXPECT_EQ(r.rows.size(), static_cast<size_t>(steps + 2)) << "diagnostics rows";
  if (r.rows.empty()) return 1;
  const size_t c = std::find(r.rows[0].begin(), r.rows[0].end(), name) - r.rows[0].begin();
  EXPECT_LT(c, r.rows[0].size()) << name;
  if (c >= r.rows[0].size() || r.rows.size() < static_cast<size_t>(step + 2)) return 1;
  return std::stod(r.rows[step + 1][c]);
}

const std::string kCandleDeck = meniscus::test::source_dir() + "/inputs/mpm-candle-2d-ci.yaml";
const std::vector<std::string> kCandleSets = {"mpm.heat.heating_start_time=0", "diagnostics.every=1",
                                              "output.every_time=0"};

}  // namespace

// The implicit integrator with heat and phase change (the 2D candle's CI deck, flame lit from t = 0):
// SOR may take at most 1 CG iteration, so the Newton solves switch to GAMG in step 1 and the checkpoint
// carries that switch (a restart that went back to SOR solved the linear systems differently and left
// the straight run by the Newton tolerance: the 3D candle's Slurm requeue, tests/slurm/candle_requeue.sh),
// as well as the phase-change count. Wax melts before the checkpoint. Bit for bit only without GAMG's
// reused interpolation: by default the hierarchy of the first GAMG set-up serves until the pattern
// changes, and a restart builds it from the restart step's matrix, so the inexact Newton solves (and the
// run) then differ from the straight run at the solver tolerances (2.5e-10 relative in the momentum here).
// Bit for bit at every rank count: at four ranks it needs the assembled Hessian's ghost rows summed in
// rank order and GAMG's deterministic Galerkin products (solvers/reproducible_products.hpp); with
// PETSc's stash and its default products two straight 4-rank runs differed by 3.8e-12 to 5.1e-12 in
// momentum_x relative to its scale.
TEST(Restart, ImplicitMeltingCandleContinuesBitForBit) {
  struct SorLimit {
    SorLimit() {
      PetscOptionsSetValue(nullptr, "-mpm_newton_sor_max_iterations", "1");
      PetscOptionsSetValue(nullptr, "-mpm_newton_redistribute_pc_gamg_reuse_interpolation", "false");
    }
    ~SorLimit() {
      PetscOptionsClearValue(nullptr, "-mpm_newton_sor_max_iterations");
      PetscOptionsClearValue(nullptr, "-mpm_newton_redistribute_pc_gamg_reuse_interpolation");
    }
  } limit;
  constexpr long steps = 12, split = 8;
  test::SharedFolder straight_folder(MPI_COMM_WORLD, "candle-straight");
  test::SharedFolder split_folder(MPI_COMM_WORLD, "candle-split");
  const Result a = run_scene(MPI_COMM_WORLD, straight_folder.path(), steps, "", 0, kCandleDeck, kCandleSets);
  run_scene(MPI_COMM_WORLD, split_folder.path(), split, "", split, kCandleDeck, kCandleSets);
  const Result b =
      run_scene(MPI_COMM_WORLD, split_folder.path(), steps, chk(split_folder.path(), split), 0, kCandleDeck, kCandleSets);
  EXPECT_GT(step_value(a, steps, "phase_changes", split), 0) << "no wax melted before the checkpoint";
  expect_identical(a, b);
}

// Two identical runs of the implicit candle with the default assembled Hessian and CG + SOR agree bit
// for bit at any rank count. At four ranks (2 x 2 blocks: a corner node's row has partial sums from
// three ranks) PETSc's stash, which added the remote partial rows in message-arrival order, made two
// runs differ from step 1 on (momentum_x by 4e-12 relative); the matrix-free Hessian never did.
TEST(ImplicitMPMRanks, AssembledHessianRunsAgreeBitForBit) {
  constexpr long steps = 5;
  test::SharedFolder first(MPI_COMM_WORLD, "candle-first");
  test::SharedFolder second(MPI_COMM_WORLD, "candle-second");
  const Result a = run_scene(MPI_COMM_WORLD, first.path(), steps, "", 0, kCandleDeck, kCandleSets);
  const Result b = run_scene(MPI_COMM_WORLD, second.path(), steps, "", 0, kCandleDeck, kCandleSets);
  EXPECT_GT(step_value(a, steps, "cg_iterations", 1), 0) << "no linear solve in step 1";
  expect_identical(a, b);
}

TEST(Restart, OtherRankCountAgreesTo1e12) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm solo = test::rank0_comm(MPI_COMM_WORLD);
  // Written by this job's ranks, read by one rank.
  test::SharedFolder straight_folder(MPI_COMM_WORLD, "straight-n");
  const std::string& straight = straight_folder.path();
  test::SharedFolder split_folder(MPI_COMM_WORLD, "split-n");
  const std::string& split = split_folder.path();
  const Result a = run_scene(MPI_COMM_WORLD, straight, kSteps, "", 0);
  run_scene(MPI_COMM_WORLD, split, kSplit, "", kSplit);
  // Written by one rank, read by this job's ranks.
  test::SharedFolder split1_folder(MPI_COMM_WORLD, "split-1");
  const std::string& split1 = split1_folder.path();
  Result b;
  if (solo != MPI_COMM_NULL) {
    b = run_scene(solo, split, kSteps, chk(split, kSplit), 0);
    run_scene(solo, split1, kSplit, "", kSplit);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const Result c = run_scene(MPI_COMM_WORLD, split1, kSteps, chk(split1, kSplit), 0);
  if (solo != MPI_COMM_NULL) {
    MPI_Comm_free(&solo);
    EXPECT_LE(worst_relative(a.particles, b.particles, kCell), 1e-12) << "N ranks -> 1 rank";
    EXPECT_LE(worst_relative(a.particles, c.particles, kCell), 1e-12) << "1 rank -> N ranks";
    EXPECT_LE(worst_row_difference(a.rows, b.rows), 1e-12) << "diagnostics, N ranks -> 1 rank";
    EXPECT_LE(worst_row_difference(a.rows, c.rows), 1e-12) << "diagnostics, 1 rank -> N ranks";
  }
}

TEST(Restart, DamagedForeignAndMismatchedFilesAreInputErrors) {
  test::SharedFolder dir_folder(MPI_COMM_WORLD, "damaged");
  const std::string& dir = dir_folder.path();
  run_scene(MPI_COMM_WORLD, dir, 4, "", 4);
  const std::string good = chk(dir, 4);
  const std::string truncated = dir + "/truncated.h5", foreign = dir + "/foreign.h5", text = dir + "/text.h5";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::ifstream in(good, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    std::ofstream(text) << "simulation: {dimension: 2}\n";
    // Someone else's HDF5 file: a dataset and nothing of ours.
    hid_t f = H5Fcreate(foreign.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t n = 4;
    const double v[4] = {1, 2, 3, 4};
    hid_t s = H5Screate_simple(1, &n, nullptr);
    hid_t ds = H5Dcreate2(f, "temperature", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(ds);
    H5Sclose(s);
    H5Fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_input_error(MPI_COMM_WORLD, truncated, kScene, "truncated");
  expect_input_error(MPI_COMM_WORLD, foreign, kScene, "not a Meniscus checkpoint");
  expect_input_error(MPI_COMM_WORLD, text, kScene, "not an HDF5 file");
  expect_input_error(MPI_COMM_WORLD, dir + "/missing.h5", kScene, "file not found");
  // A checkpoint of another method (relabelled here, as only one method exists yet).
  const std::string other_method = dir + "/other-method.h5";
  if (rank == 0) {
    fs::copy_file(good, other_method);
    hid_t f = H5Fopen(other_method.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(f, "method");
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, 3);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "method", type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, "sph");
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    H5Fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_input_error(MPI_COMM_WORLD, other_method, kScene, "written by method 'sph'; the deck runs 'mpm'");
  // The right file with the wrong deck: another domain, another dimension.
  std::string other_domain = kScene;
  other_domain.replace(other_domain.find("cell_size: 0.005"), 16, "cell_size: 0.004");
  expect_input_error(MPI_COMM_WORLD, good, other_domain, "domain section");
  const char* deck3d = R"(
simulation: {dimension: 3, method: mpm, end_time: 1.0}
domain: {lower: [0, 0, 0], upper: [0.1, 0.1, 0.1], cell_size: 0.01}
materials: [{name: water, model: fluid, density: 1000, bulk_modulus: 2.0e5}]
sources: [{type: box, material: water, lower: [0.02, 0.02, 0.02], upper: [0.05, 0.05, 0.05], particles_per_cell: 8}]
)";
  expect_input_error(MPI_COMM_WORLD, good, deck3d, "a 2D checkpoint; the deck is 3D");
}

TEST(Restart, KeepsTheNewestAndLatestSkipsLeftovers) {
  test::SharedFolder dir_folder(MPI_COMM_WORLD, "keep");
  const std::string& dir = dir_folder.path();
  auto d = test::deck_from_string(kScene, {"checkpoint.every=2", "checkpoint.keep=2"});
  run::RunOptions opt;
  opt.output_dir = dir;
  opt.max_steps = 6;
  {
    run::Simulation sim(MPI_COMM_WORLD, d, opt);
    sim.run();
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    EXPECT_FALSE(fs::exists(chk(dir, 2)));
    EXPECT_TRUE(fs::exists(chk(dir, 4)));
    EXPECT_TRUE(fs::exists(chk(dir, 6)));
    // What a killed run leaves: a newer half-written .tmp; and a newer damaged file.
    std::ofstream(chk(dir, 8) + ".tmp") << "half";
    std::ofstream(chk(dir, 10)) << "not really a checkpoint";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(io::latest_checkpoint(MPI_COMM_WORLD, dir), chk(dir, 6));
  // A run restarted from step 4 replaces the later checkpoints as it goes.
  opt.restart_file = chk(dir, 4);
  opt.max_steps = 8;
  {
    run::Simulation sim(MPI_COMM_WORLD, d, opt);
    sim.run();
  }
  if (rank == 0) {
    EXPECT_FALSE(fs::exists(chk(dir, 10))) << "a checkpoint later than the run's own was kept";
    EXPECT_FALSE(fs::exists(chk(dir, 8) + ".tmp"));
    EXPECT_TRUE(fs::exists(chk(dir, 6)));
    EXPECT_TRUE(fs::exists(chk(dir, 8)));
  }
  EXPECT_EQ(io::latest_checkpoint(MPI_COMM_WORLD, dir), chk(dir, 8));
}

TEST(Redistribute, EveryParticleReachesTheRankAskedFor) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  particles::ParticleSet set;
  const int xf = set.add_field("position", 2);
  const int tf = set.add_field("tag", 1);
  const int sf = set.add_field("scratch", 1, false);
  (void)sf;
  // Rank r starts with 50 + 7 r particles; particle id goes to rank id % size.
  const int n = 50 + 7 * rank;
  set.resize(n);
  auto x = Kokkos::create_mirror_view(set.field(xf));
  auto t = Kokkos::create_mirror_view(set.field(tf));
  auto id = Kokkos::create_mirror_view(set.id());
  auto mat = Kokkos::create_mirror_view(set.material());
  particles::IndexList dest("dest", n);
  auto dh = Kokkos::create_mirror_view(dest);
  for (int p = 0; p < n; ++p) {
    id(p) = 1000 * rank + p;
    x(p, 0) = 0.5 * id(p);
    x(p, 1) = -1.0 * id(p);
    t(p, 0) = 3.0 * id(p);
    mat(p) = static_cast<int32_t>(id(p) % 3);
    dh(p) = static_cast<int>(id(p) % size);
  }
  Kokkos::deep_copy(set.field(xf), x);
  Kokkos::deep_copy(set.field(tf), t);
  Kokkos::deep_copy(set.id(), id);
  Kokkos::deep_copy(set.material(), mat);
  Kokkos::deep_copy(dest, dh);
  long before = n, total_before = 0;
  MPI_Allreduce(&before, &total_before, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

  particles::redistribute(set, dest, MPI_COMM_WORLD);

  long after = static_cast<long>(set.size()), total_after = 0;
  MPI_Allreduce(&after, &total_after, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total_after, total_before);
  auto x2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(xf));
  auto t2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(tf));
  auto id2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  auto mat2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  int64_t previous = -1;
  for (size_t p = 0; p < set.size(); ++p) {
    const int64_t i = id2(p);
    EXPECT_EQ(i % size, rank) << "particle " << i << " on the wrong rank";
    EXPECT_EQ(x2(p, 0), 0.5 * i);
    EXPECT_EQ(x2(p, 1), -1.0 * i);
    EXPECT_EQ(t2(p, 0), 3.0 * i);
    EXPECT_EQ(mat2(p), i % 3);
    // Arrivals are ordered by source rank, then by original order: ids increase.
    EXPECT_GT(i, previous);
    previous = i;
  }
}
