// Triangle meshes: OBJ reading and its error reports, volume and transforms, and the distance field
// sampled from a mesh checked against the analytic distance of the shape the mesh approximates.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "core/error.hpp"
#include "geometry/sampled_sdf.hpp"
#include "geometry/shapes.hpp"
#include "geometry/sources.hpp"
#include "geometry/triangle_mesh.hpp"
#include "test_geometry_support.hpp"

namespace g = meniscus::geometry;
namespace fs = std::filesystem;
using g::testing::distances_on_device;
using g::testing::normals_on_device;
using g::testing::uv_sphere;

namespace {

// Unit cube, faces counter-clockwise seen from outside, exercising the index spellings OBJ allows.
const char* const cube_obj = R"(# unit cube
o cube
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
vt 0 0
vn 0 0 1
s off
f 1/1 4/1 3/1 2/1
f 5//1 6//1 7//1 8//1
f -8 -7 -3 -4
f 4/1/1 8/1/1 7/1/1 3/1/1
f 1 5 8 4
f 2 3 7 6
)";

const char* const cube_vertices = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n";

class GeometryMesh : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("meniscus_geometry_" + std::to_string(::getpid()) + "_" + info->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    const auto path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  // Loads `text` and returns the InputError's reason, failing the test if nothing was thrown.
  std::string load_error(const std::string& text) {
    const auto path = write("bad.obj", text);
    try {
      g::load_obj(path, "deck.yaml", "sources[0].file");
    } catch (const meniscus::InputError& e) {
      EXPECT_EQ(e.file(), "deck.yaml");
      EXPECT_EQ(e.key(), "sources[0].file");
      return e.reason();
    }
    ADD_FAILURE() << "no InputError for:\n" << text;
    return "";
  }
  fs::path dir_;
};

double box_distance(const double p[3], double lo, double hi) {
  return g::box<3>({lo, lo, lo}, {hi, hi, hi}).distance(p);
}

g::TriangleMesh torus(double major, double minor, int nu, int nv) {
  g::TriangleMesh m;
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < nv; ++j) {
      const double u = 2 * M_PI * i / nu, w = 2 * M_PI * j / nv;
      const double rho = major + minor * std::cos(w);
      m.vertices.push_back({rho * std::cos(u), rho * std::sin(u), minor * std::sin(w)});
    }
  auto v = [&](int i, int j) { return (i % nu) * nv + (j % nv); };
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < nv; ++j) {
      m.triangles.push_back({v(i, j), v(i + 1, j), v(i + 1, j + 1)});
      m.triangles.push_back({v(i, j), v(i + 1, j + 1), v(i, j + 1)});
    }
  if (g::signed_volume(m) < 0) g::flip(m);
  return m;
}

// Closed surface of a set of unit voxels (no two touching only along an edge): every exposed voxel
// face becomes two triangles, with vertices on integer coordinates.
g::TriangleMesh polycube(const std::set<std::array<int, 3>>& voxels) {
  g::TriangleMesh m;
  std::map<std::array<int, 3>, int> ids;
  auto vertex = [&](std::array<int, 3> c) {
    auto it = ids.find(c);
    if (it != ids.end()) return it->second;
    m.vertices.push_back({double(c[0]), double(c[1]), double(c[2])});
    return ids[c] = static_cast<int>(m.vertices.size()) - 1;
  };
  for (const auto& v : voxels)
    for (int a = 0; a < 3; ++a)
      for (int s : {1, -1}) {
        auto nb = v;
        nb[a] += s;
        if (voxels.count(nb)) continue;
        const int u = (a + 1) % 3, w = (a + 2) % 3;
        std::array<int, 4> q;
        const int du[4] = {0, 1, 1, 0}, dw[4] = {0, 0, 1, 1};
        for (int k = 0; k < 4; ++k) {
          auto c = v;
          if (s > 0) c[a] += 1;
          c[u] += du[k];
          c[w] += dw[k];
          q[k] = vertex(c);
        }
        // (u, w, a) is right-handed, so this order faces +a; the -a face runs the other way.
        if (s > 0) {
          m.triangles.push_back({q[0], q[1], q[2]});
          m.triangles.push_back({q[0], q[2], q[3]});
        } else {
          m.triangles.push_back({q[0], q[2], q[1]});
          m.triangles.push_back({q[0], q[3], q[2]});
        }
      }
  return m;
}

