#include "io/particle_columns.hpp"

#include <string>

namespace meniscus::io {

using particles::MemSpace;

HostRows rows_to_host(const particles::RealField& field, size_t n, int columns) {
  particles::RealField tmp(Kokkos::view_alloc(Kokkos::WithoutInitializing, "output_rows"), n, columns);
  const int nc = static_cast<int>(field.extent(1));
  Kokkos::parallel_for(
      "io::rows_to_host", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        for (int c = 0; c < columns; ++c) tmp(p, c) = c < nc ? field(p, c) : 0.0;
      });
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tmp);
}

namespace {
template <class Src>
HostInts widen_to_host(const Src& src, size_t n, const char* label) {
  Kokkos::View<int64_t*, MemSpace> tmp(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) { tmp(p) = static_cast<int64_t>(src(p)); });
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tmp);
}
}  // namespace

HostInts ids_to_host(const particles::IdField& ids, size_t n) { return widen_to_host(ids, n, "io::ids_to_host"); }

HostInts materials_to_host(const particles::IntField& materials, size_t n) {
  return widen_to_host(materials, n, "io::materials_to_host");
}

HostInts numbering(size_t n, int64_t first) {
  Kokkos::View<int64_t*, MemSpace> tmp(Kokkos::view_alloc(Kokkos::WithoutInitializing, "io::numbering"), n);
  Kokkos::parallel_for(
      "io::numbering", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) { tmp(p) = first + p; });
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tmp);
}

void rows_to_device(const HostRows& host, const particles::RealField& field) {
  const size_t n = host.extent(0);
  const int nc = static_cast<int>(host.extent(1));
  auto tmp = Kokkos::create_mirror_view_and_copy(MemSpace(), host);
  Kokkos::parallel_for(
      "io::rows_to_device", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        for (int c = 0; c < nc; ++c) field(p, c) = tmp(p, c);
      });
}

void ids_to_device(const HostInts& host, const particles::IdField& ids) {
  auto tmp = Kokkos::create_mirror_view_and_copy(MemSpace(), host);
  Kokkos::parallel_for(
      "io::ids_to_device", Kokkos::RangePolicy<>(0, host.extent(0)), KOKKOS_LAMBDA(const int p) { ids(p) = tmp(p); });
}

void materials_to_device(const HostInts& host, const particles::IntField& materials) {
  auto tmp = Kokkos::create_mirror_view_and_copy(MemSpace(), host);
  Kokkos::parallel_for(
      "io::materials_to_device", Kokkos::RangePolicy<>(0, host.extent(0)),
      KOKKOS_LAMBDA(const int p) { materials(p) = static_cast<int32_t>(tmp(p)); });
}

}  // namespace meniscus::io
