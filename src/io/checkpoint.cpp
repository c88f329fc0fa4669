#include "io/checkpoint.hpp"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "io/durable_file.hpp"
#include "io/h5_file.hpp"
#include "io/particle_columns.hpp"
#include "meniscus/version.hpp"

namespace meniscus::io {
namespace fs = std::filesystem;

namespace {

constexpr int64_t kFormatVersion = 1;

// (step, path) of every complete checkpoint in `folder`, newest first.
std::vector<std::pair<long, fs::path>> list_checkpoints(const fs::path& folder) {
  static const std::regex pattern("chk_([0-9]+)\\.h5");
  std::vector<std::pair<long, fs::path>> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, m, pattern)) out.emplace_back(std::stol(m[1].str()), entry.path());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return out;
}

// Keeps the newest `keep` checkpoints up to `step`. Later ones were written by a run that this one
// (restarted from an earlier checkpoint) replaces; leaving them would make `--restart latest` jump
// back into that abandoned future. Leftover .tmp files are from writes that never finished.
void prune(const fs::path& folder, long step, int keep) {
  std::error_code ec;
  int kept = 0;
  for (const auto& [s, p] : list_checkpoints(folder)) {
    if (s > step) {
      log::info("removing %s: it is later than this run's checkpoint at step %ld", p.string().c_str(), step);
      fs::remove(p, ec);
    } else if (++kept > keep) {
      fs::remove(p, ec);
    }
  }
  for (const auto& entry : fs::directory_iterator(folder, ec))
    if (entry.path().extension() == ".tmp") fs::remove(entry.path(), ec);
}

std::string yaml_text(const YAML::Node& n) {
  YAML::Emitter e;
  e << n;
  return e.c_str();
}

// One-line text of a YAML tree that does not depend on how it was written (block or flow style),
// for comparing a stored deck with the current one.
std::string canonical(const YAML::Node& n) {
  if (!n || n.IsNull()) return "~";
  if (n.IsScalar()) return n.Scalar();
  std::string s;
  if (n.IsSequence()) {
    for (const auto& item : n) s += (s.empty() ? "" : ", ") + canonical(item);
    return "[" + s + "]";
  }
  for (const auto& kv : n) s += (s.empty() ? "" : ", ") + kv.first.Scalar() + ": " + canonical(kv.second);
  return "{" + s + "}";
}

std::vector<std::string> material_names(const YAML::Node& deck) {
  std::vector<std::string> names;
  const YAML::Node list = deck["materials"];
  if (list && list.IsSequence())
    for (const auto& m : list) names.push_back(m["name"] ? m["name"].as<std::string>() : std::string());
  return names;
}

// The parts of the deck that give the stored particles their meaning must not have changed.
void check_deck(const std::string& path, const std::string& stored_text, const config::Deck& deck) {
  YAML::Node stored;
  try {
    stored = YAML::Load(stored_text);
  } catch (const YAML::Exception&) {
    throw InputError(path, "", "the deck stored in the checkpoint (/deck) is not valid YAML: damaged file?");
  }
  const YAML::Node& now = deck.resolved();
  if (canonical(stored["domain"]) != canonical(now["domain"]))
    throw InputError(path, "", "the deck's domain section " + canonical(now["domain"]) +
                                   " differs from the checkpoint's " + canonical(stored["domain"]) +
                                   "; restart with the deck that wrote it (stored in the checkpoint as /deck)");
  if (material_names(stored) != material_names(now))
    throw InputError(path, "", "the deck's materials differ from the checkpoint's (particles refer to materials "
                               "by position in that list); restart with the deck that wrote it (/deck)");
}

}  // namespace

std::string checkpoint_folder(const std::string& output_dir) { return (fs::path(output_dir) / "checkpoints").string(); }

