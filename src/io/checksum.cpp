#include "io/checksum.hpp"

#include <Kokkos_Core.hpp>
#include <cstring>

namespace meniscus::io {

namespace {
// splitmix64's finaliser: every input bit changes about half of the output bits.
KOKKOS_INLINE_FUNCTION uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

uint64_t block_checksum(const void* data, size_t elements, uint64_t first) {
  Kokkos::View<const uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> v(
      static_cast<const uint64_t*>(data), elements);
  uint64_t sum = 0;
  Kokkos::parallel_reduce(
      "io::block_checksum", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, elements),
      [=](const size_t i, uint64_t& s) { s += mix(mix(first + i) ^ v(i)); }, sum);
  return sum;
}

uint64_t dataset_checksum(MPI_Comm comm, const void* data, size_t elements, uint64_t first) {
  unsigned long long mine = block_checksum(data, elements, first), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  return all;
}

uint64_t text_checksum(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace meniscus::io
