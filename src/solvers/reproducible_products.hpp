#pragma once
// Reproducible algebraic multigrid on 3+ ranks. GAMG builds each coarse operator as a Galerkin
// product P^T A P (MatPtAP). PETSc's default algorithm for parallel AIJ matrices ("scalable", PETSc
// 3.18) computes the rows that belong to other ranks locally and sends them to their owners, which add
// them in the order the messages arrive. Where a coarse row has partial sums from two or more other
// ranks, that order, and so the last bits of the coarse operator, change from run to run: two identical
// 4-rank runs of the 2D candle's implicit solve, the heat solve with GAMG and the membrane's KKT solve
// (GAMG on the pressure block) differed from the first steps on. The "allatonce" algorithm sums through
// a PetscSF in a fixed order, and identical runs then agree bit for bit.
//
// PETSc takes the algorithm only from the global options database (-matptap_via, read when GAMG
// creates a product; no solver prefix reaches it), and the sequential product has no "allatonce" (it
// is an error there). So the option is set for the lifetime of this object, around a solve's set-up
// and solve, only on 3+ ranks (at 2 ranks a row has at most one remote partial sum and arrival order
// cannot matter, so 1- and 2-rank results stay as they were) and only where the database does not
// name -matptap_via itself (a user's choice is left alone). Solves without GAMG do no such product and
// are not affected.
#include <mpi.h>

namespace meniscus::solvers {

class ReproducibleGalerkinProducts {
 public:
  explicit ReproducibleGalerkinProducts(MPI_Comm comm);
  ~ReproducibleGalerkinProducts();
  ReproducibleGalerkinProducts(const ReproducibleGalerkinProducts&) = delete;
  ReproducibleGalerkinProducts& operator=(const ReproducibleGalerkinProducts&) = delete;
  // True while this object holds -matptap_via allatonce in the options database.
  bool active() const { return set_; }

 private:
  bool set_ = false;
};

}  // namespace meniscus::solvers
