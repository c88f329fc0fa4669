// solvers::BlockSsorCg (CG + symmetric block SOR with the product taken from the sweeps, Eisenstat
// 1981) against PETSc's KSPCG + PCSOR, which it stands in for: on a block-symmetric BAIJ matrix with
// non-symmetric 3 x 3 (2 x 2) off-diagonal blocks, the same iteration count and converged reason, the
// same solution to round-off, and the same breakdown (negative curvature) on an indefinite one. Runs
// at 1, 2 and 4 ranks (the preconditioner is block Jacobi across ranks in both, and the off-rank
// columns go through the ghost exchange).
#include <gtest/gtest.h>
#include <petscksp.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "solvers/block_ssor_cg.hpp"

namespace {

// A 27-point node stencil on an n^Dim grid (n^Dim block rows of size B): off-diagonal blocks
// A_ij = -w_ij (S + K_ij) with S symmetric positive definite and K_ij antisymmetric (so A_ji = A_ij^T,
// A_ij itself not symmetric), the diagonal blocks mass * I + sum_j w_ij S + shift * I.
// isolate_first_rank: no coupling between the first rank's rows and the others' (a rank without
// ghost columns, which must still take part in the ghost exchange).
template <int B>
Mat stencil_matrix(int n, double mass, double shift, bool isolate_first_rank) {
  const PetscInt rows = static_cast<PetscInt>(B == 3 ? n * n * n : n * n);
  Mat A;
  MatCreate(PETSC_COMM_WORLD, &A);
  MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, rows * B, rows * B);
  MatSetBlockSize(A, B);
  MatSetType(A, MATBAIJ);
  MatSeqBAIJSetPreallocation(A, B, 27, nullptr);
  MatMPIBAIJSetPreallocation(A, B, 27, nullptr, 26, nullptr);
  PetscInt first = 0, last = 0;
  MatGetOwnershipRange(A, &first, &last);
  const PetscInt* ranges = nullptr;
  MatGetOwnershipRanges(A, &ranges);
  const PetscInt cut = ranges[1] / B;
  const int dims = B == 3 ? 3 : 2;
  auto coords = [&](PetscInt i, int* c) {
    for (int d = 0; d < dims; ++d) {
      c[d] = static_cast<int>(i % n);
      i /= n;
    }
  };
  auto weight = [](PetscInt i, PetscInt j) {  // symmetric in (i, j), deterministic
    const PetscInt a = std::min(i, j), b = std::max(i, j);
    return 0.5 + 0.4 * std::sin(0.37 * static_cast<double>(a) + 0.91 * static_cast<double>(b));
  };
  for (PetscInt row = first / B; row < last / B; ++row) {
    int c[3] = {0, 0, 0};
    coords(row, c);
    std::vector<PetscInt> cols;
    std::vector<double> vals;
    double diag[B][B] = {};
    for (int a = 0; a < B; ++a) diag[a][a] = mass + shift;
    for (int dz = (dims == 3 ? -1 : 0); dz <= (dims == 3 ? 1 : 0); ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
          if (x < 0 || y < 0 || z < 0 || x >= n || y >= n || (dims == 3 && z >= n)) continue;
          if (dx == 0 && dy == 0 && dz == 0) continue;
          const PetscInt col = x + static_cast<PetscInt>(n) * (y + static_cast<PetscInt>(n) * z);
          if (isolate_first_rank && (row < cut) != (col < cut)) continue;
          const double w = weight(row, col);
          const double k = 0.1 * w * (row < col ? 1.0 : -1.0);  // antisymmetric part, transposed for j < i
          cols.push_back(col);
          for (int a = 0; a < B; ++a)
            for (int b = 0; b < B; ++b) {
              const double s = (a == b ? 2.0 : 0.5);
              const double anti = a < b ? k : (a > b ? -k : 0.0);
              vals.push_back(-w * (s + anti));
              diag[a][b] += w * s;
            }
        }
    cols.push_back(row);
    for (int a = 0; a < B; ++a)
      for (int b = 0; b < B; ++b) vals.push_back(diag[a][b]);
    // MatSetValuesBlocked takes the row's blocks side by side (row-oriented: B rows of count * B).
    const size_t count = cols.size();
    std::vector<double> packed(count * B * B);
    for (size_t e = 0; e < count; ++e)
      for (int a = 0; a < B; ++a)
        for (int b = 0; b < B; ++b) packed[a * count * B + e * B + b] = vals[e * B * B + a * B + b];
    MatSetValuesBlocked(A, 1, &row, static_cast<PetscInt>(count), cols.data(), packed.data(), INSERT_VALUES);
  }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

struct Solved {
  PetscInt iterations = 0;
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  Vec x = nullptr;
};

Solved petsc_cg_sor(Mat A, Vec b, double rtol, PetscInt maxits) {
  KSP ksp;
  KSPCreate(PETSC_COMM_WORLD, &ksp);
  KSPSetOperators(ksp, A, A);
  KSPSetType(ksp, KSPCG);
  PC pc;
  KSPGetPC(ksp, &pc);
  PCSetType(pc, PCSOR);
  KSPSetTolerances(ksp, rtol, 1e-300, 1e300, maxits);
  Solved s;
  VecDuplicate(b, &s.x);
  KSPSolve(ksp, b, s.x);
  KSPGetIterationNumber(ksp, &s.iterations);
  KSPGetConvergedReason(ksp, &s.reason);
  KSPDestroy(&ksp);
  return s;
}

Solved fused_cg_ssor(Mat A, Vec b, double rtol, PetscInt maxits) {
  meniscus::solvers::BlockSsorCg cg;
  Solved s;
  VecDuplicate(b, &s.x);
  const auto out = cg.solve(A, b, s.x, rtol, 1e-300, maxits);
  s.iterations = out.iterations;
  s.reason = out.reason;
  return s;
}

template <int B>
void compare(int n, double mass, double shift, bool definite, bool isolate_first_rank = false) {
  Mat A = stencil_matrix<B>(n, mass, shift, isolate_first_rank);
  Vec b;
  MatCreateVecs(A, nullptr, &b);
  {
    PetscInt first = 0, last = 0;
    VecGetOwnershipRange(b, &first, &last);
    for (PetscInt i = first; i < last; ++i) VecSetValue(b, i, std::cos(0.013 * static_cast<double>(i * i)), INSERT_VALUES);
    VecAssemblyBegin(b);
    VecAssemblyEnd(b);
  }
  const double rtol = 1e-8;
  Solved ref = petsc_cg_sor(A, b, rtol, 500), ours = fused_cg_ssor(A, b, rtol, 500);
  EXPECT_EQ(ours.iterations, ref.iterations);
  EXPECT_EQ(ours.reason, ref.reason);
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("block SSOR CG, B = %d: %d iterations, reason %d (PETSc KSPCG + PCSOR: %d, reason %d)\n", B,
                static_cast<int>(ours.iterations), static_cast<int>(ours.reason), static_cast<int>(ref.iterations),
                static_cast<int>(ref.reason));
  if (definite) {
    EXPECT_GT(ref.reason, 0);
    EXPECT_GT(ref.iterations, 5);  // a solve that iterates, not one answered by the preconditioner
    PetscReal diff = 0, size = 0;
    VecNorm(ref.x, NORM_2, &size);
    VecAXPY(ours.x, -1.0, ref.x);
    VecNorm(ours.x, NORM_2, &diff);
    EXPECT_LT(diff, 1e-10 * size) << "iterations " << ref.iterations;
  } else {
    EXPECT_LT(ref.reason, 0);
  }
  // Again with the same object: a second solve on the same matrix gives the same answer.
  meniscus::solvers::BlockSsorCg cg;
  Vec x1, x2;
  VecDuplicate(b, &x1);
  VecDuplicate(b, &x2);
  const auto o1 = cg.solve(A, b, x1, rtol, 1e-300, 500);
  const auto o2 = cg.solve(A, b, x2, rtol, 1e-300, 500);
  EXPECT_EQ(o1.iterations, o2.iterations);
  PetscBool same = PETSC_FALSE;
  VecEqual(x1, x2, &same);
  EXPECT_TRUE(same);
  for (Vec* v : {&b, &x1, &x2, &ref.x, &ours.x}) VecDestroy(v);
  MatDestroy(&A);
}

}  // namespace

TEST(BlockSsorCg, MatchesPetscCgWithSor3D) { compare<3>(12, 2.5, 0.0, true); }
TEST(BlockSsorCg, MatchesPetscCgWithSor2D) { compare<2>(30, 1.0, 0.0, true); }
TEST(BlockSsorCg, RankWithoutGhostColumnsTakesPartInTheExchange) { compare<3>(12, 2.5, 0.0, true, true); }
// A diagonal shifted below the stencil's largest eigenvalue: both stop on the same breakdown.
TEST(BlockSsorCg, StopsAsPetscDoesOnAnIndefiniteMatrix) { compare<3>(12, 0.05, -6.0, false); }