// Generalised winding number by summing solid angles: slow but free of any ray degeneracy, the
// reference for the crossing counts.
double winding_number(const g::TriangleMesh& m, const std::array<double, 3>& p) {
  double total = 0;
  for (const auto& t : m.triangles) {
    double a[3], b[3], c[3];
    for (int d = 0; d < 3; ++d) {
      a[d] = m.vertices[t[0]][d] - p[d];
      b[d] = m.vertices[t[1]][d] - p[d];
      c[d] = m.vertices[t[2]][d] - p[d];
    }
    const double la = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    const double lb = std::sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    const double lc = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    const double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                       a[2] * (b[0] * c[1] - b[1] * c[0]);
    const double ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    const double ac = a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
    const double bc = b[0] * c[0] + b[1] * c[1] + b[2] * c[2];
    total += 2 * std::atan2(det, la * lb * lc + ab * lc + ac * lb + bc * la);
  }
  return total / (4 * M_PI);
}

void rotate(g::TriangleMesh& m, double ax, double ay) {
  for (auto& v : m.vertices) {
    const double y = std::cos(ax) * v[1] - std::sin(ax) * v[2], z = std::sin(ax) * v[1] + std::cos(ax) * v[2];
    const double x = std::cos(ay) * v[0] + std::sin(ay) * z;
    v = {x, y, -std::sin(ay) * v[0] + std::cos(ay) * z};
  }
}

// Positions of every lattice node of `sdf`, axis 0 fastest (the storage order of its values).
std::vector<std::array<double, 3>> lattice_nodes(const g::SampledSdf<3>& sdf) {
  std::vector<std::array<double, 3>> pts;
  for (int k = 0; k < sdf.count[2]; ++k)
    for (int j = 0; j < sdf.count[1]; ++j)
      for (int i = 0; i < sdf.count[0]; ++i)
        pts.push_back({sdf.origin[0] + i * sdf.h, sdf.origin[1] + j * sdf.h, sdf.origin[2] + k * sdf.h});
  return pts;
}

std::vector<double> node_values(const g::SampledSdf<3>& sdf) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sdf.values);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

}  // namespace

TEST_F(GeometryMesh, LoadsCubeWithEveryIndexSpelling) {
  const auto mesh = g::load_obj(write("cube.obj", cube_obj), "deck.yaml", "mesh");
  EXPECT_EQ(mesh.vertices.size(), 8u);
  EXPECT_EQ(mesh.triangles.size(), 12u);
  EXPECT_NEAR(g::signed_volume(mesh), 1.0, 1e-15);
}

TEST_F(GeometryMesh, InwardFacingCubeIsFlippedOnLoad) {
  std::string text = cube_vertices;
  text += "f 2 3 4 1\nf 8 7 6 5\nf 5 6 2 1\nf 3 7 8 4\nf 4 8 5 1\nf 6 7 3 2\n";
  const auto mesh = g::load_obj(write("inward.obj", text), "deck.yaml", "mesh");
  EXPECT_NEAR(g::signed_volume(mesh), 1.0, 1e-15);
}

TEST_F(GeometryMesh, WeldsDuplicatedSeamVerticesAndAcceptsCrlf) {
  // The top face uses its own copies of vertices 5-8, as exporters write texture seams.
  std::string text = cube_vertices;
  text += "v 0 0 1\r\nv 1 0 1\r\nv 1 1 1\r\nv 0 1 1\r\n";
  text += "f 1 4 3 2\nf 9 10 11 12\nf 1 2 6 5\nf 4 8 7 3\nf 1 5 8 4\nf 2 3 7 6\n";
  const auto mesh = g::load_obj(write("seams.obj", text), "deck.yaml", "mesh");
  EXPECT_NEAR(g::signed_volume(mesh), 1.0, 1e-15);
}

TEST_F(GeometryMesh, MissingFileIsReported) {
  try {
    g::load_obj((dir_ / "nowhere.obj").string(), "deck.yaml", "colliders[2].file");
    FAIL() << "no InputError";
  } catch (const meniscus::InputError& e) {
    EXPECT_EQ(e.key(), "colliders[2].file");
    EXPECT_NE(e.reason().find("does not exist"), std::string::npos) << e.reason();
    EXPECT_NE(e.reason().find("nowhere.obj"), std::string::npos) << e.reason();
  }
}

