#pragma once
// What every point-cloud output frame (particles, rigid bodies) shares: the root attributes that tell a
// reader which kind of frame it holds, and the order in which a finished frame is made visible.
#include <mpi.h>

#include <string>
#include <vector>

#include "io/h5_file.hpp"
#include "io/series.hpp"
#include "io/xdmf.hpp"

namespace meniscus::io {

struct FrameHeader {
  std::string format;     // "particles", "bodies"
  std::string method;     // registered method name
  int dimension = 0;
  long step = 0;
  double time = 0;
  std::string count_key;  // "particle_count", "body_count"
  long count = 0;         // points summed over ranks
};

// Root attributes of a frame (format version 1). Collective on the file's communicator.
void write_frame_header(H5File& f, const FrameHeader& h);

// After the frame's HDF5 file `h5_name` is closed: rank 0 writes its XDMF document atomically, then the
// series' collection lists it, so a ParaView session reloading the collection never reads a file still
// being written. Collective.
void publish_points_frame(MPI_Comm comm, Series& series, const std::string& h5_name, const FrameHeader& h,
                          const std::vector<xdmf::Array>& arrays);

}  // namespace meniscus::io
