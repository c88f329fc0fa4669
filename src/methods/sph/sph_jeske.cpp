#include "methods/sph/sph_jeske.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/log.hpp"
#include "grid/domain_deck.hpp"
#include "methods/sph/sph_kernels.hpp"
#include "particles/balance.hpp"
#include "particles/keep_if.hpp"
#include "particles/migration.hpp"
#include "particles/particle_sources.hpp"
#include "particles/redistribute.hpp"
#include "physics/collider_deck.hpp"

#if __has_include("methods/sph/implicit_cohesion_viscosity.hpp")
#include "methods/sph/implicit_cohesion_viscosity.hpp"
#define MENISCUS_SPH_HAS_IMPLICIT 1
#else
#define MENISCUS_SPH_HAS_IMPLICIT 0
#endif

namespace meniscus::sph {

template <int Dim>
class ImplicitSolverHandle {
 public:
#if MENISCUS_SPH_HAS_IMPLICIT
  explicit ImplicitSolverHandle(MPI_Comm comm) : solver(comm, "sph_st_") {}
  ImplicitCohesionViscosity<Dim> solver;
#else
  explicit ImplicitSolverHandle(MPI_Comm) {}
#endif
};

namespace {
// A (n x 1) view over the storage of a 1D view, for the row-wise halo exchange.
particles::RealField as_column(const Kokkos::View<double*>& v) {
  return particles::RealField(v.data(), v.extent(0), 1);
}
}  // namespace

template <int Dim>
SphJeske<Dim>::SphJeske(const MethodContext& ctx) : comm_(ctx.comm) {
  MPI_Comm_rank(comm_, &rank_);
  const auto& root = ctx.root;
  p_ = read_sph(root, Dim);
  const double h = p_.support();
  auto spec = grid::read_domain<Dim>(root, 1, 1);
  // Blocks at least one support radius thick (checked below) also when balanced by particles.
  const int min_nodes = std::max(2, static_cast<int>(std::ceil(h / spec.dx - 1e-9)));
  decomp_ = particles::balanced_decomposition<Dim>(comm_, spec, root, p_.material_names, min_nodes);
  rebalancer_ = particles::Rebalancer<Dim>(root, min_nodes);
  for (int d = 0; d < Dim; ++d) {
    domain_lo_[d] = decomp_->lower()[d];
    domain_hi_[d] = decomp_->upper()[d];
  }
  // Ghosts come only from face/edge/corner neighbours, so every rank's block must be at least one
  // support radius thick; otherwise a particle two ranks away could be a missed neighbour.
  for (int r = 0; r < decomp_->size(); ++r) {
    double lo[Dim], hi[Dim];
    decomp_->region(r, lo, hi);
    for (int d = 0; d < Dim; ++d)
      if (hi[d] - lo[d] < h)
        throw InputError(root.file(), "domain.ranks",
                         log::format("rank %d's block is %.3g m thick along axis %d, less than the SPH support "
                                     "radius %.3g m (4 x particle_radius): use fewer ranks along that axis",
                                     r, hi[d] - lo[d], d, h));
  }
  // Along a periodic axis a particle must not see two images of one neighbour: the box must be at
  // least two support radii long there (with the strict |x_ij| < h, images L apart then never both count).
  const char* axis_names[3] = {"x", "y", "z"};
  int walled_axes = 0;
  for (int d = 0; d < Dim; ++d) {
    if (!decomp_->periodic()[d]) {
      ++walled_axes;
      continue;
    }
    const double length = domain_hi_[d] - domain_lo_[d];
    if (length < 2 * h)
      throw InputError(root.file(), "domain.periodic",
                       log::format("the box is %.3g m long along the periodic axis %s, less than two SPH support "
                                   "radii (2 x 4 x particle_radius = %.3g m): a particle would see two images of "
                                   "one neighbour",
                                   length, axis_names[d], 2 * h));
  }
  colliders_ = physics::read_colliders<Dim>(root, *decomp_);
  // The box faces come first in the collider set; periodic axes have none.
  wall_count_ = root.section("domain").text("walls") == "none" ? 0 : 2 * walled_axes;
  psi_ = make_half_space_volume<Dim>(h);
  rest_density_ = Kokkos::View<double*>("rest_density", p_.rest_density.size());
  {
    auto hview = Kokkos::create_mirror_view(rest_density_);
    for (size_t i = 0; i < p_.rest_density.size(); ++i) hview(i) = p_.rest_density[i];
    Kokkos::deep_copy(rest_density_, hview);
  }

  f_.x = set_.add_field("position", Dim);
  f_.v = set_.add_field("velocity", Dim);
  f_.mass = set_.add_field("mass", 1);
  // Warm starts follow their particle through migration, sorting and checkpoints (on the wrong particle it would be a wrong initial guess).
  f_.dv_prev = set_.add_field("st_dv_prev", Dim);
  f_.kappa = set_.add_field("dfsph_kappa", 1);
  f_.kappa_v = set_.add_field("dfsph_kappa_v", 1);
  seed_particles(root);
  emitted_layers_.assign(p_.emitters.size(), 0);

  const bool needs_solve = p_.sigma > 0 || p_.sigma_end > 0 || p_.kinematic_viscosity > 0 || p_.adhesion > 0 ||
                           p_.wall_adhesion > 0;
  if (p_.st_mode == SurfaceTensionMode::Implicit && needs_solve) {
#if MENISCUS_SPH_HAS_IMPLICIT
    implicit_ = std::make_unique<ImplicitSolverHandle<Dim>>(comm_);
#else
    throw InputError(root.file(), "sph.st_mode",
                     "st_mode: implicit needs the implicit cohesion + viscosity solver "
                     "(methods/sph/implicit_cohesion_viscosity), which this build does not contain; "
                     "use st_mode: explicit");
#endif
  }
}

template <int Dim>
SphJeske<Dim>::~SphJeske() = default;

template <int Dim>
void SphJeske<Dim>::seed_particles(const config::Section& root) {
  auto seeded = particles::seed_sources<Dim>(root, *decomp_, p_.material_names);
  const size_t n = seeded.x.extent(0);
  const double d = p_.diameter();
  const double cell = std::pow(d, Dim);
  // The kernel scale and the mass follow the radius; the sources' lattice must match it.
  particles::require_lattice_spacing(seeded, Dim, d, "sph.particle_radius", root.file(), comm_);
  set_.resize(n);
  auto x = set_.field(f_.x), v = set_.field(f_.v), mass = set_.field(f_.mass);
  auto dv = set_.field(f_.dv_prev), kap = set_.field(f_.kappa), kapv = set_.field(f_.kappa_v);
  auto id = set_.id();
  auto mat = set_.material();
  auto rho0 = rest_density_;
  const double volume = p_.mass_volume_factor * cell;
  Kokkos::parallel_for(
      "sph::init", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        for (int c = 0; c < Dim; ++c) {
          x(p, c) = seeded.x(p, c);
          v(p, c) = seeded.v(p, c);
          dv(p, c) = 0;
        }
        // A source's rigid rotation about z: v += omega e_z x (x - c) is already in seeded.v.
        mass(p, 0) = rho0(seeded.material(p)) * volume;
        kap(p, 0) = 0;
        kapv(p, 0) = 0;
        id(p) = seeded.id(p);
        mat(p) = seeded.material(p);
      });
  // Drop particles that start inside a solid.
  const auto colliders = colliders_;
  auto inside = KOKKOS_LAMBDA(const int p)->bool {
    double xp[Dim];
    for (int c = 0; c < Dim; ++c) xp[c] = x(p, c);
    for (int c = 0; c < colliders.count; ++c)
      if (colliders.items[c].shape.distance(xp) < 0) return true;
    return false;
  };
  particles::keep_if(set_, KOKKOS_LAMBDA(const int p)->bool { return !inside(p); }, "sph::keep_outside");
  int64_t idmax = -1;
  Kokkos::parallel_reduce(
      "sph::max_id", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, int64_t& m) { m = id(p) > m ? id(p) : m; }, Kokkos::Max<int64_t>(idmax));
  long gmax = static_cast<long>(idmax);
  MPI_Allreduce(MPI_IN_PLACE, &gmax, 1, MPI_LONG, MPI_MAX, comm_);
  next_id_ = gmax + 1;
  particles::sort_by_cell<Dim>(set_, *decomp_, f_.x);
}

