// Shared gtest main: brings up MPI, PETSc and Kokkos once (through the same Runtime the app uses)
// and silences gtest's printer on ranks other than 0. Test discovery (--gtest_list_tests) skips the
// runtime so that building never waits on an MPI start-up.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "core/log.hpp"
#include "core/runtime.hpp"

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--gtest_list_tests") == 0) listing = true;
  ::testing::InitGoogleTest(&argc, argv);
  if (listing) return RUN_ALL_TESTS();
  auto rt = std::make_unique<meniscus::Runtime>(&argc, &argv);
  rt->start_libraries({}, 1);
  meniscus::log::set_quiet(true);
  if (rt->rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int rc = RUN_ALL_TESTS();
  // Every rank must agree: a failure on any rank fails the run.
  int any = rc != 0 ? 1 : 0, all = 0;
  MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  rt.reset();
  return all;
}
