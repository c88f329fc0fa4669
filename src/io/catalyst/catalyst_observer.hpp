#pragma once
// The in-situ observer. It loads the ParaView side (libmeniscus_catalyst_vtk.so, catalyst_abi.hpp) on
// first use and passes it each rank's particles every `every` steps. No VTK on this side.
#include <mpi.h>

#include <memory>
#include <string>

#include "io/catalyst/insitu.hpp"

namespace meniscus::io {

namespace catalyst_abi {
class Pipeline;
}

// Path of the ParaView module: $MENISCUS_CATALYST_MODULE if set, else the file next to the build's
// libraries (lib/ beside bin/ of the running executable), else the path recorded at build time.
std::string catalyst_module_path();

class CatalystObserver final : public StepObserver {
 public:
  // Collective over `comm` (Catalyst gets a duplicate). Loads the module and the pipeline script. Rank 0
  // creates the output folder, and MENISCUS_INSITU_OUTPUT names it (absolute) for the script.
  // Throws RuntimeError on every rank when any of this fails.
  CatalystObserver(const InsituSettings& settings, MPI_Comm comm);
  ~CatalystObserver() override;
  CatalystObserver(const CatalystObserver&) = delete;
  CatalystObserver& operator=(const CatalystObserver&) = delete;

  // The pipeline sees the first step (when it is a multiple of `every`), every `every`-th step, and the
  // last step.
  void begin(Method& method, const StepInfo& info) override;
  void after_step(Method& method, const StepInfo& info) override;
  // Processes the final state if that has not happened yet, then calls finalize().
  void end(Method& method, const StepInfo& info) override;

  // Finalizes and deletes the vtkCPProcessor (collective; idempotent). Must run before MPI_Finalize;
  // the destructor calls it.
  void finalize();

  long calls() const;  // pipeline executions so far
  const InsituSettings& settings() const { return settings_; }

 private:
  void process(Method& method, const StepInfo& info);
  InsituSettings settings_;
  catalyst_abi::Pipeline* pipeline_ = nullptr;
  long calls_ = 0;
  long last_step_ = -1;
};

}  // namespace meniscus::io
