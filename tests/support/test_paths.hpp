#pragma once
// Where the checkout and its build folder are. Compiled into one generated file (test_paths.cpp in
// the build folder) rather than into every test file as a -D, so that the test objects of two
// checkouts are identical and a shared compiler cache serves both.
#include <string>

namespace meniscus::test {
std::string source_dir();
std::string binary_dir();
}  // namespace meniscus::test
