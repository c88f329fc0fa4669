// meniscus: the one executable. Thin by design: parse the command line, load and validate the deck,
// start the runtime, hand over to run::Simulation. Input errors exit with code 2 on every rank,
// printed once by rank 0.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "io/catalyst/insitu.hpp"
#include "io/checkpoint.hpp"
#include "io/h5_file.hpp"
#include "core/version.hpp"
#include "run/deck_schema.hpp"
#include "run/output_folder.hpp"
#include "run/resource_plan.hpp"
#include "run/setup_checks.hpp"
#include "run/simulation.hpp"
#include "run/stop_signal.hpp"

namespace {

const char* kUsage = R"(meniscus - surface-tension-dominated liquids and solids, MPI + Kokkos + PETSc

usage:
  meniscus run DECK [--set key.path=value ...] [--output DIR] [--steps N | --end-time T]
                    [--restart FILE | --restart latest [DIR]] [--overwrite] [--threads N]
                    [--quiet] [-- PETSC_OPTIONS...]
  meniscus check DECK [--set key.path=value ...] [--ranks N]
  meniscus reference [--output FILE]
  meniscus --help | --version

  run        runs the deck; writes DIR/diagnostics.csv, DIR/run.json, particle files for ParaView
             (DIR/particles.xdmf, deck keys output.every*) and checkpoints (DIR/checkpoints)
  check      validates the deck (also its split among N ranks, default: the ranks it runs on), prints
             every resolved parameter with its unit and the memory estimate per rank
  reference  prints the input reference (docs/input-reference.md) from the parameter declarations

  --set key.path=value   override a deck value (YAML syntax; lists as sources[0].radius=0.1)
  --output DIR           output folder (default: the deck's output.directory)
  --steps N              stop after step N (counted from t = 0, also after a restart)
  --end-time T           stop at simulated time T [s]
  --restart FILE         continue from the checkpoint FILE (any number of ranks may read it)
  --restart latest [DIR] continue from the newest complete checkpoint in DIR/checkpoints
                         (DIR: the run's output folder by default)
  --overwrite            replace the files of an earlier run in the output folder (without it, or
                         --restart, a folder holding another run is refused)
  --threads N            Kokkos threads per rank, 1 .. the node's cores (default: OMP_NUM_THREADS,
                         else cores per node / ranks per node)
  --ranks N              (check) check the split of the grid and the memory estimate for N ranks
  --quiet                no progress lines
  -- ...                 everything after -- goes to PETSc's options database (e.g. -log_view)

signals: SIGUSR1 (what Slurm sends before the time limit with --signal=B:USR1@SECONDS) writes a
checkpoint after the current step and stops with exit code 0; SIGTERM, SIGINT and SIGHUP do the same
and exit with 128 + signal (143, 130, 129). Resume with --restart latest. During setup (before the
first step) they stop at once with the same codes. Open MPI's mpirun answers SIGTERM/SIGINT/SIGHUP
sent to itself with exit code 1 whatever the ranks return: start with jobs/mpirun.sh (mpirun's
arguments), which exits with the run's own code, or signal the ranks (as Slurm does).

exit codes: 0 success (or stopped by SIGUSR1 after a checkpoint), 1 runtime failure (unstable run,
            out of memory, file system full), 2 bad input or usage (also a deck that cannot fit in
            memory, a damaged checkpoint), 129/130/143 stopped by SIGHUP/SIGINT/SIGTERM
)";

struct Cli {
  std::string command, deck, output, reference_out;
  std::string restart, restart_dir;  // restart: a checkpoint file, or "latest" (in restart_dir)
  std::vector<std::string> sets, petsc;
  long steps = -1;
  double end_time = -1;
  int threads = 0;
  int ranks = 0;  // check --ranks
  bool quiet = false, overwrite = false;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Cli parse(int argc, char** argv) {
  Cli c;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) throw UsageError("no command given");
  size_t i = 0;
  c.command = args[i++];
  auto value = [&](const std::string& flag) {
    if (i >= args.size()) throw UsageError(flag + " needs a value");
    return args[i++];
  };
  auto number = [&](const std::string& flag, const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(v == v)) throw UsageError(flag + " needs a number, got '" + text + "'");
    return v;
  };
  while (i < args.size()) {
    const std::string a = args[i++];
    if (a == "--") {
      c.petsc.assign(args.begin() + i, args.end());
      break;
    } else if (a == "--set") {
      c.sets.push_back(value(a));
    } else if (a.rfind("--set=", 0) == 0) {
      c.sets.push_back(a.substr(6));
    } else if (a == "--output") {
      c.output = value(a);
      c.reference_out = c.output;
    } else if (a == "--steps") {
      // 0 would mean "no limit" to the time loop (as simulation.max_steps: 0 does), the opposite of
      // what `--steps 0` asks for.
      const double v = number(a, value(a));
      if (v != std::floor(v) || v < 1 || v > 1e15) throw UsageError("--steps needs a whole number >= 1");
      c.steps = static_cast<long>(v);
    } else if (a == "--end-time") {
      c.end_time = number(a, value(a));
      if (!(c.end_time > 0)) throw UsageError("--end-time must be > 0");
    } else if (a == "--restart") {
      c.restart = value(a);
      // `latest` may name a folder; a deck is a file, so a folder that follows cannot be the deck.
      if (c.restart == "latest" && i < args.size() && !args[i].empty() && args[i][0] != '-') {
        std::error_code ec;
        if (!c.deck.empty() || std::filesystem::is_directory(args[i], ec)) c.restart_dir = args[i++];
      }
    } else if (a == "--threads") {
      const double v = number(a, value(a));
      if (v != std::floor(v) || v < 1 || v > 1e6) throw UsageError("--threads needs a whole number >= 1");
      c.threads = static_cast<int>(v);
    } else if (a == "--ranks") {
      const double v = number(a, value(a));
      if (v != std::floor(v) || v < 1 || v > 1e7) throw UsageError("--ranks needs a whole number >= 1");
      c.ranks = static_cast<int>(v);
    } else if (a == "--overwrite") {
      c.overwrite = true;
    } else if (a == "--quiet") {
      c.quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option " + a);
    } else if (c.deck.empty()) {
      c.deck = a;
    } else {
      throw UsageError("unexpected argument " + a);
    }
  }
  if ((c.command == "run" || c.command == "check") && c.deck.empty()) throw UsageError(c.command + " needs a DECK");
  if (c.overwrite && !c.restart.empty()) throw UsageError("--overwrite and --restart exclude each other");
  return c;
}

