#include "methods/membrane/membrane_flow_3d.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "methods/membrane/body_contact.hpp"
#include "methods/membrane/fluid_kernels.hpp"
#include "methods/membrane/membrane_ownership.hpp"
#include "methods/membrane/receding_contact.hpp"
#include "methods/membrane/triangle_interpolation.hpp"
#include "methods/membrane/triangle_remesh.hpp"
#include "methods/membrane/volume_correction.hpp"

namespace meniscus::membrane {

namespace {

std::vector<double> host_vec3(const Vec3Array& a) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  std::vector<double> out(3 * a.extent(0));
  for (size_t i = 0; i < a.extent(0); ++i)
    for (int d = 0; d < 3; ++d) out[3 * i + d] = h(i, d);
  return out;
}

void to_device_vec3(const std::vector<double>& in, const Vec3Array& a) {
  auto h = Kokkos::create_mirror_view(a);
  for (size_t i = 0; i < a.extent(0); ++i)
    for (int d = 0; d < 3; ++d) h(i, d) = in[3 * i + d];
  Kokkos::deep_copy(a, h);
}

// v_i <- (v_i . n_i) n_i with n_i the unit area-weighted vertex normal (sum of the incident
// triangles' (x_j - x_i) x (x_k - x_i)).
void keep_normal_part(const std::vector<double>& x, const std::vector<int>& tri, std::vector<double>& v) {
  std::vector<double> n(x.size(), 0.0);
  for (size_t t = 0; t + 2 < tri.size(); t += 3) {
    const double* a = &x[3 * tri[t]];
    const double* b = &x[3 * tri[t + 1]];
    const double* c = &x[3 * tri[t + 2]];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double cr[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    for (int q = 0; q < 3; ++q)
      for (int d = 0; d < 3; ++d) n[3 * tri[t + q] + d] += cr[d];
  }
  for (size_t i = 0; i < x.size() / 3; ++i) {
    const double len = std::sqrt(n[3 * i] * n[3 * i] + n[3 * i + 1] * n[3 * i + 1] + n[3 * i + 2] * n[3 * i + 2]);
    if (len == 0) continue;
    double vn = 0;
    for (int d = 0; d < 3; ++d) vn += v[3 * i + d] * n[3 * i + d] / len;
    for (int d = 0; d < 3; ++d) v[3 * i + d] = vn * n[3 * i + d] / len;
  }
}

}  // namespace

geometry::TriangleMesh flat_sheet(const double lower[2], const double upper[2], double level, int n) {
  geometry::TriangleMesh mesh;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i)
      mesh.vertices.push_back({lower[0] + (upper[0] - lower[0]) * i / n, lower[1] + (upper[1] - lower[1]) * j / n, level});
  auto id = [n](int i, int j) { return j * (n + 1) + i; };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      mesh.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      mesh.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  return mesh;
}

void wrap_wetted_caps(geometry::TriangleMesh& sheet, double level, const std::vector<RigidBody3>& bodies) {
  for (const auto& b : bodies)
    for (auto& v : sheet.vertices) v[2] = std::min(v[2], surface_below(b, v[0], v[1], level));
}

int icosphere_level_for_edge(double r, double edge) {
  double e = 1.0515 * r;  // the regular icosahedron's edge over its circumradius
  int level = 0;
  while (e > edge && level < 7) {
    e *= 0.5;
    ++level;
  }
  return level;
}

geometry::TriangleMesh perturbed_sphere(const std::array<double, 3>& c, double r, double a, double edge) {
  geometry::TriangleMesh mesh = make_icosphere(c, r, icosphere_level_for_edge(r, edge));
  for (auto& v : mesh.vertices) {
    const double d[3] = {v[0] - c[0], v[1] - c[1], v[2] - c[2]};
    const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), s = d[2] / len;
    const double rr = r * (1 + a * 0.5 * (3 * s * s - 1));
    for (int q = 0; q < 3; ++q) v[q] = c[q] + rr * d[q] / len;
  }
  return mesh;
}

