#include "io/xdmf.hpp"

#include <sstream>

#include "core/log.hpp"

namespace meniscus::io::xdmf {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string dims_text(const std::vector<long>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? " " : "") + std::to_string(dims[i]);
  return s;
}

// Shortest decimal that reads back as the same double, so time values match the HDF5 attributes.
std::string exact(double v) { return log::format("%.17g", v); }

void data_item(std::ostringstream& os, const std::string& indent, const std::vector<long>& dims, bool integer,
               const std::string& h5_file, const std::string& dataset) {
  os << indent << "<DataItem Dimensions=\"" << dims_text(dims) << "\" NumberType=\"" << (integer ? "Int" : "Float")
     << "\" Precision=\"8\" Format=\"HDF\">" << escape(h5_file) << ":" << escape(dataset) << "</DataItem>\n";
}

void attributes(std::ostringstream& os, const std::string& h5_file, const std::vector<Array>& arrays) {
  for (const auto& a : arrays) {
    os << "      <Attribute Name=\"" << escape(a.name) << "\" AttributeType=\"" << a.type << "\" Center=\"Node\">\n";
    data_item(os, "        ", a.dims, a.integer, h5_file, a.dataset);
    os << "      </Attribute>\n";
  }
}

const char* kHeader =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
    "  <Domain>\n";
const char* kFooter =
    "  </Domain>\n"
    "</Xdmf>\n";

}  // namespace

std::string attribute_type(int components) {
  switch (components) {
    case 1: return "Scalar";
    case 3: return "Vector";
    case 9: return "Tensor";
    default: return "Matrix";
  }
}

namespace {
// An unstructured grid of `points` points (N x 3 dataset `position`) and `cells` cells of one type
// with `per_cell` points each, their connectivity the integer dataset `connectivity` of shape dims.
std::string unstructured_document(const std::string& grid_name, const std::string& h5_file, double time, long points,
                                  const std::string& position, const char* cell_type, long cells, int per_cell,
                                  const std::vector<long>& dims, const std::string& connectivity,
                                  const std::vector<Array>& arrays) {
  std::ostringstream os;
  os << kHeader;
  os << "    <Grid Name=\"" << grid_name << "\" GridType=\"Uniform\">\n";
  os << "      <Time Value=\"" << exact(time) << "\"/>\n";
  os << "      <Topology TopologyType=\"" << cell_type << "\" NumberOfElements=\"" << cells << "\" NodesPerElement=\""
     << per_cell << "\">\n";
  data_item(os, "        ", dims, true, h5_file, connectivity);
  os << "      </Topology>\n";
  os << "      <Geometry GeometryType=\"XYZ\">\n";
  data_item(os, "        ", {points, 3}, false, h5_file, position);
  os << "      </Geometry>\n";
  attributes(os, h5_file, arrays);
  os << "    </Grid>\n";
  os << kFooter;
  return os.str();
}
}  // namespace

std::string points_document(const std::string& h5_file, double time, long count, const std::string& position,
                            const std::string& numbering, const std::vector<Array>& arrays) {
  // Xdmf3 builds one vertex cell per connectivity entry; without the explicit list ParaView would
  // load the points but draw nothing.
  return unstructured_document("particles", h5_file, time, count, position, "Polyvertex", count, 1, {count}, numbering,
                               arrays);
}

std::string surface_document(const std::string& h5_file, double time, long vertices, long cells, int per_cell,
                             const std::string& position, const std::string& connectivity,
                             const std::vector<Array>& arrays, const std::string& grid_name) {
  // Polyline with two nodes per element: each segment its own line cell (Xdmf3's polyline reading).
  return unstructured_document(grid_name, h5_file, time, vertices, position, per_cell == 2 ? "Polyline" : "Triangle",
                               cells, per_cell, {cells, per_cell}, connectivity, arrays);
}

std::string grid_document(const std::string& h5_file, double time, const long nodes[3], const double origin[3],
                          const double spacing[3], const std::vector<Array>& arrays) {
  std::ostringstream os;
  os << kHeader;
  os << "    <Grid Name=\"grid\" GridType=\"Uniform\">\n";
  os << "      <Time Value=\"" << exact(time) << "\"/>\n";
  os << "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << nodes[0] << " " << nodes[1] << " " << nodes[2]
     << "\"/>\n";
  os << "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
  os << "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" << exact(origin[0]) << " "
     << exact(origin[1]) << " " << exact(origin[2]) << "</DataItem>\n";
  os << "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" << exact(spacing[0])
     << " " << exact(spacing[1]) << " " << exact(spacing[2]) << "</DataItem>\n";
  os << "      </Geometry>\n";
  attributes(os, h5_file, arrays);
  os << "    </Grid>\n";
  os << kFooter;
  return os.str();
}

std::string temporal_collection(const std::string& name, const std::vector<std::string>& documents) {
  std::ostringstream os;
  os << kHeader;
  os << "    <Grid Name=\"" << escape(name) << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const auto& d : documents)
    os << "      <xi:include href=\"" << escape(d) << "\" xpointer=\"xpointer(//Xdmf/Domain/Grid)\"/>\n";
  os << "    </Grid>\n";
  os << kFooter;
  return os.str();
}

}  // namespace meniscus::io::xdmf
