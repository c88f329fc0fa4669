// Drives the Catalyst observer the way the Simulation does (begin, after_step per step, end) on a
// small 2D MPM scene, without the deck or run wiring. Writes for check_insitu.py:
//   <out>/expected.txt            the steps the pipeline must have seen and the global particle count
//                                 at each;
//   <out>/last_step_rank<r>.csv   every particle of rank r at the last step (id, material, position,
//                                 velocity, affine_velocity), to compare with what ParaView reads back.
//
//   insitu_driver --script FILE --out DIR [--steps N] [--every E] [--deck] [--cell-size H]
//     --deck: build the observer from an `insitu:` deck section (declare_insitu + Section factory,
//             extracts in DIR/insitu by default) instead of the explicit-argument factory.
//     --cell-size: grid cell [m] (default 0.025, about 1200 particles; 0.0025 gives about 120 000),
//             for timing the adaptor on bigger scenes. Rank 0 prints the set-up and per-call times.
// Exit codes: 0 pass, 1 a check failed, 2 bad arguments, 3 the adaptor threw (message on stdout).
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "io/catalyst/catalyst_observer.hpp"
#include "io/catalyst/insitu.hpp"
#include "methods/method.hpp"
#include "scene.hpp"

using namespace meniscus;
namespace fs = std::filesystem;

namespace {

// A spinning, falling ellipse of fluid: every particle has a different velocity, so a picture
// coloured by speed shows a gradient.
const char* kScene = R"(
simulation: {dimension: 2, method: mpm, end_time: 1.0}
domain: {lower: [0, 0], upper: [1, 1], cell_size: CELL}
mpm: {gravity: [0, -9.81]}
materials: [{name: water, model: fluid, density: 1000, bulk_modulus: 1.0e4}]
sources: [{type: ellipsoid, material: water, center: [0.5, 0.5], radii: [0.3, 0.2], particles_per_cell: 4,
           velocity: [0.2, 0.0], angular_velocity: 2.0, rotation_center: [0.5, 0.5]}]
)";

int failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
}

// This rank's particles, exactly (%.17g), for the comparison with the extract of the same step.
void write_particles(Method& m, const std::string& file) {
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.position_field()));
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field("velocity"));
  auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field("affine_velocity"));
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  std::FILE* f = std::fopen(file.c_str(), "w");
  if (!f) {
    check(false, "cannot write " + file);
    return;
  }
  std::fprintf(f, "id,material,x,y,vx,vy,c00,c01,c10,c11\n");
  for (size_t p = 0; p < set.size(); ++p)
    std::fprintf(f, "%lld,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", static_cast<long long>(id(p)),
                 static_cast<int>(mat(p)), x(p, 0), x(p, 1), v(p, 0), v(p, 1), c(p, 0), c(p, 1), c(p, 2), c(p, 3));
  std::fclose(f);
}