std::array<double, 2> max_speeds_3d(MacGrid3& grid, const TriangleMembrane& m) {
  auto owned = grid.field().acquire_owned();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), owned);
  grid.field().release_owned(owned);
  std::array<double, 2> out = {0, 0};
  for (size_t q = 0; q < h.extent(0); ++q)
    for (int d = 0; d < 3; ++d) out[0] = std::max(out[0], std::abs(h(q, k3U + d)));
  for (double v : host_vec3(m.v)) out[1] = std::max(out[1], std::abs(v));
  MPI_Allreduce(MPI_IN_PLACE, out.data(), 2, MPI_DOUBLE, MPI_MAX, grid.comm());
  return out;
}

double l2_amplitude(const TriangleMembrane& m, const std::array<double, 3>& c, MPI_Comm comm) {
  const double r = std::cbrt(3 * reproducible_enclosed_volume(m, true, 0.0, comm) / (4 * M_PI));
  Kokkos::View<double*, MemSpace> area("membrane3_vertex_area", m.vertices());
  lumped_vertex_areas(m, 1.0, area);
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), area);
  const std::vector<double> x = host_vec3(m.x);
  double sums[2] = {0, 0};
  double& num = sums[0];
  double& den = sums[1];
  for (long i = 0; i < m.owned_vertices; ++i) {
    const double d[3] = {x[3 * i] - c[0], x[3 * i + 1] - c[1], x[3 * i + 2] - c[2]};
    const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), s = d[2] / len;
    const double p2 = 0.5 * (3 * s * s - 1);
    num += ha(i) * (len / r - 1) * p2;
    den += ha(i) * p2 * p2;
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
  return den > 0 ? num / den : 0.0;
}

void add_gravity_3d(MacGrid3& grid, const double g[3], double dt) {
  auto owned = grid.field().acquire_owned();
  const double gx = g[0] * dt, gy = g[1] * dt, gz = g[2] * dt;
  Kokkos::parallel_for(
      "membrane3_gravity", owned.extent(0), KOKKOS_LAMBDA(const long q) {
        owned(q, k3U + 0) += gx;
        owned(q, k3U + 1) += gy;
        owned(q, k3U + 2) += gz;
      });
  grid.field().release_owned(owned);
  grid.field().global_to_local();
}

MembraneFlow3::MembraneFlow3(MacGrid3& grid, TriangleMembrane membrane, Flow3Parameters params,
                             CoupledSolveOptions solve, std::vector<RigidBody3> bodies)
    : grid_(grid), m_(std::move(membrane)), params_(params), solver_(grid, std::move(solve)) {
  bodies_ = std::move(bodies);
  for (auto& b : bodies_)  // held in place
    for (int d = 0; d < 3; ++d)
      if (b.held[d]) b.v[d] = 0.0;
  attach_links(bodies_, time_);
  zbase_ = grid_.geometry().lower[2];
  if (params_.remesh) {
    remesh_edge_ = params_.remesh_edge;
    if (remesh_edge_ <= 0) {
      const geometry::TriangleMesh mesh = to_triangle_mesh(m_);
      double sum = 0;
      for (const auto& t : mesh.triangles)
        for (int c = 0; c < 3; ++c) {
          const auto& a = mesh.vertices[t[c]];
          const auto& b = mesh.vertices[t[(c + 1) % 3]];
          sum += std::hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
        }
      remesh_edge_ = mesh.triangles.empty() ? 0.0 : sum / (3.0 * mesh.triangles.size());
    }
  }
  set_layout(distribute_triangle_membrane(m_, grid_.decomposition()));
  classify();
  classify_contacts();
  target_volume_ = volume();
}

MembraneFlow3::~MembraneFlow3() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (column_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&column_);
}

void MembraneFlow3::replace_membrane(TriangleMembrane membrane) {
  set_layout(distribute_triangle_membrane(membrane, grid_.decomposition()));
  classify_contacts();
}

double MembraneFlow3::layout_reach() const { return std::max(2 * grid_.dx(), solver_.coupling_reach()); }

void MembraneFlow3::set_layout(const TriangleMembrane& one_ring) {
  m_ = widen_ghosts(one_ring, grid_.decomposition(), layout_reach());
  halo_ = make_membrane_halo(m_, grid_.comm());
  mark_wall_vertices();
  global_vertices_ = m_.owned_vertices;
  MPI_Allreduce(MPI_IN_PLACE, &global_vertices_, 1, MPI_LONG, MPI_SUM, grid_.comm());
}

