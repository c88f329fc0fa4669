#include "methods/membrane/triangle_membrane.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "core/kmath.hpp"

namespace meniscus::membrane {

namespace {

// The corners of triangle t as three points.
KOKKOS_INLINE_FUNCTION void load_corners(const Vec3Array& x, const TriangleArray& tri, long t, double p[3][3]) {
  for (int a = 0; a < 3; ++a)
    for (int d = 0; d < 3; ++d) p[a][d] = x(tri(t, a), d);
}

// n = (p1 - p0) x (p2 - p0): twice the area times the unit normal.
KOKKOS_INLINE_FUNCTION void area_vector(const double p[3][3], double n[3]) {
  double e1[3], e2[3];
  for (int d = 0; d < 3; ++d) {
    e1[d] = p[1][d] - p[0][d];
    e2[d] = p[2][d] - p[0][d];
  }
  kmath::cross(e1, e2, n);
}

// Edge opposite corner a, oriented cyclically: l_a = p_{a+2} - p_{a+1} (Eq. 10's l_jk for i = a).
KOKKOS_INLINE_FUNCTION void opposite_edge(const double p[3][3], int a, double l[3]) {
  for (int d = 0; d < 3; ++d) l[d] = p[(a + 2) % 3][d] - p[(a + 1) % 3][d];
}

// Signed area of the triangle's projection on the xy-plane (positive when it faces up).
KOKKOS_INLINE_FUNCTION double projected_area(const double p[3][3]) {
  return 0.5 * ((p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]));
}

// [l]_x, the matrix of l x (.).
KOKKOS_INLINE_FUNCTION void skew(const double l[3], double s[3][3]) {
  s[0][0] = 0;     s[0][1] = -l[2]; s[0][2] = l[1];
  s[1][0] = l[2];  s[1][1] = 0;     s[1][2] = -l[0];
  s[2][0] = -l[1]; s[2][1] = l[0];  s[2][2] = 0;
}

template <class F>
void for_triangles(const char* name, long count, const F& body) {
  Kokkos::parallel_for(name, Kokkos::RangePolicy<>(0, count), body);
}

// Sum of body(t, acc) over the owned triangles (each triangle counted on one rank).
template <class F>
double sum_owned_triangles(const char* name, const TriangleMembrane& m, const F& body) {
  double sum = 0;
  Kokkos::parallel_reduce(name, Kokkos::RangePolicy<>(0, m.owned_triangles), body, sum);
  return sum;
}

}  // namespace

TriangleMembrane local_triangle_membrane(const geometry::TriangleMesh& mesh, const std::vector<int>& owner,
                                         int rank) {
  const long nv = static_cast<long>(mesh.vertices.size());
  if (static_cast<long>(owner.size()) != nv)
    throw std::invalid_argument("local_triangle_membrane: one owner per vertex is required");
  // Local ids: owned vertices by increasing global id, then ghosts by increasing global id.
  std::vector<long> local(nv, -1);
  std::vector<long> gids;
  for (long g = 0; g < nv; ++g)
    if (owner[g] == rank) {
      local[g] = static_cast<long>(gids.size());
      gids.push_back(g);
    }
  const long owned_v = static_cast<long>(gids.size());
  std::vector<std::array<int, 3>> owned_tris, ghost_tris;
  std::vector<char> ghost(nv, 0);
  for (const auto& t : mesh.triangles) {
    const bool touches = owner[t[0]] == rank || owner[t[1]] == rank || owner[t[2]] == rank;
    if (!touches) continue;
    const int lowest = std::min({t[0], t[1], t[2]});
    (owner[lowest] == rank ? owned_tris : ghost_tris).push_back(t);
    for (int g : t)
      if (owner[g] != rank) ghost[g] = 1;
  }
  for (long g = 0; g < nv; ++g)
    if (ghost[g]) {
      local[g] = static_cast<long>(gids.size());
      gids.push_back(g);
    }
  const long n = static_cast<long>(gids.size());
  const long nt = static_cast<long>(owned_tris.size() + ghost_tris.size());

  TriangleMembrane m;
  m.x = Vec3Array("membrane3_x", n);
  m.v = Vec3Array("membrane3_v", n);
  m.tri = TriangleArray("membrane3_triangles", nt);
  m.gid = Kokkos::View<long*, MemSpace>("membrane3_gid", n);
  m.kind = Kokkos::View<int*, MemSpace>("membrane3_kind", n);
  m.owned_vertices = owned_v;
  m.owned_triangles = static_cast<long>(owned_tris.size());
  auto hx = Kokkos::create_mirror_view(m.x);
  auto ht = Kokkos::create_mirror_view(m.tri);
  auto hg = Kokkos::create_mirror_view(m.gid);
  for (long i = 0; i < n; ++i) {
    hg(i) = gids[i];
    for (int d = 0; d < 3; ++d) hx(i, d) = mesh.vertices[gids[i]][d];
  }
  long t = 0;
  for (const auto* list : {&owned_tris, &ghost_tris})
    for (const auto& tr : *list) {
      for (int a = 0; a < 3; ++a) ht(t, a) = static_cast<int>(local[tr[a]]);
      ++t;
    }
  for (long i = owned_v; i < n; ++i) m.ghost_owner.push_back(owner[gids[i]]);
  Kokkos::deep_copy(m.x, hx);
  Kokkos::deep_copy(m.tri, ht);
  Kokkos::deep_copy(m.gid, hg);
  return m;
}

