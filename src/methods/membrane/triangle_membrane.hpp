#pragma once
// The 3D liquid membrane of Ruan et al. 2021 (§4.2): an explicit Lagrangian triangle mesh that
// carries the surface tension of the liquid surface as capillary forces. Each vertex is a particle
// of mass m_i = rho h sum_{t in N_i} A_t / 3 (§4.2). Triangles are ordered counter-clockwise seen
// from the air, so that n_t = (x_j - x_i) x (x_k - x_i) / |...| points from the liquid into the air
// (the convention of Eq. 10).
//
// Operators (all Kokkos kernels over the triangles, scattering into vertices with atomics):
//  * capillary force, Eqs. 9-10: f_i = -sigma dA/dx_i = sum_t (sigma / 2) (x_k - x_j) x n_t;
//  * the paper's "all-directional" implicit stiffness, Eq. 11: per triangle and per edge (i, j),
//    (sigma cot theta_ij / 2) [[I, -I], [-I, I]] with theta_ij the triangle's angle opposite the
//    edge, i.e. K_c = sigma L_cot (x) I_3 with L_cot the cotangent Laplacian. Since
//    dA/dx_i = (1/2) sum_j (cot a_ij + cot b_ij)(x_i - x_j), f = -K_c x holds exactly, and each
//    triangle's block is a P1 finite-element stiffness matrix, so K_c is symmetric positive
//    semidefinite on every non-degenerate mesh;
//  * the exact Hessian sigma d2A/dx2 (= -df/dx), which is indefinite (§4.2: "this derivative is
//    indefinite"); the solve uses K_c, the Hessian serves to measure what K_c leaves out;
//  * the enclosed volume and its gradient, for a closed membrane (a drop) or an open one over a
//    horizontal base plane (a pool whose edges lie on the tank's vertical walls).
//
// Distributed layout (the paper runs on one node; this is the layout the MPI solve builds on).
// A rank stores its owned vertices first, local ids [0, owned_vertices), then ghost copies of the
// vertices its triangles reach. Its triangles are every triangle that touches an owned vertex, the
// ones it owns first, [0, owned_triangles) (a triangle is owned by the owner of its lowest global
// vertex id, so each is owned once). Force and stiffness kernels loop over all local triangles:
// the rows of owned vertices are then complete without any reverse communication (ghost rows are
// partial and are not used); reductions (area, volume) sum owned triangles only, so summing them
// over ranks counts every triangle once. On one rank everything is owned.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <array>
#include <vector>

#include "geometry/triangle_mesh.hpp"
#include "methods/membrane/polyline.hpp"