TriangleMembrane MembraneFlow3::whole_membrane() const {
  return gather_triangle_membrane(m_, grid_.decomposition());
}

// Stage 6 contact set (rules 2 and 3 of Ruan 2021 §6, as in 2D): wall vertices stay wall vertices.
void MembraneFlow3::classify_contacts() {
  contact_.clear();
  if (bodies_.empty()) return;
  const std::vector<double> x = host_vec3(m_.x);
  const long n = m_.vertices();
  std::vector<int> near(n, -1);
  const double eps = params_.contact_eps_over_dx * grid_.dx();
  for (long i = 0; i < n; ++i)
    if (fixed_[i] == 0) near[i] = body_within(bodies_, &x[3 * i], eps);
  auto tri = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.tri);
  std::vector<int> edges;
  edges.reserve(6 * tri.extent(0));
  for (size_t t = 0; t < tri.extent(0); ++t)
    for (int c = 0; c < 3; ++c) {
      edges.push_back(tri(t, c));
      edges.push_back(tri(t, (c + 1) % 3));
    }
  contact_ = contact_set(near, edges);
  // Rule 3 reads the one ring, complete for owned vertices only: ghosts take their owners' result.
  auto owners_result = [&] {
    std::vector<double> body(contact_.begin(), contact_.end());
    update_ghosts(halo_, body.data(), 1, grid_.comm());
    for (long i = 0; i < n; ++i) contact_[i] = static_cast<int>(body[i]);
  };
  owners_result();
  if (params_.receding_angle > 0) {
    // A receding line (receding_contact.hpp): the owners release the vertices on the edge of a contact
    // region whose angle through the liquid is below the receding angle, then rule 3 again.
    for (const int i : receding_vertices(bodies_, x, edges, m_.owned_vertices, params_.receding_angle, contact_))
      contact_[i] = -1;
    owners_result();
    contact_ = contact_set(contact_, edges);
    owners_result();
  }
}

// A vertex can end inside a body although its prediction did not (it moved with v-dagger, a
// remeshing midpoint lies on a chord, the volume correction moved it): it goes back to the closest
// surface point, where the Stage 6 rules then find it.
void MembraneFlow3::project_out_of_bodies() {
  if (bodies_.empty()) return;
  std::vector<double> x = host_vec3(m_.x);
  std::vector<char> skip(m_.vertices());
  for (long i = 0; i < m_.vertices(); ++i) skip[i] = fixed_[i] != 0;
  if (project_out_of(bodies_, x.data(), m_.vertices(), skip)) to_device_vec3(x, m_.x);
}

void MembraneFlow3::damp_velocities(double factor) {
  scale_face_velocities(grid_, factor);
  auto v = m_.v;
  Kokkos::parallel_for(
      "membrane3_damp_vertices", m_.vertices(), KOKKOS_LAMBDA(const long i) {
        for (int d = 0; d < 3; ++d) v(i, d) *= factor;
      });
  for (auto& b : bodies_)
    if (!b.fixed && b.root < 0)
      for (int d = 0; d < 3; ++d) {
        b.v[d] *= factor;
        b.omega[d] *= factor;
      }
}

// An open surface: vertices on an x (y) wall slide along it, their x (y) component held at zero.
void MembraneFlow3::mark_wall_vertices() {
  const MacGeometryT<3> g = grid_.geometry();
  const std::vector<double> x = host_vec3(m_.x);
  fixed_.assign(m_.vertices(), 0);
  if (params_.closed) return;
  const double tol = 1e-9 * g.dx;
  for (long i = 0; i < m_.vertices(); ++i)
    for (int d = 0; d < 2; ++d) {
      const double lo = g.lower[d], hi = g.lower[d] + g.cells[d] * g.dx;
      if (std::abs(x[3 * i + d] - lo) < tol || std::abs(x[3 * i + d] - hi) < tol) fixed_[i] |= 1 << d;
    }
}

// The correction's reproducible sum over the owned triangles of every rank, so the target and the
// corrected volume are summed alike.
double MembraneFlow3::volume() const {
  return reproducible_enclosed_volume(m_, params_.closed, zbase_, grid_.comm());
}

