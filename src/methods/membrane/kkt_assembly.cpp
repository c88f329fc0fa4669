#include "methods/membrane/kkt_assembly.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/mpi_gather.hpp"
#include "solvers/petsc_check.hpp"

#define MEMBRANE_PETSC(call) ::meniscus::solvers::petsc_check((call), #call)

namespace meniscus::membrane {

Mat create_kkt_aij(MPI_Comm comm, PetscInt mloc, PetscInt nloc, PetscInt m, PetscInt n, PetscInt per_row) {
  Mat a;
  MEMBRANE_PETSC(MatCreate(comm, &a));
  MEMBRANE_PETSC(MatSetSizes(a, mloc, nloc, m, n));
  MEMBRANE_PETSC(MatSetType(a, MATAIJ));
  MEMBRANE_PETSC(MatSeqAIJSetPreallocation(a, per_row, nullptr));
  MEMBRANE_PETSC(MatMPIAIJSetPreallocation(a, per_row, nullptr, per_row, nullptr));
  MEMBRANE_PETSC(MatSetOption(a, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  return a;
}

void add_mixed_face_coupling(Mat Bt, Vec bp, PetscInt rc, const LinearVelocity& row, double vol, double s_over_dx,
                             const std::vector<char>& held, VelocityEntries& held_bt) {
  for (const Term& t : row.terms) {
    const PetscScalar bt = -vol * s_over_dx * t.c;  // B^T = -V G^T Phi
    if (held[t.k])
      held_bt[{rc, t.k}] += bt;
    else
      MEMBRANE_PETSC(MatSetValues(Bt, 1, &rc, 1, &t.k, &bt, ADD_VALUES));
  }
  if (row.known != 0) {
    const PetscScalar kb = vol * s_over_dx * row.known;
    MEMBRANE_PETSC(VecSetValues(bp, 1, &rc, &kb, ADD_VALUES));
  }
}

std::vector<LinearVelocity> vertex_velocities(long nvert, int dim, const std::vector<PetscInt>& unknown,
                                              const std::function<int(long)>& contact,
                                              const std::function<LinearVelocity(long, int)>& slaved) {
  std::vector<LinearVelocity> vmap(static_cast<size_t>(dim) * nvert);
  for (long i = 0; i < nvert; ++i)
    for (int d = 0; d < dim; ++d) {
      const size_t q = static_cast<size_t>(dim) * i + d;
      if (unknown[q] >= 0)
        vmap[q].terms.push_back({unknown[q], 1.0});
      else if (contact(i) >= 0)
        vmap[q] = slaved(i, d);
    }
  return vmap;
}

LinearVelocity interpolated_velocity(const std::vector<std::pair<int, double>>& w_row,
                                     const std::vector<LinearVelocity>& vmap, int dim, int d) {
  LinearVelocity row;
  std::map<PetscInt, double> acc;
  for (auto& [vi, wi] : w_row) {
    const LinearVelocity& l = vmap[static_cast<size_t>(dim) * vi + d];
    for (const Term& t : l.terms) acc[t.k] += wi * t.c;
    row.known += wi * l.known;
  }
  for (auto& [k, c] : acc) row.terms.push_back({k, c});
  return row;
}

void add_face_mass(const LinearVelocity& row, double mass, double uf, VelocityEntries& c, std::vector<double>& bv) {
  for (const Term& t : row.terms) {
    bv[t.k] += -t.c * mass * (uf - row.known);
    for (const Term& q : row.terms) c[{t.k, q.k}] += t.c * mass * q.c;
  }
}

double add_edge_stiffness(const LinearVelocity& li, const LinearVelocity& lj, double vi, double vj, double w,
                          double dt, VelocityEntries& c) {
  std::map<PetscInt, double> diff;  // the row of (v_i - v_j) . e_d
  for (const Term& t : li.terms) diff[t.k] += t.c;
  for (const Term& t : lj.terms) diff[t.k] -= t.c;
  for (auto& [p, cp] : diff)
    for (auto& [q, cq] : diff) c[{p, q}] += w * dt * dt * cp * cq;
  return w * ((vi - li.known) - (vj - lj.known));
}

void add_vertex_rhs(const LinearVelocity& l, double value, std::vector<double>& bv) {
  for (const Term& t : l.terms) bv[t.k] += -t.c * value;
}

void add_vertex_inertia(const LinearVelocity& l, double mass, double rhs, VelocityEntries& c, std::vector<double>& bv) {
  for (const Term& t : l.terms)
    for (const Term& q : l.terms) c[{t.k, q.k}] += mass * t.c * q.c;
  add_vertex_rhs(l, rhs, bv);
}

void add_rigid_inertia(PetscInt first, int n, const double* mr, const double* v_start, VelocityEntries& c,
                       std::vector<double>& bv) {
  for (int i = 0; i < n; ++i) {
    double momentum = 0;
    for (int j = 0; j < n; ++j) {
      if (mr[n * i + j] != 0) c[{first + i, first + j}] += mr[n * i + j];
      momentum += mr[n * i + j] * v_start[j];
    }
    bv[first + i] += -momentum;
  }
}

std::vector<PetscInt> rows_by_owner(int size, const std::vector<int>& owner, int dim,
                                    const std::function<bool(long, int)>& is_free, std::vector<PetscInt>& unknown) {
  const long nvert = static_cast<long>(owner.size());
  std::vector<PetscInt> first(size + 1, 0);
  for (long i = 0; i < nvert; ++i)
    for (int d = 0; d < dim; ++d) first[owner[i] + 1] += is_free(i, d);
  for (int q = 0; q < size; ++q) first[q + 1] += first[q];
  unknown.assign(static_cast<size_t>(dim) * nvert, -1);
  std::vector<PetscInt> next(first.begin(), first.end() - 1);
  for (long i = 0; i < nvert; ++i)
    for (int d = 0; d < dim; ++d)
      if (is_free(i, d)) unknown[static_cast<size_t>(dim) * i + d] = next[owner[i]]++;
  return first;
}

void exchange_velocity_block(MPI_Comm comm, const std::vector<PetscInt>& first, const VelocityEntries& c_mine,
                             const std::vector<double>& bv_mine, VelocityEntries& c_local, std::vector<double>& bv_local) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // (row, col, value) triplets per owning rank; col -1 carries a right-hand-side entry.
  struct Entry {
    PetscInt row, col;
    double value;
  };
  auto owner = [&](PetscInt row) {
    return static_cast<int>(std::upper_bound(first.begin() + 1, first.end() - 1, row) - (first.begin() + 1));
  };
  std::vector<std::vector<Entry>> out(size);
  for (const auto& [ij, val] : c_mine) out[owner(ij.first)].push_back({ij.first, ij.second, val});
  for (PetscInt q = 0; q < static_cast<PetscInt>(bv_mine.size()); ++q)
    if (bv_mine[q] != 0) out[owner(q)].push_back({q, -1, bv_mine[q]});
  bv_local.assign(first[rank + 1] - first[rank], 0.0);
  for (const Entry& e : alltoall_vectors(comm, out)) {
    if (e.col < 0)
      bv_local[e.row - first[rank]] += e.value;
    else
      c_local[{e.row, e.col}] += e.value;
  }
}

void build_kkt_system(MPI_Comm comm, KktBlocks& k, Vec bp, const std::vector<PetscInt>& first,
                      const VelocityEntries& c_local, const std::vector<double>& bv_local,
                      const std::function<bool(PetscInt, PetscInt)>& keep) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const PetscInt nv = first[size], row0 = first[rank], nv_local = first[rank + 1] - row0;
  PetscInt np_local = 0, np = 0;
  MEMBRANE_PETSC(VecGetLocalSize(bp, &np_local));
  MEMBRANE_PETSC(VecGetSize(bp, &np));
  Vec bv;
  MEMBRANE_PETSC(VecCreateMPI(comm, nv_local, nv, &bv));
  MEMBRANE_PETSC(VecSet(bv, 0.0));
  // C with counted preallocation (diagonal and off-diagonal blocks of this rank's rows); a body's
  // rows are long (one entry per membrane component or body it touches), so they are counted, not
  // guessed.
  {
    std::vector<PetscInt> nnz(nv_local, 0), d_nnz(nv_local, 0), o_nnz(nv_local, 0);
    for (const auto& [ij, val] : c_local) {
      if (!keep(ij.first, ij.second)) continue;
      const PetscInt r = ij.first - row0;
      ++nnz[r];
      ++(ij.second >= row0 && ij.second < row0 + nv_local ? d_nnz[r] : o_nnz[r]);
    }
    MEMBRANE_PETSC(MatCreate(comm, &k.C));
    MEMBRANE_PETSC(MatSetSizes(k.C, nv_local, nv_local, nv, nv));
    MEMBRANE_PETSC(MatSetType(k.C, MATAIJ));
    MEMBRANE_PETSC(MatSeqAIJSetPreallocation(k.C, 0, nnz.data()));
    MEMBRANE_PETSC(MatMPIAIJSetPreallocation(k.C, 0, d_nnz.data(), 0, o_nnz.data()));
    for (const auto& [ij, val] : c_local) {
      if (!keep(ij.first, ij.second)) continue;
      const PetscInt ki = ij.first, kj = ij.second;
      const PetscScalar c = val;
      MEMBRANE_PETSC(MatSetValues(k.C, 1, &ki, 1, &kj, &c, ADD_VALUES));
    }
    for (PetscInt q = 0; q < nv_local; ++q)
      if (bv_local[q] != 0) {
        const PetscInt row = row0 + q;
        MEMBRANE_PETSC(VecSetValues(bv, 1, &row, &bv_local[q], ADD_VALUES));
      }
  }
  for (Mat mat : {k.A, k.Bt, k.C}) {
    MEMBRANE_PETSC(MatAssemblyBegin(mat, MAT_FINAL_ASSEMBLY));
    MEMBRANE_PETSC(MatAssemblyEnd(mat, MAT_FINAL_ASSEMBLY));
  }
  for (Vec vec : {bp, bv}) {
    MEMBRANE_PETSC(VecAssemblyBegin(vec));
    MEMBRANE_PETSC(VecAssemblyEnd(vec));
  }
  MEMBRANE_PETSC(MatTranspose(k.Bt, MAT_INITIAL_MATRIX, &k.B));
  MEMBRANE_PETSC(MatDuplicate(k.C, MAT_COPY_VALUES, &k.negC));
  MEMBRANE_PETSC(MatScale(k.negC, -1.0));

  // Preconditioner blocks: S^ = A + B^T diag(C)^-1 B (SPD when every fluid region meets the
  // membrane) and C itself.
  {
    Vec dinv;
    MEMBRANE_PETSC(MatCreateVecs(k.C, &dinv, nullptr));
    MEMBRANE_PETSC(MatGetDiagonal(k.C, dinv));
    MEMBRANE_PETSC(VecReciprocal(dinv));
    Mat bts;
    MEMBRANE_PETSC(MatDuplicate(k.Bt, MAT_COPY_VALUES, &bts));
    MEMBRANE_PETSC(MatDiagonalScale(bts, nullptr, dinv));
    MEMBRANE_PETSC(MatMatMult(bts, k.B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &k.S));
    MEMBRANE_PETSC(MatAXPY(k.S, 1.0, k.A, DIFFERENT_NONZERO_PATTERN));
    MEMBRANE_PETSC(MatDestroy(&bts));
    MEMBRANE_PETSC(VecDestroy(&dinv));
  }
  Mat kb[4] = {k.A, k.Bt, k.B, k.negC};
  MEMBRANE_PETSC(MatCreateNest(comm, 2, nullptr, 2, nullptr, kb, &k.K));
  Mat pb[4] = {k.S, nullptr, nullptr, k.C};
  MEMBRANE_PETSC(MatCreateNest(comm, 2, nullptr, 2, nullptr, pb, &k.P));
  IS rows[2];
  MEMBRANE_PETSC(MatNestGetISs(k.K, rows, nullptr));
  k.is[0] = rows[0];
  k.is[1] = rows[1];
  MEMBRANE_PETSC(VecCreateMPI(comm, np_local + nv_local, np + nv, &k.b));
  MEMBRANE_PETSC(VecDuplicate(k.b, &k.z));
  MEMBRANE_PETSC(VecSet(k.z, 0.0));
  {
    Vec sub;
    MEMBRANE_PETSC(VecGetSubVector(k.b, rows[0], &sub));
    MEMBRANE_PETSC(VecCopy(bp, sub));
    MEMBRANE_PETSC(VecRestoreSubVector(k.b, rows[0], &sub));
    MEMBRANE_PETSC(VecGetSubVector(k.b, rows[1], &sub));
    MEMBRANE_PETSC(VecCopy(bv, sub));
    MEMBRANE_PETSC(VecRestoreSubVector(k.b, rows[1], &sub));
  }
  MEMBRANE_PETSC(VecDestroy(&bv));
}

std::vector<double> velocity_block_on_all_ranks(KktBlocks& k, PetscInt nv) {
  std::vector<double> z(nv, 0.0);
  Vec sub, all;
  VecScatter sc;
  MEMBRANE_PETSC(VecGetSubVector(k.z, k.is[1], &sub));
  MEMBRANE_PETSC(VecScatterCreateToAll(sub, &sc, &all));
  MEMBRANE_PETSC(VecScatterBegin(sc, sub, all, INSERT_VALUES, SCATTER_FORWARD));
  MEMBRANE_PETSC(VecScatterEnd(sc, sub, all, INSERT_VALUES, SCATTER_FORWARD));
  const PetscScalar* vals;
  MEMBRANE_PETSC(VecGetArrayRead(all, &vals));
  for (PetscInt q = 0; q < nv; ++q) z[q] = vals[q];
  MEMBRANE_PETSC(VecRestoreArrayRead(all, &vals));
  MEMBRANE_PETSC(VecScatterDestroy(&sc));
  MEMBRANE_PETSC(VecDestroy(&all));
  MEMBRANE_PETSC(VecRestoreSubVector(k.z, k.is[1], &sub));
  return z;
}

template <int Dim>
void store_pressure(KktBlocks& k, grid::GridField<Dim>& field, int dof) {
  Vec sub;
  MEMBRANE_PETSC(VecGetSubVector(k.z, k.is[0], &sub));
  PetscInt np_local = 0;
  MEMBRANE_PETSC(VecGetLocalSize(sub, &np_local));
  const PetscScalar* vals;
  MEMBRANE_PETSC(VecGetArrayRead(sub, &vals));
  Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hp(vals, np_local);
  auto p = Kokkos::create_mirror_view_and_copy(grid::MemSpace(), hp);
  MEMBRANE_PETSC(VecRestoreArrayRead(sub, &vals));
  MEMBRANE_PETSC(VecRestoreSubVector(k.z, k.is[0], &sub));
  auto owned = field.acquire_owned();
  Kokkos::parallel_for(
      "membrane_store_pressure", np_local, KOKKOS_LAMBDA(const long n) { owned(n, dof) = p(n); });
  field.release_owned(owned);
  field.global_to_local();
}

namespace {
void write_mixed_faces(const grid::NodeArray& owned, int dof_base, const std::vector<long>& node,
                       const std::vector<int>& axis, const std::vector<double>& value) {
  const long nmixed = static_cast<long>(node.size());
  Kokkos::View<long*, grid::MemSpace> dn("mixed_node", nmixed);
  Kokkos::View<int*, grid::MemSpace> da("mixed_axis", nmixed);
  Kokkos::View<double*, grid::MemSpace> dv("mixed_velocity", nmixed);
  auto hn = Kokkos::create_mirror_view(dn);
  auto ha = Kokkos::create_mirror_view(da);
  auto hv = Kokkos::create_mirror_view(dv);
  for (long q = 0; q < nmixed; ++q) {
    hn(q) = node[q];
    ha(q) = axis[q];
    hv(q) = value[q];
  }
  Kokkos::deep_copy(dn, hn);
  Kokkos::deep_copy(da, ha);
  Kokkos::deep_copy(dv, hv);
  Kokkos::parallel_for(
      "membrane_mixed_faces", nmixed, KOKKOS_LAMBDA(const long q) { owned(dn(q), dof_base + da(q)) = dv(q); });
}
}  // namespace

template <int Dim>
void write_back_faces(MacGridT<Dim>& grid, double rho, int src_u, int dst_u, int p, const std::vector<long>& node,
                      const std::vector<int>& axis, const std::vector<double>& value) {
  auto local = grid.field().acquire_local(false);
  auto owned = grid.field().acquire_owned();
  project_fluid_faces(grid.geometry(), local, owned, rho, src_u, dst_u, p);
  write_mixed_faces(owned, dst_u, node, axis, value);
  grid.field().release_owned(owned);
  grid.field().release_local(local);
  grid.field().global_to_local();
}

template void write_back_faces<2>(MacGridT<2>&, double, int, int, int, const std::vector<long>&, const std::vector<int>&,
                                  const std::vector<double>&);
template void write_back_faces<3>(MacGridT<3>&, double, int, int, int, const std::vector<long>&, const std::vector<int>&,
                                  const std::vector<double>&);

template void store_pressure<2>(KktBlocks&, grid::GridField<2>&, int);
template void store_pressure<3>(KktBlocks&, grid::GridField<3>&, int);

bool HeldRows::any() const {
  return std::any_of(held.begin(), held.end(), [](char c) { return c != 0; });
}

void set_aside_held_rows(HeldRows& h, PetscInt row0, PetscInt nv_local, VelocityEntries& c_local,
                         std::vector<double>& bv_local, const std::vector<PetscInt>& rigid, int dofs,
                         const std::vector<double>& v_start, const std::function<double(long, int)>& mass) {
  h.rhs.assign(h.held.size(), 0.0);
  for (long b = 0; b < static_cast<long>(rigid.size()); ++b)
    for (int d = 0; d < dofs && rigid[b] >= 0; ++d) {
      const PetscInt q = rigid[b] + d;
      if (!h.held[q] || q < row0 || q >= row0 + nv_local) continue;
      const double m = mass(b, d);
      h.rhs[q] = bv_local[q - row0] + m * v_start[dofs * b + d];
      bv_local[q - row0] = 0.0;
      c_local[{q, q}] = m;
    }
}

std::vector<double> held_impulse(KktBlocks& k, const HeldRows& h, const VelocityEntries& c_local, PetscInt nv,
                                 MPI_Comm comm) {
  std::vector<double> impulse(nv, 0.0);
  Vec sub;
  PetscInt lo = 0, hi = 0;
  const PetscScalar* vals;
  MEMBRANE_PETSC(VecGetSubVector(k.z, k.is[0], &sub));
  MEMBRANE_PETSC(VecGetOwnershipRange(sub, &lo, &hi));
  MEMBRANE_PETSC(VecGetArrayRead(sub, &vals));
  for (const auto& [rq, val] : h.bt) {
    if (rq.first < lo || rq.first >= hi) throw RuntimeError("membrane held-body force: a pressure row off this rank");
    impulse[rq.second] += val * vals[rq.first - lo];  // (B^T)_{c,x} p-hat_c = B_{x,c} p-hat_c
  }
  MEMBRANE_PETSC(VecRestoreArrayRead(sub, &vals));
  MEMBRANE_PETSC(VecRestoreSubVector(k.z, k.is[0], &sub));
  // The velocities the held rows couple to (any rank's unknowns), gathered to this rank.
  std::vector<PetscInt> cols;
  for (const auto& [ij, val] : c_local)
    if (h.held[ij.first]) cols.push_back(ij.second);
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  std::vector<double> zc(cols.size(), 0.0);
  {
    Vec vel, loc;
    IS is;
    VecScatter sc;
    MEMBRANE_PETSC(VecGetSubVector(k.z, k.is[1], &vel));
    MEMBRANE_PETSC(VecCreateSeq(PETSC_COMM_SELF, static_cast<PetscInt>(cols.size()), &loc));
    MEMBRANE_PETSC(ISCreateGeneral(PETSC_COMM_SELF, static_cast<PetscInt>(cols.size()), cols.data(), PETSC_COPY_VALUES, &is));
    MEMBRANE_PETSC(VecScatterCreate(vel, is, loc, nullptr, &sc));
    MEMBRANE_PETSC(VecScatterBegin(sc, vel, loc, INSERT_VALUES, SCATTER_FORWARD));
    MEMBRANE_PETSC(VecScatterEnd(sc, vel, loc, INSERT_VALUES, SCATTER_FORWARD));
    MEMBRANE_PETSC(VecGetArrayRead(loc, &vals));
    for (size_t q = 0; q < cols.size(); ++q) zc[q] = vals[q];
    MEMBRANE_PETSC(VecRestoreArrayRead(loc, &vals));
    MEMBRANE_PETSC(VecScatterDestroy(&sc));
    MEMBRANE_PETSC(ISDestroy(&is));
    MEMBRANE_PETSC(VecDestroy(&loc));
    MEMBRANE_PETSC(VecRestoreSubVector(k.z, k.is[1], &vel));
  }
  auto z = [&](PetscInt j) { return zc[std::lower_bound(cols.begin(), cols.end(), j) - cols.begin()]; };
  for (const auto& [ij, val] : c_local)  // this rank's rows only
    if (h.held[ij.first]) impulse[ij.first] -= val * z(ij.second);
  for (PetscInt q = 0; q < nv; ++q)
    if (h.held[q]) impulse[q] -= h.rhs[q];
  MPI_Allreduce(MPI_IN_PLACE, impulse.data(), static_cast<int>(nv), MPI_DOUBLE, MPI_SUM, comm);
  return impulse;
}

}  // namespace meniscus::membrane
