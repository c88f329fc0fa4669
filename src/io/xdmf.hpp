#pragma once
// XDMF (version 3, as ParaView's Xdmf3 readers and VisIt read it) light-data files that describe
// our HDF5 datasets: one document per output file (a point cloud or a uniform grid) and a temporal
// collection that includes them with XInclude, so ParaView opens a whole run as one animated dataset.
#include <string>
#include <vector>

namespace meniscus::io::xdmf {

// One HDF5 dataset shown as an XDMF Attribute.
struct Array {
  std::string name;          // the array name in ParaView
  std::string type;          // Scalar, Vector, Tensor or Matrix
  std::vector<long> dims;    // dataset shape, slowest first (N; N x 3; nz x ny x nx x 3)
  bool integer = false;      // 8-byte integers, otherwise 8-byte floats
  std::string dataset;       // path inside the HDF5 file, e.g. /velocity
};

// The XDMF attribute type of a field with `components` values per point in `dim` dimensions, as
// written (vectors padded to 3): 1 Scalar, 3 Vector, 9 Tensor, anything else Matrix (2D 2x2 = 4).
std::string attribute_type(int components);

// A point cloud: `count` points whose coordinates are the N x 3 dataset `position`, with a
// Polyvertex topology read from the 1D dataset `numbering` (0 .. N-1). Paths relative to the
// document's folder.
std::string points_document(const std::string& h5_file, double time, long count, const std::string& position,
                            const std::string& numbering, const std::vector<Array>& arrays);

// A triangle surface (per_cell 3) or a polyline of segments (per_cell 2): `vertices` points (the
// N x 3 dataset `position`) and `cells` cells whose 0-based vertex rows are the cells x per_cell
// integer dataset `connectivity`; node-centred arrays. `grid_name` names the grid in ParaView.
std::string surface_document(const std::string& h5_file, double time, long vertices, long cells, int per_cell,
                             const std::string& position, const std::string& connectivity,
                             const std::vector<Array>& arrays, const std::string& grid_name = "membrane");

// A uniform grid of nodes (3DCoRectMesh): `nodes`, `origin` and `spacing` in z, y, x order as XDMF
// wants them; node-centred arrays of shape nodes (x components).
std::string grid_document(const std::string& h5_file, double time, const long nodes[3], const double origin[3],
                          const double spacing[3], const std::vector<Array>& arrays);

// A temporal collection including the single grid of every listed document (paths relative to the
// collection's folder), in the order given.
std::string temporal_collection(const std::string& name, const std::vector<std::string>& documents);

}  // namespace meniscus::io::xdmf
