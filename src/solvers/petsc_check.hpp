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
#include <new>
#include <string>

#include "core/error.hpp"
#include "core/log.hpp"

namespace meniscus::solvers {

// An allocation that failed inside PETSc (which reports it by an error code), thrown as a bad_alloc
// so that it ends the run the way a failed C++ or Kokkos allocation does: one line from the rank
// that failed, exit code 1 (the other ranks may be inside a collective call: no hang).
class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(std::string where) : what_(std::move(where)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

// The message of the first callback failure since the last check on this rank.
inline std::string& pending_callback_error() {
  static std::string message;
  return message;
}

inline void note_callback_failure(const std::string& where, const char* what) {
  if (pending_callback_error().empty()) pending_callback_error() = where + ": " + what;
}

// The error code, function and message where PETSc's latest error arose (the innermost frame),
// recorded by record_petsc_error. A failed allocation is known by the function: Debian's PETSc 3.18.5
// raises it in PetscMallocAlign with the caller's line number as the error code and the caller's
// name as the message (measured under `ulimit -v`: DMSetUp returned 1052, "VecScatterCreate").
struct PetscOrigin {
  PetscErrorCode code = 0;
  std::string function, message;
  bool out_of_memory() const {
    return code == PETSC_ERR_MEM || function.rfind("PetscMalloc", 0) == 0 || function.rfind("PetscTrMalloc", 0) == 0;
  }
};
inline PetscOrigin& petsc_origin() {
  static PetscOrigin origin;
  return origin;
}

// PETSc error handler (installed by Runtime): records the origin of an error, then hands over to
// PETSc's traceback handler, which prints the traceback unless printing is off.
inline PetscErrorCode record_petsc_error(MPI_Comm comm, int line, const char* fun, const char* file, PetscErrorCode n,
                                         PetscErrorType p, const char* mess, void* ctx) {
  if (p == PETSC_ERROR_INITIAL) {
    petsc_origin().code = n;
    petsc_origin().function = fun ? fun : "";
    petsc_origin().message = mess ? mess : "";
  }
  return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, ctx);
}

inline std::string petsc_error_text(PetscErrorCode code, const char* what) {
  const PetscOrigin origin = petsc_origin();
  petsc_origin() = PetscOrigin();
  if (origin.code != 0 && !origin.out_of_memory()) code = origin.code;
  // A failed allocation reads as the other out-of-memory failures do (see the app's bad_alloc path).
  if (code == PETSC_ERR_MEM || origin.out_of_memory())
    return std::string("out of memory in PETSc (") + what + "); coarsen the deck, use more nodes, or see `meniscus check`";
  std::string msg = std::string("PETSc call failed (") + what + "), error code " + std::to_string(int(code));
  const char* text = nullptr;
  if (PetscErrorMessage(code, &text, nullptr) == 0 && text) msg += std::string(" (") + text + ")";
  // PETSc's message at the origin, unless a callback's own message follows (it carries that one).
  if (!origin.message.empty() && pending_callback_error().empty()) msg += ": " + origin.message;
  if (!pending_callback_error().empty()) {
    msg += ": " + pending_callback_error();
    pending_callback_error().clear();
  }
  return msg;
}

inline void petsc_check(PetscErrorCode code, const char* what) {
  if (code == 0) return;
  const bool memory = code == PETSC_ERR_MEM || petsc_origin().out_of_memory();
  const std::string text = petsc_error_text(code, what);
  if (memory) throw OutOfMemory(std::string("PETSc, in ") + what);
  throw RuntimeError(text);
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
