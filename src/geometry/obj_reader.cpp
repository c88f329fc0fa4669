// Wavefront OBJ reading: only geometry (v, f) matters here; texture coordinates, normals, groups and
// materials are skipped, since the surface's position and orientation are all a distance field needs.
#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "geometry/mesh_validation.hpp"
#include "geometry/triangle_mesh.hpp"

namespace meniscus::geometry {
namespace {

struct ObjContext {
  const std::string& deck_file;
  const std::string& key;
  std::string prefix;  // "mesh file 'x.obj': "
  [[noreturn]] void fail(int line, const std::string& reason) const {
    throw InputError(deck_file, key, prefix + "line " + std::to_string(line) + ": " + reason);
  }
};

bool parse_double(const std::string& token, double& out) {
  const char* s = token.c_str();
  char* end = nullptr;
  out = std::strtod(s, &end);
  return end != s && *end == '\0';
}

// A face corner is "v", "v/vt", "v//vn" or "v/vt/vn"; only v matters. Returns a 0-based index that
// may still exceed the vertex count (OBJ permits faces before the vertices they use), which the
// caller checks once the whole file is read.
long parse_corner(const std::string& token, long vertices_so_far, int line, const ObjContext& ctx) {
  const std::string head = token.substr(0, token.find('/'));
  const char* s = head.c_str();
  char* end = nullptr;
  errno = 0;
  const long idx = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE) ctx.fail(line, "face vertex '" + token + "' is not an index");
  if (idx == 0) ctx.fail(line, "face vertex index 0 is out of range (OBJ indices start at 1)");
  if (idx > INT_MAX) ctx.fail(line, "face vertex index " + head + " is out of range");
  if (idx > 0) return idx - 1;
  // Negative indices count back from the most recent vertex.
  const long resolved = vertices_so_far + idx;
  if (resolved < 0)
    ctx.fail(line, "relative face vertex index " + std::to_string(idx) + " is out of range (only " +
                       std::to_string(vertices_so_far) + " vertices defined so far)");
  return resolved;
}

// Exporters often duplicate vertices along texture seams; merging exact duplicates restores the
// shared edges that the watertightness check looks for.
void weld_identical_vertices(TriangleMesh& mesh) {
  std::map<std::array<double, 3>, int> first;
  std::vector<int> target(mesh.vertices.size());
  for (size_t v = 0; v < mesh.vertices.size(); ++v)
    target[v] = first.emplace(mesh.vertices[v], static_cast<int>(v)).first->second;
  for (auto& tri : mesh.triangles)
    for (int& v : tri) v = target[v];
}

}  // namespace

TriangleMesh load_obj(const std::string& path, const std::string& deck_file, const std::string& key) {
  const ObjContext ctx{deck_file, key, "mesh file '" + path + "': "};
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(deck_file, key, ctx.prefix + "file does not exist");
  if (std::filesystem::is_directory(path, ec)) throw InputError(deck_file, key, ctx.prefix + "is a directory, not a file");
  std::ifstream in(path);
  if (!in) throw InputError(deck_file, key, ctx.prefix + "cannot be read (" + std::strerror(errno) + ")");

  TriangleMesh mesh;
  std::vector<int> face_lines;
  std::string raw, line;
  int line_no = 0, first_line = 0;
  std::vector<long> corners;
  while (std::getline(in, raw)) {
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (line.empty()) first_line = line_no;
    // A trailing backslash continues the record on the next line.
    if (!raw.empty() && raw.back() == '\\') {
      raw.pop_back();
      line += raw + " ";
      continue;
    }
    line += raw;
    const std::string record = line.substr(0, line.find('#'));
    line.clear();
    std::istringstream tokens(record);
    std::string kind;
    if (!(tokens >> kind)) continue;

    if (kind == "v") {
      std::array<double, 3> p{};
      std::string tok;
      for (int d = 0; d < 3; ++d) {
        if (!(tokens >> tok)) ctx.fail(first_line, "vertex has fewer than 3 coordinates");
        if (!parse_double(tok, p[d])) ctx.fail(first_line, "vertex coordinate '" + tok + "' is not a number");
        if (!std::isfinite(p[d]))
          ctx.fail(first_line, "vertex " + std::to_string(mesh.vertices.size() + 1) + " has a non-finite coordinate (" +
                                   tok + ")");
      }
      mesh.vertices.push_back(p);
    } else if (kind == "f") {
      corners.clear();
      std::string tok;
      while (tokens >> tok) corners.push_back(parse_corner(tok, static_cast<long>(mesh.vertices.size()), first_line, ctx));
      if (corners.size() < 3)
        ctx.fail(first_line, "face has " + std::to_string(corners.size()) + " vertices; at least 3 are needed");
      for (size_t i = 1; i + 1 < corners.size(); ++i) {
        mesh.triangles.push_back(
            {static_cast<int>(corners[0]), static_cast<int>(corners[i]), static_cast<int>(corners[i + 1])});
        face_lines.push_back(first_line);
      }
    }
  }
  if (in.bad()) throw InputError(deck_file, key, ctx.prefix + "read error");
  if (mesh.triangles.empty())
    throw InputError(deck_file, key, ctx.prefix + "mesh has no triangles (no 'f' records found)");
  for (size_t t = 0; t < mesh.triangles.size(); ++t)
    for (int v : mesh.triangles[t])
      if (v >= static_cast<long>(mesh.vertices.size()))
        ctx.fail(face_lines[t], "face vertex index " + std::to_string(static_cast<long>(v) + 1) +
                                    " is out of range (the file defines " + std::to_string(mesh.vertices.size()) +
                                    " vertices)");

  weld_identical_vertices(mesh);
  detail::validate_mesh(mesh, deck_file, key, ctx.prefix, face_lines);
  if (signed_volume(mesh) < 0) flip(mesh);
  return mesh;
}

}  // namespace meniscus::geometry