template <int Dim>
void SphJeske<Dim>::refresh(Kokkos::View<double**, Kokkos::LayoutRight> total) {
  halo_.refresh_rows(particles::RealField(total), static_cast<size_t>(owned_));
}

template <int Dim>
void SphJeske<Dim>::refresh(Kokkos::View<double*> total) {
  halo_.refresh_rows(as_column(total), static_cast<size_t>(owned_));
}

template <int Dim>
void SphJeske<Dim>::update_neighborhood() {
  auto t = timers_.scope("neighborhood");
  const double h = p_.support();
  owned_ = static_cast<int>(set_.size());
  halo_.build(set_, *decomp_, f_.x, h);
  total_ = owned_ + static_cast<int>(halo_.ghost_count());
  xt_ = Kokkos::View<double**, Kokkos::LayoutRight>("sph_x", total_, Dim);
  vt_ = Kokkos::View<double**, Kokkos::LayoutRight>("sph_v", total_, Dim);
  mass_t_ = Kokkos::View<double*>("sph_mass", total_);
  rho_ = Kokkos::View<double*>("sph_density", total_);
  alpha_ = Kokkos::View<double*>("sph_alpha", total_);
  kappa_t_ = Kokkos::View<double*>("sph_kappa", total_);
  phase_t_ = Kokkos::View<int*>("sph_phase", total_);
  Kokkos::View<double*> phase_d("sph_phase_d", total_);
  auto x = set_.field(f_.x), v = set_.field(f_.v), m = set_.field(f_.mass);
  auto mat = set_.material();
  auto xt = xt_, vt = vt_;
  auto mt = mass_t_;
  Kokkos::parallel_for(
      "sph::own_rows", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < Dim; ++d) {
          xt(i, d) = x(i, d);
          vt(i, d) = v(i, d);
        }
        mt(i) = m(i, 0);
        phase_d(i) = mat(i);
      });
  halo_.refresh_position_rows(particles::RealField(xt_), static_cast<size_t>(owned_));  // periodic images shifted
  refresh(vt_);
  refresh(mass_t_);
  refresh(phase_d);
  auto ph = phase_t_;
  Kokkos::parallel_for(
      "sph::phase_rows", Kokkos::RangePolicy<>(0, total_),
      KOKKOS_LAMBDA(const int i) { ph(i) = static_cast<int>(phase_d(i) + 0.5); });
  particles::build_neighbor_lists<Dim>(xt_, owned_, h, lists_);
  nb_.owned = owned_;
  nb_.total = total_;
  nb_.support = h;
  nb_.offset = lists_.offset;
  nb_.index = lists_.index;
  nb_.x = xt_;
  nb_.refresh_ghosts = [this](Kokkos::View<double**, Kokkos::LayoutRight> a) { refresh(a); };
  ContactSettings cs;
  cs.particle_radius = p_.particle_radius;
  cs.support = h;
  cs.wall_count = wall_count_;
  cs.adhesion = p_.adhesion;
  cs.wall_adhesion = p_.wall_adhesion;
  compute_boundary_contacts<Dim>(xt_, owned_, colliders_, psi_, cs, contacts_);
}

