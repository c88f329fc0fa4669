// Candle wick operator (Chen et al. 2021, Sec. 6.9): the wick is a stiff, non-melting solid (its own
// material, seeded by ordinary sources); "we delete particles from the wick that are too far above the
// highest liquid particle within a neighborhood of the wick". After each step the wick particles more
// than trim_height above the highest non-wick particle within trim_radius (horizontal distance to the
// wick's axis) are deleted; we take any wax particle, liquid or refrozen, so that a pool that freezes over
// keeps its wick. Nothing is trimmed while no wax lies near the wick. Before each heat solve the wick's
// tip (the mean horizontal position of the wick particles, their largest height) is where the flame flux
// region (mpm.heat.flux_region shape wick-tip) is centred. +y is up.
#include <mpi.h>

#include <limits>

#include "core/error.hpp"
#include "methods/mpm/mpm_method.hpp"

namespace meniscus::mpm {

template <int Dim>
void MpmMethod<Dim>::setup_wick(const config::Section& root) {
  const auto w = root.section("mpm").section("wick");
  wick_.enabled = w.flag("enabled");
  if (!wick_.enabled) return;
  if (!w.has("material")) throw InputError(w.file(), w.key_path("material"), "the wick needs its material");
  const std::string name = w.text("material");
  for (size_t i = 0; i < table_.names.size(); ++i)
    if (table_.names[i] == name) wick_.material = static_cast<int>(i);
  if (wick_.material < 0) throw InputError(w.file(), w.key_path("material"), "no material named '" + name + "'");
  if (heat_.phi >= 0 && Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), heat_.partner)(wick_.material) >= 0)
    throw InputError(w.file(), w.key_path("material"), "the wick must not melt (its material has a phase_partner)");
  wick_.trim_height = w.real("trim_height");
  wick_.trim_radius = w.real("trim_radius");
}

template <int Dim>
void MpmMethod<Dim>::locate_wick_tip() {
  auto x = set_.field(f_.x);
  auto mat = set_.material();
  const int wm = wick_.material;
  double s[Dim + 1] = {};  // count, sum x, (sum z)
  double top = -std::numeric_limits<double>::infinity();
  Kokkos::parallel_reduce(
      "mpm::wick_tip", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, double& n, double& sx, double& sz, double& mx) {
        if (mat(p) != wm) return;
        n += 1;
        sx += x(p, 0);
        if (Dim == 3) sz += x(p, Dim - 1);
        mx = x(p, 1) > mx ? x(p, 1) : mx;
      },
      s[0], s[1], s[Dim], Kokkos::Max<double>(top));
  MPI_Allreduce(MPI_IN_PLACE, s, Dim + 1, MPI_DOUBLE, MPI_SUM, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &top, 1, MPI_DOUBLE, MPI_MAX, comm_);
  if (s[0] == 0) {  // the wick is gone: the flame goes out (nothing within reach)
    for (int d = 0; d < 3; ++d) wick_.tip[d] = std::numeric_limits<double>::max() / 4;
    return;
  }
  wick_.tip[0] = s[1] / s[0];
  wick_.tip[1] = top;
  if (Dim == 3) wick_.tip[2] = s[Dim] / s[0];
}

template <int Dim>
void MpmMethod<Dim>::trim_wick() {
  locate_wick_tip();
  if (wick_.tip[1] > std::numeric_limits<double>::max() / 8) return;
  auto x = set_.field(f_.x);
  auto mat = set_.material();
  const int wm = wick_.material;
  const double ax = wick_.tip[0], az = wick_.tip[2], r2 = wick_.trim_radius * wick_.trim_radius;
  double wax_top = -std::numeric_limits<double>::infinity();
  Kokkos::parallel_reduce(
      "mpm::wick_wax_top", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, double& mx) {
        if (mat(p) == wm) return;
        double d2 = (x(p, 0) - ax) * (x(p, 0) - ax);
        if (Dim == 3) d2 += (x(p, Dim - 1) - az) * (x(p, Dim - 1) - az);
        if (d2 <= r2 && x(p, 1) > mx) mx = x(p, 1);
      },
      Kokkos::Max<double>(wax_top));
  MPI_Allreduce(MPI_IN_PLACE, &wax_top, 1, MPI_DOUBLE, MPI_MAX, comm_);
  if (!(wax_top > -std::numeric_limits<double>::infinity())) return;  // no wax near the wick
  const double limit = wax_top + wick_.trim_height;
  if (wick_.tip[1] <= limit) return;
  const int n = static_cast<int>(set_.size());
  auto keep_p = KOKKOS_LAMBDA(const int p)->bool { return !(mat(p) == wm && x(p, 1) > limit); };
  int nkeep = 0;
  Kokkos::parallel_reduce(
      "mpm::wick_count", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p, int& k) { k += keep_p(p) ? 1 : 0; },
      nkeep);
  long removed = n - nkeep;
  MPI_Allreduce(MPI_IN_PLACE, &removed, 1, MPI_LONG, MPI_SUM, comm_);
  wick_.trimmed += removed;
  if (nkeep == n) return;
  particles::IndexList keep("wick_keep", nkeep);
  Kokkos::parallel_scan(
      "mpm::wick_list", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p, int& k, const bool final) {
        const bool in = keep_p(p);
        if (final && in) keep(k) = p;
        k += in ? 1 : 0;
      });
  set_.gather(keep, nkeep);
}

template void MpmMethod<2>::setup_wick(const config::Section&);
template void MpmMethod<3>::setup_wick(const config::Section&);
template void MpmMethod<2>::locate_wick_tip();
template void MpmMethod<3>::locate_wick_tip();
template void MpmMethod<2>::trim_wick();
template void MpmMethod<3>::trim_wick();

}  // namespace meniscus::mpm
