#pragma once
// A method that finds its own state unstable (a non-finite velocity, a blow-up) throws
// UnstableRun instead of a plain RuntimeError. It must be thrown collectively (every rank, after an
// agreement), because the time loop answers it with collective work: a last diagnostics row and a
// checkpoint of the failing state (DIR/unstable/) before it stops with exit code 1.
#include "core/error.hpp"

namespace meniscus {

class UnstableRun : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

}  // namespace meniscus
