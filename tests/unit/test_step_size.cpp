// The driver's step size near the end of a run (run/step_size.hpp): no sliver steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "run/step_size.hpp"

using meniscus::run::next_step_size;

namespace {
// The steps the driver takes from 0 to end_time with a constant stable step.
std::vector<double> steps_to(double end_time, double stable_dt) {
  std::vector<double> dts;
  double t = 0;
  while (t < end_time * (1 - 1e-12)) {
    dts.push_back(next_step_size(stable_dt, end_time - t));
    t += dts.back();
  }
  return dts;
}
}  // namespace

// An end time just past a whole number of steps: the last two steps share the remainder (the old rule
// ended on a 1e-3 s sliver here), and the steps still add up to the end time.
TEST(StepSize, EndsWithoutASliver) {
  const double dt = 1.0 / 30, end = 2 * dt + 1e-3;
  const auto dts = steps_to(end, dt);
  ASSERT_EQ(dts.size(), 3u);
  EXPECT_DOUBLE_EQ(dts[0], dt);
  EXPECT_DOUBLE_EQ(dts[1], 0.5 * (dt + 1e-3));
  EXPECT_DOUBLE_EQ(dts[2], 0.5 * (dt + 1e-3));
  double sum = 0;
  for (double s : dts) sum += s;
  EXPECT_NEAR(sum, end, 1e-15);
}

// Every step lies in [stable/2, stable] (unless the whole run is shorter than that) over many end times,
// and a whole number of steps is kept as it is despite the round-off in the accumulated time.
TEST(StepSize, NoStepShorterThanHalfTheStableStep) {
  const double dt = 0.0333333333333;
  for (int k = 1; k <= 400; ++k) {
    const double end = 0.01 * k;
    const auto dts = steps_to(end, dt);
    for (double s : dts) {
      EXPECT_LE(s, dt * (1 + 1e-9)) << "end " << end;
      if (end >= 0.5 * dt) EXPECT_GE(s, 0.5 * dt * (1 - 1e-12)) << "end " << end;
    }
  }
  EXPECT_EQ(steps_to(2 * 0.0333333333333, 0.0333333333333).size(), 2u);
  EXPECT_EQ(steps_to(100 * 1e-3, 1e-3).size(), 100u);
  EXPECT_DOUBLE_EQ(next_step_size(1.0, 0.25), 0.25);  // a run shorter than one step takes it whole
}