template <int Dim>
void SphJeske<Dim>::compute_density() {
  // One pass over the pairs gives the density and the per-step caches: W_ij (XSPH), m_j grad W_ij
  // and rho0 V_b grad W_ib (DFSPH: its iterations then only take dot products, since positions do
  // not change during the solves).
  auto t = timers_.scope("density");
  const CubicSpline<Dim> w(p_.support());
  auto x = xt_;
  auto m = mass_t_;
  auto rho = rho_;
  auto off = nb_.offset, idx = nb_.index;
  auto ph = phase_t_;
  auto rho0 = rest_density_;
  const auto bc = contacts_;
  // Every entry is written below: skip the zero fill (tens of MB per step).
  w_ = Kokkos::View<double*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sph_w"), nb_.index.extent(0));
  grad_ = Kokkos::View<double**, Kokkos::LayoutRight>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sph_grad"), nb_.index.extent(0), Dim);
  bgrad_ = Kokkos::View<double* [BoundaryContacts<Dim>::kMax][Dim]>("sph_bgrad", owned_);
  auto wc = w_;
  auto grad = grad_;
  auto bgrad = bgrad_;
  Kokkos::parallel_for(
      "sph::density", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        double s = m(i) * w.w_zero;
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          double xij[Dim], r2 = 0;
          for (int d = 0; d < Dim; ++d) {
            xij[d] = x(i, d) - x(j, d);
            r2 += xij[d] * xij[d];
          }
          const double r = kmath::sqrt(r2);
          const double wij = w.value(r);
          wc(k) = wij;
          s += m(j) * wij;
          const double g = r > 1e-9 * w.h ? m(j) * w.derivative(r) / r : 0.0;
          for (int d = 0; d < Dim; ++d) grad(k, d) = g * xij[d];
        }
        for (int b = 0; b < bc.count(i); ++b) {
          double xib[Dim], r2 = 0;
          for (int d = 0; d < Dim; ++d) {
            xib[d] = x(i, d) - bc.x(i, b, d);
            r2 += xib[d] * xib[d];
          }
          const double r = kmath::sqrt(r2);
          const double vb = rho0(ph(i)) * bc.volume(i, b);
          s += vb * w.value(r);
          const double g = r > 1e-9 * w.h ? vb * w.derivative(r) / r : 0.0;
          for (int d = 0; d < Dim; ++d) bgrad(i, b, d) = g * xib[d];
        }
        rho(i) = s;
      });
  refresh(rho_);
}

