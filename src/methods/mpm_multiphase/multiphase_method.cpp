#include "methods/mpm_multiphase/multiphase_method.hpp"

#include <Kokkos_ScatterView.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/reproducible_sum.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/simd_clones.hpp"
#include "grid/bspline.hpp"
#include "grid/domain_deck.hpp"
#include "grid/gimp.hpp"
#include "grid/node_scatter.hpp"
#include "grid/stencil_loop.hpp"
#include "methods/mpm_multiphase/particle_walls.hpp"
#include "particles/balance.hpp"
#include "particles/bounding_box.hpp"
#include "particles/max_speed.hpp"
#include "methods/sph/sph_kernels.hpp"
#include "particles/keep_if.hpp"
#include "physics/remove_inside_colliders.hpp"
#include "particles/migration.hpp"
#include "particles/particle_sources.hpp"
#include "particles/redistribute.hpp"
#include "physics/collider_deck.hpp"
#include "physics/hypoelastic.hpp"
#include "physics/tait_density.hpp"
#include "particles/largest_id.hpp"

namespace meniscus::mpm_multiphase {

namespace {

// The stencil of a point: uniform GIMP (the paper's shape functions) or quadratic B-splines.
template <int Dim>
KOKKOS_INLINE_FUNCTION void shape_stencil(bool gimp, grid::Stencil<Dim>& st, const double* x, const double* lower,
                                          double inv_dx) {
  if (gimp) grid::compute_gimp_stencil<Dim>(st, x, lower, inv_dx);
  else st.compute(x, lower, inv_dx);
}

// The cubic spline of sph::CubicSpline<Dim> without its normalisation, at v = (r / h)^2.
// A fluid particle whose SPH density ratio reads below this counts as at rest in the grid-averaged
// density (sph_grid_average): the first layer under a free surface reads about 0.78 (3D) or 0.77 (2D),
// missing the neighbours above, while the water below it reads within a few per mille of its rest
// density (hydrostatic compression of a 0.4 m column at c0 = 28 m/s: 0.5 %). Not higher: at 0.97 (and
// 0.95) the rims of small voids in the pool counted as at rest too, the average then held the voids
// open, and the 2D 7:10 disc's pool rose 1.5 cm in 3 s (S001_Coupling.LongBuoyancySevenTenths).
constexpr double kSurfaceRatio = 0.9;

KOKKOS_INLINE_FUNCTION double cubic_spline_w(double v) {  // v = q^2, capped at 1 (w = 0 there)
  const double q = std::sqrt(v < 1.0 ? v : 1.0);
  const double a = 1.0 - q;
  return q <= 0.5 ? 1.0 - 6.0 * q * q * a : 2.0 * a * a * a;
}

// The SPH density's kernel values of one row's pairs: out[t] = w(q) for the row at xp and its
// neighbour idx[t], q = |x - x_j| / h, with the cubic spline of sph::CubicSpline<Dim> without its
// normalisation, w(q) = 1 - 6 q^2 (1 - q) (q <= 1/2), 2 (1 - q)^3 (q < 1), 0 beyond (q^2 is capped
// at 1, where w = 0). The caller adds the values in list order. No branches, so that the loop
// vectorises (which pairs lie in the list's skin or inside q = 1/2 is random, and the square roots
// of the following pairs waited on each mispredicted branch), also as an AVX2 variant (four square
// roots per instruction; core/simd_clones.hpp): the same bits as the scalar form on every machine.
template <int Dim>
MENISCUS_SIMD_CLONES void cubic_spline_row(const int* __restrict idx, int n, const double* __restrict xt,
                                          const double* __restrict xp, double inv_h2, double* __restrict out) {
  for (int t = 0; t < n; ++t) {
    const long j = idx[t];
    double r2 = 0;
    for (int d = 0; d < Dim; ++d) {
      const double dd = xp[d] - xt[Dim * j + d];
      r2 += dd * dd;
    }
    out[t] = cubic_spline_w(r2 * inv_h2);
  }
}

// 1 / (s^Dim sum_k W(|x_k|)) over an infinite lattice of spacing s around a lattice point: the
// factor that makes the SPH number density of a particle at rest with full support equal to 1/s^Dim
// (Yan et al. 2018 use SPH density with a 1.25 dx support and leave the kernel open; the cubic
// spline is calibrated so that a rest lattice has exactly its rest density).
template <int Dim>
double lattice_calibration(double spacing, double support) {
  const sph::CubicSpline<Dim> W(support);
  const int k = static_cast<int>(std::ceil(support / spacing)) + 1;
  double sum = 0;
  int i[3] = {0, 0, 0};
  const int n = 2 * k + 1;
  long total = 1;
  for (int d = 0; d < Dim; ++d) total *= n;
  for (long c = 0; c < total; ++c) {
    long r = c;
    double r2 = 0;
    for (int d = 0; d < Dim; ++d) {
      i[d] = static_cast<int>(r % n) - k;
      r /= n;
      r2 += (i[d] * spacing) * (i[d] * spacing);
    }
    sum += W.value(std::sqrt(r2));
  }
  return 1.0 / (std::pow(spacing, Dim) * sum);
}

// Sums the scattered nodal values over the ranks, divides each species slot G + k by the volume of its
// group (slot g = that species' group), and refreshes the ghost nodes. Used for the volume-weighted
// nodal fractions and for their weak-form rates (miscible diffusion, Yan et al. 2018, Sec. 4.2, Eq. 27).
template <int Dim, class MaterialView>
void sum_and_divide_by_group_volume(grid::GridField<Dim>& grid, const MaterialView& mats, int G, int K, const char* label) {
  grid.local_to_global_add();
  grid::NodeArray a = grid.acquire_owned();
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<>(0, a.extent(0)), KOKKOS_LAMBDA(const long i) {
        for (int k = 0; k < K; ++k) {
          const double V = a(i, mats(k).group);
          a(i, G + k) = V > 0 ? a(i, G + k) / V : 0.0;
        }
      });
  grid.release_owned(a);
  grid.global_to_local();
}

// Sums the scattered nodal values over the ranks, divides slot 1 by slot 0 (a volume) on the owned
// nodes and refreshes the ghosts: the volume-weighted nodal temperature and its weak-form rate.
template <int Dim>
void divide_slot1_by_slot0(grid::GridField<Dim>& grid, const char* label) {
  grid.local_to_global_add();
  grid::NodeArray a = grid.acquire_owned();
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<>(0, a.extent(0)), KOKKOS_LAMBDA(const long i) {
        a(i, 1) = a(i, 0) > 0 ? a(i, 1) / a(i, 0) : 0.0;
      });
  grid.release_owned(a);
  grid.global_to_local();
}

// Component a of the node force -s grad N from a particle's V sigma (s, Dim x Dim). A fluid's stress
// is -p I (set_fluid_pressure), so `diagonal` takes its one nonzero product: the same bits as the
// full sum (f starts at +0, and subtracting the zero off-diagonal products from +0 or from a nonzero
// value changes nothing), a third of the multiplications.
template <int Dim>
KOKKOS_INLINE_FUNCTION double stress_force(const double* s, const double* grad, int a, bool diagonal) {
  if (diagonal) return 0.0 - s[a * Dim + a] * grad[a];
  double f = 0;
  for (int b = 0; b < Dim; ++b) f -= s[a * Dim + b] * grad[b];
  return f;
}

}  // namespace

