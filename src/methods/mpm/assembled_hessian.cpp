#include "methods/mpm/assembled_hessian.hpp"

#include <algorithm>
#include <vector>

#include "solvers/petsc_check.hpp"
#include "solvers/vec_access.hpp"

namespace meniscus::mpm {

using solvers::petsc_check;

namespace {

template <int Dim>
KOKKOS_INLINE_FUNCTION bool inside(const grid::NodeBox<Dim>& box, const int* node) {
  for (int d = 0; d < Dim; ++d)
    if (node[d] < box.lo[d] || node[d] >= box.lo[d] + box.n[d]) return false;
  return true;
}

// The neighbour of `node` at slot s (offsets -2..2 per axis, axis 0 fastest).
template <int Dim>
KOKKOS_INLINE_FUNCTION void neighbour(const int* node, int s, int* out) {
  for (int d = 0; d < Dim; ++d) {
    out[d] = node[d] + s % HessianLayout<Dim>::Span - 2;
    s /= HessianLayout<Dim>::Span;
  }
}

// P of a node: 0 (held), I (free), I - n n^T (normal constraint).
template <int Dim>
KOKKOS_INLINE_FUNCTION void projection(int constraint, const Kokkos::View<double**, Kokkos::LayoutRight>& normal, long l,
                                       double (*P)[Dim]) {
  for (int a = 0; a < Dim; ++a)
    for (int b = 0; b < Dim; ++b) {
      if (constraint == static_cast<int>(NodeConstraint::Held)) {
        P[a][b] = 0;
      } else {
        P[a][b] = a == b ? 1.0 : 0.0;
        if (constraint == static_cast<int>(NodeConstraint::Normal)) P[a][b] -= normal(l, a) * normal(l, b);
      }
    }
}

// Coordinates of the owned nodes, one row per node. A free function because nvcc rejects device
// lambdas in constructors.
template <int Dim, class CoordinateView>
void fill_node_coordinates(const CoordinateView& c, const grid::NodeBox<Dim>& ob, const double* lower, double dx) {
  double lo[Dim];
  for (int d = 0; d < Dim; ++d) lo[d] = lower[d];
  const auto box = ob;
  Kokkos::parallel_for(
      "hessian::coordinates", Kokkos::RangePolicy<>(0, box.size()), KOKKOS_LAMBDA(const long i) {
        int node[Dim];
        box.node(i, node);
        for (int d = 0; d < Dim; ++d) c(i, d) = lo[d] + node[d] * dx;
      });
}

}  // namespace

template <int Dim>
AssembledHessian<Dim>::AssembledHessian(DM dm, const grid::NodeBox<Dim>& gbox, const grid::NodeBox<Dim>& obox,
                                        const double* lower, double dx, const char* options_prefix)
    : dm_(dm), gbox_(gbox), obox_(obox), prefix_(options_prefix) {
  // Rigid-body modes from the nodal coordinates: the near null space GAMG builds its coarse spaces
  // from (the Hessian of an elastic or fluid potential is blind to translations and, at rest, to
  // rotations; the inertia term lifts them by the node mass only).
  Vec coords;
  petsc_check(DMCreateGlobalVector(dm_, &coords), "DMCreateGlobalVector");
  {
    solvers::VecAccess acc(coords, Dim);
    fill_node_coordinates<Dim>(acc.view, obox_, lower, dx);
  }
  petsc_check(MatNullSpaceCreateRigidBody(coords, &rigid_), "MatNullSpaceCreateRigidBody");
  petsc_check(VecDestroy(&coords), "VecDestroy");
}

template <int Dim>
AssembledHessian<Dim>::~AssembledHessian() {
  if (mat_) solvers::petsc_check_noexcept(MatDestroy(&mat_), "MatDestroy");
  if (rigid_) solvers::petsc_check_noexcept(MatNullSpaceDestroy(&rigid_), "MatNullSpaceDestroy");
}

template <int Dim>
void AssembledHessian<Dim>::prepare(Kokkos::View<const int*> constraint, Kokkos::View<const double**, Kokkos::LayoutRight> normal) {
  const long ng = gbox_.size();
  if (static_cast<long>(constraint.extent(0)) != ng) throw RuntimeError("assembled Hessian: constraint size mismatch");
  int changed = 0;
  if (!mat_ || constraint_.extent(0) != constraint.extent(0)) {
    changed = 1;
  } else {
    auto old = constraint_;
    long diff = 0;
    Kokkos::parallel_reduce(
        "hessian::unknowns_changed", Kokkos::RangePolicy<>(0, ng),
        KOKKOS_LAMBDA(const long l, long& acc) {
          const bool was = old(l) != static_cast<int>(NodeConstraint::Held);
          const bool is = constraint(l) != static_cast<int>(NodeConstraint::Held);
          acc += was != is ? 1 : 0;
        },
        diff);
    changed = diff > 0 ? 1 : 0;
  }
  MPI_Comm comm;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(dm_), &comm), "PetscObjectGetComm");
  MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_MAX, comm);
  if (constraint_.extent(0) != constraint.extent(0)) {
    constraint_ = Kokkos::View<int*>("hessian_constraint", ng);
    normal_ = Kokkos::View<double**, Kokkos::LayoutRight>("hessian_normal", ng, Dim);
  }
  Kokkos::deep_copy(constraint_, constraint);
  Kokkos::deep_copy(normal_, normal);
  if (changed) {
    build_pattern();
    create_matrix();
    ++builds_;
  }
}

