#pragma once
// Something that watches the time loop (it lives beside Method so that io/ can implement it): output writers, checkpoints, in-situ pipelines. The
// Simulation calls every observer after each accepted step and once at the start and the end;
// each decides from its own deck section whether this step concerns it. Calls are collective.
#include "methods/method.hpp"

namespace meniscus {

struct StepInfo {
  long step = 0;       // steps completed
  double time = 0;     // simulated time after the step [s]
  double dt = 0;       // the step's size [s]
  double wall_s = 0;   // wall time since the run started [s]
  bool last = false;   // the run ends after this step
  int stop_signal = 0; // a stop was requested (SIGUSR1/SIGTERM): the run ends after this step
};

class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void begin(Method& method, const StepInfo& info) { (void)method; (void)info; }
  virtual void after_step(Method& method, const StepInfo& info) = 0;
  virtual void end(Method& method, const StepInfo& info) { (void)method; (void)info; }
};

}  // namespace meniscus
