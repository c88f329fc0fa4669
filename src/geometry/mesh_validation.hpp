#pragma once
// The checks behind validate(), with hooks that let load_obj point at the file and line where a bad
// triangle came from. Internal to the geometry layer.
#include <string>
#include <vector>

#include "geometry/triangle_mesh.hpp"

namespace meniscus::geometry::detail {

// `prefix` starts every reason (e.g. "mesh file 'a.obj': "); face_lines, when not empty, holds the
// source line of each triangle so that messages can say where it came from.
void validate_mesh(const TriangleMesh& mesh, const std::string& deck_file, const std::string& key,
                   const std::string& prefix, const std::vector<int>& face_lines);

}  // namespace meniscus::geometry::detail
