// Deck side of the in-situ adaptor: turns the `insitu` section into InsituSettings. Built with and
// without ParaView; the observer itself comes from catalyst_observer.cpp or insitu_disabled.cpp.
#include "io/catalyst/insitu.hpp"

#include <filesystem>

namespace meniscus::io {

namespace fs = std::filesystem;

std::unique_ptr<StepObserver> make_insitu_observer(const config::Section& root, MPI_Comm comm,
                                                        const std::string& output_dir) {
  if (!root.has("insitu")) return nullptr;
  const config::Section s = root.section("insitu");
  if (!s.has("script") || !s.flag("enabled")) return nullptr;
  InsituSettings settings;
  settings.script = s.text("script");  // already absolute: the deck resolves File parameters
  settings.every = s.integer("every");
  const std::string dir = s.text("output_directory");
  const fs::path base(output_dir.empty() ? std::string(".") : output_dir);
  if (dir.empty()) {
    settings.output_directory = (base / "insitu").string();
  } else {
    const fs::path d(dir);
    settings.output_directory = (d.is_absolute() ? d : base / d).string();
  }
  return make_insitu_observer(settings, comm);
}

std::unique_ptr<StepObserver> make_insitu_observer(const std::string& script, long every, MPI_Comm comm,
                                                        const std::string& output_dir) {
  InsituSettings settings;
  settings.script = script;
  settings.every = every;
  settings.output_directory = output_dir;
  return make_insitu_observer(settings, comm);
}

}  // namespace meniscus::io