TEST_F(GeometryMesh, BadFilesAreReportedWithTheirCause) {
  const std::string v = cube_vertices;
  const std::string sides = "f 1 2 6 5\nf 4 8 7 3\nf 1 5 8 4\nf 2 3 7 6\n";

  std::string r = load_error(v + "f 1 4 3 2\nf 5 6 7 9\n" + sides);
  EXPECT_NE(r.find("out of range"), std::string::npos) << r;
  EXPECT_NE(r.find("line 10"), std::string::npos) << r;

  r = load_error(v + "f 1 4 3 2\n" + sides);  // top face missing
  EXPECT_NE(r.find("not watertight"), std::string::npos) << r;
  EXPECT_NE(r.find("4 boundary edges"), std::string::npos) << r;

  r = load_error("v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n");
  EXPECT_NE(r.find("non-finite"), std::string::npos) << r;

  r = load_error(v + "f 1 4 3 2\nf 8 7 6 5\n" + sides);  // top face reversed
  EXPECT_NE(r.find("consistently oriented"), std::string::npos) << r;

  r = load_error(v + "f 1 1 2\n");
  EXPECT_NE(r.find("degenerate"), std::string::npos) << r;

  r = load_error(v);
  EXPECT_NE(r.find("no triangles"), std::string::npos) << r;

  r = load_error("v 0 zero 0\n");
  EXPECT_NE(r.find("not a number"), std::string::npos) << r;

  r = load_error(v + "f 1 2\n");
  EXPECT_NE(r.find("at least 3"), std::string::npos) << r;

  r = load_error(v + "f 0 1 2\n");
  EXPECT_NE(r.find("out of range"), std::string::npos) << r;

  r = load_error("v 0 0 0\nf -2 -1 1\n");
  EXPECT_NE(r.find("out of range"), std::string::npos) << r;

  // Two cubes sharing the edge 2-3 make it an edge of four triangles.
  std::string two = v + "v 2 0 0\nv 2 1 0\nv 1 0 -1\nv 1 1 -1\nv 2 0 -1\nv 2 1 -1\n";
  two += "f 1 4 3 2\nf 5 6 7 8\n" + sides;
  two += "f 2 9 10 3\nf 11 13 14 12\nf 2 11 13 9\nf 3 10 14 12\nf 2 3 12 11\nf 9 13 14 10\n";
  r = load_error(two);
  EXPECT_NE(r.find("watertight"), std::string::npos) << r;

  // A flat square, both sides: closed and consistent, but it encloses nothing.
  r = load_error("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\nf 4 3 2 1\n");
  EXPECT_NE(r.find("no volume"), std::string::npos) << r;
}

TEST_F(GeometryMesh, ValidateReportsTriangleNumbers) {
  g::TriangleMesh m;
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  m.triangles = {{0, 1, 2}, {0, 2, 5}};
  try {
    g::validate(m, "deck.yaml", "mesh");
    FAIL() << "no InputError";
  } catch (const meniscus::InputError& e) {
    EXPECT_NE(e.reason().find("triangle 2"), std::string::npos) << e.reason();
    EXPECT_NE(e.reason().find("out of range"), std::string::npos) << e.reason();
  }
}

TEST_F(GeometryMesh, TransformScalesMovesAndKeepsOrientation) {
  auto mesh = g::load_obj(write("cube.obj", cube_obj), "deck.yaml", "mesh");
  g::transform(mesh, 2.0, {10.0, -5.0, 1.0});
  EXPECT_NEAR(g::signed_volume(mesh), 8.0, 1e-12);
  EXPECT_DOUBLE_EQ(mesh.vertices[6][0], 12.0);
  EXPECT_DOUBLE_EQ(mesh.vertices[6][1], -3.0);
  g::transform(mesh, -0.5, {0.0, 0.0, 0.0});  // mirrored, still outward
  EXPECT_NEAR(g::signed_volume(mesh), 1.0, 1e-12);
  EXPECT_THROW(g::transform(mesh, 0.0, {0.0, 0.0, 0.0}), std::invalid_argument);
}

