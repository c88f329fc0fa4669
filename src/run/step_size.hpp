#pragma once
// The driver's step size near the end of a run.

namespace meniscus::run {

// The next step for a method whose stable step is `stable_dt` when `remaining` seconds are left. Never
// ends on a sliver: when between one and two stable steps remain, the rest is taken in two equal steps,
// so no step is shorter than half a stable step unless the whole remainder is. A sliver is harmless to
// grid methods but not to position-based ones, whose velocities are displacements over dt (an end time
// 3.3e-5 s past a whole number of PBD steps gave velocities of 400 m/s). The factor 1 + 1e-9 keeps an
// end time that is a whole number of steps, up to round-off in the accumulated time, at one last step.
inline double next_step_size(double stable_dt, double remaining) {
  if (remaining <= stable_dt * (1 + 1e-9)) return remaining;
  if (remaining < 2 * stable_dt) return 0.5 * remaining;
  return stable_dt;
}

}  // namespace meniscus::run