MembraneHalo make_membrane_halo(const TriangleMembrane& m, MPI_Comm comm) {
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.gid);
  return make_vertex_halo(hg.data(), m.owned_vertices, m.ghost_owner, comm);
}

MembraneHalo make_vertex_halo(const long* gid, long owned, const std::vector<int>& ghost_owner, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  MembraneHalo h;
  h.recv_counts.assign(size, 0);
  h.send_counts.assign(size, 0);
  // Ghosts grouped by owner (stable within an owner, so the order is the local order).
  std::vector<long> ghosts;
  for (long g = 0; g < static_cast<long>(ghost_owner.size()); ++g) ghosts.push_back(owned + g);
  std::stable_sort(ghosts.begin(), ghosts.end(),
                   [&](long a, long b) { return ghost_owner[a - owned] < ghost_owner[b - owned]; });
  std::vector<long> want;
  for (long i : ghosts) {
    ++h.recv_counts[ghost_owner[i - owned]];
    want.push_back(gid[i]);
  }
  h.recv_local = ghosts;
  MPI_Alltoall(h.recv_counts.data(), 1, MPI_INT, h.send_counts.data(), 1, MPI_INT, comm);
  auto displs = [size](const std::vector<int>& counts, std::vector<int>& out) {
    out.assign(size, 0);
    for (int r = 1; r < size; ++r) out[r] = out[r - 1] + counts[r - 1];
  };
  displs(h.recv_counts, h.recv_displs);
  displs(h.send_counts, h.send_displs);
  std::vector<long> asked(h.send_displs[size - 1] + h.send_counts[size - 1]);
  MPI_Alltoallv(want.data(), h.recv_counts.data(), h.recv_displs.data(), MPI_LONG, asked.data(),
                h.send_counts.data(), h.send_displs.data(), MPI_LONG, comm);
  // Owned vertices are stored by increasing global id: find each requested one by bisection.
  const long* first = gid;
  const long* last = gid + owned;
  for (long g : asked) {
    const long* it = std::lower_bound(first, last, g);
    if (it == last || *it != g) throw std::runtime_error("make_vertex_halo: a ghost's owner does not own it");
    h.send_local.push_back(it - first);
  }
  return h;
}

void update_ghosts(const MembraneHalo& halo, double* rows, int width, MPI_Comm comm) {
  std::vector<double> out(width * halo.send_local.size()), in(width * halo.recv_local.size());
  for (size_t k = 0; k < halo.send_local.size(); ++k)
    for (int d = 0; d < width; ++d) out[width * k + d] = rows[width * halo.send_local[k] + d];
  auto scaled = [width](const std::vector<int>& v) {
    std::vector<int> r(v);
    for (auto& e : r) e *= width;
    return r;
  };
  const auto sc = scaled(halo.send_counts), sd = scaled(halo.send_displs);
  const auto rc = scaled(halo.recv_counts), rd = scaled(halo.recv_displs);
  MPI_Alltoallv(out.data(), sc.data(), sd.data(), MPI_DOUBLE, in.data(), rc.data(), rd.data(), MPI_DOUBLE, comm);
  for (size_t k = 0; k < halo.recv_local.size(); ++k)
    for (int d = 0; d < width; ++d) rows[width * halo.recv_local[k] + d] = in[width * k + d];
}

