#include "io/series.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "core/log.hpp"
#include "io/durable_file.hpp"
#include "io/xdmf.hpp"

namespace meniscus::io {
namespace fs = std::filesystem;

Series::Series(MPI_Comm comm, std::string dir, std::string prefix)
    : comm_(comm), dir_(std::move(dir)), prefix_(std::move(prefix)) {}

std::string Series::h5_name(long step) const { return prefix_ + log::format("_%06ld.h5", step); }
std::string Series::xdmf_name(long step) const { return prefix_ + log::format("_%06ld.xdmf", step); }
std::string Series::path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

void Series::add(long step) {
  steps_.erase(std::remove_if(steps_.begin(), steps_.end(), [&](long s) { return s >= step; }), steps_.end());
  steps_.push_back(step);
  write_collection();
}

void Series::resume(long step) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  steps_.clear();
  if (rank == 0) {  // only rank 0 writes the collection, so only it needs the list
    const std::regex pattern(prefix_ + "_([0-9]+)\\.xdmf");
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir_, ec)) {
      std::smatch m;
      const std::string name = entry.path().filename().string();
      if (!std::regex_match(name, m, pattern)) continue;
      const long s = std::stol(m[1].str());
      if (s <= step && fs::exists(path(h5_name(s)), ec)) steps_.push_back(s);
      // Files of later steps belong to the future this restart discards; left in place they would
      // mix two histories in one folder.
      if (s > step) {
        fs::remove(path(h5_name(s)), ec);
        fs::remove(entry.path(), ec);
      }
    }
    std::sort(steps_.begin(), steps_.end());
  }
  write_collection();
}

void Series::write_collection() {
  on_rank0(comm_, [&] {
    std::vector<std::string> docs;
    for (long s : steps_) docs.push_back(xdmf_name(s));
    write_file_atomically(path(prefix_ + ".xdmf"), xdmf::temporal_collection(prefix_, docs));
  });
}

}  // namespace meniscus::io
