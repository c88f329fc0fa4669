#include "geometry/triangle_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "core/error.hpp"
#include "geometry/mesh_validation.hpp"

namespace meniscus::geometry {
namespace {

using Vec3 = std::array<double, 3>;

Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// One use of an edge by a triangle, keyed by the undirected edge.
struct EdgeUse {
  int lo, hi, triangle;
  bool forward;  // the triangle runs lo -> hi
};

std::string pair_text(int lo, int hi) { return std::to_string(lo + 1) + "-" + std::to_string(hi + 1); }

void check_topology(const TriangleMesh& mesh, const std::string& deck_file, const std::string& key,
                    const std::string& prefix, const std::vector<int>& face_lines) {
  auto where = [&](int t) {
    return face_lines.empty() ? "triangle " + std::to_string(t + 1) : "the face on line " + std::to_string(face_lines[t]);
  };
  std::vector<EdgeUse> uses;
  uses.reserve(3 * mesh.triangles.size());
  for (size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    for (int e = 0; e < 3; ++e) {
      const int p = tri[e], q = tri[(e + 1) % 3];
      uses.push_back({std::min(p, q), std::max(p, q), static_cast<int>(t), p < q});
    }
  }
  std::sort(uses.begin(), uses.end(), [](const EdgeUse& x, const EdgeUse& y) {
    return std::tie(x.lo, x.hi, x.triangle) < std::tie(y.lo, y.hi, y.triangle);
  });

  size_t boundary = 0;
  const EdgeUse* first_boundary = nullptr;
  for (size_t i = 0; i < uses.size();) {
    size_t j = i;
    while (j < uses.size() && uses[j].lo == uses[i].lo && uses[j].hi == uses[i].hi) ++j;
    const size_t sharing = j - i;
    if (sharing == 1) {
      if (!first_boundary) first_boundary = &uses[i];
      ++boundary;
    } else if (sharing > 2) {
      throw InputError(deck_file, key,
                       prefix + "mesh is not watertight: edge " + pair_text(uses[i].lo, uses[i].hi) + " is shared by " +
                           std::to_string(sharing) + " triangles (non-manifold; each edge must join exactly two)");
    } else if (uses[i].forward == uses[i + 1].forward) {
      throw InputError(deck_file, key,
                       prefix + "mesh is not consistently oriented: " + where(uses[i].triangle) + " and " +
                           where(uses[i + 1].triangle) + " traverse edge " + pair_text(uses[i].lo, uses[i].hi) +
                           " in the same direction (one of them is flipped)");
    }
    i = j;
  }
  if (boundary > 0)
    throw InputError(deck_file, key,
                     prefix + "mesh is not watertight: " + std::to_string(boundary) + " boundary edge" +
                         (boundary == 1 ? "" : "s") + " (first at vertices " +
                         pair_text(first_boundary->lo, first_boundary->hi) + ", in " + where(first_boundary->triangle) +
                         ")");
}

}  // namespace

namespace detail {

void validate_mesh(const TriangleMesh& mesh, const std::string& deck_file, const std::string& key,
                   const std::string& prefix, const std::vector<int>& face_lines) {
  auto fail = [&](const std::string& reason) { throw InputError(deck_file, key, prefix + reason); };
  auto where = [&](size_t t) {
    return face_lines.empty() ? "triangle " + std::to_string(t + 1) : "the face on line " + std::to_string(face_lines[t]);
  };
  if (mesh.triangles.empty()) fail("mesh has no triangles");
  const int nv = static_cast<int>(mesh.vertices.size());
  for (size_t t = 0; t < mesh.triangles.size(); ++t)
    for (int v : mesh.triangles[t])
      if (v < 0 || v >= nv)
        fail(where(t) + " refers to vertex " + std::to_string(v + 1) + ", which is out of range (the mesh has " +
             std::to_string(nv) + " vertices)");
  for (size_t v = 0; v < mesh.vertices.size(); ++v)
    for (double c : mesh.vertices[v])
      if (!std::isfinite(c)) fail("vertex " + std::to_string(v + 1) + " has a non-finite coordinate");

  for (size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0])
      fail("mesh is degenerate: " + where(t) + " uses the same vertex twice");
    const Vec3& a = mesh.vertices[tri[0]];
    const Vec3& b = mesh.vertices[tri[1]];
    const Vec3& c = mesh.vertices[tri[2]];
    const Vec3 n = cross(sub(b, a), sub(c, a));
    // Relative to the triangle's own size, so that the test does not depend on the mesh's units.
    const double longest = std::max({dot(sub(b, a), sub(b, a)), dot(sub(c, b), sub(c, b)), dot(sub(a, c), sub(a, c))});
    if (!(std::sqrt(dot(n, n)) > 1e-12 * longest))
      fail("mesh is degenerate: " + where(t) + " (vertices " + std::to_string(tri[0] + 1) + ", " +
           std::to_string(tri[1] + 1) + ", " + std::to_string(tri[2] + 1) + ") has zero area");
  }

  check_topology(mesh, deck_file, key, prefix, face_lines);

  Vec3 lo = mesh.vertices[mesh.triangles[0][0]], hi = lo;
  for (const auto& tri : mesh.triangles)
    for (int v : tri)
      for (int d = 0; d < 3; ++d) {
        lo[d] = std::min(lo[d], mesh.vertices[v][d]);
        hi[d] = std::max(hi[d], mesh.vertices[v][d]);
      }
  const Vec3 ext = sub(hi, lo);
  const double diag = std::sqrt(dot(ext, ext));
  const double volume = signed_volume(mesh);
  if (!(std::fabs(volume) > 1e-12 * diag * diag * diag))
    fail("mesh is degenerate: it encloses no volume (a flat or doubled surface)");
}

}  // namespace detail

void validate(const TriangleMesh& mesh, const std::string& deck_file, const std::string& key) {
  detail::validate_mesh(mesh, deck_file, key, "", {});
}

double signed_volume(const TriangleMesh& mesh) {
  if (mesh.triangles.empty()) return 0;
  // Cones from a point near the mesh rather than the origin: a mesh far from the origin would
  // otherwise lose digits to cancellation between large cone volumes.
  const Vec3 ref = mesh.vertices[mesh.triangles[0][0]];
  double six_v = 0;
  for (const auto& tri : mesh.triangles) {
    const Vec3 a = sub(mesh.vertices[tri[0]], ref);
    const Vec3 b = sub(mesh.vertices[tri[1]], ref);
    const Vec3 c = sub(mesh.vertices[tri[2]], ref);
    six_v += dot(a, cross(b, c));
  }
  return six_v / 6.0;
}

void flip(TriangleMesh& mesh) {
  for (auto& tri : mesh.triangles) std::swap(tri[1], tri[2]);
}

void transform(TriangleMesh& mesh, double scale, const std::array<double, 3>& translate) {
  if (!std::isfinite(scale) || scale == 0) throw std::invalid_argument("mesh scale must be finite and non-zero");
  for (double t : translate)
    if (!std::isfinite(t)) throw std::invalid_argument("mesh translation must be finite");
  for (auto& v : mesh.vertices)
    for (int d = 0; d < 3; ++d) v[d] = scale * v[d] + translate[d];
  if (scale < 0) flip(mesh);
}

}  // namespace meniscus::geometry