MembraneHost3 MembraneFlow3::host_geometry() const {
  MembraneHost3 h;
  h.adhesion = params_.adhesion;
  auto gid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.gid);
  h.gid.assign(gid.data(), gid.data() + gid.extent(0));
  h.owned = m_.owned_vertices;
  h.ghost_owner = m_.ghost_owner;
  h.x = host_vec3(m_.x);
  h.v = host_vec3(m_.v);
  h.fixed = fixed_;
  auto tri = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_.tri);
  h.tri.resize(3 * tri.extent(0));
  for (size_t t = 0; t < tri.extent(0); ++t)
    for (int c = 0; c < 3; ++c) h.tri[3 * t + c] = tri(t, c);
  return h;
}

MembraneHost3 MembraneFlow3::host_state(bool tension) const {
  MembraneHost3 h = host_geometry();
  // The vertex terms from the local triangles: complete on the owned vertices, whose one ring the
  // layout holds (triangle_membrane.hpp).
  Kokkos::View<double*, MemSpace> mass("membrane3_mass", m_.vertices());
  lumped_vertex_areas(m_, params_.rho * params_.h, mass);
  auto hm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mass);
  h.mass.assign(hm.data(), hm.data() + hm.extent(0));
  h.force.assign(3 * m_.vertices(), 0.0);
  if (tension && params_.sigma != 0) {
    Vec3Array f("membrane3_force", m_.vertices());
    capillary_force(m_, params_.sigma, f);
    h.force = host_vec3(f);
    CornerArray w("membrane3_cot", m_.triangles());
    cotangent_weights(m_, params_.sigma, w);
    LaplacianRows rows = cotangent_laplacian_rows(m_, w);
    h.k_row = std::move(rows.row);
    h.k_col = std::move(rows.col);
    h.k_value = std::move(rows.value);
  }
  return h;
}