template <int Dim>
MultiphaseMpm<Dim>::MultiphaseMpm(const MethodContext& ctx) : comm_(ctx.comm) {
  const auto& root = ctx.root;
  s_ = read_multiphase_settings(root, Dim);
  table_ = read_multiphase_materials(root);
  const int G = table_.groups;
  // Per node: m, u, f (or a), G for every group; the species diffusion reuses the same Vecs with one
  // volume per group and one fraction per material.
  const int K = static_cast<int>(table_.materials.size());
  auto spec = grid::read_domain<Dim>(root, 2, std::max(G * stride(), G + K));
  for (int d = 0; d < Dim; ++d)
    if (spec.periodic[d])
      throw InputError(root.file(), "domain.periodic", "mpm-multiphase has no periodic grid (bounded box only)");
  // Particle-balanced cuts at start-up (domain.balance); the method has no rebalancing during the run.
  decomp_ = particles::balanced_decomposition<Dim>(comm_, spec, root, table_.names, spec.stencil_width + 1);
  particles::warn_no_rebalancing(root, "mpm-multiphase", comm_);
  grid_ = std::make_unique<grid::GridField<Dim>>(*decomp_);
  // The force pass fills Dim values per group and node: its own compact arrays (a third of the
  // state's values per node), which it zeroes, scatters and sums with the neighbours.
  forces_ = std::make_unique<grid::GridField<Dim>>(*decomp_, G * Dim);
  colliders_ = physics::read_colliders<Dim>(root, *decomp_);

  materials_ = Kokkos::View<PhaseMaterial*>("mp_materials", table_.materials.size());
  {
    auto h = Kokkos::create_mirror_view(materials_);
    for (size_t i = 0; i < table_.materials.size(); ++i) {
      h(i) = table_.materials[i];
      max_wave_speed_ = std::max(max_wave_speed_, table_.materials[i].wave_speed());
      if (table_.materials[i].kind == PhaseKind::Solid) has_solids_ = true;
    }
    Kokkos::deep_copy(materials_, h);
  }
  beta_ = Kokkos::View<double*>("mp_beta", G * G);
  {
    auto h = Kokkos::create_mirror_view(beta_);
    for (int a = 0; a < G; ++a)
      for (int b = 0; b < G; ++b) {
        const bool fa = table_.group_kind[a] == PhaseKind::Fluid, fb = table_.group_kind[b] == PhaseKind::Fluid;
        h(a * G + b) = (fa && fb) ? s_.beta_fluid_fluid : (fa || fb) ? s_.beta_fluid_solid : s_.beta_solid_solid;
      }
    Kokkos::deep_copy(beta_, h);
  }
  group_rest_ = Kokkos::View<double*>("mp_group_rest", G);
  {
    auto h = Kokkos::create_mirror_view(group_rest_);
    for (int g = 0; g < G; ++g) h(g) = std::numeric_limits<double>::infinity();
    for (const auto& mt : table_.materials) h(mt.group) = std::min(h(mt.group), mt.rest_density);
    Kokkos::deep_copy(group_rest_, h);
  }
  // Rest density of every solid group (0 for fluid groups): G2P compares volumes rather than masses.
  solid_rest_ = Kokkos::View<double*>("mp_solid_group", G);
  {
    auto h = Kokkos::create_mirror_view(solid_rest_);
    for (int g = 0; g < G; ++g) h(g) = 0;
    for (const auto& mt : table_.materials)
      if (mt.kind == PhaseKind::Solid) h(mt.group) = mt.rest_density;
    Kokkos::deep_copy(solid_rest_, h);
  }
  // Groups that share their summed force at a node (eq. 20): all (shared), none (per_group) or the
  // fluid groups (fluids).
  shares_force_ = Kokkos::View<int*>("mp_shares_force", G);
  {
    auto h = Kokkos::create_mirror_view(shares_force_);
    for (int g = 0; g < G; ++g)
      h(g) = s_.force_sharing == ForceSharing::Shared ||
             (s_.force_sharing == ForceSharing::Fluids && table_.group_kind[g] == PhaseKind::Fluid);
    Kokkos::deep_copy(shares_force_, h);
  }

  f_.x = set_.add_field("position", Dim);
  f_.v = set_.add_field("velocity", Dim);
  f_.mass = set_.add_field("mass", 1);
  f_.volume = set_.add_field("initial_volume", 1);
  f_.density = set_.add_field("density", 1);
  f_.stress = set_.add_field("stress", Dim * Dim);
  f_.pressure = set_.add_field("pressure", 1);
  f_.fractions = set_.add_field("fractions", K);
  f_.temperature = set_.add_field("temperature", 1);
  if (!s_.dissolve_solid.empty() || !s_.dissolve_into.empty()) {
    auto find = [&](const std::string& name, const char* key, PhaseKind kind) {
      for (size_t i = 0; i < table_.names.size(); ++i)
        if (table_.names[i] == name && table_.materials[i].kind == kind) return static_cast<int>(i);
      throw InputError(root.file(), std::string("mpm_multiphase.") + key,
                       "'" + name + "' is not a " + (kind == PhaseKind::Fluid ? "fluid" : "solid") + " material");
    };
    dissolve_solid_ = find(s_.dissolve_solid, "dissolve_solid", PhaseKind::Solid);
    dissolve_into_ = find(s_.dissolve_into, "dissolve_into", PhaseKind::Fluid);
  }

  auto seeded = particles::seed_sources<Dim>(root, *decomp_, table_.names);
  // The SPH calibration assumes one lattice spacing: every source must use the same particle volume.
  double vmin = 1e300, vmax = 0;
  fill_seeded_particles(seeded, vmin, vmax);
  // Particles seeded inside a wall layer or an obstacle start inside a solid, and those outside the
  // walls have stencil nodes beyond the ghosted grid (P2G would write past it): removed, as in mpm.
  if (const long removed = physics::remove_particles_inside_colliders<Dim>(set_, f_.x, colliders_, comm_); removed > 0)
    log::info("mpm-multiphase: %ld seeded particles lie inside colliders or the box's wall layers and were removed", removed);
  // Without walls nothing removes particles seeded against the box's faces, and the first P2G of one
  // within a cell of a face writes past the grid (heap corruption at 2 ranks): refused here instead.
  if (double at[Dim]; const long outside = particles_outside_stencil_box(at)) {
    std::string where;
    for (int d = 0; d < Dim; ++d) where += (d ? ", " : "") + log::format("%g", at[d]);
    throw InputError(root.file(), "sources",
                     log::format("%ld seeded particles lie within one cell (%g m) of the domain box's faces (e.g. "
                                 "at (%s)), where their GIMP stencils leave the grid: keep the sources at least "
                                 "one cell inside domain.lower/upper, or give the box walls (domain.walls), whose "
                                 "layers remove such particles",
                                 outside, decomp_->dx(), where.c_str()));
  }
  MPI_Allreduce(MPI_IN_PLACE, &vmin, 1, MPI_DOUBLE, MPI_MIN, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_DOUBLE, MPI_MAX, comm_);
  if (vmax > 0 && vmax > vmin * (1 + 1e-9))
    throw InputError(root.file(), "sources",
                     "mpm-multiphase needs one particle volume for its SPH density: give every source the same "
                     "particles_per_cell");
  // G2P's GIMP half-width of a particle of the seeded volume, so that its kernel needs no pow per particle.
  ref_volume_ = vmax;
  ref_half_width_ = 0.5 * std::pow(vmax, 1.0 / Dim);
  if (vmax > 0) calibration_ = lattice_calibration<Dim>(std::pow(vmax, 1.0 / Dim), s_.sph_support * decomp_->dx());
  // A solid placed in a pool seeded as a full box (e.g. a ball half in the water) displaces the water:
  // the fluid particles seeded inside it would otherwise stay trapped between its particles, adding
  // their weight to the body and removing their volume from the displaced water (Archimedes fails).
  if (vmax > 0 && !s_.keep_fluid_inside_solids) {  // solids and fluids marked `displaces`
    const long removed = remove_fluid_inside_solids(std::pow(vmax, 1.0 / Dim));
    if (removed > 0) log::info("mpm-multiphase: %ld fluid particles seeded inside solids or displacing fluids removed\n", removed);
  }
  particles::sort_by_cell<Dim>(set_, *decomp_, f_.x);
  if (!s_.emitter_material.empty()) {
    for (size_t i = 0; i < table_.names.size(); ++i)
      if (table_.names[i] == s_.emitter_material && table_.materials[i].kind == PhaseKind::Fluid)
        emitter_material_ = static_cast<int>(i);
    if (emitter_material_ < 0)
      throw InputError(root.file(), "mpm_multiphase.emitter_material", "'" + s_.emitter_material + "' is not a fluid material");
    // Emitted particles share the sources' volume (the SPH calibration assumes one lattice spacing).
    emitter_spacing_ = vmax > 0 ? std::pow(vmax, 1.0 / Dim) : 0.5 * decomp_->dx();
    // The disc must lie where every stencil stays inside the grid (g2p's clamp: one cell inside the box).
    const double* c = s_.emitter_center;
    for (int d = 0; d < Dim; ++d) {
      const double reach = d == 1 ? 0.0 : s_.emitter_radius;
      if (c[d] - reach < decomp_->lower()[d] + decomp_->dx() || c[d] + reach > decomp_->upper()[d] - decomp_->dx())
        throw InputError(root.file(), "mpm_multiphase.emitter_center",
                         "the emitter disc must lie at least one cell inside the domain box");
    }
    // Emitted ids continue after the largest seeded id, in the same order on every rank.
    next_id_ = particles::largest_id(set_, comm_) + 1;
  }
}

// Floor emitter (smoke, Yan et al. 2018 case 4; the paper gives no emitter model): layer k leaves the
// disc at t_k = k s / u_in (s the particle spacing) and has risen u_in (t - t_k) when it is created at
// the start of the first step with t >= t_k. A layer is the lattice of spacing s offset by s/2 inside
// the disc (x-z plane; a segment along x in 2D), enumerated in one order on every rank; each rank keeps
// the points it owns, and ids follow that order, so nothing depends on the rank count.
template <int Dim>
void MultiphaseMpm<Dim>::emit() {
  if (emitter_material_ < 0) return;
  auto t = timers_.scope("emit");
  const double s = emitter_spacing_, u = s_.emitter_speed, r = s_.emitter_radius;
  const double* c = s_.emitter_center;
  const int kr = static_cast<int>(std::ceil(r / s));
  std::vector<double> hx;
  std::vector<int64_t> hid;
  for (;;) {
    const double tk = static_cast<double>(emitted_layers_) * s / u;
    if (tk > time_ + 1e-12) break;
    const double rise = u * (time_ - tk);
    int64_t index = 0;
    for (int b = (Dim == 3 ? -kr : 0); b < (Dim == 3 ? kr : 1); ++b)
      for (int a = -kr; a < kr; ++a) {
        const double pa = (a + 0.5) * s, pb = Dim == 3 ? (b + 0.5) * s : 0.0;
        if (pa * pa + pb * pb > r * r) continue;
        double xp[3] = {c[0] + pa, c[1] + rise, Dim == 3 ? c[2] + pb : 0.0};
        if (decomp_->owner_of(xp) == decomp_->rank()) {
          for (int d = 0; d < Dim; ++d) hx.push_back(xp[d]);
          hid.push_back(next_id_ + index);
        }
        ++index;
      }
    next_id_ += index;
    ++emitted_layers_;
  }
  if (hid.empty()) return;
  const size_t k = hid.size();
  Kokkos::View<double**, Kokkos::LayoutRight> xs("mp_emit_x", k, Dim);
  Kokkos::View<int64_t*> ids("mp_emit_id", k);
  {
    auto hxs = Kokkos::create_mirror_view(xs);
    auto hids = Kokkos::create_mirror_view(ids);
    for (size_t i = 0; i < k; ++i) {
      for (int d = 0; d < Dim; ++d) hxs(i, d) = hx[i * Dim + d];
      hids(i) = hid[i];
    }
    Kokkos::deep_copy(xs, hxs);
    Kokkos::deep_copy(ids, hids);
  }
  append_emitted(xs, ids);
}

template <int Dim>
void MultiphaseMpm<Dim>::append_emitted(const Kokkos::View<double**, Kokkos::LayoutRight>& xs,
                                        const Kokkos::View<int64_t*>& ids) {
  const size_t n0 = set_.size(), k = ids.extent(0);
  set_.resize(n0 + k);
  auto x = set_.field(f_.x), v = set_.field(f_.v), mass = set_.field(f_.mass), vol = set_.field(f_.volume);
  auto rho = set_.field(f_.density), sig = set_.field(f_.stress), pr = set_.field(f_.pressure);
  auto alpha = set_.field(f_.fractions), temp = set_.field(f_.temperature);
  auto id = set_.id();
  auto mat = set_.material();
  auto mats = materials_;
  const int K = static_cast<int>(table_.materials.size()), em = emitter_material_;
  const double V = std::pow(emitter_spacing_, Dim), u = s_.emitter_speed;
  Kokkos::parallel_for(
      "mp::emit", Kokkos::RangePolicy<>(0, k), KOKKOS_LAMBDA(const int i) {
        const size_t p = n0 + i;
        const double r0 = mats(em).rest_density;
        for (int d = 0; d < Dim; ++d) {
          x(p, d) = xs(i, d);
          v(p, d) = d == 1 ? u : 0.0;
        }
        for (int j = 0; j < Dim * Dim; ++j) sig(p, j) = 0;
        vol(p, 0) = V;
        mass(p, 0) = V * r0;
        rho(p, 0) = r0;
        pr(p, 0) = 0;
        id(p) = ids(i);
        mat(p) = em;
        for (int q = 0; q < K; ++q) alpha(p, q) = q == em ? 1.0 : 0.0;
        temp(p, 0) = mats(em).temperature;
      });
}

template <int Dim>
long MultiphaseMpm<Dim>::particles_outside_stencil_box(double* first) {
  // The band of g2p's clamp (lo_clamp, hi_clamp there).
  double lo[Dim], hi[Dim];
  for (int d = 0; d < Dim; ++d) {
    lo[d] = decomp_->lower()[d] + decomp_->dx();
    hi[d] = decomp_->upper()[d] - decomp_->dx();
  }
  auto x = set_.field(f_.x);
  long count = 0;
  Kokkos::parallel_reduce(
      "mp::outside_stencil_box", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, long& acc) {
        for (int d = 0; d < Dim; ++d)
          if (x(p, d) < lo[d] || x(p, d) > hi[d]) {
            acc += 1;
            return;
          }
      },
      count);
  // One offending position for the message: the first on the lowest rank that has one.
  std::vector<double> mine(Dim + 1, 0.0);
  mine[0] = count > 0 ? 0.0 : 1.0;
  if (count > 0) {
    auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    for (size_t p = 0; p < set_.size(); ++p) {
      bool out = false;
      for (int d = 0; d < Dim; ++d) out = out || hx(p, d) < lo[d] || hx(p, d) > hi[d];
      if (!out) continue;
      for (int d = 0; d < Dim; ++d) mine[1 + d] = hx(p, d);
      break;
    }
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  struct {
    double flag;
    int rank;
  } in{mine[0], rank}, lowest{};
  MPI_Allreduce(&in, &lowest, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm_);
  MPI_Bcast(mine.data() + 1, Dim, MPI_DOUBLE, lowest.rank, comm_);
  for (int d = 0; d < Dim; ++d) first[d] = mine[1 + d];
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_LONG, MPI_SUM, comm_);
  return count;
}