template <int Dim>
Kokkos::View<double**, Kokkos::LayoutRight> SphJeske<Dim>::explicit_acceleration(double sigma, double nu) {
  // Cohesion (paper eq. 8): a_i = -(sigma/m_i) sum_j (mbar_ij / rhobar_ij) x_ij W^st_ij over same-phase
  // neighbours, adhesion the same with each boundary sample (mbar = (m_i + rho0 V_b)/2, rhobar =
  // (rho_i + rho0)/2, coefficient sigma^b), Weiler viscosity 2(Dim+2) (mu/rho_i) sum_j (m_j/rho_j)
  // (v_ij . x_ij)/(r^2 + 0.01 h^2) grad W_ij with mu = nu rho0.
  Kokkos::View<double**, Kokkos::LayoutRight> a("sph_explicit_acc", owned_, Dim);
  const double h = p_.support();
  const CubicSpline<Dim> w(h);
  // theta normalises W^st to unit integral for h = 2d: 10/7 in 3D, 7/4 in 2D.
  const CohesionKernel<Dim> wst(h, p_.diameter(), Dim == 3 ? kCohesionTheta : 7.0 / 4.0);
  auto x = xt_, v = vt_;
  auto m = mass_t_;
  auto rho = rho_;
  auto off = nb_.offset, idx = nb_.index;
  auto ph = phase_t_;
  auto rho0 = rest_density_;
  const auto bc = contacts_;
  const double visc = 2.0 * (Dim + 2) * nu, eps = 0.01 * h * h;
  Kokkos::parallel_for(
      "sph::explicit_forces", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        double f[Dim] = {}, av[Dim] = {};
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          double xij[Dim], r2 = 0, vx = 0;
          for (int d = 0; d < Dim; ++d) {
            xij[d] = x(i, d) - x(j, d);
            r2 += xij[d] * xij[d];
            vx += (v(i, d) - v(j, d)) * xij[d];
          }
          const double r = kmath::sqrt(r2);
          if (ph(j) == ph(i) && sigma > 0) {
            const double c = 0.5 * (m(i) + m(j)) / (0.5 * (rho(i) + rho(j))) * wst.value(r);
            for (int d = 0; d < Dim; ++d) f[d] -= sigma * c * xij[d];
          }
          if (visc > 0) {
            double g[Dim];
            w.gradient(xij, g);
            const double c = m(j) / rho(j) * vx / (r2 + eps);
            for (int d = 0; d < Dim; ++d) av[d] += c * g[d];
          }
        }
        for (int b = 0; b < bc.count(i); ++b) {
          const double sb = bc.sigma(i, b);
          if (!(sb > 0)) continue;
          double xib[Dim], r2 = 0;
          for (int d = 0; d < Dim; ++d) {
            xib[d] = x(i, d) - bc.x(i, b, d);
            r2 += xib[d] * xib[d];
          }
          const double mb = 0.5 * (m(i) + rho0(ph(i)) * bc.volume(i, b));
          const double rb = 0.5 * (rho(i) + rho0(ph(i)));
          const double c = mb / rb * wst.value(kmath::sqrt(r2));
          for (int d = 0; d < Dim; ++d) f[d] -= sb * c * xib[d];
        }
        const double mu_over_rho = visc * rho0(ph(i)) / rho(i);
        for (int d = 0; d < Dim; ++d) a(i, d) = f[d] / m(i) + mu_over_rho * av[d];
      });
  return a;
}