void MembraneFlow3::classify() {
  const MacGeometryT<3> g = grid_.geometry();
  const MembraneHost3 h = host_geometry();
  const double reach = 2 * g.dx;
  // Ray parity without a whole-column query: a rank counts the crossings of each upward ray between
  // its cell centre and the top of the rank's cells (z_top; unbounded on the topmost ranks), and of
  // each of its columns' rays through its whole slab (z_bottom, z_top]. The slab counts of the ranks
  // above, summed along the process column (one MPI_Exscan over the ranks that share this rank's x
  // and y cells, from the top down), complete the parity. The rank then needs only the triangles
  // whose bounding box meets its cells widened by reach (the same region as the W rows'); counts
  // are integers and the nearest distance a minimum, so the types and phi are the same bits as a
  // whole-mesh query gives.
  int first[3], buckets[3], last[3];
  double lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    last[d] = std::min(g.cells[d], g.owned.lo[d] + g.owned.n[d]);
    first[d] = std::max(0, g.owned.lo[d] - 2);
    buckets[d] = std::max(1, std::min(g.cells[d], last[d] + 2) - first[d]);
    lo[d] = g.lower[d] + g.owned.lo[d] * g.dx - reach;
    hi[d] = g.lower[d] + last[d] * g.dx + reach;
  }
  const bool topmost = last[2] >= g.cells[2];
  const double z_bottom = g.lower[2] + g.owned.lo[2] * g.dx;
  const double z_top = topmost ? std::numeric_limits<double>::infinity() : g.lower[2] + last[2] * g.dx;
  if (topmost) hi[2] = std::numeric_limits<double>::max();
  std::vector<int> local_tri;
  for (size_t t = 0; t + 2 < h.tri.size(); t += 3) {
    bool meets = true;
    for (int d = 0; d < 3 && meets; ++d) {
      const double a = h.x[3 * h.tri[t] + d], b = h.x[3 * h.tri[t + 1] + d], c = h.x[3 * h.tri[t + 2] + d];
      meets = std::max({a, b, c}) >= lo[d] && std::min({a, b, c}) <= hi[d];
    }
    if (meets) local_tri.insert(local_tri.end(), h.tri.begin() + t, h.tri.begin() + t + 3);
  }
  column_triangles_ = static_cast<long>(local_tri.size() / 3);
  const double index_lower[3] = {g.lower[0] + first[0] * g.dx, g.lower[1] + first[1] * g.dx, g.lower[2] + first[2] * g.dx};
  TriangleIndex index(h.x, std::move(local_tri), index_lower, g.dx, buckets);
  // Crossings above this rank's slab, per column (i, j) of its cells.
  const int nx = std::max(0, last[0] - g.owned.lo[0]), ny = std::max(0, last[1] - g.owned.lo[1]);
  std::vector<int> slab(static_cast<size_t>(nx) * ny, 0), above(slab.size(), 0);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int c[3] = {g.owned.lo[0] + i, g.owned.lo[1] + j, 0};
      double x[3];
      g.cell_centre(c, x);
      x[2] = z_bottom;
      slab[static_cast<size_t>(j) * nx + i] = index.crossings_between(x, z_top);
    }
  if (column_ == MPI_COMM_NULL)
    MPI_Comm_split(grid_.comm(), g.owned.lo[0] * (g.cells[1] + 1) + g.owned.lo[1], -g.owned.lo[2], &column_);
  int column_rank = 0;
  MPI_Comm_rank(column_, &column_rank);
  MPI_Exscan(slab.data(), above.data(), static_cast<int>(slab.size()), MPI_INT, MPI_SUM, column_);
  if (column_rank == 0) std::fill(above.begin(), above.end(), 0);
  auto owned = grid_.field().acquire_owned();
  auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), owned);
  for (long q = 0; q < g.owned.size(); ++q) {
    int c[3];
    g.owned.node(q, c);
    if (c[0] >= g.cells[0] || c[1] >= g.cells[1] || c[2] >= g.cells[2]) {
      ho(q, k3Cell) = kAir;  // the node past the last cell stores faces only
      ho(q, k3Phi) = reach;
      continue;
    }
    double x[3];
    g.cell_centre(c, x);
    const int crossings = index.crossings_between(x, z_top) + above[static_cast<size_t>(c[1] - g.owned.lo[1]) * nx + (c[0] - g.owned.lo[0])];
    const bool liquid = crossings % 2 == 1;
    const double dist = index.distance(x, reach);
    // A cell whose centre lies inside a rigid body is SOLID whatever the parity (Ruan 2021 §4.3).
    ho(q, k3Cell) = body_containing(bodies_, x) >= 0 ? kSolid : (liquid ? kFluid : kAir);
    ho(q, k3Phi) = liquid ? -dist : dist;
  }
  Kokkos::deep_copy(owned, ho);
  grid_.field().release_owned(owned);
  grid_.field().global_to_local();
}