// The seeded particles' fields, and the range of their volumes on this rank. A member function rather
// than code in the constructor: CUDA does not allow device lambdas in constructors.
template <int Dim>
void MultiphaseMpm<Dim>::fill_seeded_particles(const particles::SeededParticles& seeded, double& vmin, double& vmax) {
  const size_t n = seeded.x.extent(0);
  set_.resize(n);
  auto x = set_.field(f_.x), v = set_.field(f_.v), mass = set_.field(f_.mass), vol = set_.field(f_.volume);
  auto rho = set_.field(f_.density), sig = set_.field(f_.stress), pr = set_.field(f_.pressure);
  auto id = set_.id();
  auto mat = set_.material();
  auto mats = materials_;
  auto alpha = set_.field(f_.fractions);
  auto temp = set_.field(f_.temperature);
  const int K = static_cast<int>(table_.materials.size());
  Kokkos::parallel_for(
      "mp::init", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        for (int d = 0; d < Dim; ++d) {
          x(p, d) = seeded.x(p, d);
          v(p, d) = seeded.v(p, d);
        }
        for (int i = 0; i < Dim * Dim; ++i) sig(p, i) = 0;
        const double r0 = mats(seeded.material(p)).rest_density;
        vol(p, 0) = seeded.volume(p);
        mass(p, 0) = seeded.volume(p) * r0;
        rho(p, 0) = r0;
        pr(p, 0) = 0;
        id(p) = seeded.id(p);
        mat(p) = seeded.material(p);
        for (int k = 0; k < K; ++k) alpha(p, k) = k == seeded.material(p) ? 1.0 : 0.0;
        temp(p, 0) = mats(seeded.material(p)).temperature;
      });
  vmin = 1e300;
  vmax = 0;
  Kokkos::parallel_reduce(
      "mp::volume_range", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const int p, double& lo, double& hi) {
        lo = vol(p, 0) < lo ? vol(p, 0) : lo;
        hi = vol(p, 0) > hi ? vol(p, 0) : hi;
      },
      Kokkos::Min<double>(vmin), Kokkos::Max<double>(vmax));
}

template <int Dim>
long MultiphaseMpm<Dim>::remove_fluid_inside_solids(double spacing) {
  const int owned = static_cast<int>(set_.size());
  sph_valid_ = false;  // the halo is rebuilt here with another width
  halo_.build(set_, *decomp_, f_.x, spacing);
  const int total = owned + static_cast<int>(halo_.ghost_count());
  Kokkos::View<double**, Kokkos::LayoutRight> xt("mp_seed_x", total, Dim), solid("mp_seed_solid", total, 1);
  auto x = set_.field(f_.x);
  auto mat = set_.material();
  auto mats = materials_;
  Kokkos::parallel_for(
      "mp::seed_rows", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < Dim; ++d) xt(i, d) = x(i, d);
        solid(i, 0) = mats(mat(i)).displaces ? 1.0 : 0.0;
      });
  halo_.refresh_position_rows(particles::RealField(xt), static_cast<size_t>(owned));
  halo_.refresh_rows(particles::RealField(solid), static_cast<size_t>(owned));
  // Every point of the box |x - x_s|_inf < s/2 lies within s sqrt(Dim) / 2 of x_s.
  particles::NeighborLists near;
  particles::build_neighbor_lists<Dim>(xt, owned, 0.5 * spacing * std::sqrt(static_cast<double>(Dim)) * (1 + 1e-9), near);
  auto off = near.offset;
  auto idx = near.index;
  const double half = 0.5 * spacing;
  Kokkos::View<int*> inside("mp_seed_inside", owned);
  Kokkos::parallel_for(
      "mp::fluid_inside_solid", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) {
        inside(i) = 0;
        if (solid(i, 0) > 0) return;
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          if (solid(j, 0) <= 0) continue;
          double worst = 0;
          for (int d = 0; d < Dim; ++d) {
            const double a = kmath::fabs(xt(i, d) - xt(j, d));
            worst = a > worst ? a : worst;
          }
          if (worst < half) inside(i) = 1;
        }
      });
  long removed = particles::keep_if(set_, KOKKOS_LAMBDA(const int p) { return inside(p) == 0; }, "mp::drop_inside");
  MPI_Allreduce(MPI_IN_PLACE, &removed, 1, MPI_LONG, MPI_SUM, comm_);
  return removed;
}

template <int Dim>
MultiphaseMpm<Dim>::~MultiphaseMpm() = default;

template <int Dim>
double MultiphaseMpm<Dim>::stable_dt() {
  const double vmax = particles::global_max_speed<Dim>(comm_, set_.field(f_.v), set_.size(), "mp::max_speed");
  double dt = std::min(s_.cfl * decomp_->dx() / (vmax + max_wave_speed_ + 1e-300), s_.dt_max);
  // Explicit diffusion: dt <= dx^2 / (2 Dim k_d), with the CFL factor as margin.
  if (s_.diffusivity > 0 && has_miscible_group())
    dt = std::min(dt, s_.cfl * decomp_->dx() * decomp_->dx() / (2 * Dim * s_.diffusivity));
  if (s_.thermal_diffusivity > 0)
    dt = std::min(dt, s_.cfl * decomp_->dx() * decomp_->dx() / (2 * Dim * s_.thermal_diffusivity));
  return dt;
}

template <int Dim>
bool MultiphaseMpm<Dim>::has_miscible_group() const {
  std::vector<int> fluids(table_.groups, 0);
  for (const auto& m : table_.materials)
    if (m.kind == PhaseKind::Fluid) ++fluids[m.group];
  for (int n : fluids)
    if (n > 1) return true;
  return false;
}

template <int Dim>
void MultiphaseMpm<Dim>::p2g_momentum() {
  p2g(false);
}

template <int Dim>
void MultiphaseMpm<Dim>::measure_group_boxes() {
  const int G = table_.groups, V = 2 * Dim;
  auto mat = set_.material();
  auto mats = materials_;
  group_box_local_.assign(V * G, -1e300);
  particles::local_bounding_boxes<Dim>(set_.field(f_.x), static_cast<int>(set_.size()), G, group_box_local_.data(),
                                       "mp::group_boxes", KOKKOS_LAMBDA(const int p) { return mats(mat(p)).group; });
  group_box_global_ = group_box_local_;
  MPI_Allreduce(MPI_IN_PLACE, group_box_global_.data(), V * G, MPI_DOUBLE, MPI_MAX, comm_);
  if (group_nodes_.extent(0) != static_cast<size_t>(V * G)) group_nodes_ = Kokkos::View<int*>("mp_group_nodes", V * G);
  auto h = Kokkos::create_mirror_view(group_nodes_);
  grid::NodeBox<Dim> everything;
  for (int d = 0; d < Dim; ++d) {
    everything.lo[d] = -(1 << 29);
    everything.n[d] = 1 << 30;
  }
  double lower[Dim], lo[Dim], hi[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  for (int g = 0; g < G; ++g) {
    for (int d = 0; d < Dim; ++d) {
      lo[d] = -group_box_global_[V * g + Dim + d];
      hi[d] = group_box_global_[V * g + d];
    }
    const auto nb = grid::stencil_node_box<Dim>(lo, hi, lower, 1.0 / decomp_->dx(), everything);
    for (int d = 0; d < Dim; ++d) {
      h(V * g + d) = nb.lo[d];
      h(V * g + Dim + d) = nb.lo[d] + nb.n[d];
    }
  }
  Kokkos::deep_copy(group_nodes_, h);
  group_nodes_host_.assign(h.data(), h.data() + V * G);
}

template <int Dim>
grid::NodeBox<Dim> MultiphaseMpm<Dim>::force_node_box(Phases which) const {
  const int V = 2 * Dim;
  int lo[Dim], hi[Dim];
  for (int d = 0; d < Dim; ++d) {
    lo[d] = std::numeric_limits<int>::max();
    hi[d] = std::numeric_limits<int>::min();
  }
  for (int g = 0; g < table_.groups; ++g) {
    const bool fluid = table_.group_kind[g] == PhaseKind::Fluid;
    if (fluid ? which == Phases::Solids : which == Phases::Fluids) continue;
    for (int d = 0; d < Dim; ++d) {
      lo[d] = std::min(lo[d], group_nodes_host_[V * g + d]);
      hi[d] = std::max(hi[d], group_nodes_host_[V * g + Dim + d]);
    }
  }
  grid::NodeBox<Dim> box = state_box_;
  for (int d = 0; d < Dim; ++d) {
    const int from = std::max(state_box_.lo[d], lo[d]), to = std::min(state_box_.lo[d] + state_box_.n[d], hi[d]);
    box.lo[d] = from < to ? from : state_box_.lo[d];
    box.n[d] = std::max(0, to - from);
  }
  for (int d = 0; d < Dim; ++d)
    if (box.n[d] == 0)
      for (int e = 0; e < Dim; ++e) box.n[e] = 0;
  return box;
}

template <int Dim>
grid::NodeBox<Dim> MultiphaseMpm<Dim>::phase_node_box(Phases which) const {
  const int V = 2 * Dim;
  double lo[Dim], hi[Dim], lower[Dim];
  for (int d = 0; d < Dim; ++d) {
    lower[d] = decomp_->lower()[d];
    lo[d] = 1e300;
    hi[d] = -1e300;
  }
  for (int g = 0; g < table_.groups; ++g) {
    const bool fluid = table_.group_kind[g] == PhaseKind::Fluid;
    if (fluid ? which == Phases::Solids : which == Phases::Fluids) continue;
    for (int d = 0; d < Dim; ++d) {
      lo[d] = std::min(lo[d], -group_box_local_[V * g + Dim + d]);
      hi[d] = std::max(hi[d], group_box_local_[V * g + d]);
    }
  }
  return grid::stencil_node_box<Dim>(lo, hi, lower, 1.0 / decomp_->dx(), grid_->ghost_box());
}

namespace {
// Whether the stencil starting at `base` (3 nodes per axis) meets the node range of group g in
// `nodes` (as group_nodes_).
template <int Dim, class View>
KOKKOS_INLINE_FUNCTION bool stencil_meets_group(const int* base, const View& nodes, int g) {
  for (int d = 0; d < Dim; ++d)
    if (base[d] + 3 <= nodes(2 * Dim * g + d) || base[d] >= nodes(2 * Dim * g + Dim + d)) return false;
  return true;
}
}  // namespace

// One pass over the particles scatters m, m u and m grad N of every group (and, in volume mode, the
// fluids' m J; with the averaged SPH density their m r). With fluid_forces (SPH density without the
// grid average: a fluid's stress depends on its own SPH density alone, not on the grid), the internal
// force and buoyancy of every fluid particle go into the same pass (the force slots are otherwise
// unused here), so the separate force pass only visits solids.
template <int Dim>
void MultiphaseMpm<Dim>::p2g(bool fluid_forces) {
  auto t = timers_.scope("p2g");
  const int S = stride();
  measure_group_boxes();
  state_box_ = phase_node_box(Phases::All);
  state_ = grid_->acquire_active(state_box_);
  gather_rank_boxes();
  grid::scatter_into(state_, [&](auto& scatter) { p2g_scatter(scatter, fluid_forces); }, &scatter_cache_);
  grid_->sum_active_in_place();
  // u = p/m per group on every node of the box (ghost nodes too: their sums equal the owners' bit for
  // bit, so each rank updates its whole box where it is).
  grid::NodeArray a = state_;
  const int G = table_.groups;
  const bool centres = s_.contact_separation > 0;
  Kokkos::parallel_for(
      "mp::grid_velocity", Kokkos::RangePolicy<>(0, a.extent(0)), KOKKOS_LAMBDA(const long i) {
        for (int g = 0; g < G; ++g) {
          const double m = a(i, g * S);
          for (int d = 0; d < Dim; ++d) a(i, g * S + 1 + d) = m > 0 ? a(i, g * S + 1 + d) / m : 0.0;
          if (!fluid_forces) a(i, g * S + 1 + Dim) = m > 0 ? a(i, g * S + 1 + Dim) / m : 0.0;  // J_I
          if (centres)
            for (int d = 0; d < Dim; ++d) a(i, g * S + 1 + 3 * Dim + d) = m > 0 ? a(i, g * S + 1 + 3 * Dim + d) / m : 0.0;
        }
      });
  forces_in_state_ = fluid_forces;
  forces_in_vec_ = false;
}

template <int Dim>
template <class Scatter>
void MultiphaseMpm<Dim>::p2g_scatter(Scatter& scatter, bool fluid_forces) {
  const int S = stride();
  const auto gbox = state_box_;
  auto x = set_.field(f_.x), v = set_.field(f_.v), mass = set_.field(f_.mass);
  auto vol0 = set_.field(f_.volume), rho = set_.field(f_.density), sig = set_.field(f_.stress);
  auto temp = set_.field(f_.temperature);
  auto mat = set_.material();
  auto mats = materials_;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx;
  const bool gimp = s_.gimp, volume_density = !s_.sph_density, averaged = s_.sph_density && s_.sph_grid_average;
  const double beta_t = s_.thermal_buoyancy, t_amb = s_.ambient_temperature;
  auto nodes = group_nodes_;
  const int G = table_.groups;
  const bool centres = s_.contact_separation > 0;
  Kokkos::parallel_for(
      "mp::p2g", Kokkos::RangePolicy<>(0, set_.size()), KOKKOS_LAMBDA(const int p) {
        double xp[Dim], vp[Dim];
        for (int d = 0; d < Dim; ++d) {
          xp[d] = x(p, d);
          vp[d] = v(p, d);
        }
        grid::Stencil<Dim> st;
        shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
        const PhaseMaterial& mt = mats(mat(p));
        const bool fluid = mt.kind == PhaseKind::Fluid;
        const int o = mt.group * S;
        const double mp = mass(p, 0);
        // The mass gradient only where another group's particles (on any rank) may reach a node.
        bool gradient = false;
        for (int g = 0; g < G; ++g) gradient = gradient || (g != mt.group && stencil_meets_group<Dim>(st.base, nodes, g));
        auto acc = scatter.access();
        // What every particle gives its group's nodes: m and m u, and where another group may reach the
        // node the mass gradient and (position-based contact detection) the mass-weighted centre.
        auto scatter_motion = [&](long idx, double w, const double* grad) {
          const double wm = w * mp;
          acc(idx, o) += wm;
          for (int a = 0; a < Dim; ++a) {
            acc(idx, o + 1 + a) += wm * vp[a];
            if (gradient) acc(idx, o + 1 + 2 * Dim + a) += mp * grad[a];
            if (gradient && centres) acc(idx, o + 1 + 3 * Dim + a) += wm * xp[a];
          }
        };
        if (fluid_forces && fluid) {
          // V sigma and the buoyancy m b_j as in p2g_forces (eqs. 15/19).
          const double V = mp / rho(p, 0);
          double s[Dim * Dim];
          for (int i = 0; i < Dim * Dim; ++i) s[i] = V * sig(p, i);
          const double lift = mp * beta_t * (temp(p, 0) - t_amb);
          grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double* grad, const double*) {
            scatter_motion(idx, w, grad);
            for (int a = 0; a < Dim; ++a) {
              const double f = stress_force<Dim>(s, grad, a, true);
              acc(idx, o + 1 + Dim + a) += a == 1 ? f + w * lift : f;
            }
          });
          return;
        }
        // Fluid volume ratio J = V / V0 = m / (V0 rho), or with the averaged SPH density its density
        // ratio r = rho V0 / m (a particle under kSurfaceRatio counting as r = 1, see constitutive()),
        // mass-weighted onto the grid (the force slot is free until the force pass).
        if ((volume_density || averaged) && fluid) {
          // (the volume branch keeps m^2 / (V0 rho): the bits of the volume-mode runs predate the average)
          const double ratio = vol0(p, 0) * rho(p, 0) / mp;
          const double mj = volume_density ? mp * mp / (vol0(p, 0) * rho(p, 0)) : mp * (ratio < kSurfaceRatio ? 1.0 : ratio);
          grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double* grad, const double*) {
            scatter_motion(idx, w, grad);
            acc(idx, o + 1 + Dim) += w * mj;
          });
          return;
        }
        grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp,
                                         [&](long idx, double w, const double* grad, const double*) { scatter_motion(idx, w, grad); });
      });
}

