// The run's side of the in-situ adaptor: loads libmeniscus_catalyst_vtk.so with dlopen on first
// use, and at each chosen step passes the rank's particles as host arrays (catalyst_abi.hpp).
#include "io/catalyst/catalyst_observer.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "io/catalyst/catalyst_abi.hpp"
#include "io/surface_output.hpp"

#ifndef MENISCUS_CATALYST_MODULE
#define MENISCUS_CATALYST_MODULE "libmeniscus_catalyst_vtk.so"
#endif

namespace meniscus::io {

namespace fs = std::filesystem;

bool catalyst_available() { return true; }

std::unique_ptr<StepObserver> make_insitu_observer(const InsituSettings& settings, MPI_Comm comm) {
  return std::make_unique<CatalystObserver>(settings, comm);
}

std::string catalyst_module_path() {
  if (const char* env = std::getenv("MENISCUS_CATALYST_MODULE"); env && *env) return env;
  const fs::path built(MENISCUS_CATALYST_MODULE);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path().parent_path() / "lib" / built.filename();
    if (fs::is_regular_file(beside, ec)) return beside.string();
  }
  return built.string();
}

namespace {

// Loads the module once per process. RTLD_GLOBAL: Python extension modules that ParaView imports
// later expect libpython's symbols in the global scope.
catalyst_abi::CreateFn load_module(std::string& error) {
  static catalyst_abi::CreateFn create = nullptr;
  static std::string load_error;
  static bool tried = false;
  if (!tried) {
    tried = true;
    const std::string path = catalyst_module_path();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      const char* why = dlerror();
      load_error = "cannot load the ParaView Catalyst module " + path + ": " + (why ? why : "unknown error");
    } else {
      create = reinterpret_cast<catalyst_abi::CreateFn>(dlsym(handle, catalyst_abi::kCreateSymbol));
      if (!create) load_error = path + " has no " + std::string(catalyst_abi::kCreateSymbol);
      // Never dlclose: VTK and Python do not support being unloaded.
    }
  }
  error = load_error;
  return create;
}

bool all_ranks(MPI_Comm comm, bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

// A field's values on the host as count x components rows: the host view itself when its rows are
// packed (always so on host backends: no copy), else a packed copy.
struct HostRows {
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> view;
  std::vector<double> packed;
  const double* data = nullptr;

  HostRows(const particles::RealField& field, size_t count, int components)
      : view(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field)) {
    if (count == 0 || (static_cast<int>(view.extent(1)) == components &&
                       view.stride(0) == static_cast<size_t>(components))) {
      data = view.data();
      return;
    }
    packed.resize(count * static_cast<size_t>(components));
    for (size_t p = 0; p < count; ++p)
      for (int c = 0; c < components; ++c) packed[p * components + c] = view(p, c);
    data = packed.data();
  }
};

}  // namespace

CatalystObserver::CatalystObserver(const InsituSettings& settings, MPI_Comm comm) : settings_(settings) {
  if (settings_.every < 1) throw RuntimeError("insitu: 'every' must be at least 1");
  settings_.script = fs::absolute(settings_.script).lexically_normal().string();
  settings_.output_directory = fs::absolute(settings_.output_directory).lexically_normal().string();

  std::string error;
  catalyst_abi::CreateFn create = load_module(error);
  if (!all_ranks(comm, create != nullptr)) {
    if (error.empty()) error = "the ParaView Catalyst module did not load on every rank";
    throw RuntimeError("insitu: " + error);
  }
  pipeline_ = create(catalyst_abi::kVersion, comm, settings_.script.c_str(), settings_.output_directory.c_str(),
                     settings_.channel.c_str(), &error);
  if (!pipeline_) throw RuntimeError("insitu: " + error);  // the module agreed on failure over all ranks
  log::info("insitu: ParaView Catalyst pipeline %s every %ld steps, extracts in %s", settings_.script.c_str(),
            settings_.every, settings_.output_directory.c_str());
}

CatalystObserver::~CatalystObserver() { finalize(); }

