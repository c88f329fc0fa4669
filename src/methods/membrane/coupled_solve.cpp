#include "methods/membrane/coupled_solve.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "methods/membrane/interpolation.hpp"
#include "methods/membrane/kkt_assembly.hpp"
#include "methods/membrane/kkt_solve.hpp"
#include "methods/membrane/polyline.hpp"
#include "solvers/petsc_check.hpp"

#define MEMBRANE_PETSC(call) ::meniscus::solvers::petsc_check((call), #call)

namespace meniscus::membrane {

void KktBlocks::destroy() {
  for (Mat* m : {&A, &Bt, &B, &C, &negC, &S, &K, &P})
    if (*m) solvers::petsc_check_noexcept(MatDestroy(m), "MatDestroy");
  if (b) solvers::petsc_check_noexcept(VecDestroy(&b), "VecDestroy");
  if (z) solvers::petsc_check_noexcept(VecDestroy(&z), "VecDestroy");
  is[0] = is[1] = nullptr;  // owned by K
}

CoupledSolver::CoupledSolver(MacGrid& grid, CoupledSolveOptions options) : grid_(grid), options_(std::move(options)) {}
CoupledSolver::~CoupledSolver() { blocks_.destroy(); }

CoupledSolveResult CoupledSolver::solve(const MembraneHost& m, double rho, double dt, int src_u, int dst_u,
                                        std::vector<double>& v_new) {
  std::vector<double> vr;
  return solve(m, RigidHost{}, rho, dt, src_u, dst_u, v_new, vr);
}

CoupledSolveResult CoupledSolver::solve(const MembraneHost& m, const RigidHost& r, double rho, double dt, int src_u,
                                        int dst_u, std::vector<double>& v_new, std::vector<double>& vr_new) {
  blocks_.destroy();
  MPI_Comm comm = grid_.comm();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const MacGeometry g = grid_.geometry();
  const double dx = g.dx, vol = dx * dx;
  DM dmp = grid_.pressure_dm();

  // Host copy of the ghosted grid state (an alias on host backends).
  auto dev = grid_.field().acquire_local(false);
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dev);
  grid_.field().release_local(dev);

  // Unknowns of the velocity block: free membrane components (a wall vertex keeps its wall-normal
  // component at zero; a contact vertex has none), numbered by the rank owning the vertex's cell
  // (cell_owner, as the owned layout of membrane_ownership.hpp places vertices), then three per free
  // body when bodies are unknown, on the last rank.
  int size = 1;
  MPI_Comm_size(comm, &size);
  const long nvert = m.vertices();
  const bool has_contact = !m.body.empty();
  auto contact_body = [&](long i) { return has_contact ? m.body[i] : -1; };
  std::vector<int> owner(nvert);
  for (long i = 0; i < nvert; ++i) owner[i] = cell_owner(grid_.decomposition(), &m.xy[2 * i]);
  std::vector<PetscInt> unknown;
  std::vector<PetscInt> first = rows_by_owner(
      size, owner, 2,
      [&](long i, int d) {
        const bool fixed = (m.kind[i] == kWallX && d == 0) || (m.kind[i] == kWallY && d == 1);
        return !fixed && contact_body(i) < 0;
      },
      unknown);
  const PetscInt nv_membrane = first[size];
  PetscInt nv = nv_membrane;
  const long nbody = static_cast<long>(r.bodies.size());
  std::vector<PetscInt> rigid(nbody, -1);  // first of the body's three unknowns
  for (long b = 0; b < nbody; ++b)
    if (r.unknowns && !r.bodies[b].fixed && r.bodies[b].root < 0) {  // a link shares its root's unknowns
      rigid[b] = nv;
      nv += 3;
    }
  // A body held along an axis (or at its angle): kkt_assembly.hpp, HeldRows.
  HeldRows held;
  held.held.assign(nv, 0);
  for (long b = 0; b < nbody; ++b)
    if (rigid[b] >= 0) {
      held.held[rigid[b]] = r.bodies[b].held_x;
      held.held[rigid[b] + 1] = r.bodies[b].held_y;
      held.held[rigid[b] + 2] = r.bodies[b].held_rotation && r.bodies[b].rotates;
    }
  blocks_.membrane_unknowns = nv_membrane;
  blocks_.rigid_unknowns = nv - nv_membrane;
  first[size] = nv;
  const PetscInt row0 = first[rank], nv_local = first[rank + 1] - row0;
  const int rigid_rank = size - 1;  // owns the bodies' rows
  std::vector<int> coupled(nv, 0);  // free components that appear in some W row on this rank