template <int Dim>
void MultiphaseMpm<Dim>::sph_density() {
  auto t = timers_.scope("sph_density");
  const double support = s_.sph_support * decomp_->dx(), skin = s_.sph_skin * decomp_->dx();
  const double reach = support + skin;
  const int owned = static_cast<int>(set_.size());
  auto x = set_.field(f_.x);
  auto mat = set_.material();
  auto mats = materials_;
  // Verlet list (Verlet 1967): a list of every pair within support + skin stays complete for the
  // support as long as no row has moved more than half the skin since it was built. Rows, not
  // particles: a reordered or migrated set moves rows by a particle spacing or more, so it is rebuilt
  // too. A ghost row is an owned row of another rank, so the largest owned displacement over all ranks
  // bounds every row's; the decision is global because the halo plan is built collectively.
  double moved = std::numeric_limits<double>::infinity();
  if (sph_valid_ && sph_owned_ == set_.size() && sph_built_reach_ == reach) {
    auto x0 = sph_x0_;
    moved = 0;
    Kokkos::parallel_reduce(
        "mp::sph_moved", Kokkos::RangePolicy<>(0, owned),
        KOKKOS_LAMBDA(const int i, double& worst) {
          double r2 = 0;
          for (int d = 0; d < Dim; ++d) r2 += (x(i, d) - x0(i, d)) * (x(i, d) - x0(i, d));
          worst = r2 > worst ? r2 : worst;
        },
        Kokkos::Max<double>(moved));
  }
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_DOUBLE, MPI_MAX, comm_);
  const bool rebuild = !(moved <= 0.25 * skin * skin);
  if (rebuild && sort_pending_) {
    auto ts = timers_.scope("sort");
    particles::sort_by_cell<Dim>(set_, *decomp_, f_.x);
    sort_pending_ = false;
    // The sort gathers every field into new storage: the views taken above are the old order.
    x = set_.field(f_.x);
    mat = set_.material();
  }
  if (rebuild) halo_.build(set_, *decomp_, f_.x, reach);
  const int total = owned + static_cast<int>(halo_.ghost_count());
  if (static_cast<int>(sph_x_.extent(0)) != total)
    sph_x_ = Kokkos::View<double**, Kokkos::LayoutRight>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mp_sph_x"),
                                                         total, Dim);
  auto xt = sph_x_;
  Kokkos::parallel_for(
      "mp::sph_rows", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < Dim; ++d) xt(i, d) = x(i, d);
      });
  halo_.refresh_position_rows(particles::RealField(xt), static_cast<size_t>(owned));
  if (rebuild) {
    auto tb = timers_.scope("sph_list");
    // Every owned row's neighbours within the reach (the particles' neighbour search: cells of edge
    // reach / 2, 5^Dim of them per row, ordered by cell and row, so that the sum does not depend on
    // thread scheduling).
    particles::NeighborLists near;
    particles::build_neighbor_lists<Dim>(xt, owned, reach, near, 2);
    sph_offset_ = near.offset;
    sph_index_ = near.index;
    if (static_cast<int>(sph_x0_.extent(0)) != owned)
      sph_x0_ = Kokkos::View<double**, Kokkos::LayoutRight>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "mp_sph_x0"), owned, Dim);
    auto x0 = sph_x0_;
    Kokkos::parallel_for(
        "mp::sph_x0", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) {
          for (int d = 0; d < Dim; ++d) x0(i, d) = x(i, d);
        });
    sph_owned_ = set_.size();
    sph_built_reach_ = reach;
    sph_valid_ = true;
    ++sph_builds_;
  }
  const double h2 = support * support, inv_h2 = 1.0 / h2;
  // rho = m C_W k sum_k w(q_jk): the kernel's normalisation k and the lattice calibration C_W are one
  // factor; w(q) = 6q^3 - 6q^2 + 1 (q <= 1/2), 2 (1 - q)^3 (q < 1), the cubic spline of
  // kernels::CubicSpline without its k.
  const double scale = calibration_ * sph::CubicSpline<Dim>(support).k;
  auto mass = set_.field(f_.mass), rho = set_.field(f_.density);
  auto off = sph_offset_;
  auto idx = sph_index_;
  // Number-density form over every group (Solenthaler & Pajarola 2008): rho_j = (m_j/V0_j) V0_j C_W
  // sum_k W_jk, i.e. each particle's own rest density times its neighbour count relative to a rest
  // lattice, so that density contrasts between groups do not smear into each other.
  Kokkos::parallel_for(
      "mp::sph_density", Kokkos::RangePolicy<>(0, (owned + 1) / 2), KOKKOS_LAMBDA(const int pair) {
        // Two rows at a time: each row's sum is one chain of dependent additions (list order, see
        // below), and two independent chains keep the adder busy while the other waits.
        const int row[2] = {2 * pair, 2 * pair + 1};
        double xp[2][Dim], s[2] = {1.0, 1.0};  // w(0) = 1: the particle itself
        int k[2], end[2];
        for (int r = 0; r < 2; ++r) {
          const bool fluid = row[r] < owned && mats(mat(row[r])).kind == PhaseKind::Fluid;
          k[r] = fluid ? off(row[r]) : 0;
          end[r] = fluid ? off(row[r] + 1) : 0;
          for (int d = 0; d < Dim; ++d) xp[r][d] = fluid ? xt(row[r], d) : 0.0;
        }
        // In chunks of the row, added in list order: the same bits as one pair at a time, skipping
        // the pairs beyond the support. (Where r^2 / h^2 rounds across 1, w is below 1e-40 and
        // s >= 1, so adding or skipping it leaves s as it is.)
        constexpr int kChunk = 128;
        double w[2][kChunk];
        while (k[0] < end[0] || k[1] < end[1]) {
          int n[2];
          for (int r = 0; r < 2; ++r) {
            n[r] = end[r] - k[r] < kChunk ? end[r] - k[r] : kChunk;
            if (n[r] > 0) cubic_spline_row<Dim>(&idx(k[r]), n[r], xt.data(), xp[r], inv_h2, w[r]);
            k[r] += n[r];
          }
          const int both = n[0] < n[1] ? n[0] : n[1];
          for (int t = 0; t < both; ++t) {
            s[0] += w[0][t];
            s[1] += w[1][t];
          }
          for (int r = 0; r < 2; ++r)
            for (int t = both; t < n[r]; ++t) s[r] += w[r][t];
        }
        for (int r = 0; r < 2; ++r)
          if (row[r] < owned && mats(mat(row[r])).kind == PhaseKind::Fluid) rho(row[r], 0) = mass(row[r], 0) * scale * s[r];
      });
  if (s_.sph_wall_images) add_wall_images(support, scale);
}