template <int Dim>
void SphJeske<Dim>::implicit_surface_tension(double dt, double sigma) {
#if MENISCUS_SPH_HAS_IMPLICIT
  auto t = timers_.scope("implicit_st");
  ImplicitForceParams prm;
  prm.dt = dt;
  prm.sigma = sigma;
  prm.rest_density = p_.rest_density[0];
  prm.viscosity = p_.kinematic_viscosity * p_.rest_density[0];
  prm.particle_diameter = p_.diameter();
  prm.rtol = p_.st_rtol;
  prm.max_iterations = p_.st_max_iterations;
  // The solver takes one boundary sample per particle: the nearest one.
  BoundarySamples bs;
  bs.x = Kokkos::View<double**, Kokkos::LayoutRight>("st_bx", owned_, Dim);
  bs.v = Kokkos::View<double**, Kokkos::LayoutRight>("st_bv", owned_, Dim);
  bs.volume = Kokkos::View<double*>("st_bvol", owned_);
  bs.sigma = Kokkos::View<double*>("st_bsig", owned_);
  const auto bc = contacts_;
  auto bx = bs.x, bv = bs.v;
  auto bvol = bs.volume, bsig = bs.sigma;
  Kokkos::parallel_for(
      "sph::nearest_boundary", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        const bool has = bc.count(i) > 0;
        for (int d = 0; d < Dim; ++d) {
          bx(i, d) = has ? bc.x(i, 0, d) : 0.0;
          bv(i, d) = has ? bc.v(i, 0, d) : 0.0;
        }
        bvol(i) = has ? bc.volume(i, 0) : 0.0;
        bsig(i) = has ? bc.sigma(i, 0) : 0.0;
      });
  Kokkos::View<double**, Kokkos::LayoutRight> warm = set_.field(f_.dv_prev);
  const auto stats = implicit_->solver.solve(nb_, prm, vt_, mass_t_, rho_, phase_t_, bs, warm);
  last_.st_iterations = stats.iterations;
  last_.st_residual = stats.residual;
  last_.st_converged = stats.converged;
#else
  (void)dt;
  (void)sigma;
  throw RuntimeError("implicit surface tension requested but not built in");
#endif
}