// A thread count from the environment variable `name`: 0 when unset; a whole number 1 .. cores,
// else an input error naming the variable.
int env_threads(const char* name, int cores) {
  const char* env = std::getenv(name);
  if (!env || !*env) return 0;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);
  // OpenMP allows a list ("4,2") for nested levels; the first entry is ours.
  if (end == env || (*end != '\0' && *end != ',') || v < 1)
    throw meniscus::InputError(name, "", std::string("'") + env + "' is not a whole number >= 1");
  if (v > cores)
    throw meniscus::InputError(name, "", meniscus::log::format("%ld exceeds the %d cores of this node", v, cores));
  return static_cast<int>(v);
}

// Threads per rank: --threads, else KOKKOS_NUM_THREADS, else OMP_NUM_THREADS, else 0 (the runtime
// shares the node's cores). More threads than the node has cores only slows a run down (and
// thousands exhaust the stack space of the OpenMP runtime), so all are bounded by the core count;
// 0 and negatives are errors. Kokkos itself stops with an exception when KOKKOS_NUM_THREADS differs
// from the count it is given, so a contradiction is reported here, as an input error.
int thread_request(const Cli& cli) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int kokkos = env_threads("KOKKOS_NUM_THREADS", cores);
  if (cli.threads > 0) {
    if (cli.threads > cores)
      throw UsageError(meniscus::log::format("--threads %d exceeds the %d cores of this node", cli.threads, cores));
    if (kokkos > 0 && kokkos != cli.threads)
      throw meniscus::InputError("KOKKOS_NUM_THREADS", "",
                                 meniscus::log::format("%d contradicts --threads %d (unset one of them)", kokkos,
                                                       cli.threads));
    return cli.threads;
  }
  if (kokkos > 0) return kokkos;
  return env_threads("OMP_NUM_THREADS", cores);
}