std::string write_checkpoint(MPI_Comm comm, Method& method, const std::string& method_name, const config::Deck& deck,
                             const std::string& folder, const CheckpointInfo& info, int keep) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const std::string path = (fs::path(folder) / log::format("chk_%06ld.h5", info.step)).string();
  const std::string tmp = path + ".tmp";
  on_rank0(comm, [&] {
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (!fs::is_directory(folder, ec)) throw RuntimeError("cannot create the checkpoint folder " + folder);
  });
  // Collective calls with the method (state() reduces over ranks) come before the file is open.
  const auto state = method.state();
  {
    H5File f = H5File::create(comm, tmp);
    auto& set = method.particles();
    const size_t n = set.size();
    for (size_t i = 0; i < set.field_info().size(); ++i) {
      const auto& fi = set.field_info()[i];
      if (!fi.persistent) continue;
      const HostRows v = rows_to_host(set.field(static_cast<int>(i)), n, fi.components);
      f.write_rows("particles/" + fi.name, v.data(), n, fi.components);
    }
    const HostInts ids = ids_to_host(set.id(), n);
    f.write_rows("particles/id", ids.data(), n, 0);
    const HostInts mats = materials_to_host(set.material(), n);
    f.write_rows("particles/material", mats.data(), n, 0);
    const int64_t count = static_cast<int64_t>(n);
    f.write_rows("particles/rank_counts", &count, 1, 0);
    long total = static_cast<long>(n);
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG, MPI_SUM, comm);

    f.create_group("method_state");
    for (const auto& [k, v] : state) f.set_attr("/method_state", k, v);
    f.create_group("rng");
    f.set_attr("/rng", "note", std::string("no random number generators yet; their states will be stored here"));
    f.write_text("deck", yaml_text(deck.resolved()));

    f.set_attr("/", "meniscus_format", std::string("checkpoint"));
    f.set_attr("/", "format_version", kFormatVersion);
    f.set_attr("/", "meniscus_version", std::string(kVersion));
    f.set_attr("/", "method", method_name);
    f.set_attr("/", "dimension", int64_t{method.dimension()});
    f.set_attr("/", "step", int64_t{info.step});
    f.set_attr("/", "time", info.time);
    f.set_attr("/", "dt", info.dt);
    f.set_attr("/", "wall_s", info.wall_s);
    f.set_attr("/", "writer_ranks", int64_t{size});
    f.set_attr("/", "particle_count", int64_t{total});
    f.close();
  }
  // Every rank's data is in the file once the collective close has returned everywhere; only then
  // may the checkpoint take its final name.
  MPI_Barrier(comm);
  on_rank0(comm, [&] {
    durable_rename(tmp, path);
    prune(folder, info.step, keep);
  });
  return path;
}