template <int Dim>
void SphJeske<Dim>::xsph(Kokkos::View<double**, Kokkos::LayoutRight> vstar) {
  // Monaghan XSPH: v_i += xi sum_j (m_j / rhobar_ij) (v_j - v_i) W_ij (Jacobi: from the pre-smoothing v).
  auto t = timers_.scope("xsph");
  refresh(vstar);
  const CubicSpline<Dim> w(p_.support());
  Kokkos::View<double**, Kokkos::LayoutRight> dvx("xsph_dv", owned_, Dim);
  auto x = xt_;
  auto m = mass_t_;
  auto rho = rho_;
  auto off = nb_.offset, idx = nb_.index;
  const double xi = p_.xsph;
  auto wc = w_;
  Kokkos::parallel_for(
      "sph::xsph", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        double s[Dim] = {};
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          const double c = m(j) / (0.5 * (rho(i) + rho(j))) * wc(k);
          for (int d = 0; d < Dim; ++d) s[d] += c * (vstar(j, d) - vstar(i, d));
        }
        for (int d = 0; d < Dim; ++d) dvx(i, d) = xi * s[d];
      });
  Kokkos::parallel_for(
      "sph::xsph_apply", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < Dim; ++d) vstar(i, d) += dvx(i, d);
      });
}

template <int Dim>
double SphJeske<Dim>::stable_dt() {
  if (!(p_.cfl > 0)) return p_.dt;
  auto v = set_.field(f_.v);
  double vmax = 0;
  Kokkos::parallel_reduce(
      "sph::max_speed", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, double& m) {
        double s = 0;
        for (int d = 0; d < Dim; ++d) s += v(p, d) * v(p, d);
        m = s > m ? s : m;
      },
      Kokkos::Max<double>(vmax));
  MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_DOUBLE, MPI_MAX, comm_);
  vmax = std::sqrt(vmax);
  return std::min(p_.dt, p_.cfl * p_.diameter() / (vmax + 1e-300));
}

template <int Dim>
void SphJeske<Dim>::step(double dt) {
  emit(time_);
  update_neighborhood();
  mark_nozzle_rows(time_);
  compute_density();
  compute_alpha();
  const double sigma = p_.sigma_at(time_);
  last_ = StepStats{};
  // Explicit cohesion, adhesion and viscosity are evaluated at time t (paper eq. 8) and enter v*
  // where the implicit solve would (after the divergence solve): gravity -> divergence solve ->
  // surface tension + viscosity -> constant-density solve (Jeske et al. 2023, Algorithm 2, lines 6-12).
  Kokkos::View<double**, Kokkos::LayoutRight> a;
  if (p_.st_mode == SurfaceTensionMode::Explicit &&
      (sigma > 0 || p_.kinematic_viscosity > 0 || p_.adhesion > 0 || p_.wall_adhesion > 0)) {
    auto t = timers_.scope("explicit_forces");
    a = explicit_acceleration(sigma, p_.kinematic_viscosity);
  }
  {
    double g[Dim];
    for (int d = 0; d < Dim; ++d) g[d] = time_ >= p_.gravity_start * (1 - 1e-12) ? p_.gravity[d] : 0.0;
    auto vt = vt_;
    Kokkos::parallel_for(
        "sph::gravity", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
          for (int d = 0; d < Dim; ++d) vt(i, d) += dt * g[d];
        });
    hold_nozzle_rows(vt_);
  }
  if (p_.divergence_solve) {
    last_.divergence_iterations = divergence_solve(dt, vt_);
    if (last_.divergence_iterations >= p_.max_divergence_iterations && last_.divergence_error > p_.divergence_tolerance)
      note_unconverged(kDivergence, last_.divergence_error, p_.divergence_tolerance);
  }
  if (a.extent(0) > 0) {
    auto vt = vt_;
    Kokkos::parallel_for(
        "sph::explicit_update", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
          for (int d = 0; d < Dim; ++d) vt(i, d) += dt * a(i, d);
        });
    hold_nozzle_rows(vt_);
  }
  if (implicit_) {
    implicit_surface_tension(dt, sigma);
    hold_nozzle_rows(vt_);
    if (!last_.st_converged) note_unconverged(kImplicit, last_.st_residual, p_.st_rtol);
  }
  last_.density_iterations = density_solve(dt, vt_);
  if (last_.density_iterations >= p_.max_density_iterations && last_.density_error > p_.density_tolerance)
    note_unconverged(kDensity, last_.density_error, p_.density_tolerance);
  if (p_.xsph > 0) {
    xsph(vt_);
    hold_nozzle_rows(vt_);
  }
  {
    auto t = timers_.scope("integrate");
    auto x = set_.field(f_.x), v = set_.field(f_.v);
    auto vt = vt_;
    Kokkos::parallel_for(
        "sph::integrate", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
          for (int d = 0; d < Dim; ++d) {
            v(i, d) = vt(i, d);
            x(i, d) += dt * vt(i, d);
          }
        });
    project_out_of_colliders();
    if (p_.remove_outside) remove_outside();
  }
  time_ += dt;
  ++steps_;
  sum_div_iters_ += last_.divergence_iterations;
  sum_density_iters_ += last_.density_iterations;
  sum_st_iters_ += last_.st_iterations;
  ++stat_steps_;
  {
    auto t = timers_.scope("migrate");
    particles::migrate<Dim>(set_, *decomp_, f_.x);
  }
  if (p_.sort_every > 0 && steps_ % p_.sort_every == 0) {
    auto t = timers_.scope("sort");
    particles::sort_by_cell<Dim>(set_, *decomp_, f_.x);
  }
  rebalance(false);
}