void update_ghosts(const MembraneHalo& halo, const Vec3Array& field, MPI_Comm comm) {
  auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
  update_ghosts(halo, hf.data(), 3, comm);
  Kokkos::deep_copy(field, hf);
}

void update_ghosts(const MembraneHalo& halo, const VertexArray& field, MPI_Comm comm) {
  auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
  update_ghosts(halo, hf.data(), static_cast<int>(field.extent(1)), comm);
  Kokkos::deep_copy(field, hf);
}

TriangleMembrane make_triangle_membrane(const geometry::TriangleMesh& mesh) {
  return local_triangle_membrane(mesh, std::vector<int>(mesh.vertices.size(), 0), 0);
}

geometry::TriangleMesh to_triangle_mesh(const TriangleMembrane& m) {
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.tri);
  geometry::TriangleMesh mesh;
  mesh.vertices.resize(m.vertices());
  mesh.triangles.resize(m.triangles());
  for (long i = 0; i < m.vertices(); ++i) mesh.vertices[i] = {hx(i, 0), hx(i, 1), hx(i, 2)};
  for (long t = 0; t < m.triangles(); ++t) mesh.triangles[t] = {ht(t, 0), ht(t, 1), ht(t, 2)};
  return mesh;
}

geometry::TriangleMesh make_icosphere(const std::array<double, 3>& c, double r, int level) {
  if (!(r > 0) || level < 0 || level > 8)
    throw std::invalid_argument("make_icosphere: radius must be positive and level in [0, 8]");
  const double g = (1 + std::sqrt(5.0)) / 2;  // the icosahedron's vertices (0, +-1, +-g) and cyclic
  std::vector<std::array<double, 3>> u = {{-1, g, 0}, {1, g, 0},  {-1, -g, 0}, {1, -g, 0},
                                          {0, -1, g}, {0, 1, g},  {0, -1, -g}, {0, 1, -g},
                                          {g, 0, -1}, {g, 0, 1},  {-g, 0, -1}, {-g, 0, 1}};
  std::vector<std::array<int, 3>> tris = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                          {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                          {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                          {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  auto unit = [](std::array<double, 3> p) {
    const double len = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    return std::array<double, 3>{p[0] / len, p[1] / len, p[2] / len};
  };
  for (auto& p : u) p = unit(p);
  for (int l = 0; l < level; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      u.push_back(unit({u[a][0] + u[b][0], u[a][1] + u[b][1], u[a][2] + u[b][2]}));
      const int id = static_cast<int>(u.size()) - 1;
      mid.emplace(key, id);
      return id;
    };
    std::vector<std::array<int, 3>> finer;
    finer.reserve(4 * tris.size());
    for (const auto& t : tris) {
      const int ab = midpoint(t[0], t[1]), bc = midpoint(t[1], t[2]), ca = midpoint(t[2], t[0]);
      finer.push_back({t[0], ab, ca});
      finer.push_back({t[1], bc, ab});
      finer.push_back({t[2], ca, bc});
      finer.push_back({ab, bc, ca});
    }
    tris.swap(finer);
  }
  geometry::TriangleMesh mesh;
  mesh.triangles = tris;
  mesh.vertices.reserve(u.size());
  for (const auto& p : u) mesh.vertices.push_back({c[0] + r * p[0], c[1] + r * p[1], c[2] + r * p[2]});
  return mesh;
}

void capillary_force(const TriangleMembrane& m, double sigma, const Vec3Array& f) {
  Kokkos::deep_copy(f, 0.0);
  auto x = m.x;
  auto tri = m.tri;
  // Eq. 10: f_{i,t} = (sigma / 2) l_jk x n_t, with |l_jk x n_t| = |l_jk|: the force lies in the
  // triangle's plane, perpendicular to the opposite edge, towards it. The three forces sum to zero
  // (the edges do), and their moments sum to zero, so sum f = 0 and sum x x f = 0 hold per triangle.
  for_triangles("membrane3_capillary_force", m.triangles(), KOKKOS_LAMBDA(const long t) {
    double p[3][3], n[3], l[3], fa[3];
    load_corners(x, tri, t, p);
    area_vector(p, n);
    kmath::normalize<3>(n);
    for (int a = 0; a < 3; ++a) {
      opposite_edge(p, a, l);
      kmath::cross(l, n, fa);
      for (int d = 0; d < 3; ++d) Kokkos::atomic_add(&f(tri(t, a), d), 0.5 * sigma * fa[d]);
    }
  });
}

double total_area(const TriangleMembrane& m) {
  auto x = m.x;
  auto tri = m.tri;
  return sum_owned_triangles("membrane3_area", m, KOKKOS_LAMBDA(const long t, double& acc) {
    double p[3][3], n[3];
    load_corners(x, tri, t, p);
    area_vector(p, n);
    acc += 0.5 * kmath::norm<3>(n);
  });
}

void lumped_vertex_areas(const TriangleMembrane& m, double scale, const Kokkos::View<double*, MemSpace>& out) {
  Kokkos::deep_copy(out, 0.0);
  auto x = m.x;
  auto tri = m.tri;
  for_triangles("membrane3_vertex_areas", m.triangles(), KOKKOS_LAMBDA(const long t) {
    double p[3][3], n[3];
    load_corners(x, tri, t, p);
    area_vector(p, n);
    const double share = scale * kmath::norm<3>(n) / 6;  // A_t / 3
    for (int a = 0; a < 3; ++a) Kokkos::atomic_add(&out(tri(t, a)), share);
  });
}

void cotangent_weights(const TriangleMembrane& m, double sigma, const CornerArray& w) {
  auto x = m.x;
  auto tri = m.tri;
  for_triangles("membrane3_cotangent_weights", m.triangles(), KOKKOS_LAMBDA(const long t) {
    double p[3][3];
    load_corners(x, tri, t, p);
    for (int c = 0; c < 3; ++c) {
      double e1[3], e2[3], n[3];
      for (int d = 0; d < 3; ++d) {
        e1[d] = p[(c + 1) % 3][d] - p[c][d];
        e2[d] = p[(c + 2) % 3][d] - p[c][d];
      }
      kmath::cross(e1, e2, n);
      // cot theta = cos / sin = (e1 . e2) / |e1 x e2|
      w(t, c) = 0.5 * sigma * kmath::dot<3>(e1, e2) / kmath::norm<3>(n);
    }
  });
}

void apply_cotangent_stiffness(const TriangleMembrane& m, const CornerArray& w, const Vec3Array& u,
                               const Vec3Array& out) {
  Kokkos::deep_copy(out, 0.0);
  auto tri = m.tri;
  // Eq. 11: each edge (i, j) adds w [[I, -I], [-I, I]], an isotropic spring of stiffness w.
  for_triangles("membrane3_apply_cotangent_stiffness", m.triangles(), KOKKOS_LAMBDA(const long t) {
    for (int c = 0; c < 3; ++c) {
      const int i = tri(t, (c + 1) % 3), j = tri(t, (c + 2) % 3);
      for (int d = 0; d < 3; ++d) {
        const double s = w(t, c) * (u(i, d) - u(j, d));
        Kokkos::atomic_add(&out(i, d), s);
        Kokkos::atomic_add(&out(j, d), -s);
      }
    }
  });
}

LaplacianRows cotangent_laplacian_rows(const TriangleMembrane& m, const CornerArray& w) {
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.tri);
  auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.gid);
  std::map<std::pair<long, long>, double> entries;
  for (long t = 0; t < m.triangles(); ++t)
    for (int c = 0; c < 3; ++c) {
      const int i = ht(t, (c + 1) % 3), j = ht(t, (c + 2) % 3);
      for (const auto& [a, b] : {std::pair<int, int>{i, j}, std::pair<int, int>{j, i}}) {
        if (a >= m.owned_vertices) continue;  // a ghost's row belongs to its owner
        entries[{hg(a), hg(a)}] += hw(t, c);
        entries[{hg(a), hg(b)}] -= hw(t, c);
      }
    }
  LaplacianRows rows;
  for (const auto& [rc, v] : entries) {
    rows.row.push_back(rc.first);
    rows.col.push_back(rc.second);
    rows.value.push_back(v);
  }
  return rows;
}

