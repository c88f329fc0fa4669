#pragma once
// Turns a PETSc error code into a RuntimeError naming the call, so a failing solver setup surfaces
// as a simulation error (exit 1) instead of PETSc's default abort.
#include <petscsys.h>

#include <string>

#include "core/error.hpp"

namespace meniscus::solvers {

inline void petsc_check(PetscErrorCode code, const char* what) {
  if (code != 0) throw RuntimeError(std::string("PETSc call failed (") + what + "), error code " + std::to_string(int(code)));
}

}  // namespace meniscus::solvers
