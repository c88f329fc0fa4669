// Candle wick operator (Chen et al. 2021, Sec. 6.9): the wick is a stiff, non-melting solid (its own
// material, seeded by ordinary sources); "we delete particles from the wick that are too far above the
// highest liquid particle within a neighborhood of the wick". After each step the wick particles more
// than trim_height above the highest non-wick particle within trim_radius (horizontal distance to the
// wick's axis) are deleted; we take any wax particle, liquid or refrozen, so that a pool that freezes over
// keeps its wick. Nothing is trimmed while no wax lies near the wick. Before each heat solve the wick's
// tip (the mean horizontal position of the wick particles, their largest height) is where the flame flux
// region (mpm.heat.flux_region shape wick-tip) is centred. +y is up.
// Curved wicks: when the wick material is seeded by `curve` sources (the paper: "we manually construct and
// sample points on cubic splines"), each such source is a wick of its own with its own flame. A wick
// particle belongs to the curve it lies nearest to, at the arc length of its projection; the tip is the
// curve's point at the largest arc length still held by a particle; the wax top is taken within
// trim_radius (horizontally) of that tip, and the trim is measured along the curve: the particles beyond
// the arc length where the curve first rises above the wax top plus trim_height are deleted
// (geometry::wick_cut_length). A straight vertical curve trims as the box-seeded wick does.
#include <mpi.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/log.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "particles/keep_if.hpp"

namespace meniscus::mpm {

namespace {
// The wax level a wick is trimmed against, on this rank: the highest particle that is not wick within
// horizontal distance sqrt(r2) of the vertical line through (ax, az) (z is ignored in 2D); -inf if none.
template <int Dim, class Positions, class Materials>
double local_wax_top(const Positions& x, const Materials& mat, int wick_material, double ax, double az,
                     double r2, std::size_t n) {
  double top = -std::numeric_limits<double>::infinity();
  Kokkos::parallel_reduce(
      "mpm::wick_wax_top", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const int p, double& mx) {
        if (mat(p) == wick_material) return;
        double d2 = (x(p, 0) - ax) * (x(p, 0) - ax);
        if (Dim == 3) d2 += (x(p, Dim - 1) - az) * (x(p, Dim - 1) - az);
        if (d2 <= r2 && x(p, 1) > mx) mx = x(p, 1);
      },
      Kokkos::Max<double>(top));
  return top;
}
}  // namespace

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
  // Curved wicks: the curve sources of the wick material (all of its sources, or none).
  int boxes = 0;
  for (const auto& src : root.list("sources")) {
    if (src.text("material") != name) continue;
    if (src.text("type") != "curve") {
      ++boxes;
      continue;
    }
    std::vector<double> control;
    for (const char* key : {"start", "control_1", "control_2", "end"})
      for (double c : src.vector(key)) control.push_back(c);
    wick_.curves.emplace_back(control, Dim, geometry::Curve::Form::Bezier);  // checked when seeding
  }
  if (wick_.curves.empty()) return;
  if (boxes > 0)
    throw InputError(w.file(), w.key_path("material"),
                     "the wick material is seeded by both curve and other sources: use curve sources only");
  if (static_cast<int>(wick_.curves.size()) > FluxRegion::kMaxTips)
    throw InputError(w.file(), w.key_path("material"),
                     log::format("at most %d curved wicks (curve sources of the wick material)", FluxRegion::kMaxTips));
  const double step = decomp_->dx() / 8;
  std::vector<int> first{0};
  for (const auto& c : wick_.curves) first.push_back(first.back() + 1 + static_cast<int>(std::ceil(c.length() / step)));
  wick_.polyline = Kokkos::View<double**, Kokkos::LayoutRight>("wick_polyline", first.back(), 4);
  wick_.first_vertex = Kokkos::View<int*>("wick_first_vertex", first.size());
  auto hp = Kokkos::create_mirror_view(wick_.polyline);
  auto hf = Kokkos::create_mirror_view(wick_.first_vertex);
  for (size_t k = 0; k < wick_.curves.size(); ++k) {
    const int m = first[k + 1] - first[k] - 1;
    for (int i = 0; i <= m; ++i) {
      const double sk = wick_.curves[k].length() * i / m;
      const auto q = wick_.curves[k].point_at(sk);
      for (int d = 0; d < 3; ++d) hp(first[k] + i, d) = q[d];
      hp(first[k] + i, 3) = sk;
    }
  }
  for (size_t k = 0; k < first.size(); ++k) hf(k) = first[k];
  Kokkos::deep_copy(wick_.polyline, hp);
  Kokkos::deep_copy(wick_.first_vertex, hf);
  wick_.tips.assign(wick_.curves.size(), {0, 0, 0});
}

// Each wick particle's wick (the nearest curve) and its arc length along it; -1 for the others.
template <int Dim>
void MpmMethod<Dim>::project_onto_wicks() {
  const int n = static_cast<int>(set_.size());
  if (static_cast<int>(wick_.which.extent(0)) < n) {
    wick_.which = Kokkos::View<int*>("wick_which", n);
    wick_.arc = Kokkos::View<double*>("wick_arc", n);
  }
  auto x = set_.field(f_.x);
  auto mat = set_.material();
  auto poly = wick_.polyline;
  auto first = wick_.first_vertex;
  auto which = wick_.which;
  auto arc = wick_.arc;
  const int wm = wick_.material, curves = static_cast<int>(wick_.curves.size());
  Kokkos::parallel_for(
      "mpm::wick_project", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        which(p) = -1;
        arc(p) = 0;
        if (mat(p) != wm) return;
        double best = 1e300;
        for (int k = 0; k < curves; ++k)
          for (int i = first(k) + 1; i < first(k + 1); ++i) {
            double ee = 0, er = 0, rr = 0;
            for (int d = 0; d < Dim; ++d) {
              const double e = poly(i, d) - poly(i - 1, d), r = x(p, d) - poly(i - 1, d);
              ee += e * e;
              er += e * r;
              rr += r * r;
            }
            double f = ee > 0 ? er / ee : 0.0;
            f = f < 0 ? 0.0 : (f > 1 ? 1.0 : f);
            const double d2 = rr - 2 * f * er + f * f * ee;
            if (d2 < best) {
              best = d2;
              which(p) = k;
              arc(p) = poly(i - 1, 3) + f * (poly(i, 3) - poly(i - 1, 3));
            }
          }
      });
}