CheckpointInfo read_checkpoint(MPI_Comm comm, const std::string& path, Method& method, const std::string& method_name,
                               const config::Deck& deck) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  H5File f = H5File::open(comm, path);
  // Every rank reads the same attributes, so every rank throws the same InputError.
  if (!f.has_attr("/", "meniscus_format"))
    throw InputError(path, "", "not a Meniscus checkpoint (an HDF5 file without the meniscus_format attribute)");
  const std::string format = f.attr_text("/", "meniscus_format");
  if (format != "checkpoint")
    throw InputError(path, "", "a Meniscus '" + format + "' file, not a checkpoint (those are DIR/checkpoints/chk_NNNNNN.h5)");
  const int64_t version = f.attr_int("/", "format_version");
  if (version != kFormatVersion)
    throw InputError(path, "", log::format("checkpoint format version %ld; this meniscus reads version %ld",
                                           static_cast<long>(version), static_cast<long>(kFormatVersion)));
  const std::string method_written = f.attr_text("/", "method");
  // Checkpoints written before a method was renamed carry its old name (an alias).
  const MethodInfo* written_info = find_method(method_written);
  if ((written_info ? written_info->name : method_written) != method_name)
    throw InputError(path, "", "written by method '" + method_written + "'; the deck runs '" + method_name + "'");
  const int64_t dim = f.attr_int("/", "dimension");
  if (dim != method.dimension())
    throw InputError(path, "", log::format("a %ldD checkpoint; the deck is %dD", static_cast<long>(dim), method.dimension()));
  check_deck(path, f.read_text("deck"), deck);

  CheckpointInfo info;
  info.step = static_cast<long>(f.attr_int("/", "step"));
  info.time = f.attr_real("/", "time");
  info.dt = f.attr_real("/", "dt");
  info.wall_s = f.attr_real("/", "wall_s");
  info.writer_ranks = static_cast<int>(f.attr_int("/", "writer_ranks"));
  info.particles = static_cast<long>(f.attr_int("/", "particle_count"));
  if (info.writer_ranks < 1 || info.particles < 0 || info.step < 0)
    throw InputError(path, "", "damaged checkpoint (impossible step, rank or particle count)");
  std::vector<int64_t> counts(static_cast<size_t>(info.writer_ranks));
  f.read_rows("particles/rank_counts", counts.data(), 0, counts.size(), 0);
  long sum = 0;
  bool negative = false;
  for (auto c : counts) {
    negative = negative || c < 0;
    sum += static_cast<long>(c);
  }
  if (negative || sum != info.particles)
    throw InputError(path, "", log::format("damaged checkpoint: the rank counts add up to %ld particles, not %ld", sum,
                                           info.particles));

  // This rank's block: its own at the writer's rank count (same order, bit-identical continuation),
  // otherwise an even share that redistribute_particles() then sends to the owners.
  long first = 0, mine = 0;
  if (size == info.writer_ranks) {
    for (int r = 0; r < rank; ++r) first += counts[r];
    mine = counts[rank];
  } else {
    const long base = info.particles / size, extra = info.particles % size;
    first = rank * base + std::min<long>(rank, extra);
    mine = base + (rank < extra ? 1 : 0);
  }
  auto& set = method.particles();
  set.resize(static_cast<size_t>(mine));
  for (size_t i = 0; i < set.field_info().size(); ++i) {
    const auto& fi = set.field_info()[i];
    if (!fi.persistent) continue;
    if (!f.exists("particles/" + fi.name))
      throw InputError(path, "", "no particle field '" + fi.name + "' in the checkpoint (written by another version?)");
    HostRows v("checkpoint_rows", static_cast<size_t>(mine), fi.components);
    f.read_rows("particles/" + fi.name, v.data(), first, static_cast<size_t>(mine), fi.components);
    rows_to_device(v, set.field(static_cast<int>(i)));
  }
  HostInts ids("checkpoint_ids", static_cast<size_t>(mine)), mats("checkpoint_materials", static_cast<size_t>(mine));
  f.read_rows("particles/id", ids.data(), first, static_cast<size_t>(mine), 0);
  f.read_rows("particles/material", mats.data(), first, static_cast<size_t>(mine), 0);
  ids_to_device(ids, set.id());
  materials_to_device(mats, set.material());
  std::vector<std::pair<std::string, double>> state;
  for (const auto& k : f.attr_names("/method_state")) state.emplace_back(k, f.attr_real("/method_state", k));
  f.close();

  if (size != info.writer_ranks) method.redistribute_particles();
  method.restore_state(state);
  method.particles_replaced();
  if (method.global_particle_count() != info.particles)
    throw RuntimeError(path + ": restart lost particles while redistributing them");
  return info;
}

std::string latest_checkpoint(MPI_Comm comm, const std::string& dir) {
  std::string found;
  on_rank0(comm, [&] {
    std::error_code ec;
    fs::path folder = dir;
    if (fs::is_directory(folder / "checkpoints", ec)) folder /= "checkpoints";
    if (!fs::is_directory(folder, ec)) throw InputError(dir, "", "--restart latest: no such folder");
    for (const auto& [step, p] : list_checkpoints(folder)) {
      try {
        // The file may be damaged (a disk that lost it); then the one before is the newest good one.
        H5File g = H5File::open(MPI_COMM_SELF, p.string());
        if (g.has_attr("/", "meniscus_format") && g.attr_text("/", "meniscus_format") == "checkpoint") {
          g.close();
          found = p.string();
          return;
        }
        log::warn("skipping %s: not a Meniscus checkpoint", p.string().c_str());
      } catch (const std::exception& e) {
        log::warn("skipping checkpoint %s", e.what());
      }
    }
    throw InputError(folder.string(), "", "--restart latest: no complete checkpoint (chk_NNNNNN.h5) in this folder");
  });
  int len = static_cast<int>(found.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, comm);
  found.resize(static_cast<size_t>(len));
  MPI_Bcast(found.data(), len, MPI_CHAR, 0, comm);
  return found;
}

}  // namespace meniscus::io
