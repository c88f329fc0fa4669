// PETSc error discipline (src/solvers/petsc_check.hpp): an exception inside a MATSHELL callback comes
// back out of KSPSolve as an error carrying its message; a KSP's converged reason is reported by name
// and classified (capped at its iteration limit vs diverged). The SPH side (a diverged implicit solve
// rejects the step) is in test_sph_implicit_solve.cpp.
#include <gtest/gtest.h>
#include <petscsys.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "solvers/krylov_solver.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/shell_operator.hpp"

using namespace meniscus;

namespace {
// y = D x with D = diag(1, 2, ..., n): CG needs n iterations in exact arithmetic (n distinct eigenvalues).
void diagonal_product(solvers::HostConstArray x, solvers::HostArray y) {
  for (size_t i = 0; i < x.extent(0); ++i) y(i) = double(i + 1) * x(i);
}

struct System {
  solvers::ShellOperator op;
  Vec b = nullptr, x = nullptr;
  explicit System(solvers::ShellOperator::Apply apply, int n = 20) : op(MPI_COMM_SELF, n, std::move(apply)) {
    b = op.create_vector();
    x = op.create_vector();
    VecSet(b, 1.0);
    VecSet(x, 0.0);
  }
  ~System() {
    VecDestroy(&b);
    VecDestroy(&x);
  }
};
}  // namespace

TEST(PetscDiscipline, ShellCallbackErrorComesBackWithItsMessage) {
  System s([](solvers::HostConstArray, solvers::HostArray) {
    throw RuntimeError("neighbour list of particle 7 is stale");
  });
  solvers::KrylovSolver ksp(MPI_COMM_SELF, "test_fail_");
  solvers::KrylovDefaults def;
  std::string message;
  try {
    ksp.solve(s.op.mat(), s.b, s.x, def, false);
  } catch (const RuntimeError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("KSPSolve"), std::string::npos) << message;
  EXPECT_NE(message.find("shell operator product"), std::string::npos) << message;
  EXPECT_NE(message.find("neighbour list of particle 7 is stale"), std::string::npos) << message;
  // The message is consumed: the next, healthy solve of the same KSP is not blamed for it.
  System ok(diagonal_product);
  def.rtol = 1e-10;
  const auto r = ksp.solve(ok.op.mat(), ok.b, ok.x, def, false);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(solvers::pending_callback_error(), "");
}

TEST(PetscDiscipline, CappedAndDivergedSolvesAreReportedWithTheirReason) {
  System s(diagonal_product);
  solvers::KrylovSolver ksp(MPI_COMM_SELF, "test_cap_");
  solvers::KrylovDefaults def;
  def.rtol = 1e-12;
  def.max_iterations = 3;  // CG needs 20 on 20 distinct eigenvalues
  const auto capped = ksp.solve(s.op.mat(), s.b, s.x, def, false);
  EXPECT_EQ(capped.iterations, 3);
  EXPECT_FALSE(capped.converged);
  EXPECT_TRUE(capped.capped());
  EXPECT_FALSE(capped.diverged());
  EXPECT_EQ(capped.reason_name, "DIVERGED_ITS");
  EXPECT_NE(capped.describe().find("test_cap_"), std::string::npos) << capped.describe();

  // A product that returns NaN: PETSc stops with KSP_DIVERGED_NANORINF, which must not pass as capped.
  System nan([](solvers::HostConstArray x, solvers::HostArray y) {
    for (size_t i = 0; i < x.extent(0); ++i) y(i) = std::numeric_limits<double>::quiet_NaN();
  });
  def.max_iterations = 50;
  const auto bad = ksp.solve(nan.op.mat(), nan.b, nan.x, def, false);
  EXPECT_FALSE(bad.converged);
  EXPECT_TRUE(bad.diverged());
  EXPECT_EQ(bad.reason_name, "DIVERGED_NANORINF");
  EXPECT_NE(bad.describe().find("KSP test_cap_: DIVERGED_NANORINF"), std::string::npos) << bad.describe();
}