void area_hessian(const TriangleMembrane& m, double sigma, const TriangleHessian& h) {
  auto x = m.x;
  auto tri = m.tri;
  // A = |n| / 2 with n = (p1 - p0) x (p2 - p0) and dn/dp_a = [l_a]_x, so dA/dp_a = (1/2) n^ x l_a.
  // Differentiating once more, through n^ (dn^ = P dn / |n|, P = I - n^ n^T) and through l_a
  // (l_a = p_{a+2} - p_{a+1}):
  //   d2A/dp_a dp_b = (1/2) ([l_a]_x^T P [l_b]_x / |n| + s_ab [n^]_x),
  // s_ab = +1 for b = a + 2, -1 for b = a + 1, 0 for b = a (mod 3). The first term is positive
  // semidefinite; the second is antisymmetric per block but makes the whole indefinite.
  for_triangles("membrane3_area_hessian", m.triangles(), KOKKOS_LAMBDA(const long t) {
    double p[3][3], n[3], l[3], s[3][3][3], nx[3][3], proj[3][3];
    load_corners(x, tri, t, p);
    area_vector(p, n);
    const double len = kmath::norm<3>(n);
    for (int d = 0; d < 3; ++d) n[d] /= len;
    skew(n, nx);
    for (int d = 0; d < 3; ++d)
      for (int e = 0; e < 3; ++e) proj[d][e] = (d == e ? 1.0 : 0.0) - n[d] * n[e];
    for (int a = 0; a < 3; ++a) {
      opposite_edge(p, a, l);
      skew(l, s[a]);
    }
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const double sab = b == (a + 2) % 3 ? 1.0 : (b == (a + 1) % 3 ? -1.0 : 0.0);
        for (int d = 0; d < 3; ++d)
          for (int e = 0; e < 3; ++e) {
            double q = 0;
            for (int r = 0; r < 3; ++r)
              for (int c = 0; c < 3; ++c) q += s[a][r][d] * proj[r][c] * s[b][c][e];
            h(t, 3 * a + d, 3 * b + e) = 0.5 * sigma * (q / len + sab * nx[d][e]);
          }
      }
  });
}