TEST_F(GeometryMesh, SampledCubeIsExactAtNodesEvenWhenRowsGrazeEdges) {
  // Nodes fall exactly on the cube's faces, edges and corners, so lattice rows run along its
  // edges and through its vertices: the degenerate cases of crossing counts.
  const auto mesh = g::load_obj(write("cube.obj", cube_obj), "deck.yaml", "mesh");
  const double h = 1.0 / 16;
  const auto sdf = g::sdf_from_mesh(mesh, h, 2);
  EXPECT_EQ(sdf.count[0], 21);
  EXPECT_DOUBLE_EQ(sdf.origin[1], -2 * h);
  const auto nodes = lattice_nodes(sdf);
  const auto values = node_values(sdf);
  ASSERT_EQ(nodes.size(), values.size());
  for (size_t n = 0; n < nodes.size(); ++n)
    ASSERT_NEAR(values[n], box_distance(nodes[n].data(), 0.0, 1.0), 1e-12)
        << "node " << nodes[n][0] << " " << nodes[n][1] << " " << nodes[n][2];
}

TEST_F(GeometryMesh, SampledCubeMatchesBoxDistanceAndSign) {
  auto mesh = g::load_obj(write("cube.obj", cube_obj), "deck.yaml", "mesh");
  const double shift = 0.0123;
  g::transform(mesh, 0.9, {shift, shift, shift});
  const double lo = shift, hi = shift + 0.9, h = 0.05;
  const auto sdf = g::sdf_from_mesh(mesh, h, 2);
  const auto shape = g::sampled<3>(sdf);

  const auto nodes = lattice_nodes(sdf);
  const auto values = node_values(sdf);
  for (size_t n = 0; n < nodes.size(); ++n)
    ASSERT_NEAR(values[n], box_distance(nodes[n].data(), lo, hi), 1e-12);

  // Between nodes, and beyond the lattice, the interpolant stays within h of the exact distance and
  // has the exact sign wherever the exact distance exceeds that error.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.5, 1.5);
  std::vector<std::array<double, 3>> pts(20000);
  for (auto& p : pts) p = {u(rng), u(rng), u(rng)};
  const auto d = distances_on_device<3>(shape, pts);
  int checked_signs = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    const double exact = box_distance(pts[i].data(), lo, hi);
    ASSERT_NEAR(d[i], exact, h) << pts[i][0] << " " << pts[i][1] << " " << pts[i][2];
    if (std::fabs(exact) > h) {
      ASSERT_EQ(d[i] < 0, exact < 0);
      ++checked_signs;
    }
  }
  EXPECT_GT(checked_signs, 10000);
}

TEST_F(GeometryMesh, SampledTorusHasTheRightSign) {
  // Non-convex, genus one: lines through the hole cross the surface four times.
  const double major = 1.0, minor = 0.35;
  const auto mesh = torus(major, minor, 96, 48);
  g::validate(mesh, "", "torus");
  const auto sdf = g::sdf_from_mesh(mesh, 0.04, 2);
  const auto nodes = lattice_nodes(sdf);
  const auto values = node_values(sdf);
  const double mesh_error = 0.002;  // chord sag of the tessellation
  for (size_t n = 0; n < nodes.size(); ++n) {
    const auto& p = nodes[n];
    const double exact = std::hypot(std::hypot(p[0], p[1]) - major, p[2]) - minor;
    ASSERT_NEAR(values[n], exact, mesh_error);
    if (std::fabs(exact) > mesh_error) {
      ASSERT_EQ(values[n] < 0, exact < 0) << p[0] << " " << p[1] << " " << p[2];
    }
  }
}

