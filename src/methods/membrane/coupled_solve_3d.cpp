#include "methods/membrane/coupled_solve_3d.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/mpi_gather.hpp"

#include "methods/membrane/kkt_assembly.hpp"
#include "methods/membrane/membrane_ownership.hpp"
#include "methods/membrane/triangle_interpolation.hpp"
#include "solvers/petsc_check.hpp"

#define MEMBRANE_PETSC(call) ::meniscus::solvers::petsc_check((call), #call)

namespace meniscus::membrane {

CoupledSolver3::CoupledSolver3(MacGrid3& grid, CoupledSolveOptions options)
    : grid_(grid), options_(std::move(options)) {}
CoupledSolver3::~CoupledSolver3() { blocks_.destroy(); }

double CoupledSolver3::coupling_reach() const {
  return grid_.dx() * (1.0 + std::max(0.5, 0.5 * options_.w_normal_extent));
}

CoupledSolveResult CoupledSolver3::solve(const MembraneHost3& m, double rho, double dt, int src_u, int dst_u,
                                         std::vector<double>& v_new) {
  std::vector<double> vr;
  return solve(m, RigidHost3{}, rho, dt, src_u, dst_u, v_new, vr);
}

CoupledSolveResult CoupledSolver3::solve(const MembraneHost3& m, const RigidHost3& r, double rho, double dt, int src_u,
                                         int dst_u, std::vector<double>& v_new, std::vector<double>& vr_new) {
  blocks_.destroy();
  MPI_Comm comm = grid_.comm();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const MacGeometryT<3> g = grid_.geometry();
  const double dx = g.dx, vol = dx * dx * dx;
  DM dmp = grid_.pressure_dm();

  auto dev = grid_.field().acquire_local(false);
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dev);
  grid_.field().release_local(dev);

  // Unknowns of the velocity block: every membrane component not held by a wall and not slaved to
  // a body, numbered by the rank owning the vertex (its cell's owner, cell_owner in mac_grid.hpp) so
  // that each rank owns a contiguous range of rows (by increasing global id within a rank), then six
  // per free body when the bodies are unknowns, on the last rank. A ghost's unknowns come from its
  // owner through the layout's halo.
  const long nvert = m.vertices();
  const long nown = m.owned < 0 ? nvert : m.owned;
  int size = 1;
  MPI_Comm_size(comm, &size);
  if (m.owned < 0 && size > 1)
    throw std::logic_error("CoupledSolver3: a membrane without its layout (gid, owned) on several ranks");
  std::vector<long> gid = m.gid;
  if (gid.empty()) {
    gid.resize(nvert);
    std::iota(gid.begin(), gid.end(), 0L);
  }
  const MembraneHalo halo = make_vertex_halo(gid.data(), nown, m.ghost_owner, comm);
  auto contact_body = [&](long i) { return m.body.empty() ? -1 : m.body[i]; };
  auto free_component = [&](long i, int d) {
    return (m.fixed.empty() || !(m.fixed[i] & (1 << d))) && contact_body(i) < 0;
  };
  PetscInt mine = 0;
  for (long i = 0; i < nown; ++i)
    for (int d = 0; d < 3; ++d) mine += free_component(i, d);
  std::vector<PetscInt> first(size + 1, 0);
  MPI_Allgather(&mine, 1, MPIU_INT, first.data() + 1, 1, MPIU_INT, comm);
  for (int q = 0; q < size; ++q) first[q + 1] += first[q];
  std::vector<PetscInt> unknown(3 * nvert, -1);
  {
    PetscInt next = first[rank];
    std::vector<double> ids(3 * nvert, -1.0);
    for (long i = 0; i < nown; ++i)
      for (int d = 0; d < 3; ++d)
        if (free_component(i, d)) ids[3 * i + d] = static_cast<double>(next++);
    update_ghosts(halo, ids.data(), 3, comm);
    for (long q = 0; q < 3 * nvert; ++q) unknown[q] = static_cast<PetscInt>(ids[q]);
  }
  const PetscInt nv_membrane = first[size];
  PetscInt nv = nv_membrane;
  const long nbody = static_cast<long>(r.bodies.size());
  constexpr int kRd = RigidBody3::kDofs;
  std::vector<PetscInt> rigid(nbody, -1);  // first of the body's six unknowns
  for (long b = 0; b < nbody; ++b)
    if (r.unknowns && !r.bodies[b].fixed && r.bodies[b].root < 0) {  // a link shares its root's unknowns
      rigid[b] = nv;
      nv += kRd;
    }
  first[size] = nv;
  KktBlocks& k = blocks_;
  k.membrane_unknowns = nv_membrane;
  k.rigid_unknowns = nv - nv_membrane;
  const PetscInt nv_local = first[rank + 1] - first[rank];
  std::vector<PetscInt> coupled;  // membrane unknowns on this rank's fluid-air faces
  // Bodies held along world axes (RigidBody3::held; kkt_assembly.hpp, HeldRows).
  HeldRows held;
  held.held.assign(nv, 0);
  for (long b = 0; b < nbody; ++b)
    for (int d = 0; d < 3 && rigid[b] >= 0; ++d) held.held[rigid[b] + d] = r.bodies[b].held[d];

