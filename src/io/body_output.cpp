#include "io/body_output.hpp"

#include <cstdint>

#include "io/h5_file.hpp"
#include "io/points_frame.hpp"
#include "io/xdmf.hpp"

namespace meniscus::io {

void BodyOutput::write(const std::vector<BodyRecord>& bodies, int dimension, long step, double time) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  const long total = static_cast<long>(bodies.size());
  const size_t n = rank == 0 ? bodies.size() : 0;  // one writer: every rank holds every body
  std::vector<double> position, velocity, omega, angle, radius, density;
  std::vector<int64_t> index;
  for (size_t b = 0; b < n; ++b) {
    const BodyRecord& r = bodies[b];
    position.insert(position.end(), r.position, r.position + 3);
    velocity.insert(velocity.end(), r.velocity, r.velocity + 3);
    if (dimension == 3) {
      omega.insert(omega.end(), r.spin, r.spin + 3);
      angle.insert(angle.end(), r.rotation, r.rotation + 9);
    } else {
      omega.push_back(r.angular_velocity);
      angle.push_back(r.angle);
    }
    radius.push_back(r.radius);
    density.push_back(r.density);
    index.push_back(static_cast<int64_t>(b));
  }
  const std::string name = series_.h5_name(step);
  H5File f = H5File::create(comm_, series_.path(name));
  f.write_rows("position", position.data(), n, 3);
  f.write_rows("velocity", velocity.data(), n, 3);
  const bool three = dimension == 3;
  f.write_rows("angular_velocity", omega.data(), n, three ? 3 : 0);
  f.write_rows(three ? "orientation" : "angle", angle.data(), n, three ? 9 : 0);
  f.write_rows("radius", radius.data(), n, 0);
  f.write_rows("density", density.data(), n, 0);
  f.write_rows("point_index", index.data(), n, 0);
  f.write_rows("id", index.data(), n, 0);
  const FrameHeader header{"bodies", method_name_, dimension, step, time, "body_count", total};
  write_frame_header(f, header);
  f.close();
  const std::vector<xdmf::Array> arrays = {
      {"velocity", "Vector", {total, 3}, false, "/velocity"},
      three ? xdmf::Array{"angular_velocity", "Vector", {total, 3}, false, "/angular_velocity"}
            : xdmf::Array{"angular_velocity", "Scalar", {total}, false, "/angular_velocity"},
      three ? xdmf::Array{"orientation", "Tensor", {total, 9}, false, "/orientation"}
            : xdmf::Array{"angle", "Scalar", {total}, false, "/angle"},
      {"radius", "Scalar", {total}, false, "/radius"},
      {"density", "Scalar", {total}, false, "/density"},
      {"id", "Scalar", {total}, true, "/id"}};
  // As for the particles: the XDMF document and the collection entry only once the file is complete.
  publish_points_frame(comm_, series_, name, header, arrays);
}

}  // namespace meniscus::io
