#pragma once
// Shape test for views reallocated only when the particle or sample count changes.
#include <cstddef>

namespace meniscus {

// Whether `v` has exactly the extents `e...` (all of them: a default-constructed view is 0 x 0, so
// comparing the rows alone would keep it for an empty set, where a 0 x Dim view is needed).
template <class View, class... Extents>
bool same_shape(const View& v, Extents... e) {
  static_assert(View::rank == sizeof...(Extents), "one extent per dimension of the view");
  const std::size_t want[] = {static_cast<std::size_t>(e)...};
  for (std::size_t r = 0; r < sizeof...(Extents); ++r)
    if (v.extent(r) != want[r]) return false;
  return true;
}

}  // namespace meniscus