  auto owner_of = [&](long b) { return r.bodies[b].root >= 0 ? static_cast<long>(r.bodies[b].root) : b; };
  auto body_velocity = [&](long b, int d, const double* x) {  // a link: its root's unknowns plus its stroke
    return body_point_velocity(r.bodies, rigid, b, d, x);
  };
  // A contact vertex moves with its body (body_velocity), or with its prescribed v_contact where the
  // bodies are not unknowns and the caller gives one (the first solve's projection velocities).
  const std::vector<LinearVelocity> vmap = vertex_velocities(nvert, 3, unknown, contact_body, [&](long i, int d) {
    const int b = contact_body(i);
    if (rigid[owner_of(b)] >= 0 || m.v_contact.empty()) return body_velocity(b, d, &m.x[3 * i]);
    LinearVelocity l;
    l.known = m.v_contact[3 * i + d];
    return l;
  });

  ISLocalToGlobalMapping ltog;
  MEMBRANE_PETSC(DMGetLocalToGlobalMapping(dmp, &ltog));
  auto global_cell = [&](const int* c) {
    PetscInt l = static_cast<PetscInt>(g.local(c[0], c[1], c[2])), out = -1;
    MEMBRANE_PETSC(ISLocalToGlobalMappingApply(ltog, 1, &l, &out));
    return out;
  };
  auto cell_type = [&](const int* c) { return g.cell_type(a, c[0], c[1], c[2]); };
  auto owned_cell = [&](const int* c) {
    return g.in_owned(c[0], c[1], c[2]) && c[0] < g.cells[0] && c[1] < g.cells[1] && c[2] < g.cells[2];
  };
  Vec bp;
  MEMBRANE_PETSC(DMCreateGlobalVector(dmp, &bp));
  MEMBRANE_PETSC(VecSet(bp, 0.0));
  PetscInt np_local = 0, np = 0;
  MEMBRANE_PETSC(VecGetLocalSize(bp, &np_local));
  MEMBRANE_PETSC(VecGetSize(bp, &np));
  MEMBRANE_PETSC(DMCreateMatrix(dmp, &k.A));
  MEMBRANE_PETSC(MatSetOption(k.A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  k.Bt = create_kkt_aij(comm, np_local, nv_local, np, nv, 64);

  // A: (V/rho) G^T G over all-fluid faces, V/(rho dx^2) = dx/rho per face; identity rows on cells
  // that are not fluid (p-hat = 0 there).
  const int* lo = g.owned.lo;
  const int* n = g.owned.n;
  for (int kk = lo[2]; kk < lo[2] + n[2]; ++kk)
    for (int j = lo[1]; j < lo[1] + n[1]; ++j)
      for (int i = lo[0]; i < lo[0] + n[0]; ++i) {
        const int c[3] = {i, j, kk};
        const PetscInt row = static_cast<PetscInt>(g.local(i, j, kk));
        if (cell_type(c) != kFluid) {
          const PetscScalar one = 1.0;
          MEMBRANE_PETSC(MatSetValuesLocal(k.A, 1, &row, 1, &row, &one, ADD_VALUES));
          continue;
        }
        for (int d = 0; d < 3; ++d)
          for (int s = -1; s <= 1; s += 2) {
            int nb[3] = {i, j, kk};
            nb[d] += s;
            if (cell_type(nb) != kFluid) continue;
            const PetscInt col = static_cast<PetscInt>(g.local(nb[0], nb[1], nb[2]));
            const PetscScalar diag = dx / rho, off = -dx / rho;
            MEMBRANE_PETSC(MatSetValuesLocal(k.A, 1, &row, 1, &row, &diag, ADD_VALUES));
            MEMBRANE_PETSC(MatSetValuesLocal(k.A, 1, &row, 1, &col, &off, ADD_VALUES));
          }
      }

  // W from the layout's triangles: those within coupling_reach() of this rank's cells.
  const int buckets[3] = {g.cells[0], g.cells[1], g.cells[2]};
  TriangleIndex index(m.x, m.tri, g.lower, dx, buckets);
  // A W row in increasing global vertex id (the order of the whole membrane's rows at any rank
  // count), by local vertex.
  auto w_row = [&](const double* centre, const double* support) {
    std::vector<std::pair<int, double>> row = interpolation_row(index, centre, support);
    std::sort(row.begin(), row.end(), [&](const auto& p, const auto& q) { return gid[p.first] < gid[q.first]; });
    return row;
  };

  // Faces: each rank adds to its own pressure rows (visiting the faces on the high side of its box
  // through the ghosts) and keeps its velocity-block contributions for the rows' owners.
  std::vector<long> mixed_node;
  std::vector<int> mixed_axis;
  std::vector<LinearVelocity> mixed_row;
  long rigid_faces = 0;
  VelocityEntries c_mine;
  std::vector<double> bv_mine(nv, 0.0);
  for (int kk = lo[2]; kk <= lo[2] + n[2]; ++kk)
    for (int j = lo[1]; j <= lo[1] + n[1]; ++j)
      for (int i = lo[0]; i <= lo[0] + n[0]; ++i) {
        if (!g.in_ghost(i, j, kk)) continue;
        const int cb[3] = {i, j, kk};
        const bool face_owned = g.in_owned(i, j, kk);
        for (int d = 0; d < 3; ++d) {
          const int type = g.face_type(a, d, cb);
          if (type != kAllFluid && type != kFluidAir && type != kFluidRigid) continue;
          int ca[3] = {i, j, kk};
          --ca[d];
          if (!face_owned && !owned_cell(ca)) continue;
          const double uf = a(g.local(i, j, kk), src_u + d);
          if (type == kAllFluid) {
            // b_p = V G^T P_F u**: (G^T u)_a = -u / dx, (G^T u)_b = +u / dx.
            const PetscScalar va = -vol / dx * uf, vb = vol / dx * uf;
            if (owned_cell(ca)) {
              const PetscInt ra = global_cell(ca);
              MEMBRANE_PETSC(VecSetValues(bp, 1, &ra, &va, ADD_VALUES));
            }
            if (owned_cell(cb)) {
              const PetscInt rb = global_cell(cb);
              MEMBRANE_PETSC(VecSetValues(bp, 1, &rb, &vb, ADD_VALUES));
            }
            continue;
          }
          const bool a_fluid = cell_type(ca) == kFluid;
          const int* cf = a_fluid ? ca : cb;  // the fluid cell
          const int* co = a_fluid ? cb : ca;  // the air or solid cell
          const bool row_mine = owned_cell(cf);
          if (!face_owned && !row_mine) continue;
          const double s = a_fluid ? -1.0 : 1.0;  // dx G_{f, fluid cell}
          double centre[3];
          g.face_centre(d, cb, centre);
          // The face velocity as a function of the unknowns and its dual cell's liquid fraction.
          LinearVelocity row;
          double alpha = 0.5;
          if (type == kFluidAir) {
            // Ghost-fluid fraction of the dual cell (mass M, Ruan 2021 §4.3), clamped as in 2D.
            alpha = fluid_fraction(a(g.local(cf[0], cf[1], cf[2]), k3Phi), a(g.local(co[0], co[1], co[2]), k3Phi));
            double support[3] = {0.5 * dx, 0.5 * dx, 0.5 * dx};
            support[d] *= options_.w_normal_extent;
            row = interpolated_velocity(w_row(centre, support), vmap, 3, d);
          } else {
            // Fluid-rigid face (Ruan 2021 Eq. 26): the velocity of the covering body at the face.
            double xo[3], xf[3];
            g.cell_centre(co, xo);
            g.cell_centre(cf, xf);
            const int b = covering_body(r.bodies, xo, xf, alpha);
            if (b < 0) continue;  // a SOLID cell without a body: not produced by classify
            row = body_velocity(b, d, centre);
            if (face_owned) ++rigid_faces;
          }
          alpha = std::clamp(alpha, 0.05, 1.0);
          const double mass = rho * alpha * vol;
          if (row_mine) add_mixed_face_coupling(k.Bt, bp, global_cell(cf), row, vol, s / dx, held.held, held.bt);
          if (!face_owned) continue;
          const int c0[3] = {i - lo[0], j - lo[1], kk - lo[2]};
          mixed_node.push_back(c0[0] + static_cast<long>(n[0]) * (c0[1] + static_cast<long>(n[1]) * c0[2]));
          mixed_axis.push_back(d);
          for (const Term& t : row.terms)
            if (type == kFluidAir && t.k < nv_membrane) coupled.push_back(t.k);
          add_face_mass(row, mass, uf, c_mine, bv_mine);
          mixed_row.push_back(std::move(row));
        }
      }

  // Membrane inertia and capillarity, each term by the rank owning its vertex (edges by the owner
  // of their lower global id, whose one ring is in the layout): C += M_s + dt^2 K_c, b_v += -(M_s v^n + dt (f_c
  // + dt K_c v^n)) (Eq. 17 linearised about x^{n+1}), each vertex term through its linear velocity
  // (a contact vertex's reach its body as J^T (...) J). K_c = L (x) I_3 is applied edge by edge (L's
  // off-diagonal entries -w, its rows summing to zero); edges with both ends on the same body are
  // inside the contact region and left out (Eq. 22). Then every entry goes to the rank owning its
  // row and is added there in source-rank order.
  std::unordered_map<long, long> local_of;
  for (long i = 0; i < nvert; ++i) local_of[gid[i]] = i;
  for (size_t e = 0; e < m.k_value.size(); ++e) {
    if (m.k_row[e] >= m.k_col[e]) continue;  // each edge once (L is symmetric)
    const long vi = local_of.at(m.k_row[e]);
    if (vi >= nown) continue;  // by the owner of its lower id
    const long vj = local_of.at(m.k_col[e]);
    if (contact_body(vi) >= 0 && contact_body(vi) == contact_body(vj)) continue;
    // Without adhesion a contact end is anchored for the step (no K_{a,s}, K_{c,r}, K_{a,r}) and
    // takes no capillary pull.
    const bool anchor_i = !m.adhesion && contact_body(vi) >= 0, anchor_j = !m.adhesion && contact_body(vj) >= 0;
    for (int d = 0; d < 3; ++d) {
      const LinearVelocity ai = anchored_velocity(m.v[3 * vi + d]), aj = anchored_velocity(m.v[3 * vj + d]);
      const LinearVelocity& li = anchor_i ? ai : vmap[3 * vi + d];
      const LinearVelocity& lj = anchor_j ? aj : vmap[3 * vj + d];
      const double kvd = add_edge_stiffness(li, lj, m.v[3 * vi + d], m.v[3 * vj + d], -m.k_value[e], dt, c_mine);
      if (!anchor_i) add_vertex_rhs(li, dt * dt * kvd, bv_mine);
      if (!anchor_j) add_vertex_rhs(lj, -dt * dt * kvd, bv_mine);
    }
  }
  for (long vi = 0; vi < nown; ++vi) {
    for (int d = 0; d < 3; ++d) {
      const LinearVelocity& l = vmap[3 * vi + d];
      if (l.terms.empty()) continue;
      const double pull = !m.adhesion && contact_body(vi) >= 0 ? 0.0 : m.force[3 * vi + d];
      const double rhs = m.mass[vi] * (m.v[3 * vi + d] - l.known) + dt * pull;  // f_a = 0 without adhesion
      add_vertex_inertia(l, m.mass[vi], rhs, c_mine, bv_mine);
    }
  }
  // Body inertia M_r = diag(m I_3, R I_body R^T) (with the links a root carries) and its momentum
  // M_r v_r* (Eq. 27; gravity and the links' stroke acceleration are in v_r*), on the rank owning the
  // bodies' rows.
  if (rank == size - 1)
    for (long b = 0; b < nbody; ++b) {
      if (rigid[b] < 0) continue;
      double mr[kRd * kRd];
      composite_mass_matrix(r.bodies, static_cast<size_t>(b), mr);
      add_rigid_inertia(rigid[b], kRd, mr, &r.v_start[kRd * b], c_mine, bv_mine);
    }
  VelocityEntries c_local;
  std::vector<double> bv_local;
  exchange_velocity_block(comm, first, c_mine, bv_mine, c_local, bv_local);
  // A held axis is a translation: M_r's block there is m I_3, so its diagonal is the mass.
  set_aside_held_rows(held, first[rank], nv_local, c_local, bv_local, rigid, kRd, r.v_start,
                      [&](long b, int) { return composite_mass(r.bodies, static_cast<size_t>(b)); });
  build_kkt_system(comm, k, bp, first, c_local, bv_local, [&](PetscInt i, PetscInt j) { return held.keep(i, j); });
  const KktSolveStats stats = solve_kkt(k, options_, comm);

  CoupledSolveResult result;
  result.held_force.assign(3 * nbody, 0.0);
  result.held_torque.assign(nbody, 0.0);
  if (held.any()) {  // J_d = B_d p-hat - C'_d z - b'_d (the 2D solve's comment, coupled_solve.cpp)
    const std::vector<double> impulse = held_impulse(k, held, c_local, nv, comm);
    for (long b = 0; b < nbody; ++b)
      for (int d = 0; d < 3 && rigid[b] >= 0; ++d)
        if (held.held[rigid[b] + d]) result.held_force[3 * b + d] = impulse[rigid[b] + d] / dt;
  }
  result.iterations = stats.iterations;
  result.reason = stats.reason;
  result.unknowns = static_cast<long>(np + nv);
  {
    long counts[2] = {static_cast<long>(mixed_node.size()) - rigid_faces, rigid_faces}, total[2] = {0, 0};
    MPI_Allreduce(counts, total, 2, MPI_LONG, MPI_SUM, comm);
    result.fluid_air_faces = total[0];
    result.fluid_rigid_faces = total[1];
    // Each coupled unknown is marked on the rank owning it; the rest count as uncoupled.
    std::vector<std::vector<PetscInt>> to(size);
    for (const PetscInt q : coupled) to[std::upper_bound(first.begin(), first.end() - 1, q) - first.begin() - 1].push_back(q);
    std::vector<char> any(first[rank + 1] - first[rank], 0);
    for (const PetscInt q : alltoall_vectors(comm, to))
      if (q < nv_membrane) any[q - first[rank]] = 1;
    long uncoupled = 0;
    for (PetscInt q = first[rank]; q < std::min(first[rank + 1], nv_membrane); ++q) uncoupled += any[q - first[rank]] == 0;
    MPI_Allreduce(&uncoupled, &result.uncoupled_components, 1, MPI_LONG, MPI_SUM, comm);
  }
  // The solution's velocity block where this rank reads it: its own rows, its ghosts' (from their
  // owners through the halo) and the bodies' (from the last rank).
  std::unordered_map<PetscInt, double> z;
  {
    Vec sub;
    const PetscScalar* vals;
    MEMBRANE_PETSC(VecGetSubVector(k.z, k.is[1], &sub));
    MEMBRANE_PETSC(VecGetArrayRead(sub, &vals));
    std::vector<double> zv(3 * nvert, 0.0), zr(kRd * nbody, 0.0);
    for (long i = 0; i < nown; ++i)
      for (int d = 0; d < 3; ++d)
        if (unknown[3 * i + d] >= 0) zv[3 * i + d] = vals[unknown[3 * i + d] - first[rank]];
    if (rank == size - 1)
      for (long b = 0; b < nbody; ++b)
        if (rigid[b] >= 0)
          for (int q = 0; q < kRd; ++q) zr[kRd * b + q] = vals[rigid[b] + q - first[rank]];
    MEMBRANE_PETSC(VecRestoreArrayRead(sub, &vals));
    MEMBRANE_PETSC(VecRestoreSubVector(k.z, k.is[1], &sub));
    update_ghosts(halo, zv.data(), 3, comm);
    MPI_Bcast(zr.data(), static_cast<int>(zr.size()), MPI_DOUBLE, size - 1, comm);
    for (long q = 0; q < 3 * nvert; ++q)
      if (unknown[q] >= 0) z[unknown[q]] = zv[q];
    for (long b = 0; b < nbody; ++b)
      if (rigid[b] >= 0)
        for (int q = 0; q < kRd; ++q) z[rigid[b] + q] = zr[kRd * b + q];
  }
  auto evaluate = [&](const LinearVelocity& l) {
    double u = l.known;
    for (const Term& t : l.terms) u += t.c * z.at(t.k);
    return u;
  };
  v_new.assign(3 * nvert, 0.0);
  for (long q = 0; q < 3 * nvert; ++q) v_new[q] = evaluate(vmap[q]);
  vr_new.assign(kRd * nbody, 0.0);
  for (long b = 0; b < nbody; ++b) {
    double known[kRd];
    r.bodies[b].velocity(known);
    // rotates: false locks omega exactly (J has no omega columns, so the solve returns omega* only to
    // its tolerance).
    for (int q = 0; q < kRd; ++q)
      vr_new[kRd * b + q] = rigid[b] >= 0 && (q < 3 || r.bodies[b].rotates) ? z.at(rigid[b] + q) : known[q];
  }
  store_pressure(k, grid_.field(), k3P);

  // New face velocities: u** - G p-hat / rho on all-fluid faces, the structure velocity on mixed
  // faces (Stage 8: W v on fluid-air faces, J_r v_r on fluid-rigid ones), zero elsewhere.
  std::vector<double> value(mixed_row.size(), 0.0);
  for (size_t q = 0; q < mixed_row.size(); ++q) value[q] = evaluate(mixed_row[q]);
  write_back_faces(grid_, rho, src_u, dst_u, k3P, mixed_node, mixed_axis, value);
  MEMBRANE_PETSC(VecDestroy(&bp));
  if (!keep_) blocks_.destroy();
  return result;
}

}  // namespace meniscus::membrane
