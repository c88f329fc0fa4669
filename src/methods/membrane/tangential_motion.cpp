#include "methods/membrane/tangential_motion.hpp"

#include "core/kmath.hpp"

namespace meniscus::membrane {

void vertex_tangents(const Polyline& m, const VertexArray& t, const Kokkos::View<int*, MemSpace>& degree) {
  Kokkos::deep_copy(t, 0.0);
  Kokkos::deep_copy(degree, 0);
  auto x = m.x;
  auto seg = m.seg;
  // Sum of the unnormalised edge vectors at each vertex: x_next - x_prev inside the chain.
  Kokkos::parallel_for(
      "membrane_tangent_sum", m.segments(), KOKKOS_LAMBDA(const long e) {
        const int i = seg(e, 0), j = seg(e, 1);
        for (int d = 0; d < 2; ++d) {
          Kokkos::atomic_add(&t(i, d), x(j, d) - x(i, d));
          Kokkos::atomic_add(&t(j, d), x(j, d) - x(i, d));
        }
        Kokkos::atomic_add(&degree(i), 1);
        Kokkos::atomic_add(&degree(j), 1);
      });
  Kokkos::parallel_for(
      "membrane_tangent_normalise", m.vertices(), KOKKOS_LAMBDA(const long i) {
        const double len = kmath::sqrt(t(i, 0) * t(i, 0) + t(i, 1) * t(i, 1));
        if (len > 0) {
          t(i, 0) /= len;
          t(i, 1) /= len;
        }
      });
}

void keep_normal_motion(const Polyline& m, const Kokkos::View<int*, MemSpace>& kind, const VertexArray& dv) {
  const long n = m.vertices();
  VertexArray t("membrane_tangent", n, 2);
  Kokkos::View<int*, MemSpace> degree("membrane_degree", n);
  vertex_tangents(m, t, degree);
  Kokkos::parallel_for(
      "membrane_keep_normal_motion", n, KOKKOS_LAMBDA(const long i) {
        if (kind(i) != kFree || degree(i) == 0) return;
        const double along = dv(i, 0) * t(i, 0) + dv(i, 1) * t(i, 1);
        dv(i, 0) -= along * t(i, 0);
        dv(i, 1) -= along * t(i, 1);
      });
}

double even_out_spacing(Polyline& m, const Kokkos::View<int*, MemSpace>& kind, double rate) {
  const long n = m.vertices();
  VertexArray t("membrane_tangent", n, 2);
  Kokkos::View<int*, MemSpace> degree("membrane_degree", n);
  vertex_tangents(m, t, degree);
  // Signed length balance per vertex: L_next - L_prev (segment i -> j is "next" for i, "prev" for
  // j), and whether any neighbour is not free.
  Kokkos::View<double*, MemSpace> balance("membrane_length_balance", n);
  Kokkos::View<int*, MemSpace> pinned_neighbour("membrane_pinned_neighbour", n);
  auto x = m.x;
  auto seg = m.seg;
  Kokkos::parallel_for(
      "membrane_length_balance", m.segments(), KOKKOS_LAMBDA(const long e) {
        const int i = seg(e, 0), j = seg(e, 1);
        const double len = kmath::sqrt((x(j, 0) - x(i, 0)) * (x(j, 0) - x(i, 0)) + (x(j, 1) - x(i, 1)) * (x(j, 1) - x(i, 1)));
        Kokkos::atomic_add(&balance(i), len);
        Kokkos::atomic_add(&balance(j), -len);
        if (kind(j) != kFree) Kokkos::atomic_add(&pinned_neighbour(i), 1);
        if (kind(i) != kFree) Kokkos::atomic_add(&pinned_neighbour(j), 1);
      });
  // Slides are computed from the old positions of all vertices first (a Jacobi sweep), then applied.
  VertexArray slide("membrane_slide", n, 2);
  Kokkos::parallel_for(
      "membrane_slide", n, KOKKOS_LAMBDA(const long i) {
        const bool movable = kind(i) == kFree && degree(i) == 2 && pinned_neighbour(i) == 0;
        const double s = movable ? 0.5 * rate * balance(i) : 0.0;
        slide(i, 0) = s * t(i, 0);
        slide(i, 1) = s * t(i, 1);
      });
  double largest = 0;
  Kokkos::parallel_reduce(
      "membrane_apply_slide", n,
      KOKKOS_LAMBDA(const long i, double& acc) {
        x(i, 0) += slide(i, 0);
        x(i, 1) += slide(i, 1);
        const double s = kmath::sqrt(slide(i, 0) * slide(i, 0) + slide(i, 1) * slide(i, 1));
        acc = s > acc ? s : acc;
      },
      Kokkos::Max<double>(largest));
  return largest;
}

}  // namespace meniscus::membrane