void apply_triangle_hessian(const TriangleMembrane& m, const TriangleHessian& h, const Vec3Array& u,
                            const Vec3Array& out) {
  Kokkos::deep_copy(out, 0.0);
  auto tri = m.tri;
  for_triangles("membrane3_apply_hessian", m.triangles(), KOKKOS_LAMBDA(const long t) {
    for (int a = 0; a < 3; ++a)
      for (int d = 0; d < 3; ++d) {
        double s = 0;
        for (int b = 0; b < 3; ++b)
          for (int e = 0; e < 3; ++e) s += h(t, 3 * a + d, 3 * b + e) * u(tri(t, b), e);
        Kokkos::atomic_add(&out(tri(t, a), d), s);
      }
  });
}

double enclosed_volume(const TriangleMembrane& m, bool closed, double zbase) {
  auto x = m.x;
  auto tri = m.tri;
  return sum_owned_triangles("membrane3_volume", m, KOKKOS_LAMBDA(const long t, double& acc) {
    double p[3][3];
    load_corners(x, tri, t, p);
    acc += triangle_volume(p, closed, zbase);
  });
}

void volume_gradient(const TriangleMembrane& m, bool closed, double zbase, const Vec3Array& g) {
  Kokkos::deep_copy(g, 0.0);
  auto x = m.x;
  auto tri = m.tri;
  for_triangles("membrane3_volume_gradient", m.triangles(), KOKKOS_LAMBDA(const long t) {
    double p[3][3], gt[3][3];
    load_corners(x, tri, t, p);
    triangle_volume_gradient(p, closed, zbase, gt);
    for (int a = 0; a < 3; ++a)
      for (int d = 0; d < 3; ++d) Kokkos::atomic_add(&g(tri(t, a), d), gt[a][d]);
  });
}

}  // namespace meniscus::membrane
