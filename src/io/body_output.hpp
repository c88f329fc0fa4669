#pragma once
// Rigid-body output for ParaView, a dataset of its own beside the particles: one parallel HDF5 file
// per output time, DIR/bodies_NNNNNN.h5 (NNNNNN = step), with the XDMF documents
// DIR/bodies_NNNNNN.xdmf and the collection DIR/bodies.xdmf. Each body is one point at its centre
// of mass (shown with a Glyph filter scaled by /radius). Layout of a file:
//   /position, /velocity          B x 3 float64 (2D runs: z = 0)
//   /angular_velocity, /angle     B float64 (2D: about z)
//   3D runs instead: /angular_velocity B x 3 (world frame) and /orientation B x 9, the rotation
//   matrix (body to world, row major; a Tensor in ParaView), no /angle
//   /radius, /density             B float64
//   /point_index, /id             B int64 (0 .. B-1, the deck's order)
//   attributes of /: meniscus_format = "bodies", format_version, method, dimension, step, time,
//   body_count
#include <mpi.h>

#include <string>
#include <vector>

#include "io/series.hpp"
#include "io/surface_output.hpp"

namespace meniscus::io {

struct BodyRecord {
  double position[3] = {0, 0, 0};
  double velocity[3] = {0, 0, 0};
  double angular_velocity = 0;  // 2D: about z
  double angle = 0;             // 2D
  double spin[3] = {0, 0, 0};   // 3D angular velocity (world frame)
  double rotation[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // 3D orientation, row major
  double radius = 0;
  double density = 0;
};

// A method with rigid bodies implements this beside Method; the output observer writes the bodies
// series when the method is a BodySource with at least one body.
class BodySource {
 public:
  virtual ~BodySource() = default;
  // Every body, in the deck's order, on every rank (the body count is global).
  virtual std::vector<BodyRecord> body_records() = 0;
  // 2D: every body's outline as a closed polyline (SurfaceMesh with two nodes per cell) held by rank
  // 0, written as the series DIR/body_outlines_NNNNNN.h5 so that ParaView shows boxes, ellipses and
  // polygons as they are (the bodies series draws points). Empty (the default): no such series.
  virtual SurfaceMesh body_outlines() { return {}; }
};

class BodyOutput : public MethodSeries {
 public:
  BodyOutput(MPI_Comm comm, const std::string& method_name, const std::string& dir)
      : MethodSeries(comm, method_name, dir, "bodies") {}
  // Writes this step's files (rank 0 writes the rows) and adds them to the collection. Collective.
  void write(const std::vector<BodyRecord>& bodies, int dimension, long step, double time);
};

}  // namespace meniscus::io
