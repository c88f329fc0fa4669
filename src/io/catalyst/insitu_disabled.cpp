// The in-situ factory of a build without ParaView: says once why nothing happens.
#include "core/log.hpp"
#include "io/catalyst/insitu.hpp"

namespace meniscus::io {

bool catalyst_available() { return false; }

std::unique_ptr<StepObserver> make_insitu_observer(const InsituSettings& settings, MPI_Comm comm) {
  (void)comm;
  log::warn("insitu: this build has no ParaView Catalyst, so '%s' will not run (install ParaView with "
            "scripts/install-deps.sh --with-paraview and re-run cmake; docs/insitu.md)",
            settings.script.c_str());
  return nullptr;
}

}  // namespace meniscus::io