template <int Dim>
void SphJeske<Dim>::rebalance(bool force) {
  // Blocks stay at least one support radius thick: the rebalancer keeps the constructor's min_nodes.
  auto next = rebalancer_.propose(set_.field(f_.x), set_.size(), *decomp_, steps_, force);
  if (!next) {
    // A restart: the particles may still sit where the writer had them (one rank has nowhere else).
    if (force && decomp_->size() > 1) redistribute_particles();
    return;
  }
  auto t = timers_.scope("rebalance");
  decomp_ = std::move(next);
  redistribute_particles();
  rebalancer_.finish(static_cast<long>(set_.size()), comm_);
}

template <int Dim>
void SphJeske<Dim>::note_unconverged(Solve which, double error, double tolerance) {
  // A capped solve leaves the step with a larger error than asked for (compression, or a weaker
  // surface tension): say so the first time and at every power of ten, not every step.
  const long n = ++unconverged_[which];
  long p = 1;
  while (p < n) p *= 10;
  if (p != n) return;
  static const char* what[3] = {"divergence solve", "constant-density solve", "implicit surface tension solve"};
  static const char* key[3] = {"sph.max_divergence_iterations", "sph.max_density_iterations",
                               "sph.st_max_iterations"};
  const bool percent = which != kImplicit;
  log::warn("SPH step %ld (t = %.6g s): the %s stopped short of its tolerance with %s %.3g%s (tolerance %.3g%s); "
            "%ld such step%s so far. Raise %s or lower dt.",
            steps_ + 1, time_, what[which], percent ? "a mean density error of" : "a relative residual of",
            percent ? 100 * error : error, percent ? " %" : "", percent ? 100 * tolerance : tolerance,
            percent ? " %" : "", n, n == 1 ? "" : "s", key[which]);
}

template <int Dim>
void SphJeske<Dim>::project_out_of_colliders() {
  // The boundary pressure keeps particles out; a particle that still crossed a wall in one step is put
  // back onto the surface and loses its velocity into the wall (counted in diagnostics).
  const auto colliders = colliders_;
  auto x = set_.field(f_.x), v = set_.field(f_.v);
  long n = 0;
  Kokkos::parallel_reduce(
      "sph::project", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int i, long& cnt) {
        for (int c = 0; c < colliders.count; ++c) {
          double xi[Dim];
          for (int d = 0; d < Dim; ++d) xi[d] = x(i, d);
          const auto& col = colliders.items[c];
          const double phi = col.shape.distance(xi);
          if (!(phi < 0)) continue;
          double nrm[Dim];
          col.shape.normal(xi, nrm);
          double vn = 0;
          for (int d = 0; d < Dim; ++d) {
            x(i, d) -= phi * nrm[d];
            vn += (v(i, d) - col.velocity[d]) * nrm[d];
          }
          if (vn < 0)
            for (int d = 0; d < Dim; ++d) v(i, d) -= vn * nrm[d];
          ++cnt;
        }
      },
      n);
  projected_ += n;
}