std::vector<std::string> split_options(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  std::string tok;
  while (is >> tok) out.push_back(tok);
  return out;
}

// A failed allocation on this rank: one line, exit code 1. Only this rank may have failed, so it
// prints itself (log::error speaks for rank 0 alone); the other ranks may be waiting in a collective
// call for this one, so the job is ended rather than left to hang.
int out_of_memory(const meniscus::Runtime& rt, std::string what) {
  what = what.substr(0, what.find('\n'));
  // Kokkos' text: 'Kokkos failed to allocate memory for label "x".  Allocation using ... failed with
  // the following error:  Allocation of size 127.1 M failed, likely due to insufficient memory. ...'
  const auto label = what.find("label \""), size = what.find("Allocation of size ");
  if (label != std::string::npos && size != std::string::npos) {
    const auto label_end = what.find('"', label + 7), size_end = what.find(" failed", size);
    what = "Kokkos view \"" + what.substr(label + 7, label_end - label - 7) + "\", " +
           what.substr(size + 14, size_end - size - 14);
  }
  std::fprintf(stderr, "error: out of memory on rank %d (%s); coarsen the deck, use more nodes, or see "
               "`meniscus check`\n", rt.rank(), what.c_str());
  if (rt.size() > 1) {
    meniscus::run::record_exit_status(1);
    MPI_Abort(rt.comm(), 1);
  }
  return 1;
}