template <int Dim>
void AssembledHessian<Dim>::build_pattern() {
  constexpr int Slots = HessianLayout<Dim>::Slots;
  const long ng = gbox_.size();
  const auto box = gbox_;
  const auto c = constraint_;
  layout_.gbox = gbox_;
  layout_.row = Kokkos::View<int*>("hessian_row", ng);
  auto row = layout_.row;
  long nrows = 0;
  Kokkos::parallel_scan(
      "hessian::rows", Kokkos::RangePolicy<>(0, ng),
      KOKKOS_LAMBDA(const long l, long& upd, const bool final) {
        const bool unknown = c(l) != static_cast<int>(NodeConstraint::Held);
        if (final) row(l) = unknown ? static_cast<int>(upd) : -1;
        if (unknown) upd += 1;
      },
      nrows);
  rows_ = nrows;
  row_node_ = Kokkos::View<PetscInt*>("hessian_row_node", nrows);
  auto rn = row_node_;
  Kokkos::parallel_for(
      "hessian::row_nodes", Kokkos::RangePolicy<>(0, ng), KOKKOS_LAMBDA(const long l) {
        if (row(l) >= 0) rn(row(l)) = static_cast<PetscInt>(l);
      });
  // Entries per row: unknown neighbours within +-2 nodes inside the ghosted box.
  Kokkos::View<int*> count("hessian_row_count", nrows);
  Kokkos::parallel_for(
      "hessian::row_counts", Kokkos::RangePolicy<>(0, nrows), KOKKOS_LAMBDA(const long r) {
        int node[Dim], nb[Dim], n = 0;
        box.node(rn(r), node);
        for (int s = 0; s < Slots; ++s) {
          neighbour<Dim>(node, s, nb);
          if (inside<Dim>(box, nb) && row(box.index(nb)) >= 0) ++n;
        }
        count(r) = n;
      });
  layout_.row_start = Kokkos::View<int*>("hessian_row_start", nrows + 1);
  auto start = layout_.row_start;
  long nentries = 0;
  Kokkos::parallel_scan(
      "hessian::row_starts", Kokkos::RangePolicy<>(0, nrows + 1),
      KOKKOS_LAMBDA(const long r, long& upd, const bool final) {
        if (final) start(r) = static_cast<int>(upd);
        if (r < nrows) upd += count(r);
      },
      nentries);
  entries_ = nentries;
  layout_.slot = Kokkos::View<int**, Kokkos::LayoutRight>("hessian_slot", nrows, Slots);
  cols_ = Kokkos::View<PetscInt*>("hessian_cols", nentries);
  auto slot = layout_.slot;
  auto cols = cols_;
  Kokkos::parallel_for(
      "hessian::slots", Kokkos::RangePolicy<>(0, nrows), KOKKOS_LAMBDA(const long r) {
        int node[Dim], nb[Dim], e = start(r);
        box.node(rn(r), node);
        for (int s = 0; s < Slots; ++s) {
          neighbour<Dim>(node, s, nb);
          const long lj = inside<Dim>(box, nb) ? box.index(nb) : -1;
          if (lj >= 0 && row(lj) >= 0) {
            slot(r, s) = e;
            cols(e) = static_cast<PetscInt>(lj);
            ++e;
          } else {
            slot(r, s) = -1;
          }
        }
      });
}

