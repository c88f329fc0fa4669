#include "run/deck_schema.hpp"

#include <memory>

#include "core/error.hpp"
#include "grid/domain_deck.hpp"
#include "io/catalyst/insitu.hpp"
#include "methods/method.hpp"

namespace meniscus::run {

void declare_core_sections(config::Schema& root, const std::string& method_names) {
  auto sim = std::make_shared<config::Schema>();
  sim->integer("dimension", "space dimension, 2 or 3").req().min(2).max(3);
  sim->text("method", "simulation method: " + method_names).req();
  sim->real("end_time", "s", "simulated time at which the run stops").req().positive();
  sim->integer("max_steps", "stop after this many steps (0: no limit)").def("0").min(0);
  sim->text("name", "scene name, used in output file names").def("run");
  root.section("simulation", sim, "What to simulate and for how long.");

  grid::declare_domain(root);

  auto out = std::make_shared<config::Schema>();
  out->text("directory", "output folder (the command line's --output wins)").def("output");
  out->integer("every", "write particle files (DIR/particles_NNNNNN.h5 + .xdmf) every this many steps "
               "(0: not by step count)").def("0").min(0);
  out->real("every_time", "s", "write particle files every this much simulated time (0: not by time); "
            "with both keys set, either one triggers a file").def("0").nonnegative();
  out->names("fields", "particle fields in the files besides the position, e.g. [velocity, mass, id] "
             "(empty: every persistent field of the method, ids and materials)").def("[]");
  out->flag("grid", "also write the method's grid fields (MPM: nodal mass and velocity) to "
            "DIR/grid_NNNNNN.h5 with each particle file").def("false");
  root.section("output", out, "Where results go, and the HDF5/XDMF particle files for ParaView (DIR/particles.xdmf).");

  auto chk = std::make_shared<config::Schema>();
  chk->integer("every", "write a checkpoint every this many steps (0: not by step count)").def("0").min(0);
  chk->real("every_minutes", "min", "write a checkpoint every this much wall-clock time (0: not by the clock)")
      .def("0").nonnegative();
  chk->integer("keep", "how many of the newest checkpoints to keep in DIR/checkpoints").def("2").min(1);
  root.section("checkpoint", chk,
               "Restart files in DIR/checkpoints (also written on SIGUSR1 and SIGTERM); "
               "resume with `meniscus run DECK --restart latest DIR`.");

  auto diag = std::make_shared<config::Schema>();
  diag->integer("every", "write a diagnostics.csv row every this many steps").def("10").min(1);
  root.section("diagnostics", diag, "Global diagnostics written to diagnostics.csv.");

  auto prog = std::make_shared<config::Schema>();
  prog->real("interval", "s", "wall-clock seconds between progress lines").def(2.0).nonnegative();
  root.section("progress", prog, "Progress line on rank 0.");

  auto petsc = std::make_shared<config::Schema>();
  petsc->text("options", "options for PETSc's database, e.g. \"-ksp_type cg -log_view\"").def("\"\"");
  root.section("petsc", petsc, "PETSc options (the command line after -- adds to these).");

  io::declare_insitu(root);

  auto guard = std::make_shared<config::Schema>();
  guard->real("max_memory", "GiB", "memory one rank may use; `run` refuses a deck whose estimate (printed by "
              "`check`) exceeds it or the node's available memory per rank (0: the node's memory alone)")
      .def("0").nonnegative();
  guard->real("max_removed_mass", "1", "largest fraction of the particle mass that may leave the simulation "
              "(e.g. SPH's remove_outside); above it the run stops as unstable with exit code 1 (open scenes "
              "whose fluid leaves the box raise it, up to 1: no limit)")
      .def("0.01").nonnegative().max(1);
  root.section("run", guard, "Limits that stop a deck which cannot fit or a run that has gone unstable "
               "(user guide, \"Errors and exit codes\").");
}

namespace {
std::string joined_methods() {
  std::string s;
  for (const auto& m : method_names()) s += (s.empty() ? "" : ", ") + m;
  return s;
}
}  // namespace

LoadedDeck load_deck(const std::string& file, const std::vector<std::string>& overrides) {
  register_builtin_methods();
  YAML::Node raw = config::Deck::read_raw(file, overrides);
  // Dimension and method pick the schema, so they are validated first on their own.
  config::Schema head;
  declare_core_sections(head, joined_methods());
  const config::Param* sim = head.find("simulation");
  YAML::Node sim_raw = raw["simulation"];
  if (!sim_raw || !sim_raw.IsMap()) throw InputError(file, "simulation", "missing required section");
  config::Schema sim_only;
  sim_only.section("simulation", sim->section, "");
  YAML::Node probe(YAML::NodeType::Map);
  probe["simulation"] = sim_raw;
  auto sim_deck = config::Deck::resolve(file, probe, sim_only, 2);
  const int dim = static_cast<int>(sim_deck.root().section("simulation").integer("dimension"));
  const std::string method = sim_deck.root().section("simulation").text("method");
  const MethodInfo* info = find_method(method);
  if (!info) throw InputError(file, "simulation.method", "unknown method '" + method + "'; available: " + joined_methods());

  // An alias (an older name) resolves to the method's name, which run.json and checkpoints record.
  LoadedDeck out{config::Deck(), config::Schema(), info->name};
  declare_core_sections(out.schema, joined_methods());
  info->schema(out.schema);
  out.deck = config::Deck::resolve(file, raw, out.schema, dim);
  return out;
}

std::string reference_markdown() {
  register_builtin_methods();
  std::string md;
  config::Schema core;
  declare_core_sections(core, joined_methods());
  md += config::to_markdown(core, "Meniscus input reference");
  for (const auto& name : method_names()) {
    config::Schema s;
    find_method(name)->schema(s);
    std::string title = "Method `" + name + "`";
    for (const auto& alias : find_method(name)->aliases) title += " (also accepted: `" + alias + "`)";
    std::string part = config::to_markdown(s, title, false);
    // Demote the method's title to a section of the one document.
    md += "\n#" + part + "\n";
  }
  return md;
}

}  // namespace meniscus::run