// Mirror particles at walls and colliders (ghost particles mirrored across the boundary, Libersky et
// al. 1993; Colagrossi & Landrini 2003): the SPH sum (Yan et al. 2018, eq. 17, whose section 7 notes
// that pressure accuracy drops at the boundary) of a fluid particle next to a wall lacks
// the part of its support that lies beyond the wall, so a resting first layer (half a spacing from the
// wall) reads 0.78 (3D) or 0.77 (2D) of its rest density and its Tait pressure is clamped to zero. Each neighbour
// k (and the particle itself) is reflected across the tangent plane of every collider surface within
// the support, and across every combination of them (the diagonal images at an edge or corner of the
// box), and the images' kernel values are added. A rest lattice against a plane wall at half a
// spacing then sums to exactly the full lattice (curved colliders: the tangent plane is an
// approximation). Images use the neighbours already in the list: for points on the same side of a
// plane the image lies at least as far as the point itself. A floating solid needs no images of its
// own: its particles count in the number density already.
template <int Dim>
void MultiphaseMpm<Dim>::add_wall_images(double support, double scale) {
  auto t = timers_.scope("sph_images");
  const int owned = static_cast<int>(set_.size());
  const auto colliders = colliders_.at_time(time_);
  if (colliders.count == 0) return;
  auto mat = set_.material();
  auto mats = materials_;
  auto mass = set_.field(f_.mass), rho = set_.field(f_.density);
  auto xt = sph_x_;
  auto off = sph_offset_;
  auto idx = sph_index_;
  const double h = support, inv_h2 = 1.0 / (support * support);
  Kokkos::parallel_for(
      "mp::sph_images", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) {
        if (mats(mat(i)).kind != PhaseKind::Fluid) return;
        double xi[Dim];
        for (int d = 0; d < Dim; ++d) xi[d] = xt(i, d);
        // Tangent planes (point, unit normal into the fluid) of the surfaces within the support.
        constexpr int kNear = 3;
        double p0[kNear][Dim], nrm[kNear][Dim];
        int near = 0;
        for (int c = 0; c < colliders.count && near < kNear; ++c) {
          const auto& col = colliders.items[c];
          const double dist = col.distance(xi);
          if (!(dist < h)) continue;
          double xs[Dim];
          for (int d = 0; d < Dim; ++d) xs[d] = xi[d] - col.offset[d];
          col.shape.normal(xs, nrm[near]);
          for (int d = 0; d < Dim; ++d) p0[near][d] = xi[d] - dist * nrm[near][d];
          ++near;
        }
        if (near == 0) return;
        // A reflection is an isometry and its own inverse, so the image of x_k across the planes of a
        // subset lies as far from x_i as x_k lies from the image z of x_i across the same planes in
        // reverse order: one image point per subset, and the row's kernel values at z are the density
        // sum's vectorised loop (the neighbours' images one by one took a fifth of a step).
        double s = 0;
        constexpr int kChunk = 128;
        double w[kChunk];
        for (int subset = 1; subset < (1 << near); ++subset) {
          double z[Dim];
          for (int d = 0; d < Dim; ++d) z[d] = xi[d];
          for (int c = near - 1; c >= 0; --c) {
            if (!(subset & (1 << c))) continue;
            double a = 0;
            for (int d = 0; d < Dim; ++d) a += (z[d] - p0[c][d]) * nrm[c][d];
            for (int d = 0; d < Dim; ++d) z[d] -= 2 * a * nrm[c][d];
          }
          double r2 = 0;  // the particle's own image first, then its list
          for (int d = 0; d < Dim; ++d) r2 += (xi[d] - z[d]) * (xi[d] - z[d]);
          s += cubic_spline_w(r2 * inv_h2);
          for (int k = off(i); k < off(i + 1); k += kChunk) {
            const int n = off(i + 1) - k < kChunk ? off(i + 1) - k : kChunk;
            cubic_spline_row<Dim>(&idx(k), n, xt.data(), z, inv_h2, w);
            for (int t = 0; t < n; ++t) s += w[t];
          }
        }
        rho(i, 0) += mass(i, 0) * scale * s;
      });
}

namespace {
// A fluid particle's density, Tait pressure and stress -p I. The rest density of a particle is its
// mass over its nominal volume (so that it follows species fractions), and k_s = rho_bar c0^2 / gamma
// with the particle's own rho_bar.
template <int Dim, class Field>
KOKKOS_INLINE_FUNCTION void set_fluid_pressure(int p, const PhaseMaterial& m, const Field& mass, const Field& vol0,
                                               const Field& rho, const Field& pr, const Field& sig, double density,
                                               bool clamp) {
  rho(p, 0) = density;
  const double rest = mass(p, 0) / vol0(p, 0);
  const double pressure = physics::tait_pressure_from_density(
      density, rest, physics::tait_stiffness(rest, m.sound_speed, m.gamma), m.gamma, clamp);
  pr(p, 0) = pressure;
  for (int a = 0; a < Dim; ++a)
    for (int b = 0; b < Dim; ++b) sig(p, a * Dim + b) = a == b ? -pressure : 0.0;
}
}  // namespace

template <int Dim>
void MultiphaseMpm<Dim>::constitutive(double dt, Phases which) {
  auto t = timers_.scope("constitutive");
  const bool do_fluids = which != Phases::Solids, do_solids = which != Phases::Fluids;
  const int S = stride();
  // The grid velocities of p2g (the SPH density's fluids read none: before the first p2g the array is empty).
  const auto gbox = state_box_;
  grid::NodeArray local = state_;
  auto x = set_.field(f_.x), rho = set_.field(f_.density), sig = set_.field(f_.stress), pr = set_.field(f_.pressure);
  auto mat = set_.material();
  auto mats = materials_;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx;
  const bool gimp = s_.gimp, literal = s_.paper_literal_volumetric, clamp = s_.clamp_negative_pressure;
  auto mass = set_.field(f_.mass), vol0 = set_.field(f_.volume);
  const bool volume_density = !s_.sph_density;
  // (With the averaged SPH density, sph_grid_average, the fluids' pressure is set in the force pass,
  // p2g_forces_scatter, and this visits the solids alone.)
  Kokkos::parallel_for(
      "mp::constitutive", Kokkos::RangePolicy<>(0, set_.size()), KOKKOS_LAMBDA(const int p) {
        const PhaseMaterial& m = mats(mat(p));
        const bool fluid = m.kind == PhaseKind::Fluid;
        if (fluid ? !do_fluids : !do_solids) return;
        double div = 0, jbar = 0, gu[Dim * Dim] = {};
        if (!fluid || volume_density) {
          double xp[Dim];
          for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
          grid::Stencil<Dim> st;
          shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
          const int o = m.group * S;
          // A fluid needs the divergence alone: the diagonal of the velocity gradient, summed as the
          // full gradient's diagonal would be (the same bits, a third of the products). Two loops, not
          // one with a test on `fluid` inside: measured, the single loop changed the solids' last bits.
          if (fluid) {
            grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double* grad, const double*) {
              jbar += w * local(idx, o + 1 + Dim);
              for (int a = 0; a < Dim; ++a) gu[a * Dim + a] += local(idx, o + 1 + a) * grad[a];
            });
          } else {
            grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double* grad, const double*) {
              jbar += w * local(idx, o + 1 + Dim);
              for (int a = 0; a < Dim; ++a)
                for (int b = 0; b < Dim; ++b) gu[a * Dim + b] += local(idx, o + 1 + a) * grad[b];
            });
          }
          for (int a = 0; a < Dim; ++a) div += gu[a * Dim + a];
        }
        if (fluid) {
          // Volume mode: V = V0 J with dJ/dt = J div u (standard weakly compressible MPM), where J is
          // first replaced by its grid average sum_I N_I J_I, J_I = sum_j N_Ij m_j J_j / m_I: a particle
          // pattern of J that exerts no net nodal force (two particle rows per cell squeezed in
          // opposite senses) is invisible to the grid and would otherwise never relax. SPH mode: rho
          // from sph_density().
          if (volume_density) rho(p, 0) = mass(p, 0) / (vol0(p, 0) * jbar * (1.0 + dt * div));
          set_fluid_pressure<Dim>(p, m, mass, vol0, rho, pr, sig, rho(p, 0), clamp);
          return;
        }
        double s[Dim * Dim];
        for (int i = 0; i < Dim * Dim; ++i) s[i] = sig(p, i);
        const physics::HypoelasticModuli mod{m.bulk, m.shear};
        const double tr = physics::jaumann_update<Dim>(mod, gu, dt, literal, s);
        for (int i = 0; i < Dim * Dim; ++i) sig(p, i) = s[i];
        // Solid volume follows the velocity divergence: rho <- rho / (1 + dt tr(eps_dot)).
        rho(p, 0) = rho(p, 0) / (1.0 + dt * tr);
        double mean = 0;
        for (int a = 0; a < Dim; ++a) mean += s[a * Dim + a];
        pr(p, 0) = -mean / Dim;
      });
}

template <int Dim>
void MultiphaseMpm<Dim>::p2g_forces(Phases which) {
  auto t = timers_.scope("p2g_forces");
  const auto box = force_node_box(which);
  grid::NodeArray local = forces_->acquire_active(box);
  grid::scatter_into(local, [&](auto& scatter) { p2g_forces_scatter(scatter, box, which); }, &force_scatter_cache_);
  forces_->sum_active_in_place();
  forces_in_vec_ = true;
}

template <int Dim>
template <class Scatter>
void MultiphaseMpm<Dim>::p2g_forces_scatter(Scatter& scatter, const grid::NodeBox<Dim>& box, Phases which) {
  const bool do_fluids = which != Phases::Solids, do_solids = which != Phases::Fluids;
  const int S = stride();
  const auto gbox = box;
  auto x = set_.field(f_.x), mass = set_.field(f_.mass), rho = set_.field(f_.density), sig = set_.field(f_.stress);
  auto mat = set_.material();
  auto mats = materials_;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx;
  const bool gimp = s_.gimp;
  auto temp = set_.field(f_.temperature);
  const double beta_t = s_.thermal_buoyancy, t_amb = s_.ambient_temperature;
  // With the averaged SPH density the fluids' pressure is found here rather than in constitutive():
  // one stencil for the gather of the averaged ratio (state_, whose box differs) and the scatter.
  const bool averaged = s_.sph_density && s_.sph_grid_average, clamp = s_.clamp_negative_pressure;
  grid::NodeArray state = state_;
  const auto sbox = state_box_;
  auto vol0 = set_.field(f_.volume), pr = set_.field(f_.pressure);
  Kokkos::parallel_for(
      "mp::p2g_forces", Kokkos::RangePolicy<>(0, set_.size()), KOKKOS_LAMBDA(const int p) {
        const PhaseMaterial& mt = mats(mat(p));
        const bool fluid = mt.kind == PhaseKind::Fluid;
        if (fluid ? !do_fluids : !do_solids) return;
        double xp[Dim], s[Dim * Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        grid::Stencil<Dim> st;
        shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
        if (fluid && averaged) {
          // The grid average of the density ratios (sph_grid_average, the volume density's J_bar for
          // the SPH density). With one Tait pressure per particle and 8 particles per velocity node,
          // patterns of the particles' pressures exert no net nodal force (volumetric locking): a ball
          // sinking into water stopped where the pool's layer pressures had locked (2:3 ball at 0.56 of
          // its volume submerged, docs/theory-mpm-multiphase.md). The first layer under a free surface
          // reads low (it misses the neighbours above) and counted as at rest in p2g_scatter, or the
          // average would carry its deficit a cell down and the top layers would collapse.
          double jbar = 0;
          const int og = mt.group * S;
          grid::for_each_support_node<Dim>(st, sbox, lower, dx, xp, [&](long idx, double w, const double*, const double*) {
            jbar += w * state(idx, og + 1 + Dim);
          });
          set_fluid_pressure<Dim>(p, mt, mass, vol0, rho, pr, sig, mass(p, 0) / vol0(p, 0) * jbar, clamp);
        }
        const double V = mass(p, 0) / rho(p, 0);  // current volume (eq. 15/19)
        for (int i = 0; i < Dim * Dim; ++i) s[i] = V * sig(p, i);
        // Buoyancy body force m b_j along +y (the b_j of eq. 15), b_j = beta_T (T_j - T_amb).
        const double lift = mass(p, 0) * beta_t * (temp(p, 0) - t_amb);
        const int o = mats(mat(p)).group * Dim;  // the force array's layout: Dim per group
        auto acc = scatter.access();
        grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double* grad, const double*) {
          for (int a = 0; a < Dim; ++a) {
            const double f = stress_force<Dim>(s, grad, a, fluid);
            acc(idx, o + a) += a == 1 ? f + w * lift : f;
          }
        });
      });
}