template <int Dim>
void AssembledHessian<Dim>::create_matrix() {
  if (mat_) petsc_check(MatDestroy(&mat_), "MatDestroy");
  // COO pattern: the unknowns' blocks in the layout's order, then one identity block per owned held
  // node. Values are then handed over in that order in one MatSetValuesCOO per linearisation
  // (PETSc sums the ghost rows' shares on their owners).
  const long no = obox_.size();
  const auto gb = gbox_, ob = obox_;
  const auto row = layout_.row;
  Kokkos::View<long*> held_slot("hessian_held_slot", no);
  long nheld = 0;
  Kokkos::parallel_scan(
      "hessian::held_rows", Kokkos::RangePolicy<>(0, no),
      KOKKOS_LAMBDA(const long i, long& upd, const bool final) {
        int node[Dim];
        ob.node(i, node);
        const bool held = row(gb.index(node)) < 0;
        if (final) held_slot(i) = held ? upd : -1;
        if (held) upd += 1;
      },
      nheld);
  const long nblock = entries_ * Dim * Dim, ncoo = nblock + nheld * Dim;
  values_ = Kokkos::View<double*>("hessian_values", ncoo);
  blocks_ = Kokkos::subview(values_, Kokkos::make_pair(0L, nblock));
  scatter_ = Kokkos::Experimental::create_scatter_view(blocks_);
  Kokkos::View<PetscInt*> ci("hessian_coo_i", ncoo), cj("hessian_coo_j", ncoo);
  {
    const auto start = layout_.row_start;
    const auto rn = row_node_;
    const auto cols = cols_;
    Kokkos::parallel_for(
        "hessian::coo_blocks", Kokkos::RangePolicy<>(0, rows_), KOKKOS_LAMBDA(const long r) {
          const long first = start(r), count = start(r + 1) - first;
          for (long e = first; e < first + count; ++e)
            for (int a = 0; a < Dim; ++a)
              for (int b = 0; b < Dim; ++b) {
                const long pos = first * Dim * Dim + a * count * Dim + (e - first) * Dim + b;
                ci(pos) = rn(r) * Dim + a;
                cj(pos) = cols(e) * Dim + b;
              }
        });
    auto vals = values_;
    Kokkos::parallel_for(
        "hessian::coo_identity", Kokkos::RangePolicy<>(0, no), KOKKOS_LAMBDA(const long i) {
          if (held_slot(i) < 0) return;
          int node[Dim];
          ob.node(i, node);
          const long l = gb.index(node);
          for (int a = 0; a < Dim; ++a) {
            const long pos = nblock + held_slot(i) * Dim + a;
            ci(pos) = static_cast<PetscInt>(l * Dim + a);
            cj(pos) = static_cast<PetscInt>(l * Dim + a);
            vals(pos) = 1.0;  // never overwritten: assemble() refills only the blocks
          }
        });
  }
  // PETSc rewrites the index arrays: hand it copies.
  std::vector<PetscInt> hi(ncoo), hj(ncoo);
  {
    auto mi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ci);
    auto mj = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cj);
    std::copy(mi.data(), mi.data() + ncoo, hi.begin());
    std::copy(mj.data(), mj.data() + ncoo, hj.begin());
  }
  MPI_Comm comm;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(dm_), &comm), "PetscObjectGetComm");
  const PetscInt n = static_cast<PetscInt>(no * Dim);
  petsc_check(MatCreate(comm, &mat_), "MatCreate");
  petsc_check(MatSetSizes(mat_, n, n, PETSC_DETERMINE, PETSC_DETERMINE), "MatSetSizes");
  petsc_check(MatSetBlockSize(mat_, Dim), "MatSetBlockSize");
  petsc_check(MatSetType(mat_, MATAIJ), "MatSetType");
  petsc_check(MatSetOptionsPrefix(mat_, prefix_.c_str()), "MatSetOptionsPrefix");
  petsc_check(MatSetFromOptions(mat_), "MatSetFromOptions");
  ISLocalToGlobalMapping ltog;
  petsc_check(DMGetLocalToGlobalMapping(dm_, &ltog), "DMGetLocalToGlobalMapping");
  petsc_check(MatSetLocalToGlobalMapping(mat_, ltog, ltog), "MatSetLocalToGlobalMapping");
  petsc_check(MatSetPreallocationCOOLocal(mat_, static_cast<PetscCount>(ncoo), hi.data(), hj.data()),
              "MatSetPreallocationCOOLocal");
  petsc_check(MatSetOption(mat_, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
  petsc_check(MatSetOption(mat_, MAT_SYMMETRY_ETERNAL, PETSC_TRUE), "MatSetOption");
  petsc_check(MatSetNearNullSpace(mat_, rigid_), "MatSetNearNullSpace");
}

template <int Dim>
void AssembledHessian<Dim>::assemble(const IncrementalPotential<Dim>& potential, Kokkos::View<const double*> owned_mass) {
  Kokkos::deep_copy(blocks_, 0.0);
  scatter_.reset();
  potential.add_hessian_blocks(layout_, scatter_);
  Kokkos::Experimental::contribute(blocks_, scatter_);
  // Inertia on owned diagonal blocks, then P_i B P_j, then (I - P_i) on owned diagonal blocks (the
  // same P H P + (I - P) as the matrix-free product). A rank's partial sums for a ghost row are
  // projected with that node's own P, so their sum on the owner is the projected block.
  {
    const auto gb = gbox_, ob = obox_;
    const auto start = layout_.row_start;
    const auto rn = row_node_;
    const auto cols = cols_;
    const auto c = constraint_;
    const auto nrm = normal_;
    auto vals = values_;
    Kokkos::parallel_for(
        "hessian::nodes", Kokkos::RangePolicy<>(0, rows_), KOKKOS_LAMBDA(const long r) {
          const long li = rn(r);
          int node[Dim];
          gb.node(li, node);
          const bool owned = inside<Dim>(ob, node);
          double Pi[Dim][Dim];
          projection<Dim>(c(li), nrm, li, Pi);
          const long first = start(r), count = start(r + 1) - first;
          for (long e = first; e < first + count; ++e) {
            const long lj = cols(e);
            double B[Dim][Dim], Pj[Dim][Dim], T[Dim][Dim];
            for (int a = 0; a < Dim; ++a)
              for (int b = 0; b < Dim; ++b) B[a][b] = vals(first * Dim * Dim + a * count * Dim + (e - first) * Dim + b);
            const bool diagonal = owned && lj == li;
            if (diagonal)
              for (int a = 0; a < Dim; ++a) B[a][a] += owned_mass(ob.index(node));
            projection<Dim>(c(lj), nrm, lj, Pj);
            for (int a = 0; a < Dim; ++a)
              for (int b = 0; b < Dim; ++b) {
                double s = 0;
                for (int k = 0; k < Dim; ++k) s += B[a][k] * Pj[k][b];
                T[a][b] = s;
              }
            for (int a = 0; a < Dim; ++a)
              for (int b = 0; b < Dim; ++b) {
                double s = 0;
                for (int k = 0; k < Dim; ++k) s += Pi[a][k] * T[k][b];
                if (diagonal) s += (a == b ? 1.0 : 0.0) - Pi[a][b];
                vals(first * Dim * Dim + a * count * Dim + (e - first) * Dim + b) = s;
              }
          }
        });
  }
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values_);
  petsc_check(MatSetValuesCOO(mat_, hv.data(), INSERT_VALUES), "MatSetValuesCOO");
}

template class AssembledHessian<2>;
template class AssembledHessian<3>;

}  // namespace meniscus::mpm
