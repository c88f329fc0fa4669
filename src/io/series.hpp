#pragma once
// A time series of output files PREFIX_NNNNNN.h5 + PREFIX_NNNNNN.xdmf (NNNNNN = step) in one folder,
// and the collection PREFIX.xdmf that lists them in order, rewritten atomically after each output so
// that ParaView can open (and reload) the run while it is still going.
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace meniscus::io {

class Series {
 public:
  Series(MPI_Comm comm, std::string dir, std::string prefix);
  // File names (without folder) of the output at `step`.
  std::string h5_name(long step) const;
  std::string xdmf_name(long step) const;
  std::string path(const std::string& name) const;
  // Adds the output at `step` (whose files are complete) and rewrites the collection. Collective.
  void add(long step);
  // After a restart at `step`: the collection starts with the outputs of steps <= step already in
  // the folder (written before the restart); later ones belong to a discarded future. Collective.
  void resume(long step);

 private:
  void write_collection();
  MPI_Comm comm_;
  std::string dir_, prefix_;
  std::vector<long> steps_;
};

// An output series that a method feeds (rigid bodies, the membrane surface): its communicator, the
// method name written into every frame, and the files; resume() after a restart.
class MethodSeries {
 public:
  MethodSeries(MPI_Comm comm, std::string method_name, const std::string& dir, const std::string& prefix)
      : comm_(comm), method_name_(std::move(method_name)), series_(comm, dir, prefix) {}
  void resume(long step) { series_.resume(step); }

 protected:
  MPI_Comm comm_;
  std::string method_name_;
  Series series_;
};

}  // namespace meniscus::io
