#pragma once
// Grid output for ParaView: the method's grid fields (MPM: nodal mass and velocity) as uniform-grid
// datasets, DIR/grid_NNNNNN.h5 + .xdmf (3DCoRectMesh; 2D grids have one node in z) and the
// collection DIR/grid.xdmf. Every rank writes its owned box of nodes by hyperslab. Layout:
//   /<field>  nz x ny x nx (scalars) or nz x ny x nx x 3 (vectors) float64
//   attributes of /: meniscus_format = "grid", format_version, step, time, origin_x/y/z, spacing
#include <mpi.h>

#include <string>

#include "io/series.hpp"
#include "methods/method.hpp"

namespace meniscus::io {

class GridOutput {
 public:
  GridOutput(MPI_Comm comm, const std::string& dir);
  // Writes the grid files of this step; false (and nothing written) if the method has no grid.
  bool write(Method& method, long step, double time);
  void resume(long step) { series_.resume(step); }

 private:
  MPI_Comm comm_;
  Series series_;
};

}  // namespace meniscus::io