template <int Dim>
void MpmMethod<Dim>::locate_wick_tip() {
  if (!wick_.curves.empty()) {
    project_onto_wicks();
    auto which = wick_.which;
    auto arc = wick_.arc;
    for (size_t k = 0; k < wick_.curves.size(); ++k) {
      const int kk = static_cast<int>(k);
      double smax = -1;
      Kokkos::parallel_reduce(
          "mpm::wick_tip_arc", Kokkos::RangePolicy<>(0, set_.size()),
          KOKKOS_LAMBDA(const int p, double& m) {
            if (which(p) == kk && arc(p) > m) m = arc(p);
          },
          Kokkos::Max<double>(smax));
      MPI_Allreduce(MPI_IN_PLACE, &smax, 1, MPI_DOUBLE, MPI_MAX, comm_);
      if (smax < 0)  // this wick is gone: its flame goes out
        wick_.tips[k] = {std::numeric_limits<double>::max() / 4, std::numeric_limits<double>::max() / 4,
                         std::numeric_limits<double>::max() / 4};
      else
        wick_.tips[k] = wick_.curves[k].point_at(smax);
    }
    for (int d = 0; d < 3; ++d) wick_.tip[d] = wick_.tips[0][d];
    return;
  }
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
void MpmMethod<Dim>::trim_curved_wicks() {
  locate_wick_tip();
  const int nw = static_cast<int>(wick_.curves.size());
  auto x = set_.field(f_.x);
  auto mat = set_.material();
  const int wm = wick_.material;
  const double r2 = wick_.trim_radius * wick_.trim_radius;
  std::vector<double> wax_top(nw, -std::numeric_limits<double>::infinity());
  for (int k = 0; k < nw; ++k) {
    if (wick_.tips[k][1] > std::numeric_limits<double>::max() / 8) continue;
    wax_top[k] = local_wax_top<Dim>(x, mat, wm, wick_.tips[k][0], wick_.tips[k][2], r2, set_.size());
  }
  MPI_Allreduce(MPI_IN_PLACE, wax_top.data(), nw, MPI_DOUBLE, MPI_MAX, comm_);
  Kokkos::View<double*> cut("wick_cut", nw);
  auto hc = Kokkos::create_mirror_view(cut);
  for (int k = 0; k < nw; ++k)
    hc(k) = wax_top[k] > -std::numeric_limits<double>::infinity()
                ? geometry::wick_cut_length(wick_.curves[k], wax_top[k], wick_.trim_height)
                : std::numeric_limits<double>::infinity();  // no wax near this wick's tip
  Kokkos::deep_copy(cut, hc);
  auto which = wick_.which;
  auto arc = wick_.arc;
  auto keep_p = KOKKOS_LAMBDA(const int p)->bool { return !(which(p) >= 0 && arc(p) > cut(which(p))); };
  long removed = particles::keep_if(set_, keep_p, "mpm::wick_trim");
  MPI_Allreduce(MPI_IN_PLACE, &removed, 1, MPI_LONG, MPI_SUM, comm_);
  wick_.trimmed += removed;
}

template <int Dim>
void MpmMethod<Dim>::trim_wick() {
  if (!wick_.curves.empty()) {
    trim_curved_wicks();
    return;
  }
  locate_wick_tip();
  if (wick_.tip[1] > std::numeric_limits<double>::max() / 8) return;
  auto x = set_.field(f_.x);
  auto mat = set_.material();
  const int wm = wick_.material;
  const double r2 = wick_.trim_radius * wick_.trim_radius;
  double wax_top = local_wax_top<Dim>(x, mat, wm, wick_.tip[0], wick_.tip[2], r2, set_.size());
  MPI_Allreduce(MPI_IN_PLACE, &wax_top, 1, MPI_DOUBLE, MPI_MAX, comm_);
  if (!(wax_top > -std::numeric_limits<double>::infinity())) return;  // no wax near the wick
  const double limit = wax_top + wick_.trim_height;
  if (wick_.tip[1] <= limit) return;
  auto keep_p = KOKKOS_LAMBDA(const int p)->bool { return !(mat(p) == wm && x(p, 1) > limit); };
  long removed = particles::keep_if(set_, keep_p, "mpm::wick_trim");
  MPI_Allreduce(MPI_IN_PLACE, &removed, 1, MPI_LONG, MPI_SUM, comm_);
  wick_.trimmed += removed;
}

template void MpmMethod<2>::setup_wick(const config::Section&);
template void MpmMethod<3>::setup_wick(const config::Section&);
template void MpmMethod<2>::locate_wick_tip();
template void MpmMethod<3>::locate_wick_tip();
template void MpmMethod<2>::trim_wick();
template void MpmMethod<2>::project_onto_wicks();
template void MpmMethod<3>::project_onto_wicks();
template void MpmMethod<2>::trim_curved_wicks();
template void MpmMethod<3>::trim_curved_wicks();
template void MpmMethod<3>::trim_wick();

}  // namespace meniscus::mpm