namespace meniscus::membrane {

using Vec3Array = Kokkos::View<double* [3], Kokkos::LayoutRight, MemSpace>;       // vertex x 3
using TriangleArray = Kokkos::View<int* [3], Kokkos::LayoutRight, MemSpace>;     // triangle x 3 local ids
using CornerArray = Kokkos::View<double* [3], Kokkos::LayoutRight, MemSpace>;    // triangle x 3 corners
using TriangleHessian = Kokkos::View<double* [9][9], Kokkos::LayoutRight, MemSpace>;

struct TriangleMembrane {
  Vec3Array x, v;                      // positions and velocities of local vertices
  TriangleArray tri;                   // local vertex ids, counter-clockwise seen from the air
  Kokkos::View<long*, MemSpace> gid;   // stable global vertex id
  Kokkos::View<int*, MemSpace> kind;   // VertexKind per vertex (polyline.hpp)
  long owned_vertices = 0;             // local vertices [0, owned_vertices) belong to this rank
  long owned_triangles = 0;            // triangles [0, owned_triangles) are counted in reductions
  std::vector<int> ghost_owner;        // rank owning ghost g (local id owned_vertices + g)
  long vertices() const { return static_cast<long>(x.extent(0)); }
  long triangles() const { return static_cast<long>(tri.extent(0)); }
};

// A membrane holding the whole mesh (every vertex and triangle owned, global id = index). The mesh
// is taken as it is (geometry::validate checks a closed one; an open pool surface has a boundary).
TriangleMembrane make_triangle_membrane(const geometry::TriangleMesh& mesh);

// The local part of `mesh` for `rank` when vertex g belongs to rank owner[g]: owned vertices (in
// increasing global id), every triangle with an owned vertex (owned triangles first) and ghost copies
// of their other vertices. Used to split a replicated membrane across ranks; see the layout above.
TriangleMembrane local_triangle_membrane(const geometry::TriangleMesh& mesh, const std::vector<int>& owner,
                                         int rank);

// The exchange that refreshes ghost copies from their owners (after positions or velocities of owned
// vertices change); built once per topology (after creation or remeshing). Collective over comm.
struct MembraneHalo {
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;  // per rank, in vertices
  std::vector<long> send_local;  // owned local ids to send, grouped by requesting rank
  std::vector<long> recv_local;  // ghost local ids to fill, grouped by owning rank
};
MembraneHalo make_membrane_halo(const TriangleMembrane& m, MPI_Comm comm);
// The same for any layout of owned vertices (global ids gid[0, owned), increasing) followed by
// ghosts (gid[owned + g], owned by ghost_owner[g]); also serves the 2D polyline
// (membrane_ownership.hpp).
MembraneHalo make_vertex_halo(const long* gid, long owned, const std::vector<int>& ghost_owner, MPI_Comm comm);

// Copies the owners' values of an n x 3 (or, for the polyline, n x 2) vertex field into the ghost
// slots. Collective over comm.
void update_ghosts(const MembraneHalo& halo, const Vec3Array& field, MPI_Comm comm);
void update_ghosts(const MembraneHalo& halo, const VertexArray& field, MPI_Comm comm);
// The same on a row-major host array of `width` values per local vertex.
void update_ghosts(const MembraneHalo& halo, double* rows, int width, MPI_Comm comm);

// Host copy of the positions and triangles (for output and for the geometry layer's checks).
geometry::TriangleMesh to_triangle_mesh(const TriangleMembrane& m);

// Icosphere: the regular icosahedron inscribed in the sphere of radius r around c, each triangle
// split into four `level` times with new vertices pushed onto the sphere; outward oriented.
// 10 * 4^level + 2 vertices and 20 * 4^level triangles. Throws std::invalid_argument for r <= 0 or
// level outside [0, 8].
geometry::TriangleMesh make_icosphere(const std::array<double, 3>& c, double r, int level);

// f = -sigma dA/dx (Eqs. 9-10), n x 3, overwritten.
void capillary_force(const TriangleMembrane& m, double sigma, const Vec3Array& f);

// Sum of the owned triangles' areas.
double total_area(const TriangleMembrane& m);

// out_i = scale * sum_{t in N_i} A_t / 3: the vertex's share of the area (scale 1), or its lumped
// mass m_i = rho h sum A_t / 3 (scale rho h, §4.2).
void lumped_vertex_areas(const TriangleMembrane& m, double scale, const Kokkos::View<double*, MemSpace>& out);

// Eq. 11's weights: w(t, c) = sigma cot(theta_c) / 2 for the angle at corner c of triangle t, which
// is the weight of the edge opposite that corner (vertices tri(t, c+1), tri(t, c+2), cyclic).
void cotangent_weights(const TriangleMembrane& m, double sigma, const CornerArray& w);

// out = K_c u with K_c assembled from `w` (Eq. 11): out_i = sum over edges (i, j) of w (u_i - u_j).
void apply_cotangent_stiffness(const TriangleMembrane& m, const CornerArray& w, const Vec3Array& u,
                               const Vec3Array& out);

// The rows of the owned vertices of the scalar cotangent Laplacian L with K_c = L (x) I_3, by global
// vertex id, each (row, col) once and in increasing order: what the 3D solve inserts into its PETSc
// AIJ block (value times I_3 in the 3 x 3 block (row, col)). Diagonal entries are the sums of the
// row's edge weights, off-diagonal ones minus the edge's weight (both of its triangles).
struct LaplacianRows {
  std::vector<long> row, col;
  std::vector<double> value;
};
LaplacianRows cotangent_laplacian_rows(const TriangleMembrane& m, const CornerArray& w);

// The exact per-triangle Hessian sigma d2A_t/dx2 as a 9 x 9 block over (x_i, x_j, x_k) in the
// triangle's vertex order; the exact stiffness is -df/dx = sum_t of these blocks.
void area_hessian(const TriangleMembrane& m, double sigma, const TriangleHessian& h);

// out = (sum_t H_t) u.
void apply_triangle_hessian(const TriangleMembrane& m, const TriangleHessian& h, const Vec3Array& u,
                            const Vec3Array& out);

// Liquid volume bounded by the membrane, summed over owned triangles. closed: the volume enclosed
// (divergence theorem, V = sum_t x_i . (x_j x x_k) / 6; positive for an outward-oriented surface).
// Open: the volume between the surface and the plane z = zbase below it,
// V = sum_t Axy_t (zbar_t - zbase), Axy_t the signed area of the triangle's projection on the
// xy-plane; it equals the liquid volume of a pool whose boundary lies on vertical walls.
double enclosed_volume(const TriangleMembrane& m, bool closed, double zbase);

// dV/dx of enclosed_volume (n x 3, overwritten); like the force, complete on owned vertices.
void volume_gradient(const TriangleMembrane& m, bool closed, double zbase, const Vec3Array& g);

// One triangle's term of enclosed_volume (corners p[0..2] in its vertex order) and its gradient
// g[a] = dV_t/dx_a. Closed: d/dx_i of x_i . (x_j x x_k) / 6 is x_j x x_k / 6; summed over a vertex's
// closed one ring this equals sum_t n_t / 6 (n_t = 2 A_t n^_t), which does not depend on the origin,
// and that form is used so that a membrane far from the origin loses no digits. Open:
// V_t = Axy_t (zbar_t - zbase) with dAxy/dx_a = (y_j - y_k) / 2, dAxy/dy_a = (x_k - x_j) / 2 and
// dzbar/dz_a = 1/3 (j, k the next corners).
KOKKOS_INLINE_FUNCTION double triangle_volume(const double p[3][3], bool closed, double zbase) {
  if (closed) {
    const double jk[3] = {p[1][1] * p[2][2] - p[1][2] * p[2][1], p[1][2] * p[2][0] - p[1][0] * p[2][2],
                          p[1][0] * p[2][1] - p[1][1] * p[2][0]};
    return (p[0][0] * jk[0] + p[0][1] * jk[1] + p[0][2] * jk[2]) / 6;
  }
  const double axy = 0.5 * ((p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]));
  return axy * ((p[0][2] + p[1][2] + p[2][2]) / 3 - zbase);
}
KOKKOS_INLINE_FUNCTION void triangle_volume_gradient(const double p[3][3], bool closed, double zbase, double g[3][3]) {
  if (closed) {
    const double e1[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
    const double e2[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
    const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    for (int a = 0; a < 3; ++a)
      for (int d = 0; d < 3; ++d) g[a][d] = n[d] / 6;
    return;
  }
  const double axy = 0.5 * ((p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]));
  const double height = (p[0][2] + p[1][2] + p[2][2]) / 3 - zbase;
  for (int a = 0; a < 3; ++a) {
    const int j = (a + 1) % 3, k = (a + 2) % 3;
    g[a][0] = 0.5 * (p[j][1] - p[k][1]) * height;
    g[a][1] = 0.5 * (p[k][0] - p[j][0]) * height;
    g[a][2] = axy / 3;
  }
}

}  // namespace meniscus::membrane