// Every rank's state_box_ (one small all-gather per step; skipped on one rank, where every node of
// the box is owned).
template <int Dim>
void MultiphaseMpm<Dim>::gather_rank_boxes() {
  if (decomp_->size() == 1) return;
  int mine[2 * Dim];
  for (int d = 0; d < Dim; ++d) {
    mine[d] = state_box_.lo[d];
    mine[Dim + d] = state_box_.n[d];
  }
  rank_boxes_host_.resize(2 * Dim * decomp_->size());
  MPI_Allgather(mine, 2 * Dim, MPI_INT, rank_boxes_host_.data(), 2 * Dim, MPI_INT, comm_);
  if (rank_boxes_.extent(0) != rank_boxes_host_.size())
    rank_boxes_ = Kokkos::View<int*>("mp::rank_boxes", rank_boxes_host_.size());
  Kokkos::deep_copy(rank_boxes_, Kokkos::View<const int*, Kokkos::HostSpace>(rank_boxes_host_.data(),
                                                                             rank_boxes_host_.size()));
}

template <int Dim>
void MultiphaseMpm<Dim>::grid_update(double dt, bool with_forces) {
  auto t = timers_.scope("grid_update");
  const int S = stride(), G = table_.groups;
  // Every node of the box is updated where it is (ghost nodes hold the owners' sums bit for bit, so
  // every rank that holds a node applies the same contacts there). Each node's contacts are counted
  // once: by its owner where the owner's box holds it, else (an owned node that only other ranks'
  // particles reach) by the lowest rank whose box holds it (rank_boxes_).
  const auto box = state_box_, obox = grid_->owned_box();
  const int me = decomp_->rank();
  auto boxes = rank_boxes_;
  const auto owners = decomp_->owner_map();
  grid::NodeArray a = state_;
  // Forces of the separate force pass: over its own (smaller) box.
  const auto fbox = forces_->active_box();
  grid::NodeArray fa = forces_->active();
  double lower[Dim], grav[Dim];
  for (int d = 0; d < Dim; ++d) {
    lower[d] = decomp_->lower()[d];
    grav[d] = with_forces ? s_.gravity[d] : 0.0;
  }
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx;
  const auto colliders = colliders_.at_time(time_);
  auto shares = shares_force_;
  const ContactMode mode = s_.contact;
  auto beta = beta_;
  auto rest = group_rest_;
  const double fill_volume = s_.contact_fill * std::pow(dx, Dim);
  const double separation = s_.contact_separation * dx;
  // Internal forces: from the force pass (forces_) and/or from the fused P2G (in state_).
  const bool vec_forces = forces_in_vec_, state_forces = forces_in_state_;
  long contacts = 0;
  Kokkos::parallel_reduce(
      "mp::grid_update", Kokkos::RangePolicy<>(0, box.size()),
      KOKKOS_LAMBDA(const long i, long& ncontact) {
        int node[Dim];
        box.node(i, node);
        bool owned = true, in_fbox = vec_forces;
        for (int d = 0; d < Dim; ++d) {
          owned = owned && node[d] >= obox.lo[d] && node[d] < obox.lo[d] + obox.n[d];
          in_fbox = in_fbox && node[d] >= fbox.lo[d] && node[d] < fbox.lo[d] + fbox.n[d];
        }
        const long fi_node = in_fbox ? fbox.index(node) : 0;
        double m[kMaxGroups], u[kMaxGroups * Dim], un[kMaxGroups * Dim], gr[kMaxGroups * Dim], f[kMaxGroups * Dim];
        double mt = 0, ft[Dim] = {};
        for (int g = 0; g < G; ++g) {
          m[g] = a(i, g * S);
          for (int d = 0; d < Dim; ++d) {
            u[g * Dim + d] = a(i, g * S + 1 + d);
            gr[g * Dim + d] = a(i, g * S + 1 + 2 * Dim + d);
            const double fi = (in_fbox ? fa(fi_node, g * Dim + d) : 0.0) +
                              (state_forces ? a(i, g * S + 1 + Dim + d) : 0.0);
            f[g * Dim + d] = with_forces ? fi + m[g] * grav[d] : 0.0;
            if (shares(g)) ft[d] += f[g * Dim + d];
          }
          if (shares(g)) mt += m[g];
        }
        // Predicted velocities (eq. 20 as a shared force: every sharing group present gets f_tot / m_tot
        // of the sharing groups).
        for (int g = 0; g < G; ++g)
          for (int d = 0; d < Dim; ++d) {
            const double acc = m[g] > 0 ? (shares(g) ? ft[d] / mt : f[g * Dim + d] / m[g]) : 0.0;
            un[g * Dim + d] = u[g * Dim + d] + dt * acc;
          }
        for (int g = 0; g < G; ++g) floor_mass_gradient<Dim>(gr + g * Dim, m[g], inv_dx);
        double vol[kMaxGroups], centre[kMaxGroups * Dim];
        if (fill_volume > 0)
          for (int g = 0; g < G; ++g) vol[g] = m[g] / rest(g);
        if (separation > 0)
          for (int g = 0; g < G; ++g)
            for (int d = 0; d < Dim; ++d) centre[g * Dim + d] = a(i, g * S + 1 + 3 * Dim + d);
        const int applied = apply_contact<Dim>(G, m, gr, un, beta.data(), mode, fill_volume > 0 ? vol : nullptr, fill_volume,
                                               separation > 0 ? centre : nullptr, separation);
        bool counted = owned;
        if (applied > 0 && !owned) {
          // In the box of rank r (rank_boxes_ layout: lo, n per axis).
          auto holds = [&](int r) {
            bool in = true;
            for (int d = 0; d < Dim; ++d) {
              const int lo = boxes(2 * Dim * r + d), n = boxes(2 * Dim * r + Dim + d);
              in = in && node[d] >= lo && node[d] < lo + n;
            }
            return in;
          };
          int owner = 0, stride = 1;
          for (int d = 0; d < Dim; ++d) {
            owner += stride * owners.coordinate(d, node[d]);
            stride *= owners.procs[d];
          }
          bool counts = !holds(owner);
          for (int r = 0; counts && r < me; ++r) counts = !holds(r);
          counted = counts;
        }
        // A node count in every mode: pairwise applies one impulse per approaching pair, each_vs_rest
        // one per group against the rest (two for the same collision of two groups), so counting
        // impulses would make the modes disagree where their velocities agree.
        if (counted && applied > 0) ++ncontact;
        double xi[Dim];
        for (int d = 0; d < Dim; ++d) xi[d] = lower[d] + node[d] * dx;
        for (int g = 0; g < G; ++g) {
          if (m[g] > 0) colliders.apply(xi, un + g * Dim);
          a(i, g * S) = m[g];
          for (int d = 0; d < Dim; ++d) {
            const double v = m[g] > 0 ? un[g * Dim + d] : 0.0;
            a(i, g * S + 1 + d) = v;
            // The FLIP increment is the whole grid change, after contact and walls (not f/m).
            a(i, g * S + 1 + Dim + d) = m[g] > 0 ? (v - u[g * Dim + d]) / dt : 0.0;
            a(i, g * S + 1 + 2 * Dim + d) = gr[g * Dim + d];
          }
        }
      },
      contacts);
  contacts_ = contacts;
}

template <int Dim>
void MultiphaseMpm<Dim>::g2p(double dt) {
  auto t = timers_.scope("g2p");
  const int S = stride();
  const auto gbox = state_box_;
  grid::NodeArray local = state_;
  auto x = set_.field(f_.x), v = set_.field(f_.v), vol0 = set_.field(f_.volume);
  auto mat = set_.material();
  auto mats = materials_;
  auto ids = set_.id();
  const auto colliders = colliders_.at_time(time_ + dt);
  const int G = table_.groups;
  auto solid_group = solid_rest_;
  const bool separate = s_.separate_fluid_from_solids && has_solids_;  // no solid group: nothing to leave
  double lower[Dim], lo_clamp[Dim], hi_clamp[Dim];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx;
  for (int d = 0; d < Dim; ++d) {
    lower[d] = decomp_->lower()[d];
    lo_clamp[d] = decomp_->lower()[d] + dx;  // every stencil stays inside the grid
    hi_clamp[d] = decomp_->upper()[d] - dx;
  }
  const bool gimp = s_.gimp;
  const double vref = ref_volume_, half_ref = ref_half_width_;
  auto nodes = group_nodes_;
  Kokkos::View<int64_t*> bad("mp_bad_particle", 1);
  Kokkos::deep_copy(bad, -1);
  Kokkos::parallel_for(
      "mp::g2p", Kokkos::RangePolicy<>(0, set_.size()), KOKKOS_LAMBDA(const int p) {
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        grid::Stencil<Dim> st;
        shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
        const PhaseMaterial& m = mats(mat(p));
        const int o = m.group * S;
        double vpic[Dim] = {}, acc[Dim] = {};
        // The volumes and solid normal of the separation below are gathered in the same stencil pass,
        // where a solid group's particles (on any rank) may reach a node of the stencil (elsewhere the
        // solid volume is exactly 0 and the check cannot fire).
        bool check = false;
        if (separate && m.kind == PhaseKind::Fluid)
          for (int g = 0; g < G; ++g) check = check || (solid_group(g) > 0 && stencil_meets_group<Dim>(st.base, nodes, g));
        // The grid masses of the separation below are gathered in the same stencil pass and turned into
        // volumes once per particle; the solids' normal needs a second pass only where it is used.
        double mf = 0, ms[kMaxGroups] = {};
        grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double*, const double*) {
          for (int a = 0; a < Dim; ++a) {
            vpic[a] += w * local(idx, o + 1 + a);
            acc[a] += w * local(idx, o + 1 + Dim + a);
          }
          if (check) {
            mf += w * local(idx, o);
            for (int g = 0; g < G; ++g)
              if (solid_group(g) > 0) ms[g] += w * local(idx, g * S);
          }
        });
        // Eqs. (8)-(10): PIC from the final grid velocity, FLIP from the whole grid increment.
        double vn[Dim], xn[Dim];
        for (int d = 0; d < Dim; ++d) {
          vn[d] = m.alpha_pic * vpic[d] + (1.0 - m.alpha_pic) * (v(p, d) + dt * acc[d]);
          if (!kmath::isfinite(vn[d])) bad(0) = ids(p);
          xn[d] = xp[d] + dt * vn[d];
        }
        // A fluid particle where the solid groups' volume (grid mass over rest density) outweighs its
        // own group's has entered a solid body below the grid's resolution, where the mass-gradient
        // normals of the contact are undefined: it is moved a quarter cell per step along the solids'
        // outward normal (position only, so momentum is untouched) until it is out.
        if (check) {
          double vs = 0;
          for (int g = 0; g < G; ++g)
            if (solid_group(g) > 0) vs += ms[g] / solid_group(g);
          if (vs > mf / m.rest_density) {
            double gs[Dim] = {};
            grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double*, const double*) {
              for (int g = 0; g < G; ++g) {
                if (solid_group(g) <= 0) continue;
                for (int d = 0; d < Dim; ++d) gs[d] += w * local(idx, g * S + 1 + 2 * Dim + d);
              }
            });
            double len = 0;
            for (int d = 0; d < Dim; ++d) len += gs[d] * gs[d];
            len = kmath::sqrt(len);
            if (len > 0)
              for (int d = 0; d < Dim; ++d) xn[d] += 0.25 * dx * gs[d] / len;
          }
        }
        // The particle's GIMP box (half a particle spacing) stays outside every wall and collider.
        const double half = vol0(p, 0) == vref ? half_ref : 0.5 * kmath::pow(vol0(p, 0), 1.0 / Dim);
        keep_particle_outside<Dim>(colliders, half, xn, vn);
        for (int d = 0; d < Dim; ++d) {
          v(p, d) = vn[d];
          x(p, d) = xn[d] < lo_clamp[d] ? lo_clamp[d] : (xn[d] > hi_clamp[d] ? hi_clamp[d] : xn[d]);
        }
      });
  auto bad_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bad);
  long bad_local = bad_h(0), bad_any = -1;
  MPI_Allreduce(&bad_local, &bad_any, 1, MPI_LONG, MPI_MAX, comm_);
  if (bad_any >= 0)
    throw RuntimeError(log::format("non-finite velocity at particle %ld after step %ld: the run is unstable "
                                   "(reduce mpm_multiphase.cfl or dt_max)",
                                   bad_any, steps_ + 1));
}

