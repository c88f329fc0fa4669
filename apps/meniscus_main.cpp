#include "core/runtime.hpp"
int main(int argc, char** argv) {
  meniscus::Runtime rt(&argc, &argv);
  rt.start_libraries({});
  return 0;
}