  auto body_velocity = [&](long b, int d, const double* x) {  // a link: its root's unknowns plus its stroke
    return body_point_velocity(r.bodies, rigid, b, d, x);
  };
  // A contact vertex moves with its prescribed v_contact where the caller gives one (the first solve's
  // projection velocities, Ruan 2021 Eq. 30), else with its body (§5.3, step 7: "the velocities of
  // contact particles are enforced by the corresponding rigid body's velocity"): J_i v_r on a free
  // body's unknowns, J_root v_root plus the stroke velocity on a link, the known velocity of a fixed
  // (kinematic) body. Left at rest, a contact vertex of a moving link or kinematic body would lag
  // behind it in the next advection.
  const std::vector<LinearVelocity> vmap = vertex_velocities(nvert, 2, unknown, contact_body, [&](long i, int d) {
    const int b = contact_body(i);
    if (b < nbody && m.v_contact.empty()) return body_velocity(b, d, &m.xy[2 * i]);
    LinearVelocity l;
    l.known = m.v_contact.empty() ? 0.0 : m.v_contact[2 * i + d];
    return l;
  });

  ISLocalToGlobalMapping ltog;
  MEMBRANE_PETSC(DMGetLocalToGlobalMapping(dmp, &ltog));
  auto global_cell = [&](int i, int j) {
    PetscInt l = static_cast<PetscInt>(g.local(i, j)), out = -1;
    MEMBRANE_PETSC(ISLocalToGlobalMappingApply(ltog, 1, &l, &out));
    return out;
  };
  Vec bp;
  MEMBRANE_PETSC(DMCreateGlobalVector(dmp, &bp));
  PetscInt np_local = 0, np = 0;
  MEMBRANE_PETSC(VecGetLocalSize(bp, &np_local));
  MEMBRANE_PETSC(VecGetSize(bp, &np));

