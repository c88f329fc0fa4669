#pragma once
// Archimedes for a body floating in a pool of the multiphase MPM (Yan et al. 2018, section 6, the ball
// in water), shared by the 2D disc and 3D ball buoyancy tests. One rank (the tests run in
// validation_tests).
//
// The far-field water level is the level of the water's mass: the far-field water particles (more
// than `far_radius` from the body's centre, horizontally) times their rest volume, over the far-field
// area of the pool floor. Neither the top particle (the old measure) nor a pressure extrapolation is
// robust here: one water particle that rides up a spacing moves the top particle by as much, and the
// Tait pressure turns a 0.1 % density error into 8 cm of head at c0 = 28 m/s.
// The submerged fraction counts each body particle as the box of its rest volume (edge = spacing) and
// takes the part of that box below the level. A bare count of centres below the level moves in steps
// of a whole particle layer: 8 layers across the 3D ball at the CI resolution, about 0.19 of its
// particles each.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "methods/mpm_multiphase/multiphase_method.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

namespace meniscus::test {

struct FloatingPool {
  double floor = 0;                // y of the pool's floor (the wall the water stands on)
  double lower[2] = {0, 0};        // horizontal extent of the pool: x (and z in 3D)
  double upper[2] = {0, 0};
  double spacing = 0;              // particle spacing (rest volume spacing^Dim)
  double far_radius = 0;           // far field: horizontal distance from the body's centre beyond this
  int body = 1;                    // material id of the floating body
  // Radius of the body (m): with it, the local level beside the body is measured (FloatingSample);
  // 0 leaves those fields at 0.
  double body_radius = 0;
};

struct FloatingSample {
  double centre = 0;     // body centre of mass, vertical (m)
  double velocity = 0;   // body centre-of-mass vertical velocity (m/s)
  double level = 0;      // far-field level of the water's mass (m)
  double top_level = 0;  // far-field top water particle + half a spacing (m), for comparison
  double submerged = 0;  // volume fraction of the body below `level`
  double centres_below = 0;  // fraction of the body's particle centres below `level`
  // Near field (within far_radius of the body's centre, horizontally): the volume below `level` that
  // neither water nor body fills (their rest-volume boxes; a water box near the field's edge counts by
  // the part of it inside, see submerged_and_void), over the body's volume. At rest, with the
  // water at rest density and none of it above the level, Archimedes is exactly "void = 0"; a void is
  // displaced volume the body does not occupy, so the body floats higher by that much of its volume.
  double void_fraction = 0;
  // The same three numbers against the far-field free surface: the mean over far-field columns (edge
  // = spacing, horizontally) of the top water particle + half a spacing. `level` counts particles, so
  // it moves by spacing^Dim / (far-field area) whenever one particle crosses the far-field boundary
  // (0.36 mm in the 2D disc scene): a few dozen particles that hop between columns as the pool
  // settles read as a level creep that the surface does not show (docs/theory-mpm-multiphase.md,
  // "The far-field level").
  double surface = 0;
  double surface_submerged = 0;
  double surface_void = 0;
  // The local level beside the body: water columns (edge = spacing, horizontally) whose centres lie
  // between body_radius + spacing and far_radius from the body's centre, horizontally, i.e. the ring
  // (3D) or the two segments (2D) that touch the body's waterline but hold no body and no water under
  // it. `local_level` is the floor plus the water's rest volume in those columns over their
  // cross-section, each particle's unit shared among the columns around it by area weights
  // (cloud-in-cell); `local_top` the mean of their top particle + half a spacing. A count by the column
  // that holds each particle is aliased: the particles start on the column centres, and once rows near
  // the ball drift half a spacing sideways they change columns together. Measured in 3D at the CI
  // resolution (1:2 ball, 0.44 m pool): at t = 0.3 s every ring column still held exactly 12 particles;
  // at 1 s 23 % of the ring's particles lay within 0.1 spacing of a column edge, and the held-column
  // count read 0.2531 m over the ring (0.2350-0.2615 m over three sub-rings) where the area weights
  // read 0.2451 m (0.2411-0.2496 m) and the far field 0.2405 m. Means over 0.5 s are used.
  double local_level = 0;
  double local_top = 0;
  double local_submerged = 0;      // body volume fraction below local_level
  double local_top_submerged = 0;  // body volume fraction below local_top
};

template <int Dim>
FloatingSample sample_floating(mpm_multiphase::MultiphaseMpm<Dim>& m, const FloatingPool& pool) {
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
  auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  const size_t n = set.size();
  FloatingSample s;
  double c[Dim] = {};
  long nb = 0;
  for (size_t i = 0; i < n; ++i)
    if (mat(i) == pool.body) {
      for (int d = 0; d < Dim; ++d) c[d] += x(i, d);
      s.velocity += v(i, 1);
      ++nb;
    }
  if (nb > 0) {
    for (double& cd : c) cd /= nb;
    s.centre = c[1];
    s.velocity /= nb;
  } else {  // a pool without a body (the level test): the "near field" is the middle of the pool
    for (int d = 0, k = 0; d < Dim; d += 2, ++k) c[d] = 0.5 * (pool.lower[k] + pool.upper[k]);
  }
  // Horizontal axes: 0 (and 2 in 3D); the far-field area excludes the disc (3D) or segment (2D) of
  // radius far_radius around the body, which the tests keep inside the pool.
  auto horizontal = [&](size_t i) {
    double r2 = 0;
    for (int d = 0; d < Dim; d += 2) r2 += (x(i, d) - c[d]) * (x(i, d) - c[d]);
    return std::sqrt(r2);
  };
  double area = 1;
  for (int k = 0; k < Dim - 1; ++k) area *= pool.upper[k] - pool.lower[k];
  area -= Dim == 3 ? M_PI * pool.far_radius * pool.far_radius : 2 * pool.far_radius;
  // The part of a water particle's box (edge = spacing) inside the near field, horizontally: see
  // `inside` below.
  auto near_share = [&](size_t i) { return std::clamp((pool.far_radius - horizontal(i)) / pool.spacing + 0.5, 0.0, 1.0); };
  double far = 0;  // far-field water, in rest boxes: each box's part outside the near field
  s.top_level = -1e300;
  std::map<long, double> column_top;  // far-field columns of edge `spacing`: highest water particle
  for (size_t i = 0; i < n; ++i)
    if (mat(i) != pool.body) far += 1.0 - near_share(i);
  for (size_t i = 0; i < n; ++i)
    if (mat(i) != pool.body && horizontal(i) > pool.far_radius) {
      s.top_level = std::max(s.top_level, x(i, 1));
      long key = 0;
      for (int d = 0, k = 0; d < Dim; d += 2, ++k)
        key = key * 100000 + static_cast<long>(std::floor((x(i, d) - pool.lower[k]) / pool.spacing));
      auto it = column_top.emplace(key, x(i, 1)).first;
      it->second = std::max(it->second, x(i, 1));
    }
  s.top_level += pool.spacing / 2;
  s.level = pool.floor + far * std::pow(pool.spacing, Dim) / area;
  for (const auto& c : column_top) s.surface += c.second;
  s.surface = s.surface / column_top.size() + pool.spacing / 2;
  // Each particle a box of its rest volume: the part of it below `level`.
  auto below = [&](size_t i, double level) { return std::clamp((level - x(i, 1)) / pool.spacing + 0.5, 0.0, 1.0); };
  const double box = std::pow(pool.spacing, Dim);
  const double near_area = Dim == 3 ? M_PI * pool.far_radius * pool.far_radius : 2 * pool.far_radius;
  // The part of a water particle's box (edge = spacing) inside the near field, horizontally: a linear
  // ramp across one spacing at the boundary (exact for the 2D strip, the radial approximation of the
  // box-disc overlap in 3D). A count by particle centres assumes that the water stays on the seeded
  // lattice, whose columns the boundary never cuts. The pool's lattice rearranges: with the SPH wall
  // images (2D 1:2 disc, 4 cells per radius, t in [1, 3] s) the far field turned into rows 0.966
  // spacing apart across and 1.034 apart vertically (0.9985 of the rest area per particle, SPH
  // density 1001.9 kg/m^3), the water under the disc into 1.094 x 0.914, and the boundary between the
  // two lay at the near field's edge, where one 1-spacing column held 34 particles. The centre count
  // then put 727 water particles in the near field where their boxes cover 712 of its spacing-wide
  // strips: a void of -0.053 (crowding) that the boxes' shares read as +0.020.
  // The far-field level shares the boxes the same way: counted by centres, the circle of the 3D near
  // field cut the seeded lattice's columns unevenly (the Gauss circle problem: in the 3D CI pool, 22 x 22
  // columns, a near field of 8 spacings' radius holds 208 column centres where its area holds 201
  // columns), and the count level stood 5 mm below the far-field surface before anything moved
  // (0.2351 m at 0.26 s, 0.2402 m with the shares; surface 0.2394 m, top particle 0.2400 m).
  const auto& inside = near_share;
  // Body volume fraction below `level`, and the near-field void (see FloatingSample).
  auto submerged_and_void = [&](double level, double& submerged, double& void_fraction) {
    double body = 0, filled = 0;
    for (size_t i = 0; i < n; ++i)
      if (mat(i) == pool.body) {
        body += below(i, level);
        filled += box * below(i, level);
      } else {
        filled += box * below(i, level) * inside(i);
      }
    submerged = body / nb;
    void_fraction = (near_area * (level - pool.floor) - filled) / (nb * box);
  };
  if (nb == 0) return s;
  if (pool.body_radius > 0) {
    // Ring columns by index: a column is in the ring if its centre is; counts and tops per column.
    std::map<long, std::pair<long, double>> ring;  // key -> (particles, top)
    const double inner = pool.body_radius + pool.spacing;
    long ni[2] = {1, 1};
    for (int k = 0; k < Dim - 1; ++k) ni[k] = std::lround((pool.upper[k] - pool.lower[k]) / pool.spacing);
    for (long a = 0; a < ni[0]; ++a)
      for (long b = 0; b < ni[1]; ++b) {
        const long idx[2] = {a, b};
        double r2 = 0;
        for (int d = 0, k = 0; d < Dim; d += 2, ++k) {
          const double xc = pool.lower[k] + (idx[k] + 0.5) * pool.spacing - c[d];
          r2 += xc * xc;
        }
        if (r2 >= inner * inner && r2 <= pool.far_radius * pool.far_radius)
          ring.emplace(a * 100000 + b, std::make_pair(0L, -1e300));
      }
    // Tops by the column that holds the particle; counts by area weights (cloud-in-cell: each particle
    // shares its one unit among the 2 (2D) or 4 (3D) columns whose centres surround it, bilinearly). A
    // count by the holding column alone is aliased: water particles sit on the column centres at the
    // start, and once a ring of them drifts half a spacing sideways whole rows change columns (see
    // local_level above).
    std::map<long, double> weight;  // key -> area-weighted particle count
    for (size_t i = 0; i < n; ++i) {
      if (mat(i) == pool.body) continue;
      long key = 0, base[2] = {0, 0};
      double frac[2] = {0, 0};
      for (int d = 0, k = 0; d < Dim; d += 2, ++k) {
        key = key * 100000 + static_cast<long>(std::floor((x(i, d) - pool.lower[k]) / pool.spacing));
        const double u = (x(i, d) - pool.lower[k]) / pool.spacing - 0.5;
        base[k] = static_cast<long>(std::floor(u));
        frac[k] = u - base[k];
      }
      if (Dim == 2) key *= 100000;
      for (int ca = 0; ca < 2; ++ca)
        for (int cb = 0; cb < (Dim == 3 ? 2 : 1); ++cb) {
          const long a = std::clamp(base[0] + ca, 0L, ni[0] - 1), b = Dim == 3 ? std::clamp(base[1] + cb, 0L, ni[1] - 1) : 0;
          const double w = (ca ? frac[0] : 1 - frac[0]) * (Dim == 3 ? (cb ? frac[1] : 1 - frac[1]) : 1.0);
          if (ring.count(a * 100000 + b)) weight[a * 100000 + b] += w;
        }
      auto it = ring.find(key);
      if (it == ring.end()) continue;
      ++it->second.first;
      it->second.second = std::max(it->second.second, x(i, 1));
    }
    double count = 0;
    for (const auto& [key, w] : weight) count += w;
    int tops = 0;
    for (const auto& [key, col] : ring)
      if (col.first > 0) s.local_top += col.second, ++tops;
    s.local_level = pool.floor + count * pool.spacing / ring.size();  // count s^Dim over ring.size() s^(Dim-1)
    s.local_top = s.local_top / std::max(tops, 1) + pool.spacing / 2;
    double unused;
    submerged_and_void(s.local_level, s.local_submerged, unused);
    submerged_and_void(s.local_top, s.local_top_submerged, unused);
  }
  submerged_and_void(s.level, s.submerged, s.void_fraction);
  submerged_and_void(s.surface, s.surface_submerged, s.surface_void);
  long centres = 0;
  for (size_t i = 0; i < n; ++i)
    if (mat(i) == pool.body && x(i, 1) < s.level) ++centres;
  s.centres_below = static_cast<double>(centres) / nb;
  return s;
}

// The mean of `samples` (each field), with `velocity` the rms of the samples' velocities.
inline FloatingSample mean_floating(const std::vector<FloatingSample>& samples) {
  // Every field is averaged except the velocity, which is the rms; listed once so a new field is
  // added in one place.
  static constexpr double FloatingSample::*kAveraged[] = {
      &FloatingSample::centre,          &FloatingSample::level,           &FloatingSample::top_level,
      &FloatingSample::submerged,       &FloatingSample::centres_below,   &FloatingSample::void_fraction,
      &FloatingSample::surface,         &FloatingSample::surface_submerged, &FloatingSample::surface_void,
      &FloatingSample::local_level,     &FloatingSample::local_top,       &FloatingSample::local_submerged,
      &FloatingSample::local_top_submerged};
  FloatingSample mean;
  double v2 = 0;
  for (const FloatingSample& s : samples) {
    for (double FloatingSample::*field : kAveraged) mean.*field += s.*field;
    v2 += s.velocity * s.velocity;
  }
  const double n = static_cast<double>(samples.size());
  for (double FloatingSample::*field : kAveraged) mean.*field /= n;
  mean.velocity = std::sqrt(v2 / n);
  return mean;
}

// Steps `m` from time t to `to` (in steps of at most its stable time step).
template <int Dim>
void advance_floating(mpm_multiphase::MultiphaseMpm<Dim>& m, double& t, double to) {
  while (t < to - 1e-12) {
    const double dt = std::min(m.stable_dt(), to - t);
    m.step(dt);
    t += dt;
  }
}

inline void print_floating_sample(double t, const FloatingSample& s) {
  print_rank0("  t %.2f s: centre %.4f m, velocity %+.4f m/s, level %.4f m (top particle %.4f m), submerged %.4f "
              "(centres below: %.4f); surface %.4f m, submerged %.4f; local level %.4f m, submerged %.4f; "
              "local top %.4f m, submerged %.4f",
              t, s.centre, s.velocity, s.level, s.top_level, s.submerged, s.centres_below, s.surface,
              s.surface_submerged, s.local_level, s.local_submerged, s.local_top, s.local_top_submerged);
}

// Runs `m` to `end` in frames of 0.02 s and averages the samples of the last `window` seconds (t in
// [end - window, end]); `velocity` then holds the rms of the body's vertical centre-of-mass velocity
// there. With print_every > 0, prints a sample every print_every seconds (the approach to equilibrium).
template <int Dim>
FloatingSample float_body(mpm_multiphase::MultiphaseMpm<Dim>& m, const FloatingPool& pool, double end,
                          double print_every = 0, double window_length = 1.0) {
  std::vector<FloatingSample> samples;
  double t = 0;
  const int print_frames = print_every > 0 ? std::max(1, static_cast<int>(std::lround(print_every / 0.02))) : 0;
  for (int frame = 1; 0.02 * frame <= end + 1e-9; ++frame) {
    advance_floating<Dim>(m, t, 0.02 * frame);
    const bool window = t >= end - window_length - 1e-9, print = print_frames > 0 && frame % print_frames == 0;
    if (!window && !print) continue;
    const FloatingSample s = sample_floating<Dim>(m, pool);
    if (print) print_floating_sample(t, s);
    if (window) samples.push_back(s);
  }
  return mean_floating(samples);
}

// A floating body's reading once it has come to rest, by a measured criterion rather than a fixed
// window: the body's centre is sampled every 0.02 s, and every `window` / 2 s from `window` on, the
// least-squares slope of the centre over the last `window` s (its drift, m/s) is
// compared with `drift`. The first window whose |drift| is below it is the reading (means of its
// samples, as float_body); past `max_end` the last window is returned with its drift, which the
// caller then finds above `drift`. The slope of a fit over a window that spans whole sloshing periods
// averages the pool's oscillation out, where the rms velocity of float_body counts it.
struct RestingSample {
  FloatingSample mean;  // means over the resting window
  double drift = 0;     // least-squares slope of the centre over that window (m/s)
  double time = 0;      // end of that window (s)
};

template <int Dim>
RestingSample float_body_to_rest(mpm_multiphase::MultiphaseMpm<Dim>& m, const FloatingPool& pool, double window,
                                 double drift, double max_end, bool print = false) {
  const int frames = std::max(2, static_cast<int>(std::lround(window / 0.02)));
  std::vector<FloatingSample> last;
  std::vector<double> times;
  RestingSample r;
  double t = 0;
  for (int frame = 1; 0.02 * frame <= max_end + 1e-9; ++frame) {
    advance_floating<Dim>(m, t, 0.02 * frame);
    last.push_back(sample_floating<Dim>(m, pool));
    times.push_back(t);
    if (static_cast<int>(last.size()) > frames) {
      last.erase(last.begin());
      times.erase(times.begin());
    }
    if (static_cast<int>(last.size()) < frames || frame % std::max(1, frames / 2) != 0) continue;
    double tm = 0, cm = 0;
    for (int k = 0; k < frames; ++k) tm += times[k], cm += last[k].centre;
    tm /= frames, cm /= frames;
    double stc = 0, stt = 0;
    for (int k = 0; k < frames; ++k) {
      stc += (times[k] - tm) * (last[k].centre - cm);
      stt += (times[k] - tm) * (times[k] - tm);
    }
    r.mean = mean_floating(last);
    r.drift = stc / stt;
    r.time = t;
    if (print) {
      print_floating_sample(t, r.mean);
      print_rank0("    drift of the centre over the last %.2f s: %+.5f m/s", window, r.drift);
    }
    if (std::fabs(r.drift) < drift) break;
  }
  return r;
}

// The multiphase settings of the ball-in-water scene deck `deck` (under inputs/), defaults included, so
// that the buoyancy tests check the settings the scenes use.
inline mpm_multiphase::MultiphaseSettings scene_settings(const std::string& deck) {
  const auto d = run::load_deck(source_dir() + "/inputs/" + deck, {});
  return mpm_multiphase::read_multiphase_settings(d.deck.root(), d.deck.dimension());
}

// The scene deck's force sharing, as a deck value.
inline std::string scene_force_sharing(const std::string& deck) {
  switch (scene_settings(deck).force_sharing) {
    case mpm_multiphase::ForceSharing::Shared: return "shared";
    case mpm_multiphase::ForceSharing::Fluids: return "fluids";
    default: return "per_group";
  }
}

// One line per buoyancy result: `label` names the case (e.g. "3D 1:2").
inline void report_floating(const char* label, const FloatingSample& f) {
  print_rank0("[buoyancy %s] submerged fraction %.4f (centres below the level %.4f), centre %.4f m, level %.4f m "
              "(top particle %.4f m), vertical COM velocity rms %.4f m/s, near-field void %.4f of the body; against the "
              "far-field surface %.4f m: submerged %.4f, void %.4f; local level %.4f m: submerged %.4f; local top %.4f m: "
              "submerged %.4f",
              label, f.submerged, f.centres_below, f.centre, f.level, f.top_level, f.velocity, f.void_fraction,
              f.surface, f.surface_submerged, f.surface_void, f.local_level, f.local_submerged, f.local_top,
              f.local_top_submerged);
}

}  // namespace meniscus::test
