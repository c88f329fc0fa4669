#pragma once
// Closed triangle surfaces read from Wavefront OBJ files, for bodies and containers too irregular for
// the analytic shapes. Host-side only; sdf_from_mesh turns a mesh into something kernels evaluate.
#include <array>
#include <string>
#include <vector>

namespace meniscus::geometry {

struct TriangleMesh {
  std::vector<std::array<double, 3>> vertices;
  std::vector<std::array<int, 3>> triangles;  // 0-based vertex indices, counter-clockwise seen from outside
};

// Reads `v` and `f` records (polygons are fan-triangulated; indices may be i, i/j, i//k, i/j/k or
// negative, i.e. relative to the last vertex read), welds vertices at identical positions, checks the
// result with validate() and flips every triangle if the surface faces inwards. Every problem throws
// InputError(deck_file, key, reason) with a reason that says what is wrong and where.
TriangleMesh load_obj(const std::string& path, const std::string& deck_file, const std::string& key);

// Throws InputError unless the mesh has at least one triangle, finite coordinates, in-range indices,
// no degenerate triangles, encloses a volume, and is watertight: every edge is shared by exactly two
// triangles that traverse it in opposite directions. Vertex numbers in messages are 1-based, as in
// OBJ files.
void validate(const TriangleMesh& mesh, const std::string& deck_file, const std::string& key);

// x -> scale * x + translate. A negative scale mirrors the mesh; triangles are reversed so that the
// mesh stays outward oriented. Throws std::invalid_argument for a zero or non-finite scale.
void transform(TriangleMesh& mesh, double scale, const std::array<double, 3>& translate);

// Enclosed volume: positive when triangles are ordered counter-clockwise seen from outside.
double signed_volume(const TriangleMesh& mesh);

// Reverses the orientation of every triangle.
void flip(TriangleMesh& mesh);

}  // namespace meniscus::geometry
