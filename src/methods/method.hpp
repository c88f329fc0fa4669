#pragma once
// The interface every paper method implements, and the registry that finds one by the name a deck
// gives in simulation.method (SPlisHSPlasH style: one class per method, registered by name).
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "core/timers.hpp"

namespace meniscus {

// Named diagnostic values in column order (global over ranks; meaningful on every rank).
using DiagnosticRow = std::vector<std::pair<std::string, double>>;

class Method {
 public:
  virtual ~Method() = default;
  // Largest stable step for the current state (collective).
  virtual double stable_dt() = 0;
  // Advances by dt. Throws StepRejected when the step must be retried with a smaller dt.
  virtual void step(double dt) = 0;
  // Appends the method's diagnostics (collective).
  virtual void diagnostics(DiagnosticRow& row) = 0;
  virtual long global_particle_count() = 0;
  virtual Timers& timers() = 0;
};

struct StepRejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct MethodContext {
  MPI_Comm comm;
  config::Section root;  // the whole resolved deck
  int dimension;
};

struct MethodInfo {
  std::string name;
  std::string doc;
  // Sections the method adds to the deck schema for a dimension (the core sections come from the driver).
  std::function<void(config::Schema&)> schema;
  std::function<std::unique_ptr<Method>(const MethodContext&)> create;
};

void register_method(MethodInfo info);
const MethodInfo* find_method(const std::string& name);
std::vector<std::string> method_names();
// Registers the methods built into the library (called once by the app and tests).
void register_builtin_methods();

}  // namespace meniscus
