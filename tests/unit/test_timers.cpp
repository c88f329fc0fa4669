// Stage timers: a paused scope leaves out the time of a nested stage and still records once.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/timers.hpp"

using namespace meniscus;

TEST(Timers, PausedScopeLeavesOutTheNestedStage) {
  Timers timers;
  const auto nap = [](int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
  {
    auto outer = timers.scope("outer");
    nap(10);
    outer.pause();
    {
      auto inner = timers.scope("inner");
      nap(300);
    }
    outer.resume();
    nap(10);
  }
  EXPECT_GE(timers.total("inner"), 0.300);
  EXPECT_GE(timers.total("outer"), 0.020);
  // The 300 ms of the inner stage are not in the outer one (even on a busy machine two 10 ms
  // sleeps overshoot by far less than 280 ms).
  EXPECT_LT(timers.total("outer"), 0.300);
  const auto stats = timers.reduce(MPI_COMM_SELF);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "outer");  // first opened, though recorded last
  EXPECT_EQ(stats[0].calls, 1);
}
