#pragma once
// In-situ visualisation through ParaView Catalyst (legacy API of ParaView 5.11, docs/insitu.md).
// Every `insitu.every` steps each rank hands its own particles, as a vtkPolyData, to a ParaView
// Python pipeline named in the deck; nothing is gathered. The library `meniscus_catalyst` always
// exists: built without ParaView (MENISCUS_HAVE_CATALYST == 0) the factories warn once and return
// nullptr, so callers need no #ifdef. The ParaView code itself is the shared module
// lib/libmeniscus_catalyst_vtk.so. It is loaded only when a deck names a script (catalyst_abi.hpp).
//
// Wiring (two lines):
//   deck schema: io::declare_insitu(root);          // header-only: meniscus_lib can call it
//   run:         if (auto o = io::make_insitu_observer(deck.root(), comm, sim.output_directory()))
//                  sim.add_observer(std::move(o));  // the app links meniscus_catalyst
// The observer must be owned by something destroyed before MPI_Finalize (the Simulation is): its
// end() and destructor finalize and delete the vtkCPProcessor.
#include <mpi.h>

#include <memory>
#include <string>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "methods/step_observer.hpp"

namespace meniscus::io {

// Declares the deck section
//   insitu: {script: catalyst/extract_particles.py, every: 10, enabled: true, output_directory: ""}
// Inline so that the deck schema (meniscus_lib) does not depend on the ParaView-linked library.
inline void declare_insitu(config::Schema& root) {
  auto s = std::make_shared<config::Schema>();
  s->file("script",
          "ParaView Catalyst Python pipeline (v2 script, e.g. inputs/catalyst/extract_particles.py), "
          "relative to the deck; without it there is no in-situ processing");
  s->integer("every", "hand the particles to the pipeline every this many steps (and at the first and last step)")
      .def("10")
      .min(1);
  s->flag("enabled", "run the pipeline when a script is given (false: keep the section, skip the work)").def("true");
  s->text("output_directory",
          "folder for the pipeline's extracts (images, .pvtp); relative to the run's output folder; "
          "empty: <output>/insitu")
      .def("\"\"");
  root.section("insitu", s,
               "In-situ visualisation with ParaView Catalyst (needs a build with ParaView 5.11, docs/insitu.md).");
}

struct InsituSettings {
  std::string script;            // the pipeline script; made absolute
  long every = 10;               // steps between calls (>= 1)
  std::string output_directory;  // where extracts go; created by rank 0; made absolute
  std::string channel = "particles";  // Catalyst input name; the script's PVTrivialProducer registrationName
};

// True when this build contains the Catalyst adaptor.
bool catalyst_available();

// From the resolved deck. nullptr when the deck names no insitu.script, insitu.enabled is false, or
// Catalyst is not built in (a warning then says so). Collective over `comm`. Throws RuntimeError
// (on every rank) when the ParaView module or Catalyst cannot be set up. A script with an error makes
// the observer throw RuntimeError at its first call (v2 scripts are imported then).
std::unique_ptr<StepObserver> make_insitu_observer(const config::Section& root, MPI_Comm comm,
                                                        const std::string& output_dir);

// The same from explicit arguments (tests, tools). output_dir is used as given (relative to the
// current folder).
std::unique_ptr<StepObserver> make_insitu_observer(const std::string& script, long every, MPI_Comm comm,
                                                        const std::string& output_dir);
std::unique_ptr<StepObserver> make_insitu_observer(const InsituSettings& settings, MPI_Comm comm);

}  // namespace meniscus::io