// The commands, with the runtime started; returns the exit code.
int run_commands(meniscus::Runtime& rt, int argc, char** argv) {
  using namespace meniscus;
  try {
    Cli cli = parse(argc, argv);
    log::set_quiet(cli.quiet);
    if (cli.command == "reference") {
      const std::string md = run::reference_markdown();
      if (rt.rank() == 0) {
        if (cli.reference_out.empty()) {
          std::cout << md;
        } else {
          std::ofstream(cli.reference_out) << md;
        }
      }
      return 0;
    }
    if (cli.command != "run" && cli.command != "check") throw UsageError("unknown command '" + cli.command + "'");
    run::LoadedDeck deck = run::load_deck(cli.deck, cli.sets);
    // The libraries first: the estimate seeds mesh, curve and shell sources as the run does (Kokkos).
    std::vector<std::string> petsc = split_options(deck.deck.root().section("petsc").text("options"));
    petsc.insert(petsc.end(), cli.petsc.begin(), cli.petsc.end());
    const int threads = thread_request(cli);
    rt.start_libraries(petsc, threads);
    // What the deck asks of the machine, before the run allocates anything.
    const run::ResourcePlan plan = run::plan_resources(deck, cli.ranks > 0 ? cli.ranks : rt.size(), cli.steps, cli.end_time);
    if (!plan.overflow.empty()) throw InputError(cli.deck, "domain.cell_size", plan.overflow);
    if (!plan.decomposition.empty()) throw InputError(cli.deck, plan.decomposition_key, plan.decomposition);
    if (!plan.output.empty()) throw InputError(cli.deck, "output.every_time", plan.output);
    for (const auto& w : plan.warnings) log::warn("%s: %s", cli.deck.c_str(), w.c_str());
    if (cli.command == "check") {
      // What `run` finds only while seeding and loading meshes (run does it there, once).
      run::check_setup_inputs(deck);
      if (rt.rank() == 0) {
        std::cout << cli.deck << ": valid (" << deck.method << ", " << deck.deck.dimension() << "D)\n";
        std::cout << run::describe(plan) << "\n";
        std::cout << deck.deck.describe(deck.schema);
      }
      return 0;
    }
    run::refuse_what_cannot_fit(rt.comm(), deck, plan);
    const std::string out_dir = cli.output.empty() ? deck.deck.root().section("output").text("directory") : cli.output;
    if (cli.restart.empty() && !cli.overwrite) {
      const std::string earlier = rt.rank() == 0 ? run::earlier_run_files(out_dir) : std::string();
      int found = earlier.empty() ? 0 : 1;
      MPI_Bcast(&found, 1, MPI_INT, 0, rt.comm());
      if (found)
        throw InputError(out_dir, "",
                         "the output folder holds another run (" + earlier + "); pass --overwrite to replace it, "
                         "--restart latest " + out_dir + " to continue it, or choose another --output");
    }
    run::RunOptions opt;
    opt.output_dir = cli.output;
    opt.max_steps = cli.steps;
    opt.end_time = cli.end_time;
    opt.runtime_description = rt.describe();
    opt.clear_output = cli.overwrite;
    if (cli.restart == "latest") {
      std::string dir = cli.restart_dir;
      if (dir.empty()) dir = cli.output.empty() ? deck.deck.root().section("output").text("directory") : cli.output;
      opt.restart_file = io::latest_checkpoint(rt.comm(), dir);
    } else {
      opt.restart_file = cli.restart;
    }
    run::RunSummary summary;
    {
      run::Simulation sim(rt.comm(), deck, opt);
      // In-situ pipelines run after output and checkpoints; the Simulation owns the observer, so
      // Catalyst is torn down before MPI is.
      if (auto insitu = io::make_insitu_observer(deck.deck.root(), rt.comm(), sim.output_directory()))
        sim.add_observer(std::move(insitu));
      summary = sim.run();
    }
    // A stop on SIGTERM is not a finished run; 128 + 15 is what a shell reports for a TERM-killed job.
    return run::stop_exit_code(summary.stop_signal);
  } catch (const UsageError& e) {
    log::error("%s (see meniscus --help)", e.what());
    return 2;
  } catch (const InputError& e) {
    log::error("%s", e.what());
    return 2;
  } catch (const RuntimeError& e) {
    // Runtime failures are detected collectively, so every rank arrives here together.
    log::error("%s", e.what());
    return 1;
  } catch (const std::bad_alloc& e) {
    // Kokkos (some versions), the C++ library and PETSc (OutOfMemory) report a failed allocation
    // so; the first line of the text names the view or the call. The estimate above refuses most
    // such decks before they start.
    return out_of_memory(rt, e.what());
  } catch (const std::exception& e) {
    std::string what = e.what();
    // Kokkos 3.4 reports a failed allocation as a runtime_error ("Kokkos failed to allocate memory
    // for label ...").
    if (what.find("failed to allocate memory") != std::string::npos) return out_of_memory(rt, what);
    std::fprintf(stderr, "error: rank %d: %s\n", rt.rank(), what.substr(0, what.find('\n')).c_str());
    if (rt.size() > 1) {
      run::record_exit_status(1);
      MPI_Abort(rt.comm(), 1);
    }
    return 1;
  }
}

// Everything that needs the runtime; rt's destructor finalizes Kokkos, PETSc and MPI on return.
int run_app(int argc, char** argv) {
  using namespace meniscus;
  io::start_hdf5_before_mpi();
  Runtime rt(&argc, &argv);
  // Until the time loop catches them itself, stop signals end the process at once (nothing to save).
  run::set_exit_status_file(rt.rank() == 0);
  run::install_setup_signal_exit();
  int code = 0;
  {
    // Destroyed before rt, so HDF5 ends before MPI_Finalize.
    struct Hdf5End {
      ~Hdf5End() { io::finish_hdf5(); }
    } hdf5_end;
    code = run_commands(rt, argc, argv);
  }
  // For launchers whose own exit code hides the ranks' (jobs/mpirun.sh): rank 0's code, written
  // before finalizing, which a launcher that is ending the job may cut short.
  run::record_exit_status(code);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) break;
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << kUsage;
      return 0;
    }
    if (std::strcmp(argv[i], "--version") == 0) {
      std::cout << "meniscus " << meniscus::version_string() << " (" << meniscus::git_commit() << ")\n";
      return 0;
    }
  }
  // Kokkos, PETSc and MPI are finalized when run_app returns. (Our Kokkos is static and hidden, so
  // the Trilinos Kokkos that Debian's PETSc loads keeps its own globals: see CMakeLists.txt.)
  return run_app(argc, argv);
}
