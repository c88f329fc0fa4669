#include "run/output_folder.hpp"

#include <filesystem>
#include <regex>
#include <vector>

namespace meniscus::run {
namespace fs = std::filesystem;

namespace {

// Names Meniscus writes at the top of an output folder (run/, io/particle_output, io/grid_output,
// io/checkpoint, the unstable-state checkpoint of run/simulation).
bool is_run_output(const fs::directory_entry& e) {
  static const std::regex files(
      "(run\\.json|diagnostics\\.csv|(particles|grid)(_[0-9]+)?\\.(h5|xdmf)|.*\\.tmp)");
  const std::string name = e.path().filename().string();
  std::error_code ec;
  if (e.is_directory(ec)) return name == "checkpoints" || name == "unstable";
  return std::regex_match(name, files);
}

std::vector<fs::path> run_outputs(const std::string& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (is_run_output(e)) out.push_back(e.path());
  return out;
}

}  // namespace

std::string earlier_run_files(const std::string& dir) {
  const auto found = run_outputs(dir);
  std::string s;
  for (size_t i = 0; i < found.size() && i < 3; ++i) s += (s.empty() ? "" : ", ") + found[i].filename().string();
  if (found.size() > 3) s += " and " + std::to_string(found.size() - 3) + " more";
  return s;
}

void clear_run_outputs(const std::string& dir) {
  std::error_code ec;
  for (const auto& p : run_outputs(dir)) fs::remove_all(p, ec);
}

}  // namespace meniscus::run
