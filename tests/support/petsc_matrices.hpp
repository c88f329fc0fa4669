#pragma once
// PETSc matrices as the membrane tests inspect them: a dense Eigen copy and the relative asymmetry
// |K - K^T|_F / |K|_F of an assembled (or nested) matrix.
#include <petscmat.h>

#include <Eigen/Dense>

namespace meniscus::test {

inline Eigen::MatrixXd dense(Mat a) {
  Mat d;
  MatConvert(a, MATDENSE, MAT_INITIAL_MATRIX, &d);
  PetscInt m, n;
  MatGetSize(d, &m, &n);
  Eigen::MatrixXd out(m, n);
  const PetscScalar* v;
  MatDenseGetArrayRead(d, &v);
  for (PetscInt j = 0; j < n; ++j)
    for (PetscInt i = 0; i < m; ++i) out(i, j) = v[i + j * m];  // column major
  MatDenseRestoreArrayRead(d, &v);
  MatDestroy(&d);
  return out;
}

// -1 when the conversion fails.
inline double relative_asymmetry(Mat k) {
  Mat kaij, kt;
  if (MatConvert(k, MATAIJ, MAT_INITIAL_MATRIX, &kaij) != 0) return -1;
  if (MatTranspose(kaij, MAT_INITIAL_MATRIX, &kt) != 0) return -1;
  PetscReal norm = 0, diff = 0;
  MatNorm(kaij, NORM_FROBENIUS, &norm);
  MatAXPY(kt, -1.0, kaij, DIFFERENT_NONZERO_PATTERN);
  MatNorm(kt, NORM_FROBENIUS, &diff);
  MatDestroy(&kt);
  MatDestroy(&kaij);
  return diff / norm;
}

}  // namespace meniscus::test
