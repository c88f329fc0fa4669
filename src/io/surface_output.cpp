#include "io/surface_output.hpp"

#include <string>

#include "io/durable_file.hpp"
#include "io/h5_file.hpp"
#include "io/xdmf.hpp"

namespace meniscus::io {

void SurfaceOutput::write(const SurfaceMesh& mesh, int dimension, long step, double time) {
  // Every rank names the same cell type, from the dimension (rank 0 alone holds the mesh, so a check of
  // mesh.nodes_per_cell that threw there would leave the other ranks waiting in the collectives below).
  const int per_cell = dimension == 2 ? 2 : 3;
  const char* cells_name = per_cell == 2 ? "segments" : "triangles";
  long counts[2] = {static_cast<long>(mesh.position.size() / 3), static_cast<long>(mesh.cells.size() / per_cell)};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG, MPI_SUM, comm_);
  const size_t n = mesh.position.size() / 3, t = mesh.cells.size() / per_cell;
  const std::string name = series_.h5_name(step);
  H5File f = H5File::create(comm_, series_.path(name));
  f.write_rows("position", mesh.position.data(), n, 3);
  f.write_rows("velocity", mesh.velocity.data(), n, 3);
  f.write_rows(cells_name, mesh.cells.data(), t, per_cell);
  f.set_attr("/", "meniscus_format", format_);
  f.set_attr("/", "format_version", int64_t{1});
  f.set_attr("/", "method", method_name_);
  f.set_attr("/", "dimension", int64_t{dimension});
  f.set_attr("/", "step", int64_t{step});
  f.set_attr("/", "time", time);
  f.set_attr("/", "vertex_count", int64_t{counts[0]});
  f.set_attr("/", per_cell == 2 ? "segment_count" : "triangle_count", int64_t{counts[1]});
  f.close();
  // The XDMF document and the collection entry only once the HDF5 file is complete.
  const std::vector<xdmf::Array> arrays = {{"velocity", "Vector", {counts[0], 3}, false, "/velocity"}};
  on_rank0(comm_, [&] {
    write_file_atomically(series_.path(series_.xdmf_name(step)),
                          xdmf::surface_document(name, time, counts[0], counts[1], per_cell, "/position",
                                                 std::string("/") + cells_name, arrays, format_));
  });
  series_.add(step);
}

}  // namespace meniscus::io