TEST_F(GeometryMesh, SampledSignsAgreeWithWindingNumbers) {
  // A cup with a handle: concave edges, a cavity, and lattice rows that run along faces and edges and
  // through vertices (exactly, to rounding, or, rotated, at arbitrary small distances).
  std::set<std::array<int, 3>> voxels;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k)
        if (k == 0 || i != 1 || j != 1) voxels.insert({i, j, k});
  voxels.insert({3, 1, 2});
  voxels.insert({4, 1, 2});
  voxels.insert({4, 1, 1});
  const auto base = polycube(voxels);
  g::validate(base, "", "polycube");
  ASSERT_NEAR(g::signed_volume(base), 28.0, 1e-12);
  for (int trial = 0; trial < 5; ++trial) {
    auto mesh = base;
    double h = 0.17;
    if (trial == 0) h = 0.25;
    if (trial == 1) {
      // Vertices and nodes agree only to rounding: near-degenerate rather than exact ties.
      g::transform(mesh, 1.0, {0.1, 0.2, 0.3});
      h = 0.1;
    }
    if (trial > 1) rotate(mesh, 0.3 * trial + 0.1, 0.7 * trial);
    const auto sdf = g::sdf_from_mesh(mesh, h, 2);
    const auto nodes = lattice_nodes(sdf);
    const auto values = node_values(sdf);
    int inside = 0;
    for (size_t n = 0; n < nodes.size(); ++n) {
      if (std::fabs(values[n]) < 1e-9) continue;  // on the surface the sign is immaterial
      const double w = winding_number(mesh, nodes[n]);
      ASSERT_EQ(values[n] < 0, w > 0.5) << "trial " << trial << " node " << nodes[n][0] << " " << nodes[n][1] << " "
                                         << nodes[n][2] << " winding " << w;
      inside += values[n] < 0;
    }
    EXPECT_GT(inside, 100);
  }
}

TEST_F(GeometryMesh, SampledSphereOf5000TrianglesIsAccurate) {
  const auto mesh = uv_sphere(1.0, 40, 64);
  g::validate(mesh, "", "sphere");
  ASSERT_GT(mesh.triangles.size(), 4900u);
  const double h = 2.0 / 59;  // 64 nodes per axis with two cells of padding
  const auto start = std::chrono::steady_clock::now();
  const auto sdf = g::sdf_from_mesh(mesh, h, 2);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(sdf.count[0], 64);
  // Speed is reported, not asserted (a loaded CI machine must not fail a correct build).
  std::printf("[          ] sdf_from_mesh: %zu triangles, %d^3 lattice: %.3f s\n", mesh.triangles.size(), sdf.count[0],
              seconds);

  const auto shape = g::sampled<3>(sdf);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  std::vector<std::array<double, 3>> pts;
  while (pts.size() < 5000) {
    const std::array<double, 3> p{u(rng), u(rng), u(rng)};
    if (std::hypot(p[0], p[1], p[2]) > 0.3) pts.push_back(p);  // the field has a kink at the centre
  }
  const auto d = distances_on_device<3>(shape, pts);
  const auto n = normals_on_device<3>(shape, pts);
  for (size_t i = 0; i < pts.size(); ++i) {
    const double r = std::hypot(pts[i][0], pts[i][1], pts[i][2]);
    ASSERT_NEAR(d[i], r - 1.0, 0.01);
    const double cosine = (n[i][0] * pts[i][0] + n[i][1] * pts[i][1] + n[i][2] * pts[i][2]) / r;
    ASSERT_GT(cosine, 0.98) << pts[i][0] << " " << pts[i][1] << " " << pts[i][2];
  }
  // Far outside the lattice the field keeps growing like a distance.
  EXPECT_NEAR(distances_on_device<3>(shape, {{10.0, 0.0, 0.0}})[0], 9.0, 0.01);
}

TEST_F(GeometryMesh, SeedsInsideAMeshMatchTheBoxItDescribes) {
  const auto mesh = g::load_obj(write("cube.obj", cube_obj), "deck.yaml", "mesh");
  const auto shape = g::sampled<3>(g::sdf_from_mesh(mesh, 0.05, 2));
  // Seed points 0.08, 0.18, ..., 0.98 fall inside the cube: 10 per axis, some 0.02 from a face.
  const auto seeds = g::seed_lattice<3>(shape, {-0.47, -0.47, -0.47}, {1.53, 1.53, 1.53}, 0.1,
                                        {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL}, {HUGE_VAL, HUGE_VAL, HUGE_VAL});
  EXPECT_EQ(seeds.x.extent(0), 1000u);
}

TEST_F(GeometryMesh, SdfBuilderRejectsBadArguments) {
  const auto mesh = g::load_obj(write("cube.obj", cube_obj), "deck.yaml", "mesh");
  EXPECT_THROW(g::sdf_from_mesh(mesh, 0.0, 2), std::invalid_argument);
  EXPECT_THROW(g::sdf_from_mesh(mesh, 0.1, 0), std::invalid_argument);
  EXPECT_THROW(g::sdf_from_mesh(mesh, 1e-6, 2), std::invalid_argument);
}