int usage() {
  std::fprintf(stderr,
               "usage: insitu_driver --script FILE --out DIR [--steps N] [--every E] [--deck] [--cell-size H]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string script, out, cell = "0.025";
  long steps = 5, every = 2;
  bool from_deck = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--script" && has_value) script = argv[++i];
    else if (a == "--out" && has_value) out = argv[++i];
    else if (a == "--steps" && has_value) steps = std::atol(argv[++i]);
    else if (a == "--every" && has_value) every = std::atol(argv[++i]);
    else if (a == "--cell-size" && has_value) cell = argv[++i];
    else if (a == "--deck") from_deck = true;
    else return usage();
  }
  if (script.empty() || out.empty() || steps < 1 || every < 1) return usage();

  auto runtime = std::make_unique<Runtime>(&argc, &argv);
  runtime->start_libraries({}, 1);
  const MPI_Comm comm = runtime->comm();
  const int rank = runtime->rank();
  int rc = 0;
  try {
    std::string scene = kScene;
    scene.replace(scene.find("CELL"), 4, cell);
    auto d = test::deck_from_string(scene);
    register_builtin_methods();
    std::unique_ptr<Method> method =
        find_method("mpm")->create(MethodContext{comm, d.deck.root(), 2});

    if (rank == 0) fs::create_directories(out);
    MPI_Barrier(comm);
    std::unique_ptr<StepObserver> observer;
    const double setup_start = MPI_Wtime();
    if (from_deck) {
      // The section as a deck would hold it; relative script paths resolve against the deck's folder.
      const std::string deck_file = out + "/insitu-deck.yaml";
      if (rank == 0)
        std::ofstream(deck_file) << "insitu:\n  script: " << fs::absolute(script).string() << "\n  every: " << every
                                 << "\n";
      MPI_Barrier(comm);
      config::Schema schema;
      io::declare_insitu(schema);
      auto deck = config::Deck::resolve(deck_file, YAML::LoadFile(deck_file), schema, 2);
      observer = io::make_insitu_observer(deck.root(), comm, out);
    } else {
      observer = io::make_insitu_observer(script, every, comm, out + "/insitu");
    }
    const double setup_s = MPI_Wtime() - setup_start;
    check(observer != nullptr, "the factory returns an observer");
    const char* env = std::getenv("MENISCUS_INSITU_OUTPUT");
    check(env && fs::path(env) == fs::absolute(out + "/insitu").lexically_normal(),
          "MENISCUS_INSITU_OUTPUT names the absolute extracts folder");
    if (observer) {
      // What the pipeline must see: the first step, every `every`-th and the last.
      std::vector<std::pair<long, long>> expected;
      double t = 0;
      const StepInfo first{0, 0.0, 0.0, 0.0, false};
      observer->begin(*method, first);
      expected.push_back({0, method->global_particle_count()});
      for (long s = 1; s <= steps; ++s) {
        const double dt = method->stable_dt();
        method->step(dt);
        t += dt;
        const StepInfo info{s, t, dt, 0.0, s == steps};
        observer->after_step(*method, info);
        if (s % every == 0 || s == steps) expected.push_back({s, method->global_particle_count()});
      }
      observer->end(*method, StepInfo{steps, t, 0.0, 0.0, true});
      write_particles(*method, out + "/last_step_rank" + std::to_string(rank) + ".csv");
      auto* catalyst = dynamic_cast<io::CatalystObserver*>(observer.get());
      check(catalyst != nullptr, "the observer is the Catalyst adaptor");
      if (catalyst)
        check(catalyst->calls() == static_cast<long>(expected.size()),
              "pipeline ran " + std::to_string(catalyst->calls()) + " times, expected " +
                  std::to_string(expected.size()));
      const long particles = method->global_particle_count();  // collective: every rank calls it
      if (rank == 0)
        std::printf("insitu_driver: %ld particles on %d ranks; pipeline set-up %.2f s, %.3f s per call (%zu calls)\n",
                    particles, runtime->size(), setup_s,
                    method->timers().total("insitu") / static_cast<double>(expected.size()), expected.size());
      if (rank == 0) {
        std::ofstream f(out + "/expected.txt");
        f << "ranks " << runtime->size() << "\n";
        for (const auto& e : expected) f << "step " << e.first << " particles " << e.second << "\n";
      }
    }
    // Catalyst goes down here, before MPI_Finalize.
    observer.reset();
    int local = failures, any = 0;
    MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_SUM, comm);
    rc = any ? 1 : 0;
  } catch (const std::exception& e) {
    // The adaptor's errors are collective (every rank throws the same), so every rank gets here.
    if (rank == 0) std::printf("insitu_driver: error: %s\n", e.what());
    rc = 3;
  }
  if (rank == 0 && rc != 3) std::printf("insitu_driver: %s\n", rc == 0 ? "in-process checks passed" : "FAILED");
  runtime.reset();
  return rc;
}