Step3Report MembraneFlow3::step(double dt) {
  Step3Report report;
  const long n = m_.vertices();  // this rank's owned and ghost vertices
  // Stage 1 (Eq. 29): predicted body positions q^{n+1} = q^n + v^n dt (rotation by Rodrigues; links
  // of articulated bodies at their stroke position of t + dt on the predicted root); the first solve
  // still sees the bodies at q^n, where the previous cell types put them.
  attach_links(bodies_, time_);  // idempotent; places the links after a restart
  std::vector<RigidBody3> predicted = bodies_;
  predict_positions(predicted, dt);
  attach_links(predicted, time_ + dt);
  // Stages 2-3: a vertex whose prediction x + v dt penetrates a body (with the 2D step's round-off
  // margin) is a contact particle of the first solve, moving to its projection on the predicted
  // surface (Eq. 30). A ghost's test reads its owner's x and v, so it gives the owner's answer.
  MembraneHost3 before = host_state(false);
  std::vector<char> slaved(n, 0);
  if (!bodies_.empty()) {
    before.body.assign(n, -1);
    before.v_contact.assign(3 * n, 0.0);
    for (long i = 0; i < n; ++i) {
      if (fixed_[i] != 0) continue;
      const int b = predicted_contact(predicted, &before.x[3 * i], &before.v[3 * i], dt, kSurfaceMarginCells * grid_.dx(),
                                      &before.v_contact[3 * i]);
      if (b < 0) continue;
      before.body[i] = b;
      slaved[i] = 1;
      if (i < m_.owned_vertices) ++report.predicted_contacts;
    }
    MPI_Allreduce(MPI_IN_PLACE, &report.predicted_contacts, 1, MPI_LONG, MPI_SUM, grid_.comm());
  }
  // 1. First solve (Eq. 19, no tension; fluid-rigid faces carry J_r v_r^n): advection velocities
  // into k3Udag, v-dagger.
  std::vector<double> vdag, vr_unused;
  std::optional<Timers::Scope> stage(std::in_place, timers_, "solve1");
  if (params_.two_solve) {
    report.first = solver_.solve(before, RigidHost3{bodies_, {}, false}, params_.rho, dt, k3U, k3Udag, vdag, vr_unused);
  } else {
    // One-solve control: advect with the previous step's velocities (the membrane's v^n, the faces' u^n).
    vdag = before.v;
    auto owned = grid_.field().acquire_owned();
    Kokkos::parallel_for(
        "membrane3_copy_advection_velocity", owned.extent(0), KOKKOS_LAMBDA(const long q) {
          for (int d = 0; d < 3; ++d) owned(q, k3Udag + d) = owned(q, k3U + d);
        });
    grid_.field().release_owned(owned);
    grid_.field().global_to_local();
  }
  // Free vertices: the normal part of v-dagger (optional); contact particles keep their projection
  // velocity, they must land on the body. The normals are complete on owned vertices (their one
  // ring is local), which are the rows the advection reads.
  auto keep_slaved = [&](const std::vector<double>& x, const std::vector<int>& tri, std::vector<double>& v,
                         const std::vector<char>& keep) {
    const std::vector<double> full = v;
    keep_normal_part(x, tri, v);
    for (long i = 0; i < static_cast<long>(keep.size()); ++i)
      if (keep[i])
        for (int d = 0; d < 3; ++d) v[3 * i + d] = full[3 * i + d];
  };
  if (params_.normal_motion) keep_slaved(before.x, before.tri, vdag, slaved);
  // 2. Membrane advection (Eq. 32), then the volume restored along its gradient (free components):
  // each rank moves its own vertices and corrects the volume with reproducible sums; the halo
  // refreshes the ghosts.
  stage.emplace(timers_, "advection");
  {
    std::vector<int> held(n);
    for (long i = 0; i < n; ++i) held[i] = fixed_[i] | (slaved[i] ? 7 : 0);
    advect_preserving_volume(m_, halo_, vdag, held, dt, params_.preserve_volume ? 2 : 0, params_.closed, zbase_,
                             target_volume_, grid_.comm());
  }
  // The grid velocity: extended into the air from the faces of the old cell types, then u* = u^n
  // traced back along u-dagger (Eq. 32).
  extrapolate_velocities(grid_, params_.extrapolation_layers);
  advect_velocities(grid_, dt);
  const std::vector<RigidBody3> start = std::move(bodies_);
  bodies_ = predicted;
  // Stage 6: remeshing keeps the triangles usable for Eq. 11 (the vertex velocities v^n follow).
  // Splits, collapses and flips renumber the mesh, so the remesher runs on a gathered copy, the same
  // on every rank (vertices in global-id order, triangles in the order of their global ids, so the
  // same at every rank count), and each rank keeps its part of the result. A vertex that ended
  // inside a body goes back to the surface (project_out_of_bodies) first.
  if (remesh_edge_ > 0) {
    stage.emplace(timers_, "remesh_gather");
    TriangleMembrane whole = gather_triangle_membrane(m_, grid_.decomposition());
    stage.emplace(timers_, "remesh");
    TriangleRemeshOptions o;
    o.L0 = remesh_edge_;
    o.closed = params_.closed;
    o.smoothing_rate = params_.remesh_smoothing ? 1.0 : 0.0;
    const TriangleRemeshStats st = remesh_membrane(whole, o);
    report.splits = st.splits;
    report.collapses = st.collapses;
    report.flips = st.flips;
    report.smoothed = st.smoothed;
    m_ = std::move(whole);
    mark_wall_vertices();
    project_out_of_bodies();
    stage.emplace(timers_, "layout");
    set_layout(distribute_triangle_membrane(m_, grid_.decomposition()));
  } else {
    stage.emplace(timers_, "layout");
    project_out_of_bodies();
    // Each vertex goes to the owner of its new cell with its one ring (membrane_ownership.hpp).
    migrate_triangle_membrane(m_, grid_.decomposition());
    set_layout(m_);
  }
  // 3. Retype the cells with x^{n+1} and q^{n+1}, find the contact particles of the three-way solve;
  // 4. gravity on the liquid and the bodies, then the second solve with f_c and K_c.
  stage.emplace(timers_, "classify");
  classify();
  classify_contacts();
  stage.emplace(timers_, "solve2");
  add_gravity_3d(grid_, params_.gravity, dt);
  std::vector<double> vnew, vr_new;
  MembraneHost3 after = host_state(true);
  RigidHost3 rigid{bodies_, std::vector<double>(RigidBody3::kDofs * bodies_.size(), 0.0), true};
  for (size_t b = 0; b < bodies_.size(); ++b) {
    double* vs = &rigid.v_start[RigidBody3::kDofs * b];
    momentum_velocity(start[b], bodies_[b], vs);  // M_r(q^n) v^n: a free spin keeps its angular momentum
    if (!bodies_[b].fixed)
      for (int d = 0; d < 3; ++d) vs[d] = bodies_[b].held[d] ? 0.0 : vs[d] + dt * params_.gravity[d];
  }
  // Articulated bodies, as in 2D: the momentum of a root and its links, M v_root + sum_k m_k v_kin,k,
  // changes only by the external impulses, so the root's v_r* loses sum_k m_k (v_kin,k^{n+1} -
  // v_kin,k^n) / M (the fictitious force -sum_k m_k a_kin,k; the root does not rotate, so no torque).
  for (size_t k = 0; k < bodies_.size(); ++k) {
    const RigidBody3& link = bodies_[k];
    if (link.root < 0) continue;
    const auto root = static_cast<size_t>(link.root);
    const double mr = composite_mass(bodies_, root);
    for (int d = 0; d < 3; ++d)
      if (!bodies_[root].held[d])
        rigid.v_start[RigidBody3::kDofs * root + d] -= link.mass() * (link.v_kin[d] - start[k].v_kin[d]) / mr;
  }
  std::vector<char> contact(m_.vertices(), 0);
  if (!bodies_.empty()) {
    after.body = contact_;
    for (long i = 0; i < m_.vertices(); ++i) contact[i] = contact_[i] >= 0;
    report.contact_vertices = std::count(contact.begin(), contact.begin() + m_.owned_vertices, 1);
    MPI_Allreduce(MPI_IN_PLACE, &report.contact_vertices, 1, MPI_LONG, MPI_SUM, grid_.comm());
  }
  report.second = solver_.solve(after, rigid, params_.rho, dt, k3U, k3U, vnew, vr_new);
  // Stage 8: the membrane's new velocities (contact particles J_i v_r^{n+1}) and the bodies'.
  if (params_.normal_motion) keep_slaved(after.x, after.tri, vnew, contact);
  to_device_vec3(vnew, m_.v);
  if (params_.normal_motion) update_ghosts(halo_, m_.v, grid_.comm());  // ghost normals are partial
  for (size_t b = 0; b < bodies_.size(); ++b) bodies_[b].set_velocity(&vr_new[RigidBody3::kDofs * b]);
  // Body-body contact, then body-wall contact, as in 2D (body_contact.hpp; rigid_body.hpp,
  // stop_at_walls). The bodies are replicated and the impulses computed alike on every rank.
  if (params_.body_contact) {
    BodyContactParameters contact;
    contact.friction = params_.body_friction;
    contact.spacing = 0.25 * grid_.dx();
    report.body_contacts = resolve_body_contacts(bodies_, dt, contact);
  }
  {
    const MacGeometryT<3> g = grid_.geometry();
    for (auto& b : bodies_)
      if (!b.fixed && b.root < 0) stop_at_walls(b, g.lower, g.cells, g.dx, dt);
  }
  if (params_.settle_damping > 0 && time_ < params_.settle_until) damp_velocities(1.0 - params_.settle_damping * dt);
  time_ += dt;
  attach_links(bodies_, time_);  // the links' velocities from their root's new one
  report.volume = volume();
  return report;
}

}  // namespace meniscus::membrane
