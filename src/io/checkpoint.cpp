#include "io/checkpoint.hpp"

#include <sys/statvfs.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <regex>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "io/checksum.hpp"
#include "io/durable_file.hpp"
#include "io/h5_file.hpp"
#include "io/particle_columns.hpp"
#include "core/version.hpp"

namespace meniscus::io {
namespace fs = std::filesystem;

namespace {

// Version 2 adds the checksums (a checksum attribute on every particle dataset, /header_checksum
// over the root attributes, the method state and the deck). Version 1 files are still read, unverified.
constexpr int64_t kFormatVersion = 2;

// The deck keys that define the physics of the stored particles: a restart must not change them
// (numerical keys such as cfl, tolerances, output and checkpoint schedules may change).
const char* const kPhysicalSections[] = {"materials", "colliders"};
const char* const kPhysicalKeys[] = {"mpm.gravity", "mpm.surface_tension", "sph.particle_radius", "sph.mass_volume_factor",
                                     "sph.gravity", "sph.surface_tension", "sph.viscosity", "sph.adhesion",
                                     "sph.wall_adhesion", "membrane.density", "membrane.surface_tension",
                                     "membrane.gravity", "membrane.thickness_over_dx"};

// Text of everything the header checksum covers, in a fixed order (doubles in hexadecimal, exact).
std::string header_text(const CheckpointInfo& info, int64_t ranks, int64_t particles,
                        const std::vector<std::pair<std::string, double>>& state, const std::string& deck) {
  std::string s = log::format("%ld|%a|%a|%a|%ld|%ld|", info.step, info.time, info.dt, info.wall_s,
                              static_cast<long>(ranks), static_cast<long>(particles));
  // By name: HDF5 lists attributes in name order, not in the order they were written.
  auto sorted = state;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [k, v] : sorted) s += k + "=" + log::format("%a", v) + "|";
  return s + deck;
}

int64_t as_attr(uint64_t c) {
  int64_t v;
  std::memcpy(&v, &c, sizeof v);
  return v;
}

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

// "" if the trees are equal, else "key.path|stored text|current text" for the first difference.
std::string first_difference(const YAML::Node& a, const YAML::Node& b, const std::string& path) {
  const bool a_map = a && a.IsMap(), b_map = b && b.IsMap();
  const bool a_seq = a && a.IsSequence(), b_seq = b && b.IsSequence();
  if (a_map && b_map) {
    std::vector<std::string> keys;
    for (const auto& kv : a) keys.push_back(kv.first.Scalar());
    for (const auto& kv : b)
      if (std::find(keys.begin(), keys.end(), kv.first.Scalar()) == keys.end()) keys.push_back(kv.first.Scalar());
    for (const auto& k : keys) {
      const std::string d = first_difference(a[k], b[k], path + "." + k);
      if (!d.empty()) return d;
    }
    return "";
  }
  if (a_seq && b_seq && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string d = first_difference(a[i], b[i], path + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  const std::string ta = canonical(a), tb = canonical(b);
  return ta == tb ? "" : path + "|" + ta + "|" + tb;
}

[[noreturn]] void throw_changed(const std::string& path, const std::string& diff) {
  const size_t p1 = diff.find('|'), p2 = diff.find('|', p1 + 1);
  throw InputError(path, diff.substr(0, p1),
                   "changed since the checkpoint was written (" + diff.substr(p1 + 1, p2 - p1 - 1) + " there, " +
                       diff.substr(p2 + 1) + " in the deck); a restart continues the same physics: restart with "
                       "the deck that wrote it (stored in the checkpoint as /deck) or start a new run");
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
  for (const char* section : kPhysicalSections) {
    const std::string diff = first_difference(stored[section], now[section], section);
    if (!diff.empty()) throw_changed(path, diff);
  }
  for (const char* key : kPhysicalKeys) {
    const std::string k = key;
    const std::string sec = k.substr(0, k.find('.')), leaf = k.substr(k.find('.') + 1);
    if (!now[sec] || !now[sec][leaf]) continue;
    const YAML::Node old = stored[sec] ? stored[sec][leaf] : YAML::Node();
    const std::string diff = first_difference(old, now[sec][leaf], k);
    if (!diff.empty()) throw_changed(path, diff);
  }
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
  const auto grid = method.grid_state();
  {
    // A checkpoint that cannot fit is refused before HDF5 starts writing (a write that fails half
    // way leaves HDF5 unable to close the file cleanly): the particle data plus a margin for the
    // deck and the metadata, against the space left on the folder's file system.
    auto& set = method.particles();
    double bytes = 0;
    for (const auto& fi : set.field_info())
      if (fi.persistent) bytes += 8.0 * fi.components * static_cast<double>(set.size());
    bytes += 16.0 * static_cast<double>(set.size()) + 8.0;
    MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_SUM, comm);
    bytes += 256 << 10;
    on_rank0(comm, [&] {
      struct statvfs fsinfo {};
      if (statvfs(folder.c_str(), &fsinfo) != 0) return;  // unknown: let the write find out
      const double free_bytes = static_cast<double>(fsinfo.f_bavail) * static_cast<double>(fsinfo.f_frsize);
      if (free_bytes < bytes)
        throw RuntimeError(log::format("no room for checkpoint %s: it needs about %.3g MB, the file system of %s has "
                                       "%.3g MB free (file system full? free space or lower checkpoint.keep)",
                                       path.c_str(), bytes / 1e6, folder.c_str(), free_bytes / 1e6));
    });
  }
  try {
    H5File f = H5File::create(comm, tmp);
    // Each dataset carries the checksum of its elements (io/checksum.hpp) as an attribute.
    auto checked = [&](const std::string& name, const auto* data, size_t rows, size_t cols) {
      const long first = f.write_rows(name, data, rows, cols);
      const size_t per = std::max<size_t>(cols, 1);
      const uint64_t c = dataset_checksum(comm, data, rows * per, static_cast<uint64_t>(first) * per);
      f.set_attr(name, "checksum", as_attr(c));
    };
    auto& set = method.particles();
    const size_t n = set.size();
    for (size_t i = 0; i < set.field_info().size(); ++i) {
      const auto& fi = set.field_info()[i];
      if (!fi.persistent) continue;
      const HostRows v = rows_to_host(set.field(static_cast<int>(i)), n, fi.components);
      checked("particles/" + fi.name, v.data(), n, fi.components);
    }
    const HostInts ids = ids_to_host(set.id(), n);
    checked("particles/id", ids.data(), n, 0);
    const HostInts mats = materials_to_host(set.material(), n);
    checked("particles/material", mats.data(), n, 0);
    const int64_t count = static_cast<int64_t>(n);
    checked("particles/rank_counts", &count, 1, 0);
    long total = static_cast<long>(n);
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG, MPI_SUM, comm);
    // Grid state of methods that carry one (Method::grid_state), every table in rank order.
    for (const auto& t : grid)
      checked("grid/" + t.name, t.values.data(), t.values.size() / static_cast<size_t>(t.columns), t.columns);

    f.create_group("method_state");
    for (const auto& [k, v] : state) f.set_attr("/method_state", k, v);
    f.create_group("rng");
    f.set_attr("/rng", "note", std::string("no random number generators yet; their states will be stored here"));
    const std::string deck_text = yaml_text(deck.resolved());
    f.write_text("deck", deck_text);

    f.set_attr("/", "meniscus_format", std::string("checkpoint"));
    f.set_attr("/", "format_version", kFormatVersion);
    f.set_attr("/", "meniscus_version", std::string(version_string()));
    f.set_attr("/", "git_commit", std::string(git_commit()));
    f.set_attr("/", "method", method_name);
    f.set_attr("/", "dimension", int64_t{method.dimension()});
    f.set_attr("/", "step", int64_t{info.step});
    f.set_attr("/", "time", info.time);
    f.set_attr("/", "dt", info.dt);
    f.set_attr("/", "wall_s", info.wall_s);
    f.set_attr("/", "writer_ranks", int64_t{size});
    f.set_attr("/", "particle_count", int64_t{total});
    f.set_attr("/", "header_checksum", as_attr(text_checksum(header_text(info, size, total, state, deck_text))));
    f.close();
  } catch (const std::exception&) {
    // Every failure above is agreed on by all ranks (H5File), so all arrive here; the file is closed
    // (the H5File is gone) and the partial .tmp must not stay behind to fill the disk further.
    MPI_Barrier(comm);
    on_rank0(comm, [&] {
      std::error_code ec;
      fs::remove(tmp, ec);
    });
    throw;
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
  if (version != kFormatVersion && version != 1)
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
  const std::string deck_text = f.read_text("deck");
  const bool verify = version >= 2;
  if (!verify) log::warn("%s: a version-1 checkpoint has no checksums; its data cannot be verified", path.c_str());

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
  if (verify) {
    std::vector<std::pair<std::string, double>> stored_state;
    for (const auto& k : f.attr_names("/method_state")) stored_state.emplace_back(k, f.attr_real("/method_state", k));
    const uint64_t want = text_checksum(header_text(info, info.writer_ranks, info.particles, stored_state, deck_text));
    if (!f.has_attr("/", "header_checksum") || f.attr_int("/", "header_checksum") != as_attr(want))
      throw InputError(path, "", "damaged checkpoint: the header (step, time, counts, /method_state, /deck) fails its "
                                 "checksum");
  }
  // Verified before the deck is compared, so that a damaged /deck is reported as damage.
  check_deck(path, deck_text, deck);
  // The checksum of a dataset from the rows each rank read (together: every row once).
  auto verify_rows = [&](const std::string& name, const void* data, size_t rows, size_t cols, long first_row) {
    if (!verify) return;
    const size_t per = std::max<size_t>(cols, 1);
    const uint64_t got = dataset_checksum(comm, data, rows * per, static_cast<uint64_t>(first_row) * per);
    if (!f.has_attr(name, "checksum") || f.attr_int(name, "checksum") != as_attr(got))
      throw InputError(path, "", "damaged checkpoint: dataset /" + name + " fails its checksum (the file was changed "
                                 "or corrupted after it was written); restart from an earlier checkpoint");
  };
  {
    // rank_counts is read whole by every rank; rank 0's copy alone makes up the checksum.
    int r = 0;
    MPI_Comm_rank(comm, &r);
    verify_rows("particles/rank_counts", counts.data(), r == 0 ? counts.size() : 0, 0, 0);
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
    verify_rows("particles/" + fi.name, v.data(), static_cast<size_t>(mine), fi.components, first);
    rows_to_device(v, set.field(static_cast<int>(i)));
  }
  HostInts ids("checkpoint_ids", static_cast<size_t>(mine)), mats("checkpoint_materials", static_cast<size_t>(mine));
  f.read_rows("particles/id", ids.data(), first, static_cast<size_t>(mine), 0);
  f.read_rows("particles/material", mats.data(), first, static_cast<size_t>(mine), 0);
  verify_rows("particles/id", ids.data(), static_cast<size_t>(mine), 0, first);
  verify_rows("particles/material", mats.data(), static_cast<size_t>(mine), 0, first);
  ids_to_device(ids, set.id());
  materials_to_device(mats, set.material());
  std::vector<std::pair<std::string, double>> state;
  for (const auto& k : f.attr_names("/method_state")) state.emplace_back(k, f.attr_real("/method_state", k));
  // Grid tables: the freshly built method names them; every rank reads each whole (rank 0's copy
  // alone makes up the checksum).
  auto grid = method.grid_state();
  for (auto& t : grid) {
    const std::string name = "grid/" + t.name;
    if (!f.exists(name))
      throw InputError(path, "", "no grid table '" + t.name + "' in the checkpoint (written by another version?)");
    const auto shape = f.shape(name);
    const size_t rows = shape.empty() ? 0 : static_cast<size_t>(shape[0]);
    t.values.assign(rows * static_cast<size_t>(t.columns), 0.0);
    f.read_rows(name, t.values.data(), 0, rows, t.columns);
    verify_rows(name, t.values.data(), rank == 0 ? rows : 0, t.columns, 0);
  }
  f.close();

  if (size != info.writer_ranks) method.redistribute_particles();
  if (!grid.empty()) method.restore_grid_state(grid);
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