// Weak-form species diffusion (Yan et al. 2018 eq. 27; their eq. 28 normalises the gradient, so the
// flux would not scale with the concentration difference and is undefined where alpha is uniform).
// Per group g and species k of g, with nominal particle volumes V0:
//   V_I = sum_j V0_j N_Ij,  alpha_I = sum_j V0_j alpha_j N_Ij / V_I,  grad alpha_j = sum_I alpha_I grad N_Ij,
//   V_I dalpha_I/dt = -k_d sum_j V0_j grad alpha_j . grad N_Ij,  dalpha_j = dt sum_I N_Ij dalpha_I/dt.
// Since sum_I grad N_Ij = 0, sum_j V0_j dalpha_j = 0 exactly: each species' volume is conserved to
// round-off. The fractions are not clamped (clamping would break that); mass m = V0 sum_k alpha^k
// rho_bar^k follows, and the density is rescaled with the mass (volume unchanged).
template <int Dim>
void MultiphaseMpm<Dim>::diffuse_species(double dt) {
  auto t = timers_.scope("diffusion");
  const int G = table_.groups, K = static_cast<int>(table_.materials.size());
  const auto gbox = grid_->ghost_box();
  auto x = set_.field(f_.x), vol0 = set_.field(f_.volume), alpha = set_.field(f_.fractions);
  auto mass = set_.field(f_.mass), rho = set_.field(f_.density);
  auto mat = set_.material();
  auto mats = materials_;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx, kd = s_.diffusivity;
  const bool gimp = s_.gimp;
  const long n = static_cast<long>(set_.size());
  // Volume-weighted nodal fractions: slot g holds V_I of group g, slot G + k holds alpha_I^k.
  {
    grid::NodeArray local = grid_->acquire_local(true);
    auto scatter = Kokkos::Experimental::create_scatter_view(local);
    Kokkos::parallel_for(
        "mp::species_p2g", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
          double xp[Dim];
          for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
          grid::Stencil<Dim> st;
          shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
          const int g = mats(mat(p)).group;
          const double V = vol0(p, 0);
          auto acc = scatter.access();
          grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double*, const double*) {
            acc(idx, g) += w * V;
            for (int k = 0; k < K; ++k)
              if (mats(k).group == g) acc(idx, G + k) += w * V * alpha(p, k);
          });
        });
    Kokkos::Experimental::contribute(local, scatter);
    grid_->release_local(local);
    sum_and_divide_by_group_volume(*grid_, mats, G, K, "mp::species_nodal");
  }
  // Particle gradients and the weak-form rate V_I dalpha_I/dt (the volumes are gathered again).
  Kokkos::View<double**, Kokkos::LayoutRight> nodal("mp_species_nodes", gbox.size(), G + K);
  {
    grid::NodeArray local = grid_->acquire_local(false);
    Kokkos::deep_copy(nodal, Kokkos::subview(local, Kokkos::ALL, std::make_pair(0, G + K)));
    grid_->release_local(local);
  }
  {
    grid::NodeArray local = grid_->acquire_local(true);
    auto scatter = Kokkos::Experimental::create_scatter_view(local);
    Kokkos::parallel_for(
        "mp::species_rate", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
          double xp[Dim];
          for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
          grid::Stencil<Dim> st;
          shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
          const int g = mats(mat(p)).group;
          const double V = vol0(p, 0);
          auto acc = scatter.access();
          for (int k = 0; k < K; ++k) {
            if (mats(k).group != g || mats(k).kind != PhaseKind::Fluid) continue;
            double ga[Dim] = {};
            grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double, const double* grad, const double*) {
              for (int d = 0; d < Dim; ++d) ga[d] += nodal(idx, G + k) * grad[d];
            });
            grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double, const double* grad, const double*) {
              double dot = 0;
              for (int d = 0; d < Dim; ++d) dot += ga[d] * grad[d];
              acc(idx, G + k) += -kd * V * dot;
            });
          }
          grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double*, const double*) {
            acc(idx, g) += w * V;
          });
        });
    Kokkos::Experimental::contribute(local, scatter);
    grid_->release_local(local);
    sum_and_divide_by_group_volume(*grid_, mats, G, K, "mp::species_nodal_rate");
  }
  // G2P of the rates; mass and density follow the fractions.
  grid::NodeArray local = grid_->acquire_local(false);
  Kokkos::parallel_for(
      "mp::species_g2p", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        grid::Stencil<Dim> st;
        shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
        const int g = mats(mat(p)).group;
        double m = 0;
        for (int k = 0; k < K; ++k) {
          if (mats(k).group == g && mats(k).kind == PhaseKind::Fluid) {
            double rate = 0;
            grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double*, const double*) {
              rate += w * local(idx, G + k);
            });
            alpha(p, k) += dt * rate;
          }
          m += alpha(p, k) * mats(k).rest_density;
        }
        m *= vol0(p, 0);
        rho(p, 0) *= m / mass(p, 0);
        mass(p, 0) = m;
      });
  grid_->release_local(local);
}

// Temperature diffusion for the smoke scene (Yan et al. 2018, case 4, name the effect; the operator is
// that of the species, eq. 27, in the weak form of diffuse_species): with V_I = sum_j V0_j N_Ij and
// T_I = sum_j V0_j T_j N_Ij / V_I over all particles of every group,
//   grad T_j = sum_I T_I grad N_Ij,  V_I dT_I/dt = -k_T sum_j V0_j grad T_j . grad N_Ij,
//   dT_j = dt sum_I N_Ij dT_I/dt.
// Since sum_I grad N_Ij = 0, sum_j V0_j dT_j = 0: the heat content (equal heat capacity per volume) is
// conserved to round-off. Grid slots: 0 V_I, 1 V_I T_I, then T_I, then V_I dT_I/dt.
template <int Dim>
void MultiphaseMpm<Dim>::diffuse_temperature(double dt) {
  auto t = timers_.scope("diffusion");
  const auto gbox = grid_->ghost_box();
  auto x = set_.field(f_.x), vol0 = set_.field(f_.volume), temp = set_.field(f_.temperature);
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx, kt = s_.thermal_diffusivity;
  const bool gimp = s_.gimp;
  const long n = static_cast<long>(set_.size());
  {
    grid::NodeArray local = grid_->acquire_local(true);
    auto scatter = Kokkos::Experimental::create_scatter_view(local);
    Kokkos::parallel_for(
        "mp::heat_p2g", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
          double xp[Dim];
          for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
          grid::Stencil<Dim> st;
          shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
          const double V = vol0(p, 0), VT = V * temp(p, 0);
          auto acc = scatter.access();
          grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double*, const double*) {
            acc(idx, 0) += w * V;
            acc(idx, 1) += w * VT;
          });
        });
    Kokkos::Experimental::contribute(local, scatter);
    grid_->release_local(local);
    divide_slot1_by_slot0(*grid_, "mp::heat_nodal");
  }
  Kokkos::View<double*> nodal("mp_heat_nodes", gbox.size());
  {
    grid::NodeArray local = grid_->acquire_local(false);
    Kokkos::parallel_for(
        "mp::heat_copy", Kokkos::RangePolicy<>(0, gbox.size()), KOKKOS_LAMBDA(const long i) { nodal(i) = local(i, 1); });
    grid_->release_local(local);
  }
  // Weak-form rate V_I dT_I/dt in slot 1 (the volumes gathered again in slot 0), then divided by V_I.
  {
    grid::NodeArray local = grid_->acquire_local(true);
    auto scatter = Kokkos::Experimental::create_scatter_view(local);
    Kokkos::parallel_for(
        "mp::heat_rate", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
          double xp[Dim];
          for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
          grid::Stencil<Dim> st;
          shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
          const double V = vol0(p, 0);
          double gt[Dim] = {};
          grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double, const double* grad, const double*) {
            for (int d = 0; d < Dim; ++d) gt[d] += nodal(idx) * grad[d];
          });
          auto acc = scatter.access();
          grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double* grad, const double*) {
            double dot = 0;
            for (int d = 0; d < Dim; ++d) dot += gt[d] * grad[d];
            acc(idx, 0) += w * V;
            acc(idx, 1) += -kt * V * dot;
          });
        });
    Kokkos::Experimental::contribute(local, scatter);
    grid_->release_local(local);
    divide_slot1_by_slot0(*grid_, "mp::heat_nodal_rate");
  }
  grid::NodeArray local = grid_->acquire_local(false);
  Kokkos::parallel_for(
      "mp::heat_g2p", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        grid::Stencil<Dim> st;
        shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
        double rate = 0;
        grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double*, const double*) {
          rate += w * local(idx, 1);
        });
        temp(p, 0) += dt * rate;
      });
  grid_->release_local(local);
}

template <int Dim>
double MultiphaseMpm<Dim>::heat_content() {
  auto vol0 = set_.field(f_.volume), temp = set_.field(f_.temperature);
  double s = 0;
  Kokkos::parallel_reduce(
      "mp::heat_content", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, double& acc) { acc += vol0(p, 0) * temp(p, 0); }, s);
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return s;
}

