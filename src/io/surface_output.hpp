#pragma once
// Membrane output for ParaView (the membrane of Ruan et al. 2021 as a dataset of its own beside its
// vertices' particle series): one HDF5 file per output time, DIR/membrane_NNNNNN.h5 (NNNNNN = step),
// with the XDMF documents DIR/membrane_NNNNNN.xdmf and the collection DIR/membrane.xdmf. In 3D the
// membrane is a triangle surface (XDMF Triangle topology), in 2D a polyline of segments (Polyline
// with two nodes per element, z = 0). Layout of a file:
//   /position, /velocity   N x 3 float64 (vertices)
//   /triangles             T x 3 int64 (3D: 0-based vertex rows, counter-clockwise seen from the air)
//   /segments              S x 2 int64 (2D: 0-based vertex rows, in the polyline's order)
//   attributes of /: meniscus_format = "membrane", format_version, method, dimension, step, time,
//   vertex_count, triangle_count (3D) or segment_count (2D)
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/series.hpp"

namespace meniscus::io {

// A surface held whole by rank 0 (other ranks leave it empty).
struct SurfaceMesh {
  std::vector<double> position, velocity;  // 3 per vertex
  std::vector<int64_t> cells;              // nodes_per_cell vertex rows per cell
  int nodes_per_cell = 3;                  // 3: triangles (3D), 2: segments (2D)
};

// A method with a membrane surface (or polyline) implements this beside Method; the output observer writes the
// surface series when the method is a SurfaceSource.
class SurfaceSource {
 public:
  virtual ~SurfaceSource() = default;
  virtual SurfaceMesh surface_mesh() = 0;  // collective
};

// `series` names the files and their meniscus_format: "membrane", or "body_outlines" for the 2D
// rigid bodies' outlines (closed polylines, one per body in the deck's order, the body points'
// velocities; io/body_output.hpp).
class SurfaceOutput : public MethodSeries {
 public:
  SurfaceOutput(MPI_Comm comm, const std::string& method_name, const std::string& dir,
                const std::string& series = "membrane")
      : MethodSeries(comm, method_name, dir, series), format_(series) {}
  // Writes this step's files (rank 0 writes the rows) and adds them to the collection. Collective.
  void write(const SurfaceMesh& mesh, int dimension, long step, double time);

 private:
  std::string format_;
};

}  // namespace meniscus::io