  KktBlocks& k = blocks_;
  MEMBRANE_PETSC(DMCreateMatrix(dmp, &k.A));
  MEMBRANE_PETSC(MatSetOption(k.A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  k.Bt = create_kkt_aij(comm, np_local, nv_local, np, nv, 24);
  MEMBRANE_PETSC(VecSet(bp, 0.0));

  SegmentIndex index(m.xy, m.seg, g.lower[0], g.lower[1], dx, g.cells[0], g.cells[1]);

  // Owned mixed faces (fluid-air and fluid-rigid) and their velocity rows, for the write-back.
  std::vector<long> mixed_node;
  std::vector<int> mixed_axis;
  std::vector<LinearVelocity> mixed_row;
  long rigid_faces = 0;

  const int i0 = g.owned.lo[0], j0 = g.owned.lo[1];
  // A: one row per owned node; identity where there is no fluid cell (p-hat = 0 there).
  for (int j = j0; j < j0 + g.owned.n[1]; ++j)
    for (int i = i0; i < i0 + g.owned.n[0]; ++i) {
      const PetscInt row = static_cast<PetscInt>(g.local(i, j));
      if (g.cell_type(a, i, j) != kFluid) {
        const PetscScalar one = 1.0;
        MEMBRANE_PETSC(MatSetValuesLocal(k.A, 1, &row, 1, &row, &one, ADD_VALUES));
        continue;
      }
      const int nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
      for (auto& n : nb)
        if (g.cell_type(a, n[0], n[1]) == kFluid) {
          // (V/rho) G^T G over the all-fluid face to this neighbour: V/(rho dx^2) = 1/rho in 2D.
          const PetscInt col = static_cast<PetscInt>(g.local(n[0], n[1]));
          const PetscScalar diag = 1.0 / rho, off = -1.0 / rho;
          MEMBRANE_PETSC(MatSetValuesLocal(k.A, 1, &row, 1, &row, &diag, ADD_VALUES));
          MEMBRANE_PETSC(MatSetValuesLocal(k.A, 1, &row, 1, &col, &off, ADD_VALUES));
        }
    }

  // Faces. Every rank adds to its own pressure rows only, visiting also the faces on the high side
  // of its box (stored at the neighbours' nodes, read from the ghosts), and sends its velocity-row
  // contributions to the rows' owners in rank order below: PETSc would add values sent to another
  // rank's rows in message arrival order, so that runs with 3 or more ranks would differ in the
  // last bits.
  auto owned_cell = [&](int i, int j) {
    return i >= i0 && i < i0 + g.owned.n[0] && j >= j0 && j < j0 + g.owned.n[1] && i < g.cells[0] && j < g.cells[1];
  };
  std::vector<double> bv_mine(nv, 0.0);       // this rank's part of b_v
  VelocityEntries c_mine;                    // and of C
  for (int j = j0; j <= j0 + g.owned.n[1]; ++j)
    for (int i = i0; i <= i0 + g.owned.n[0]; ++i) {
      if (!g.in_ghost(i, j)) continue;
      const bool face_owned = i < i0 + g.owned.n[0] && j < j0 + g.owned.n[1];
      for (int d = 0; d < 2; ++d) {
        const int type = g.face_type(a, d, i, j);
        if (type != kAllFluid && type != kFluidAir && type != kFluidRigid) continue;
        const int ia = d == 0 ? i - 1 : i, ja = d == 0 ? j : j - 1;  // low-side cell a; high side b = (i, j)
        if (!face_owned && !owned_cell(ia, ja)) continue;
        const double uf = a(g.local(i, j), src_u + d);
        if (type == kAllFluid) {
          // b_p = V G^T P_F u**, with (G^T u)_a = -u/dx, (G^T u)_b = +u/dx.
          const PetscScalar va = -vol / dx * uf, vb = vol / dx * uf;
          if (owned_cell(ia, ja)) {
            const PetscInt ra = global_cell(ia, ja);
            MEMBRANE_PETSC(VecSetValues(bp, 1, &ra, &va, ADD_VALUES));
          }
          if (owned_cell(i, j)) {
            const PetscInt rb = global_cell(i, j);
            MEMBRANE_PETSC(VecSetValues(bp, 1, &rb, &vb, ADD_VALUES));
          }
          continue;
        }
        const bool a_fluid = g.cell_type(a, ia, ja) == kFluid;
        const int ic = a_fluid ? ia : i, jc = a_fluid ? ja : j;
        const int io = a_fluid ? i : ia, jo = a_fluid ? j : ja;  // the other (air or solid) cell
        const bool row_mine = owned_cell(ic, jc);
        if (!face_owned && !row_mine) continue;
        const double s = a_fluid ? -1.0 : 1.0;  // dx G_{f,c}
        double centre[2];
        g.face_centre(d, i, j, centre);
        // The face velocity as a function of the unknowns (Phi_F v_F + Phi_r v_r + known).
        LinearVelocity row;
        double alpha = 0.5;
        if (type == kFluidAir) {
          // Ghost-fluid fraction of the dual cell (Ruan 2021 §4.3 mass M), clamped below as small
          // fractions make M vanish.
          alpha = fluid_fraction(a(g.local(ic, jc), kPhi), a(g.local(io, jo), kPhi));
          double support[2] = {0.5 * dx, 0.5 * dx};
          support[d] *= options_.w_normal_extent;
          row = interpolated_velocity(interpolation_row(index, centre, support), vmap, 2, d);
        } else {
          // Fluid-rigid face (Ruan 2021 Eq. 26): the velocity of the covering body at the face.
          double co[2], cf[2];
          g.cell_centre(io, jo, co);
          g.cell_centre(ic, jc, cf);
          const int b = covering_body(r.bodies, co, cf, alpha);
          if (b < 0) continue;  // a SOLID cell without a body: not produced by classify_cells
          row = body_velocity(b, d, centre);
          if (face_owned) ++rigid_faces;
        }
        alpha = std::clamp(alpha, 0.05, 1.0);
        const double mass = rho * alpha * vol;
        if (row_mine) add_mixed_face_coupling(k.Bt, bp, global_cell(ic, jc), row, vol, s / dx, held.held, held.bt);
        if (!face_owned) continue;
        mixed_node.push_back(static_cast<long>((i - i0) + (j - j0) * g.owned.n[0]));
        mixed_axis.push_back(d);
        for (const Term& t : row.terms)
          if (type == kFluidAir && t.k < nv_membrane) coupled[t.k] = 1;
        add_face_mass(row, mass, uf, c_mine, bv_mine);
        mixed_row.push_back(std::move(row));
      }
    }
  // Membrane and body inertia and the capillary terms, each vertex term by the rank owning the
  // vertex, each segment's stiffness by the owner of its first end, the bodies' inertia by the rank
  // owning their rows; every entry then goes to its row's owner. Each vertex term is mapped through
  // its linear velocity, so that a contact vertex's mass, capillary force f_c and stiffness K_c
  // reach its body as J_i^T (...) J_i: the adhesion force f_a and its stiffnesses K_{a,s}, K_{a,r},
  // K_{c,r} of Ruan 2021 Eqs. 20-22 (and C stays symmetric because K_{c,r} = K_{a,s}^T comes out of
  // the same product).
  {
    // K_c (v^n - v_known) over the segments kept, summed on every rank (the membrane is replicated)
    // in segment order, so that a vertex's value does not depend on which rank owns its segments.
    std::vector<double> kv(2 * nvert, 0.0);
    VelocityEntries unused;
    for (long e = 0; e < m.segments(); ++e) {
      const int vi = m.seg[2 * e], vj = m.seg[2 * e + 1];
      const double w = m.weight[e];
      if (w == 0) continue;
      // Segments with both ends on the same body are inside the contact region: their forces cancel
      // on the body and the paper assembles K_{a,r} from mixed elements only (Eq. 22).
      if (contact_body(vi) >= 0 && contact_body(vi) == contact_body(vj)) continue;
      // Without adhesion a contact end is anchored for the step (no K_{a,s}, K_{c,r}, K_{a,r}).
      const bool anchor_i = !m.adhesion && contact_body(vi) >= 0, anchor_j = !m.adhesion && contact_body(vj) >= 0;
      VelocityEntries& c_edge = owner[vi] == rank ? c_mine : unused;
      for (int d = 0; d < 2; ++d) {
        const LinearVelocity ai = anchored_velocity(m.v[2 * vi + d]), aj = anchored_velocity(m.v[2 * vj + d]);
        const double kvd = add_edge_stiffness(anchor_i ? ai : vmap[2 * vi + d], anchor_j ? aj : vmap[2 * vj + d],
                                              m.v[2 * vi + d], m.v[2 * vj + d], w, dt, c_edge);
        kv[2 * vi + d] += kvd;
        kv[2 * vj + d] -= kvd;
      }
      unused.clear();
    }
    for (long vi = 0; vi < nvert; ++vi) {
      if (owner[vi] != rank) continue;
      for (int d = 0; d < 2; ++d) {
        const LinearVelocity& l = vmap[2 * vi + d];
        if (l.terms.empty()) continue;
        const double mass = m.mass[vi];
        // -(M_s (v^n - v_known) + dt (f_c + dt K_c v^n)): Eq. 17 linearised about x^{n+1}; without
        // adhesion a contact vertex brings its body its mass only (f_a = 0).
        const double pull = !m.adhesion && contact_body(vi) >= 0 ? 0.0 : m.force[2 * vi + d] + dt * kv[2 * vi + d];
        const double rhs = mass * (m.v[2 * vi + d] - l.known) + dt * pull;
        add_vertex_inertia(l, mass, rhs, c_mine, bv_mine);
      }
    }
    // Body inertia M_r = diag(m, m, I) (with the links a root carries) and its momentum M_r v_r*
    // (Eq. 27; gravity and the links' stroke acceleration are in v_r*).
    if (rank == rigid_rank)
      for (long b = 0; b < nbody; ++b) {
        if (rigid[b] < 0) continue;
        double mr[3], dense[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        composite_inertia(r.bodies, static_cast<size_t>(b), mr);
        for (int q = 0; q < 3; ++q) dense[4 * q] = mr[q];
        add_rigid_inertia(rigid[b], 3, dense, &r.v_start[3 * b], c_mine, bv_mine);
      }
  }
  VelocityEntries c_local;
  std::vector<double> bv_local;
  exchange_velocity_block(comm, first, c_mine, bv_mine, c_local, bv_local);
  set_aside_held_rows(held, row0, nv_local, c_local, bv_local, rigid, 3, r.v_start, [&](long b, int d) {
    double mr[3];
    composite_inertia(r.bodies, static_cast<size_t>(b), mr);
    return mr[d];
  });
  build_kkt_system(comm, k, bp, first, c_local, bv_local,
                   [&](PetscInt i, PetscInt j) { return held.keep(i, j); });

  // Solve (the mode from the deck or -<prefix>solver_mode, kkt_solve.hpp).
  const KktSolveStats stats = solve_kkt(k, options_, comm);
  const PetscInt its = stats.iterations;
  const int reason = stats.reason;

  CoupledSolveResult result;
  result.iterations = static_cast<int>(its);
  result.reason = static_cast<int>(reason);
  result.unknowns = static_cast<long>(np + nv);
  {
    long counts[2] = {static_cast<long>(mixed_node.size()) - rigid_faces, rigid_faces}, total[2] = {0, 0};
    MPI_Allreduce(counts, total, 2, MPI_LONG, MPI_SUM, comm);
    result.fluid_air_faces = total[0];
    result.fluid_rigid_faces = total[1];
    std::vector<int> any(nv, 0);
    MPI_Allreduce(coupled.data(), any.data(), static_cast<int>(nv), MPI_INT, MPI_MAX, comm);
    for (PetscInt q = 0; q < nv_membrane; ++q) result.uncoupled_components += any[q] == 0;
  }

  // The velocity block to every rank; membrane and body velocities from their linear maps.
  const std::vector<double> z = velocity_block_on_all_ranks(k, nv);
  auto evaluate = [&](const LinearVelocity& l) {
    double u = l.known;
    for (const Term& t : l.terms) u += t.c * z[t.k];
    return u;
  };
  // Held axes: J_x = B_x p-hat - C'_x z - b'_x, C' and b' without the body's own inertia (its row
  // of Eq. 28: M_r (v_r - v_r*) = J_x + reaction, with v_x = v_r*_x = 0; likewise along y, where
  // J_y / dt is the liquid's vertical force without the weight). B_x p-hat is summed over
  // each rank's own pressure rows, the C and b parts by the owner of the bodies' rows.
  result.held_force.assign(2 * nbody, 0.0);
  result.held_torque.assign(nbody, 0.0);
  if (held.any()) {
    const std::vector<double> impulse = held_impulse(k, held, c_local, nv, comm);
    for (long b = 0; b < nbody; ++b)
      for (int d = 0; d < 2 && rigid[b] >= 0; ++d)
        if (held.held[rigid[b] + d]) result.held_force[2 * b + d] = impulse[rigid[b] + d] / dt;
    for (long b = 0; b < nbody; ++b)
      if (rigid[b] >= 0 && held.held[rigid[b] + 2]) result.held_torque[b] = impulse[rigid[b] + 2] / dt;
  }
  v_new.assign(2 * nvert, 0.0);
  for (long q = 0; q < 2 * nvert; ++q) v_new[q] = evaluate(vmap[q]);
  vr_new.assign(3 * nbody, 0.0);
  for (long b = 0; b < nbody; ++b) {
    const Disc& body = r.bodies[b];
    const double known[3] = {body.v[0], body.v[1], body.omega};
    for (int q = 0; q < 3; ++q) vr_new[3 * b + q] = rigid[b] >= 0 ? z[rigid[b] + q] : known[q];
  }
  // p-hat into dof kP of the owned nodes, then ghosts.
  store_pressure(k, grid_.field(), kP);
  // New face velocities: u** - G p-hat / rho on all-fluid faces; mixed faces take the structure
  // velocity (Stage 8): W v on fluid-air faces, J_r v_r on fluid-rigid ones, both already in the
  // faces' linear maps; zero elsewhere.
  std::vector<double> value(mixed_row.size());
  for (size_t q = 0; q < mixed_row.size(); ++q) value[q] = evaluate(mixed_row[q]);
  write_back_faces(grid_, rho, src_u, dst_u, kP, mixed_node, mixed_axis, value);
  MEMBRANE_PETSC(VecDestroy(&bp));
  if (!keep_) blocks_.destroy();
  return result;
}

}  // namespace meniscus::membrane