template <int Dim>
void SphJeske<Dim>::remove_outside() {
  // Periodic axes have no outside: migration wraps those coordinates right after this.
  double lo[Dim], hi[Dim];
  const double inf = std::numeric_limits<double>::infinity();
  for (int d = 0; d < Dim; ++d) {
    lo[d] = decomp_->periodic()[d] ? -inf : domain_lo_[d];
    hi[d] = decomp_->periodic()[d] ? inf : domain_hi_[d];
  }
  auto x = set_.field(f_.x);
  auto inside = KOKKOS_LAMBDA(const int i)->bool {
    for (int d = 0; d < Dim; ++d)
      if (!(x(i, d) >= lo[d] && x(i, d) <= hi[d])) return false;
    return true;
  };
  removed_ += particles::keep_if(set_, inside, "sph::keep_inside");
}

template <int Dim>
std::vector<std::pair<std::string, double>> SphJeske<Dim>::state() {
  long counters[2] = {removed_, projected_};
  MPI_Allreduce(MPI_IN_PLACE, counters, 2, MPI_LONG, MPI_SUM, comm_);
  std::vector<std::pair<std::string, double>> s{{"steps", static_cast<double>(steps_)},
                                                {"time", time_},
                                                {"next_id", static_cast<double>(next_id_)},
                                                {"removed_particles", static_cast<double>(counters[0])},
                                                {"projected_particles", static_cast<double>(counters[1])},
                                                {"unconverged_divergence_steps", static_cast<double>(unconverged_[kDivergence])},
                                                {"unconverged_density_steps", static_cast<double>(unconverged_[kDensity])},
                                                {"unconverged_cg_steps", static_cast<double>(unconverged_[kImplicit])}};
  for (size_t e = 0; e < emitted_layers_.size(); ++e)
    s.emplace_back("emitter_" + std::to_string(e) + "_layers", static_cast<double>(emitted_layers_[e]));
  return s;
}

template <int Dim>
void SphJeske<Dim>::restore_state(const std::vector<std::pair<std::string, double>>& state) {
  for (const auto& [k, v] : state) {
    if (k == "steps") steps_ = static_cast<long>(v);
    if (k == "time") time_ = v;
    if (k == "next_id") next_id_ = static_cast<int64_t>(v);
    // Counters are summed over ranks in diagnostics: rank 0 carries the restored totals.
    if (k == "removed_particles") removed_ = rank_ == 0 ? static_cast<long>(v) : 0;
    if (k == "projected_particles") projected_ = rank_ == 0 ? static_cast<long>(v) : 0;
    if (k == "unconverged_divergence_steps") unconverged_[kDivergence] = static_cast<long>(v);
    if (k == "unconverged_density_steps") unconverged_[kDensity] = static_cast<long>(v);
    if (k == "unconverged_cg_steps") unconverged_[kImplicit] = static_cast<long>(v);
    for (size_t e = 0; e < emitted_layers_.size(); ++e)
      if (k == "emitter_" + std::to_string(e) + "_layers") emitted_layers_[e] = static_cast<long>(v);
  }
}

template <int Dim>
void SphJeske<Dim>::redistribute_particles() {
  particles::send_to_owners<Dim>(set_, *decomp_, f_.x);
  particles::sort_by_cell<Dim>(set_, *decomp_, f_.x);
}

template <int Dim>
void SphJeske<Dim>::particles_replaced() {
  // Everything between steps lives in persistent particle fields (warm starts included); the
  // neighbourhood is rebuilt at the start of every step. With rebalancing the writer's cuts followed its
  // particles, not the sources this run started from: the cuts follow the restored particles.
  if (rebalancer_.enabled()) rebalance(true);
}

template <int Dim>
long SphJeske<Dim>::global_particle_count() {
  long n = static_cast<long>(set_.size()), total = 0;
  MPI_Allreduce(&n, &total, 1, MPI_LONG, MPI_SUM, comm_);
  return total;
}

template class SphJeske<2>;
template class SphJeske<3>;

}  // namespace meniscus::sph