void CatalystObserver::finalize() {
  if (!pipeline_) return;
  calls_ = pipeline_->calls();
  pipeline_->finalize();
  delete pipeline_;
  pipeline_ = nullptr;
}

long CatalystObserver::calls() const { return pipeline_ ? pipeline_->calls() : calls_; }

void CatalystObserver::begin(Method& method, const StepInfo& info) {
  if (info.step % settings_.every == 0) process(method, info);
}

void CatalystObserver::after_step(Method& method, const StepInfo& info) {
  if (info.step % settings_.every == 0 || info.last) process(method, info);
}

void CatalystObserver::end(Method& method, const StepInfo& info) {
  if (info.step != last_step_) process(method, info);
  finalize();
}

void CatalystObserver::process(Method& method, const StepInfo& info) {
  if (!pipeline_ || info.step == last_step_) return;
  auto timer = method.timers().scope("insitu");
  last_step_ = info.step;
  auto& set = method.particles();
  const size_t n = set.size();
  const auto& fields = set.field_info();

  catalyst_abi::Particles particles;
  particles.dimension = method.dimension();
  particles.count = n;
  std::vector<std::unique_ptr<HostRows>> rows;  // keeps the host data alive during the call
  rows.push_back(std::make_unique<HostRows>(set.field(method.position_field()), n, particles.dimension));
  particles.position = rows.back()->data;
  for (size_t f = 0; f < fields.size(); ++f) {
    if (!fields[f].persistent || static_cast<int>(f) == method.position_field()) continue;
    rows.push_back(std::make_unique<HostRows>(set.field(static_cast<int>(f)), n, fields[f].components));
    particles.fields.push_back({fields[f].name, fields[f].components, rows.back()->data});
  }
  auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  auto materials = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  particles.id = ids.data();
  particles.material = materials.data();

  // The grid on demand, from the method's output snapshot (owned nodes).
  GridSnapshot snapshot;
  auto grid_source = [&](catalyst_abi::Grid& g) {
    if (!method.grid_snapshot(snapshot, true)) return false;
    g.origin[0] = snapshot.lower[0];
    g.origin[1] = snapshot.lower[1];
    g.origin[2] = snapshot.lower[2];
    g.spacing = snapshot.dx;
    for (int d = 0; d < 3; ++d) {
      g.whole[2 * d] = 0;
      g.whole[2 * d + 1] = static_cast<int>(snapshot.nodes[d]) - 1;
      g.piece[2 * d] = static_cast<int>(snapshot.owned_lo[d]);
      g.piece[2 * d + 1] = static_cast<int>(snapshot.owned_lo[d] + snapshot.owned_n[d]) - 1;
    }
    for (const auto& f : snapshot.fields) g.fields.push_back({f.name, f.components, f.values.data()});
    return true;
  };
  // The membrane on demand (methods with an interface mesh: io::SurfaceSource), gathered to rank 0.
  SurfaceMesh mesh;
  auto surface_source = [&](catalyst_abi::Surface& s) {
    auto* source = dynamic_cast<io::SurfaceSource*>(&method);
    if (!source) return false;
    mesh = source->surface_mesh();
    s.vertices = mesh.position.size() / 3;
    s.position = mesh.position.data();
    s.velocity = mesh.velocity.data();
    s.nodes_per_cell = method.dimension() == 2 ? 2 : 3;
    s.cells = mesh.cells.size() / static_cast<size_t>(s.nodes_per_cell);
    s.connectivity = mesh.cells.data();
    return true;
  };
  std::string error;
  switch (pipeline_->execute(particles, grid_source, surface_source, info.step, info.time, error)) {
    case catalyst_abi::Status::ok:
      break;
    case catalyst_abi::Status::failed:
      log::warn("insitu: %s", error.c_str());
      break;
    case catalyst_abi::Status::broken:
      finalize();
      throw RuntimeError("insitu: " + error + "; fix " + settings_.script + " or remove insitu.script");
  }
}

}  // namespace meniscus::io
