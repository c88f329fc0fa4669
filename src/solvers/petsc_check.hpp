#pragma once
// PETSc error discipline. Every PETSc call is wrapped:
//   petsc_check(code, "what")       throws RuntimeError naming the call, PETSc's text for the code and,
//                                   when a callback failed inside the call, that callback's message;
//   petsc_check_noexcept(code, ...) the same as a warning, for destructors (which must not throw).
// Callbacks that PETSc calls (MATSHELL products, diagonals) never let an exception cross PETSc's C
// frames: they catch it, record its message with callback_failed() and raise a PETSc error carrying
// the message (so PETSc's own traceback shows it too), which the enclosing KSPSolve returns.
#include <petscsys.h>

#include <exception>
#include <string>

#include "core/error.hpp"
#include "core/log.hpp"

namespace meniscus::solvers {

// The message of the first callback failure since the last check on this rank.
inline std::string& pending_callback_error() {
  static std::string message;
  return message;
}

inline void note_callback_failure(const std::string& where, const char* what) {
  if (pending_callback_error().empty()) pending_callback_error() = where + ": " + what;
}

inline std::string petsc_error_text(PetscErrorCode code, const char* what) {
  std::string msg = std::string("PETSc call failed (") + what + "), error code " + std::to_string(int(code));
  const char* text = nullptr;
  if (PetscErrorMessage(code, &text, nullptr) == 0 && text) msg += std::string(" (") + text + ")";
  if (!pending_callback_error().empty()) {
    msg += ": " + pending_callback_error();
    pending_callback_error().clear();
  }
  return msg;
}

inline void petsc_check(PetscErrorCode code, const char* what) {
  if (code != 0) throw RuntimeError(petsc_error_text(code, what));
}

inline void petsc_check_noexcept(PetscErrorCode code, const char* what) noexcept {
  if (code == 0) return;
  try {
    log::warn("%s", petsc_error_text(code, what).c_str());
  } catch (...) {
  }
}

}  // namespace meniscus::solvers

// Inside a PETSc callback: records the exception's message and returns a PETSc error carrying it.
#define MENISCUS_PETSC_CALLBACK_FAILED(where, exc)                                                    \
  do {                                                                                                \
    ::meniscus::solvers::note_callback_failure(where, (exc).what());                                  \
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "%s: %s", where, (exc).what());                          \
  } while (0)