// Dissolution (Yan et al. 2018, section 4.3). alpha^s (the fraction column of the solid material s)
// is the dissolved-solid volume fraction C on fluid particles and the remaining solid fraction on
// solid particles. At nodes where the solid group and the fluid group both have mass:
//   C_I = sum_{j in f} m_j alpha^s_j N_Ij / m^f_I (eq. 30),  dC_I = kappa (C_s - C_I) dt (eq. 31),
//   paper (eq. 32):   fluid dalpha^s_j = sum_I m^s_I/(m^s_I+m^f_I) dC_I N_Ij,
//                     solid dalpha^s_j = -sum_I m^f_I/(m^s_I+m^f_I) dC_I N_Ij;
//   conservative:     dV_I = V^f_I m^s_I/(m^s_I+m^f_I) dC_I with V^g_I = sum_{j in g} V0_j N_Ij; fluid
//                     particles gain sum_I dV_I N_Ij / V^f_I, solid particles lose sum_I dV_I N_Ij / V^s_I,
//                     so sum_j V0_j alpha^s_j is conserved exactly (the two coincide for equal densities
//                     and particle volumes).
// The particle's fraction of its own carrier (fluid f, or for a solid particle the fluid that has
// replaced it) takes the opposite change, mass follows the fractions, and a solid particle whose
// alpha^s reaches C_s becomes a particle of the fluid material (stress dropped, velocity kept).
template <int Dim>
void MultiphaseMpm<Dim>::dissolve(double dt) {
  auto t = timers_.scope("dissolution");
  const int sm = dissolve_solid_, fm = dissolve_into_;
  const int gs = table_.materials[sm].group, gf = table_.materials[fm].group;
  const double ddt = s_.dissolution_rate_per_step ? 1.0 : dt, kappa = s_.dissolution_rate, cs = s_.saturation;
  const bool conservative = s_.dissolution_conservative;
  const auto gbox = grid_->ghost_box();
  auto x = set_.field(f_.x), vol0 = set_.field(f_.volume), alpha = set_.field(f_.fractions);
  auto mass = set_.field(f_.mass), rho = set_.field(f_.density), sig = set_.field(f_.stress);
  auto mat = set_.material();
  auto mats = materials_;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx;
  const bool gimp = s_.gimp;
  const long n = static_cast<long>(set_.size());
  const int K = static_cast<int>(table_.materials.size());
  // Slots: 0 m^s, 1 m^f, 2 sum m alpha^s (fluid), 3 V^s, 4 V^f.
  {
    grid::NodeArray local = grid_->acquire_local(true);
    auto scatter = Kokkos::Experimental::create_scatter_view(local);
    Kokkos::parallel_for(
        "mp::dissolve_p2g", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
          const int g = mats(mat(p)).group;
          if (g != gs && g != gf) return;
          double xp[Dim];
          for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
          grid::Stencil<Dim> st;
          shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
          const bool fluid = g == gf;
          const double mp = mass(p, 0), V = vol0(p, 0), c = alpha(p, sm);
          auto acc = scatter.access();
          grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double*, const double*) {
            acc(idx, fluid ? 1 : 0) += w * mp;
            acc(idx, fluid ? 4 : 3) += w * V;
            if (fluid) acc(idx, 2) += w * mp * c;
          });
        });
    Kokkos::Experimental::contribute(local, scatter);
    grid_->release_local(local);
    grid_->local_to_global_add();
  }
  // Per node: slot 0 the fluid particles' gain factor, slot 1 the solid particles' loss factor.
  grid::NodeArray a = grid_->acquire_owned();
  Kokkos::parallel_for(
      "mp::dissolve_nodes", Kokkos::RangePolicy<>(0, a.extent(0)), KOKKOS_LAMBDA(const long i) {
        const double ms = a(i, 0), mf = a(i, 1), Vs = a(i, 3), Vf = a(i, 4);
        double gain = 0, loss = 0;
        if (ms > 0 && mf > 0) {
          const double c = a(i, 2) / mf, dc = kappa * (cs - c) * ddt;
          if (conservative) {
            const double dV = Vf * ms / (ms + mf) * dc;
            gain = dV / Vf;
            loss = dV / Vs;
          } else {
            gain = ms / (ms + mf) * dc;
            loss = mf / (ms + mf) * dc;
          }
        }
        a(i, 0) = gain;
        a(i, 1) = loss;
      });
  grid_->release_owned(a);
  grid_->global_to_local();
  grid::NodeArray local = grid_->acquire_local(false);
  Kokkos::View<long> relabel("mp_relabelled");
  Kokkos::parallel_for(
      "mp::dissolve_g2p", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        const int g = mats(mat(p)).group;
        if (g != gs && g != gf) return;
        if (g == gs && mat(p) != sm) return;
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        grid::Stencil<Dim> st;
        shape_stencil<Dim>(gimp, st, xp, lower, inv_dx);
        const bool fluid = g == gf;
        double da = 0;
        grid::for_each_support_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double*, const double*) {
          da += w * (fluid ? local(idx, 0) : -local(idx, 1));
        });
        alpha(p, sm) += da;
        alpha(p, fm) -= da;
        double m = 0;
        for (int k = 0; k < K; ++k) m += alpha(p, k) * mats(k).rest_density;
        m *= vol0(p, 0);
        rho(p, 0) *= m / mass(p, 0);
        mass(p, 0) = m;
        if (!fluid && alpha(p, sm) <= cs) {
          mat(p) = fm;
          for (int i = 0; i < Dim * Dim; ++i) sig(p, i) = 0;
          rho(p, 0) = m / vol0(p, 0);
          Kokkos::atomic_increment(&relabel());
        }
      });
  grid_->release_local(local);
  long r = 0;
  Kokkos::deep_copy(r, relabel);
  MPI_Allreduce(MPI_IN_PLACE, &r, 1, MPI_LONG, MPI_SUM, comm_);
  relabelled_ += r;
  if (r > 0) sph_valid_ = false;  // new fluid rows have no SPH neighbour list
}

template <int Dim>
std::vector<double> MultiphaseMpm<Dim>::species_volumes() {
  const int K = static_cast<int>(table_.materials.size());
  std::vector<double> out(K, 0);
  auto vol0 = set_.field(f_.volume), alpha = set_.field(f_.fractions);
  for (int k = 0; k < K; ++k) {
    double s = 0;
    Kokkos::parallel_reduce(
        "mp::species_volume", Kokkos::RangePolicy<>(0, set_.size()),
        KOKKOS_LAMBDA(const int p, double& acc) { acc += vol0(p, 0) * alpha(p, k); }, s);
    out[k] = s;
  }
  MPI_Allreduce(MPI_IN_PLACE, out.data(), K, MPI_DOUBLE, MPI_SUM, comm_);
  return out;
}

template <int Dim>
void MultiphaseMpm<Dim>::step(double dt) {
  if (s_.diffusivity > 0 && has_miscible_group()) diffuse_species(dt);
  if (dissolve_solid_ >= 0 && s_.dissolution_rate > 0) dissolve(dt);
  emit();
  if (s_.thermal_diffusivity > 0) diffuse_temperature(dt);
  if (s_.sph_density && s_.sph_grid_average) {
    // The fluids' pressure needs the grid average of their SPH density ratio, scattered with the
    // momentum: the fluids' pressure is then found in the force pass (p2g_forces_scatter).
    sph_density();
    p2g_momentum();
    if (has_solids_) constitutive(dt, Phases::Solids);
    p2g_forces();
  } else if (s_.sph_density) {
    // The fluids' stress needs only their SPH density, so their forces join the momentum pass and the
    // force pass visits the solids alone (skipped when the deck has none).
    sph_density();
    constitutive(dt, Phases::Fluids);
    p2g(true);
    if (has_solids_) {
      constitutive(dt, Phases::Solids);
      p2g_forces(Phases::Solids);
    }
  } else {
    p2g_momentum();
    constitutive(dt);
    p2g_forces();
  }
  grid_update(dt, true);
  g2p(dt);
  {
    auto t = timers_.scope("migrate");
    particles::migrate<Dim>(set_, *decomp_, f_.x);
  }
  ++steps_;
  time_ += dt;
  if (s_.sort_every > 0 && steps_ % s_.sort_every == 0) {
    // With the SPH density a sort reorders the rows, which forces a list rebuild: it waits for the next
    // rebuild instead (until then no row has moved half a skin, so the order is still the sorted one).
    if (s_.sph_density) {
      sort_pending_ = true;
    } else {
      auto t = timers_.scope("sort");
      particles::sort_by_cell<Dim>(set_, *decomp_, f_.x);
    }
  }
}

namespace {
// Per particle: its mass and momentum in its group's slots (kMaxGroups x (1 + Dim), the others 0) and
// its kinetic energy last.
template <int Dim>
struct GroupTerms {
  static constexpr int count = kMaxGroups * (1 + Dim) + 1;
  particles::RealField m, v;
  particles::IntField mat;
  Kokkos::View<const PhaseMaterial*> mats;
  KOKKOS_INLINE_FUNCTION void operator()(const long p, double* t) const {
    for (int k = 0; k < count; ++k) t[k] = 0;
    const int g = mats(mat(p)).group;
    double s = 0;
    t[g * (1 + Dim)] = m(p, 0);
    for (int d = 0; d < Dim; ++d) {
      t[g * (1 + Dim) + 1 + d] = m(p, 0) * v(p, d);
      s += v(p, d) * v(p, d);
    }
    t[count - 1] = 0.5 * m(p, 0) * s;
  }
};
}  // namespace

template <int Dim>
void MultiphaseMpm<Dim>::group_totals(std::vector<double>& mass, std::vector<double>& momentum, double* kinetic) {
  // Exact sums of the per-particle terms (reproducible_sum, Demmel & Nguyen 2013): the same particles
  // give the same bits at any rank or thread count.
  using Terms = GroupTerms<Dim>;
  double all[Terms::count];
  reproducible_sum(comm_, static_cast<long>(set_.size()),
                   Terms{set_.field(f_.mass), set_.field(f_.v), set_.material(), materials_}, all, "mp::group_totals");
  const int G = table_.groups;
  mass.assign(G, 0);
  momentum.assign(G * Dim, 0);
  for (int g = 0; g < G; ++g) {
    mass[g] = all[g * (1 + Dim)];
    for (int d = 0; d < Dim; ++d) momentum[g * Dim + d] = all[g * (1 + Dim) + 1 + d];
  }
  if (kinetic) *kinetic = all[Terms::count - 1];
}

template <int Dim>
void MultiphaseMpm<Dim>::diagnostics(DiagnosticRow& row) {
  std::vector<double> mass, mom;
  double ke = 0;
  group_totals(mass, mom, &ke);
  auto m = set_.field(f_.mass), rho = set_.field(f_.density), pr = set_.field(f_.pressure);
  auto vol0 = set_.field(f_.volume);
  auto mat = set_.material();
  auto mats = materials_;
  double pmax = 0, rho_ratio = 0;
  Kokkos::parallel_reduce(
      "mp::diag", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, double& pm, double& rr) {
        pm = pr(p, 0) > pm ? pr(p, 0) : pm;
        const PhaseMaterial& mt = mats(mat(p));
        if (mt.kind == PhaseKind::Fluid) {
          const double r = rho(p, 0) * vol0(p, 0) / m(p, 0);
          rr = r > rr ? r : rr;
        }
      },
      Kokkos::Max<double>(pmax), Kokkos::Max<double>(rho_ratio));
  MPI_Allreduce(MPI_IN_PLACE, &pmax, 1, MPI_DOUBLE, MPI_MAX, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &rho_ratio, 1, MPI_DOUBLE, MPI_MAX, comm_);
  long contacts = contacts_;
  MPI_Allreduce(MPI_IN_PLACE, &contacts, 1, MPI_LONG, MPI_SUM, comm_);
  double total = 0, p[3] = {0, 0, 0};
  for (int g = 0; g < table_.groups; ++g) {
    total += mass[g];
    for (int d = 0; d < Dim; ++d) p[d] += mom[g * Dim + d];
  }
  const char* axis[3] = {"x", "y", "z"};
  row.emplace_back("particles", static_cast<double>(global_particle_count()));
  row.emplace_back("mass", total);
  for (int d = 0; d < Dim; ++d) row.emplace_back(std::string("momentum_") + axis[d], p[d]);
  row.emplace_back("kinetic_energy", ke);
  row.emplace_back("max_pressure", pmax);
  row.emplace_back("max_density_ratio", rho_ratio);
  row.emplace_back("contact_impulses", static_cast<double>(contacts));
  for (int g = 0; g < table_.groups; ++g) row.emplace_back("mass_group" + std::to_string(g), mass[g]);
}

template <int Dim>
long MultiphaseMpm<Dim>::global_particle_count() {
  long n = static_cast<long>(set_.size()), total = 0;
  MPI_Allreduce(&n, &total, 1, MPI_LONG, MPI_SUM, comm_);
  return total;
}

template <int Dim>
std::vector<std::pair<std::string, double>> MultiphaseMpm<Dim>::state() {
  return {{"steps", static_cast<double>(steps_)},
          {"time", time_},
          {"relabelled", static_cast<double>(relabelled_)},
          {"emitted_layers", static_cast<double>(emitted_layers_)},
          {"next_id", static_cast<double>(next_id_)},
          {"sort_pending", sort_pending_ ? 1.0 : 0.0}};
}

template <int Dim>
void MultiphaseMpm<Dim>::restore_state(const std::vector<std::pair<std::string, double>>& state) {
  for (const auto& [k, v] : state) {
    if (k == "steps") steps_ = static_cast<long>(v);
    if (k == "time") time_ = v;
    if (k == "relabelled") relabelled_ = static_cast<long>(v);
    if (k == "emitted_layers") emitted_layers_ = static_cast<long>(v);
    if (k == "next_id") next_id_ = static_cast<int64_t>(v);
    if (k == "sort_pending") sort_pending_ = v != 0;
  }
  sph_valid_ = false;
}

template <int Dim>
void MultiphaseMpm<Dim>::redistribute_particles() {
  particles::send_to_owners<Dim>(set_, *decomp_, f_.x);
  particles::sort_by_cell<Dim>(set_, *decomp_, f_.x);
  sph_valid_ = false;
}

template class MultiphaseMpm<2>;
template class MultiphaseMpm<3>;

}  // namespace meniscus::mpm_multiphase
