#include "geometry/triangle_bvh.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include "geometry/triangle_mesh.hpp"

namespace meniscus::geometry {
namespace {

// Small leaves keep the per-query triangle tests few; smaller ones would only add box tests.
constexpr int leaf_size = 4;

struct Builder {
  const TriangleMesh& mesh;
  std::vector<int> order;                       // triangle ids, permuted so leaves are contiguous
  std::vector<std::array<double, 3>> centroid;  // per triangle
  std::vector<std::array<double, 6>> box;       // per node
  std::vector<std::array<int, 3>> node;         // per node: right, first, count

  int build(int begin, int end, int depth) {
    if (depth >= TriangleBvh::max_depth - 1) throw std::logic_error("triangle BVH deeper than its traversal stack");
    const int id = static_cast<int>(node.size());
    node.push_back({-1, begin, end - begin});
    std::array<double, 6> b{kmath::huge, kmath::huge, kmath::huge, -kmath::huge, -kmath::huge, -kmath::huge};
    std::array<double, 6> cb = b;
    for (int i = begin; i < end; ++i) {
      const auto& tri = mesh.triangles[order[i]];
      for (int v : tri)
        for (int d = 0; d < 3; ++d) {
          b[d] = std::min(b[d], mesh.vertices[v][d]);
          b[3 + d] = std::max(b[3 + d], mesh.vertices[v][d]);
        }
      for (int d = 0; d < 3; ++d) {
        cb[d] = std::min(cb[d], centroid[order[i]][d]);
        cb[3 + d] = std::max(cb[3 + d], centroid[order[i]][d]);
      }
    }
    box.push_back(b);
    if (end - begin <= leaf_size) return id;

    int axis = 0;
    for (int d = 1; d < 3; ++d)
      if (cb[3 + d] - cb[d] > cb[3 + axis] - cb[axis]) axis = d;
    const int mid = begin + (end - begin) / 2;
    std::nth_element(order.begin() + begin, order.begin() + mid, order.begin() + end,
                     [&](int x, int y) { return centroid[x][axis] < centroid[y][axis]; });
    build(begin, mid, depth + 1);  // lands at id + 1, which is where traversal looks for it
    const int right = build(mid, end, depth + 1);
    node[id] = {right, begin, end - begin};
    return id;
  }
};

}  // namespace

TriangleBvh build_bvh(const TriangleMesh& mesh) {
  if (mesh.triangles.empty()) throw std::invalid_argument("cannot build a BVH over a mesh without triangles");
  const int nt = static_cast<int>(mesh.triangles.size());
  Builder b{mesh, std::vector<int>(nt), std::vector<std::array<double, 3>>(nt), {}, {}};
  for (int t = 0; t < nt; ++t) {
    b.order[t] = t;
    for (int d = 0; d < 3; ++d) {
      double s = 0;
      for (int v : mesh.triangles[t]) s += mesh.vertices.at(v)[d];
      b.centroid[t][d] = s / 3.0;
    }
  }
  b.build(0, nt, 0);

  const int nn = static_cast<int>(b.node.size());
  TriangleBvh bvh;
  bvh.boxes = Kokkos::View<double* [6]>("bvh_boxes", nn);
  bvh.nodes = Kokkos::View<int* [3]>("bvh_nodes", nn);
  bvh.triangles = Kokkos::View<double* [9]>("bvh_triangles", nt);
  auto boxes = Kokkos::create_mirror_view(bvh.boxes);
  auto nodes = Kokkos::create_mirror_view(bvh.nodes);
  auto tris = Kokkos::create_mirror_view(bvh.triangles);
  for (int n = 0; n < nn; ++n) {
    for (int k = 0; k < 6; ++k) boxes(n, k) = b.box[n][k];
    for (int k = 0; k < 3; ++k) nodes(n, k) = b.node[n][k];
  }
  for (int i = 0; i < nt; ++i) {
    const auto& tri = mesh.triangles[b.order[i]];
    for (int v = 0; v < 3; ++v)
      for (int d = 0; d < 3; ++d) tris(i, 3 * v + d) = mesh.vertices[tri[v]][d];
  }
  Kokkos::deep_copy(bvh.boxes, boxes);
  Kokkos::deep_copy(bvh.nodes, nodes);
  Kokkos::deep_copy(bvh.triangles, tris);
  return bvh;
}

}  // namespace meniscus::geometry
