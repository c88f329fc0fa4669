#include "methods/mpm/mpm_method.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/log.hpp"
#include "grid/bspline.hpp"
#include "methods/instability.hpp"
#include "methods/mpm/particle_collision.hpp"
#include "grid/domain_deck.hpp"
#include "grid/node_scatter.hpp"
#include "physics/remove_inside_colliders.hpp"
#include "grid/stencil_loop.hpp"
#include "particles/balance.hpp"
#include "particles/bounding_box.hpp"
#include "particles/max_speed.hpp"
#include "particles/migration.hpp"
#include "particles/particle_sources.hpp"
#include "particles/redistribute.hpp"
#include "physics/collider_deck.hpp"
#include "physics/surface_energy.hpp"

namespace meniscus::mpm {

template <int Dim>
MpmMethod<Dim>::MpmMethod(const MethodContext& ctx) : comm_(ctx.comm) {
  const auto& root = ctx.root;
  const auto st = root.section("mpm").section("surface_tension");
  st_.enabled = st.flag("enabled");
  st_.massless = st.flag("massless_samples");
  st_.options.radius_factor = st.real("level_set_radius");
  st_.options.samples_per_dx = st.real("samples_per_dx");
  st_.options.weight = st.text("area_weight") == "uniform" ? geometry::AreaWeight::Uniform : geometry::AreaWeight::PerElement;
  st_.options.seed = static_cast<uint64_t>(st.integer("seed"));
  st_.options.stratified = st.text("placement") == "stratified";
  // Balance particles b = 2 x_p - s reach a few cells past their parent: a wider ghost layer.
  // The contact-line hold (wetting_adhesion.hpp) carries each node's hold limit in one more grid column.
  st_.line_hold = st_.enabled && st.flag("contact_line_hold");
  if (st_.line_hold && !(st.real("wetting_width") > 0))
    throw InputError(st.file(), st.key_path("contact_line_hold"),
                     "the contact-line hold acts on wetting walls: set mpm.surface_tension.wetting_width > 0");
  auto spec = grid::read_domain<Dim>(root, st_.enabled ? 5 : 2, Dim + (st_.line_hold ? 2 : 1));
  for (int d = 0; d < Dim; ++d)
    if (spec.periodic[d])
      throw InputError(root.file(), "domain.periodic",
                       "the MPM methods have no periodic grid (nodal fields, P2G/G2P and the grid solves assume a "
                       "bounded box); periodic axes are supported by sph-jeske2023 only");
  // Materials first: the particle-balanced decomposition seeds the sources to count them.
  table_ = read_materials(root);
  decomp_ = particles::balanced_decomposition<Dim>(comm_, spec, root, table_.names, spec.stencil_width + 1);
  rebalancer_ = particles::Rebalancer<Dim>(root, spec.stencil_width + 1);

  const auto m = root.section("mpm");
  cfl_ = m.real("cfl");
  dt_max_ = m.real("dt_max");
  dt_min_ = m.real("dt_min");
  sort_every_ = m.integer("sort_every");
  implicit_ = m.text("integrator") == "implicit";
  // Where the implicit step applies the contact-line hold: cut after the Newton solve (default) or inside it.
  st_.hold_in_solve = st.text("hold_mode") == "in_solve";
  if (st_.hold_in_solve && !(implicit_ && st_.line_hold))
    throw InputError(st.file(), st.key_path("hold_mode"),
                     "in_solve places the contact-line hold inside the implicit Newton solve: it needs "
                     "mpm.integrator: implicit and mpm.surface_tension.contact_line_hold: true");
  if (implicit_) {
    const auto nw = m.section("newton");
    solvers::NewtonOptions& opt = newton_options_;
    opt.tolerance = nw.real("tolerance");
    opt.max_iterations = static_cast<int>(nw.integer("max_iterations"));
    opt.max_line_search = static_cast<int>(nw.integer("max_line_search"));
    opt.linear_tolerance = nw.real("linear_tolerance");
    opt.max_linear_iterations = static_cast<int>(nw.integer("max_linear_iterations"));
    project_hessian_ = nw.flag("project_hessian");
    surface_smoothing_ = nw.real("surface_smoothing");
    light_node_fraction_ = nw.real("light_node_fraction");
    assembled_hessian_ = nw.text("hessian") == "assembled";
    make_implicit_solver();
    kinetic_mass_floor_ = nw.real("kinetic_mass_floor");
  }
  const auto g = m.vector("gravity");
  for (int d = 0; d < Dim; ++d) gravity_[d] = g[d];

  materials_ = Kokkos::View<physics::Material*>("materials", table_.materials.size());
  {
    auto h = Kokkos::create_mirror_view(materials_);
    for (size_t i = 0; i < table_.materials.size(); ++i) h(i) = table_.materials[i];
    Kokkos::deep_copy(materials_, h);
  }
  for (const auto& mat : table_.materials) {
    max_wave_speed_ = std::max(max_wave_speed_, mat.wave_speed());
    if (mat.model == physics::MaterialModel::Fluid)
      max_viscous_rate_ = std::max(max_viscous_rate_, mat.viscosity / mat.density);
  }
  colliders_ = physics::read_colliders<Dim>(root, *decomp_);
  if (st_.enabled) {
    st_.coefficient = read_surface_coefficients<Dim>(root, decomp_->dx(), table_, colliders_);
    // One cell, a node exactly one cell from the wall included (round-off must not decide).
    mark_wetting_walls<Dim>(colliders_, st_.coefficient.wetting_width, decomp_->dx() * (1 + 1e-9));
  }

  f_.x = set_.add_field("position", Dim);
  f_.v = set_.add_field("velocity", Dim);
  f_.C = set_.add_field("affine_velocity", Dim * Dim);
  // Fluids need only J; the deformation gradient (9 doubles in 3D) is stored when a solid exists.
  bool has_solid = false;
  for (const auto& mat : table_.materials) has_solid = has_solid || mat.model == physics::MaterialModel::FixedCorotated;
  f_.F = has_solid ? set_.add_field("deformation_gradient", Dim * Dim) : -1;
  f_.J = set_.add_field("volume_ratio", 1);
  f_.mass = set_.add_field("mass", 1);
  f_.volume = set_.add_field("initial_volume", 1);
  // The Marangoni scalar is a persistent particle field (advected with the particles, written to output).
  const bool marangoni = st_.enabled && st_.coefficient.marangoni;
  if (marangoni && !st_.coefficient.temperature) st_.scalar_field = set_.add_field("surfactant", 1);
  setup_heat(root);
  setup_wick(root);
  if (marangoni && st_.coefficient.temperature) st_.scalar_field = heat_.T;

  {
    // Seeding scratch is released before the first sort, which lowers the peak memory.
    auto seeded = particles::seed_sources<Dim>(root, *decomp_, table_.names);
    fill_seeded_particles(seeded);
    initialize_hydrostatic(seeded);
    seed_temperature(root, seeded);
    if (st_.scalar_field >= 0 && !st_.coefficient.temperature) {
      double c_min = 0, c_max = 0;
      seed_surface_scalar<Dim>(root, seeded, set_.field(st_.scalar_field), comm_, c_min, c_max);
      finish_bounds(st_.coefficient, static_cast<int>(table_.materials.size()), colliders_.count, c_min, c_max);
    }
  }
  // A source that overlaps an obstacle (or the box faces) would start with material inside a solid.
  if (const long removed = physics::remove_particles_inside_colliders<Dim>(set_, f_.x, colliders_, comm_); removed > 0)
    log::info("%ld seeded particles lie inside colliders or the box faces and were removed", removed);
  particles::sort_by_cell<Dim>(set_, *decomp_, f_.x);
  compact_grid_ = !implicit_ && !st_.enabled;
  // The grid last: seeding's temporaries (about 100 bytes per particle) are gone by now, so the
  // grid's arrays take their place instead of adding to the peak.
  grid_ = std::make_unique<grid::GridField<Dim>>(*decomp_);
  refresh_temperature_bound();
}

template <int Dim>
void MpmMethod<Dim>::make_implicit_solver() {
  implicit_solver_.reset();  // its DMDA before the new one
  implicit_solver_ = std::make_unique<ImplicitGridSolver<Dim>>(*decomp_, newton_options_);
  implicit_solver_->set_light_node_fraction(light_node_fraction_);
  implicit_solver_->set_assembled_hessian(assembled_hessian_);
  implicit_solver_->set_contact_line_hold(st_.line_hold && st_.hold_in_solve);
}

template <int Dim>
void MpmMethod<Dim>::rebalance(bool force) {
  auto next = rebalancer_.propose(set_.field(f_.x), set_.size(), *decomp_, steps_, force);
  if (!next) {
    // A restart: the particles may still sit where the writer had them (one rank has nowhere else).
    if (force && decomp_->size() > 1) redistribute_particles();
    return;
  }
  auto t = timers_.scope("rebalance");
  // Nothing on the grid outlives a step (P2G rebuilds it; the implicit and heat solves start from
  // the particles), so the grid and its solvers are built anew on the new decomposition, the old
  // ones released first. Only their settings carry over.
  const bool heat = heat_.solver != nullptr;
  HeatOptions heat_options{};
  std::vector<physics::ThermalProperties> heat_materials;
  if (heat) {
    heat_options = heat_.solver->options();
    auto th = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), heat_.solver->thermal_materials());
    heat_materials.assign(th.data(), th.data() + th.extent(0));
  }
  heat_.solver.reset();
  implicit_solver_.reset();
  grid_.reset();
  decomp_ = std::move(next);
  grid_ = std::make_unique<grid::GridField<Dim>>(*decomp_);
  if (implicit_) make_implicit_solver();
  if (heat) heat_.solver = std::make_unique<HeatSolver<Dim>>(*decomp_, heat_options, heat_materials);
  redistribute_particles();
  rebalancer_.finish(static_cast<long>(set_.size()), comm_);
}

// k^sigma(T): the capillary time-step bound follows the temperature range, which the heat solve changes.
template <int Dim>
void MpmMethod<Dim>::refresh_temperature_bound() {
  if (!(st_.enabled && st_.coefficient.marangoni && st_.coefficient.temperature)) return;
  auto T = set_.field(heat_.T);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  Kokkos::parallel_reduce(
      "mpm::temperature_range", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, double& mn, double& mx) {
        mn = T(p, 0) < mn ? T(p, 0) : mn;
        mx = T(p, 0) > mx ? T(p, 0) : mx;
      },
      Kokkos::Min<double>(lo), Kokkos::Max<double>(hi));
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, comm_);
  if (lo > hi) lo = hi = st_.coefficient.reference;  // no particles anywhere
  finish_bounds(st_.coefficient, static_cast<int>(table_.materials.size()), colliders_.count, lo, hi);
}

// A member function rather than code in the constructor: CUDA does not allow device lambdas in
// constructors (their address cannot be taken).
template <int Dim>
void MpmMethod<Dim>::fill_seeded_particles(particles::SeededParticles& seeded) {
  const size_t n = seeded.x.extent(0);
  // Positions, velocities, ids and materials are the seeder's arrays themselves, not copies. The
  // affine field and the initial volume are made from the seeder's omega and volume first, which are
  // then released, so that the two never coexist with the other new fields (16 bytes per particle
  // off the start-up peak).
  particles::RealField C(Kokkos::view_alloc(Kokkos::WithoutInitializing, "affine_velocity"), n, Dim * Dim);
  particles::RealField vol(Kokkos::view_alloc(Kokkos::WithoutInitializing, "initial_volume"), n, 1);
  {
    auto omega = seeded.omega, volume = seeded.volume;
    Kokkos::parallel_for(
        "mpm::init_affine", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
          // The affine field of a rigid rotation is its velocity gradient, so APIC carries it exactly.
          for (int i = 0; i < Dim * Dim; ++i) C(p, i) = 0;
          C(p, 1) = -omega(p);
          C(p, Dim) = omega(p);
          vol(p, 0) = volume(p);
        });
  }
  seeded.omega = {};
  seeded.volume = {};
  // (A named list: nvcc's front end rejects the nested braced list here.)
  std::vector<std::pair<int, particles::RealField>> adopted;
  adopted.emplace_back(f_.x, seeded.x);
  adopted.emplace_back(f_.v, seeded.v);
  adopted.emplace_back(f_.C, C);
  adopted.emplace_back(f_.volume, vol);
  set_.adopt(n, adopted, seeded.id, seeded.material);
  auto F = deformation();
  const bool store_F = f_.F >= 0;
  auto J = set_.field(f_.J), mass = set_.field(f_.mass);
  auto mats = materials_;
  auto material = seeded.material;
  Kokkos::parallel_for(
      "mpm::init", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        if (store_F)
          for (int i = 0; i < Dim * Dim; ++i) F(p, i) = (i % (Dim + 1) == 0) ? 1.0 : 0.0;
        J(p, 0) = 1;
        mass(p, 0) = vol(p, 0) * mats(material(p)).density;
      });
}

template <int Dim>
particles::RealField MpmMethod<Dim>::deformation() const {
  return f_.F >= 0 ? set_.field(f_.F) : particles::RealField();
}

template <int Dim>
void MpmMethod<Dim>::initialize_hydrostatic(const particles::SeededParticles& seeded) {
  // A fluid held at rest carries the pressure of its own weight; starting it at p = 0 instead sends a
  // compression wave through it that overshoots to twice the hydrostatic load.
  const int ns = static_cast<int>(seeded.hydrostatic.size());
  Kokkos::View<double* [Dim]> top("source_top", ns);
  Kokkos::View<int*> hydro("source_hydrostatic", ns);
  auto top_h = Kokkos::create_mirror_view(top);
  auto hydro_h = Kokkos::create_mirror_view(hydro);
  bool any = false;
  for (int s = 0; s < ns; ++s) {
    // The corner of the source's box that lies furthest against gravity.
    for (int d = 0; d < Dim; ++d) top_h(s, d) = gravity_[d] < 0 ? seeded.source_upper[s][d] : seeded.source_lower[s][d];
    hydro_h(s) = seeded.hydrostatic[s] ? 1 : 0;
    any = any || seeded.hydrostatic[s];
  }
  if (!any) return;
  Kokkos::deep_copy(top, top_h);
  Kokkos::deep_copy(hydro, hydro_h);
  double g[Dim];
  for (int d = 0; d < Dim; ++d) g[d] = gravity_[d];
  auto x = set_.field(f_.x), J = set_.field(f_.J);
  auto mat = set_.material();
  auto mats = materials_;
  auto src = seeded.source;
  Kokkos::parallel_for(
      "mpm::hydrostatic", Kokkos::RangePolicy<>(0, set_.size()), KOKKOS_LAMBDA(const int p) {
        const physics::Material& m = mats(mat(p));
        if (!hydro(src(p)) || m.model != physics::MaterialModel::Fluid) return;
        double gh = 0;  // g . (x - top) = |g| depth
        for (int d = 0; d < Dim; ++d) gh += g[d] * (x(p, d) - top(src(p), d));
        const double pressure = m.density * (gh > 0 ? gh : 0.0);
        // Invert the Tait law p = K/gamma (J^-gamma - 1).
        J(p, 0) = kmath::pow(1.0 + m.tait_gamma * pressure / m.bulk_modulus, -1.0 / m.tait_gamma);
      });
}

template <int Dim>
MpmMethod<Dim>::~MpmMethod() = default;

template <int Dim>
double MpmMethod<Dim>::stable_dt() {
  double vmax = step_speed_;
  // After a step G2P has measured the speed (and reduced it with its finiteness check); before the
  // first step, or after the particles were handed out, it is measured here.
  if (!step_speed_known_) {
    vmax = particles::global_max_speed<Dim>(comm_, set_.field(f_.v), set_.size(), "mpm::max_speed");
    step_speed_ = vmax;
    step_speed_known_ = true;
  }
  const double dx = decomp_->dx();
  // Backward Euler has no acoustic, viscous or capillary limit; the CFL bound on advection remains.
  if (implicit_) return std::min(cfl_ * dx / (vmax + 1e-300), dt_max_);
  double dt = cfl_ * dx / (vmax + max_wave_speed_ + 1e-300);
  if (max_viscous_rate_ > 0) dt = std::min(dt, cfl_ * dx * dx / (2.0 * Dim * max_viscous_rate_));
  // Explicit capillary limit (Brackbill et al. 1992): dt <= sqrt(rho dx^3 / (pi k)).
  if (st_.enabled && st_.coefficient.max_coefficient() > 0) dt = std::min(dt, capillary_dt());
  return std::min(dt, dt_max_);
}

template <int Dim>
void MpmMethod<Dim>::p2g(double dt, const grid::NodeBox<Dim>* cover) {
  auto t = timers_.scope("p2g");
  grid::NodeArray local;
  if (compact_grid_) {
    auto box = particle_node_box();
    if (cover && cover->size() > 0) {
      if (box.size() == 0) {
        box = *cover;
      } else {
        for (int d = 0; d < Dim; ++d) {
          const int lo = std::min(box.lo[d], cover->lo[d]);
          const int hi = std::max(box.lo[d] + box.n[d], cover->lo[d] + cover->n[d]);
          box.lo[d] = lo;
          box.n[d] = hi - lo;
        }
      }
    }
    local = grid_->acquire_active(box);
  } else {
    local = grid_->acquire_local(true);
  }
  grid::scatter_into(local, [&](auto& scatter) { p2g_particles(scatter, dt); });
  if (st_.active) {
    t.pause();  // the split has its own timer
    p2g_surface(dt, local);
    t.resume();
  }
  if (compact_grid_) {
    grid_->sum_active_in_place();
    return;
  }
  grid_->release_local(local);
  // The implicit solve works on the owned nodes (the global Vec); the explicit step updates every
  // node of the ghosted box where it is, so it needs no global Vec (4 doubles per owned node).
  if (implicit_)
    grid_->local_to_global_add();
  else
    grid_->sum_ghosts_in_place();
}

template <int Dim>
grid::NodeBox<Dim> MpmMethod<Dim>::particle_node_box() const {
  double b[2 * Dim];
  particles::local_bounding_box<Dim>(set_.field(f_.x), static_cast<int>(set_.size()), b, "mpm::particle_box");
  double lower[Dim], lo[Dim], hi[Dim];
  for (int d = 0; d < Dim; ++d) {
    lower[d] = decomp_->lower()[d];
    lo[d] = -b[Dim + d];
    hi[d] = b[d];
  }
  return grid::stencil_node_box<Dim>(lo, hi, lower, 1.0 / decomp_->dx(), grid_->ghost_box());
}

template <int Dim>
template <class Scatter>
void MpmMethod<Dim>::p2g_particles(Scatter& scatter, double dt) {
  const auto gbox = node_box();
  auto x = set_.field(f_.x), v = set_.field(f_.v), C = set_.field(f_.C), F = deformation();
  auto J = set_.field(f_.J), mass = set_.field(f_.mass), vol = set_.field(f_.volume);
  auto mat = set_.material();
  auto mats = materials_;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx;
  // A parent with |group| surface samples keeps m / (2|group| + 1) of its mass; each sample and
  // balance particle carries the same share (massless samples: the parent keeps everything).
  const bool split = st_.active && !st_.massless;
  const auto group = st_.group;
  Kokkos::parallel_for(
      "mpm::p2g", Kokkos::RangePolicy<>(0, set_.size()), KOKKOS_LAMBDA(const int p) {
        double xp[Dim], Fp[Dim * Dim], Cp[Dim * Dim], tau[Dim * Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        const physics::Material& material = mats(mat(p));
        const bool solid = material.model == physics::MaterialModel::FixedCorotated;
        for (int i = 0; i < Dim * Dim; ++i) {
          Fp[i] = solid ? F(p, i) : (i % (Dim + 1) == 0 ? 1.0 : 0.0);
          Cp[i] = C(p, i);
        }
        physics::kirchhoff_stress<Dim>(material, Fp, J(p, 0), Cp, tau);
        grid::Stencil<Dim> st;
        st.compute(xp, lower, inv_dx);
        const double mp = split ? mass(p, 0) / (2 * group(p) + 1) : mass(p, 0), stress_scale = dt * vol(p, 0);
        double mv[Dim], mC[Dim * Dim];
        for (int d = 0; d < Dim; ++d) mv[d] = mp * v(p, d);
        for (int i = 0; i < Dim * Dim; ++i) mC[i] = mp * Cp[i];
        auto acc = scatter.access();
        grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double* grad, const double* r) {
          acc(idx, 0) += w * mp;
          for (int a = 0; a < Dim; ++a) {
            double val = mv[a], force = 0;
            for (int b = 0; b < Dim; ++b) {
              val += mC[a * Dim + b] * r[b];
              force += tau[a * Dim + b] * grad[b];
            }
            acc(idx, 1 + a) += w * val - stress_scale * force;
          }
        });
      });
}

template <int Dim>
void MpmMethod<Dim>::grid_update(double dt) {
  auto t = timers_.scope("grid_update");
  // Every node of the ghosted box holds its summed mass and momentum (sum_ghosts_in_place), and the
  // update is nodewise, so each rank updates its ghosts as their owners do, bit for bit, instead of
  // receiving them afterwards.
  const auto obox = node_box();
  grid::NodeArray a = compact_grid_ ? grid_->active() : grid_->acquire_local(false);
  double lower[Dim], g[Dim];
  for (int d = 0; d < Dim; ++d) {
    lower[d] = decomp_->lower()[d];
    g[d] = gravity_[d];
  }
  const double dx = decomp_->dx();
  const auto colliders = colliders_.at_time(time_);  // moving colliders where they are at t_n
  const bool line_hold = st_.line_hold;
  Kokkos::parallel_for(
      "mpm::grid_update", Kokkos::RangePolicy<>(0, obox.size()), KOKKOS_LAMBDA(const long i) {
        const double m = a(i, 0);
        if (m <= 0) {
          for (int d = 0; d < Dim; ++d) a(i, 1 + d) = 0;
          return;
        }
        int node[Dim];
        obox.node(i, node);
        double xi[Dim], vi[Dim];
        for (int d = 0; d < Dim; ++d) {
          xi[d] = lower[d] + node[d] * dx;
          vi[d] = a(i, 1 + d) / m + dt * g[d];
        }
        colliders.apply(xi, vi);
        if (line_hold && a(i, 1 + Dim) > 0) hold_contact_line<Dim>(colliders, xi, vi, a(i, 1 + Dim) * dt / m);
        for (int d = 0; d < Dim; ++d) a(i, 1 + d) = vi[d];
      });
  if (!compact_grid_) grid_->release_local(a);
}

template <int Dim>
void MpmMethod<Dim>::g2p(double dt) {
  auto t = timers_.scope("g2p");
  const auto gbox = node_box();
  grid::NodeArray local = compact_grid_ ? grid_->active() : grid_->acquire_local(false);
  auto x = set_.field(f_.x), v = set_.field(f_.v), C = set_.field(f_.C), F = deformation();
  auto J = set_.field(f_.J);
  auto mat = set_.material();
  auto mats = materials_;
  auto ids = set_.id();
  double lower[Dim], lo_clamp[Dim], hi_clamp[Dim];
  const double dx = decomp_->dx(), inv_dx = 1.0 / dx, dinv = grid::apic_inverse_inertia(dx);
  for (int d = 0; d < Dim; ++d) {
    lower[d] = decomp_->lower()[d];
    // Keep every stencil inside the grid even if a particle escapes the walls.
    lo_clamp[d] = decomp_->lower()[d] + dx;
    hi_clamp[d] = decomp_->upper()[d] - dx;
  }
  long clamped = 0;
  double speed2 = 0;  // largest |v|^2 after the step, for the next stable_dt()
  Kokkos::View<int64_t*> bad("bad_particle", 1);
  Kokkos::deep_copy(bad, -1);
  // Merge (Chen et al. 2021, Sec. 5, G2P): a split parent's velocity and affine field are the mass-weighted means
  // over its whole group; the samples' shares are gathered first.
  const bool merge = st_.active && !st_.massless;
  Kokkos::View<double**, Kokkos::LayoutRight> vsum, bsum;
  if (merge) {
    t.pause();  // the merge has its own timer
    g2p_surface(local, vsum, bsum);
    t.resume();
  }
  const auto group = st_.group;
  const auto colliders = colliders_.at_time(time_);  // as in the grid update
  Kokkos::parallel_reduce(
      "mpm::g2p", Kokkos::RangePolicy<>(0, set_.size()),
      KOKKOS_LAMBDA(const int p, long& nclamp, double& s2max) {
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        grid::Stencil<Dim> st;
        st.compute(xp, lower, inv_dx);
        const bool solid = mats(mat(p)).model == physics::MaterialModel::FixedCorotated;
        double vp[Dim] = {}, B[Dim * Dim] = {}, gv[Dim * Dim] = {};
        // Solids need the full velocity gradient for F; fluids only its trace for J.
        if (solid) {
          grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double* grad, const double* r) {
            for (int a = 0; a < Dim; ++a) {
              const double vi = local(idx, 1 + a);
              vp[a] += w * vi;
              for (int b = 0; b < Dim; ++b) {
                B[a * Dim + b] += w * vi * r[b];
                gv[a * Dim + b] += vi * grad[b];
              }
            }
          });
        } else {
          double div = 0;
          grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double* grad, const double* r) {
            for (int a = 0; a < Dim; ++a) {
              const double vi = local(idx, 1 + a);
              vp[a] += w * vi;
              div += vi * grad[a];
              for (int b = 0; b < Dim; ++b) B[a * Dim + b] += w * vi * r[b];
            }
          });
          gv[0] = div;
        }
        if (merge && group(p) > 0) {
          const double share = 1.0 / (2 * group(p) + 1);
          for (int a = 0; a < Dim; ++a) vp[a] = share * (vp[a] + vsum(p, a));
          for (int i = 0; i < Dim * Dim; ++i) B[i] = share * (B[i] + bsum(p, i));
        }
        bool finite = true;
        for (int d = 0; d < Dim; ++d) finite = finite && kmath::isfinite(vp[d]);
        if (!finite) bad(0) = ids(p);
        for (int i = 0; i < Dim * Dim; ++i) C(p, i) = dinv * B[i];
        if (solid) {
          // F <- (I + dt grad v) F, and J follows det F.
          double Fo[Dim * Dim], Fn[Dim * Dim], dF[Dim * Dim];
          for (int i = 0; i < Dim * Dim; ++i) {
            Fo[i] = F(p, i);
            dF[i] = (i % (Dim + 1) == 0 ? 1.0 : 0.0) + dt * gv[i];
          }
          physics::matmul<Dim>(dF, Fo, Fn);
          for (int i = 0; i < Dim * Dim; ++i) F(p, i) = Fn[i];
          J(p, 0) *= physics::det<Dim>(dF);
        } else {
          // A fluid keeps only its volume ratio: J <- (1 + dt div v) J.
          J(p, 0) *= 1.0 + dt * gv[0];
        }
        double s2 = 0;
        for (int d = 0; d < Dim; ++d) s2 += vp[d] * vp[d];
        s2max = s2 > s2max ? s2 : s2max;
        double xn[Dim];
        move_particle<Dim>(colliders, dx, dt, xp, vp, xn);  // with the particle collision (particle_collision.hpp)
        for (int d = 0; d < Dim; ++d) {
          v(p, d) = vp[d];
          if (xn[d] < lo_clamp[d] || xn[d] > hi_clamp[d]) {
            xn[d] = xn[d] < lo_clamp[d] ? lo_clamp[d] : hi_clamp[d];
            nclamp += 1;
          }
          x(p, d) = xn[d];
        }
      },
      clamped, Kokkos::Max<double>(speed2));
  if (!compact_grid_) grid_->release_local(local);
  // One reduction for the finiteness check and the next step's speed (both maxima). Particle ids are
  // below 2^53, so they pass exactly as doubles.
  auto bad_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bad);
  double maxima[2] = {std::sqrt(std::max(speed2, 0.0)), static_cast<double>(bad_h(0))};
  MPI_Allreduce(MPI_IN_PLACE, maxima, 2, MPI_DOUBLE, MPI_MAX, comm_);
  step_speed_ = maxima[0];
  step_speed_known_ = true;
  const long bad_any = static_cast<long>(maxima[1]);
  if (bad_any >= 0)
    throw UnstableRun(log::format("non-finite velocity at particle %ld after step %ld: the run is unstable "
                                   "(reduce mpm.cfl or mpm.dt_max)",
                                   bad_any, steps_ + 1));
  clamped_ += clamped;
}

template <int Dim>
void MpmMethod<Dim>::step(double dt) {
  if (st_.enabled) resample_surface_particles();
  if (implicit_) {
    p2g(0.0);  // mass and momentum only: every force is in the incremental potential
    implicit_update(dt);
  } else {
    p2g(dt);
    grid_update(dt);
  }
  if (heat_.solver) heat_update(dt);  // at x^n, before G2P advects the particles
  g2p(dt);
  if (heat_.solver) refresh_temperature_bound();  // k^sigma(T) of the next step
  last_dt_ = dt;
  st_.active = false;
  {
    auto t = timers_.scope("migrate");
    particles::migrate<Dim>(set_, *decomp_, f_.x);
  }
  if (wick_.enabled) trim_wick();
  ++steps_;
  time_ += dt;
  if (sort_every_ > 0 && steps_ % sort_every_ == 0) {
    auto t = timers_.scope("sort");
    particles::sort_by_cell<Dim>(set_, *decomp_, f_.x);
  }
  rebalance(false);
}

template <int Dim>
std::vector<std::pair<std::string, double>> MpmMethod<Dim>::state() {
  // The clamp counter is per rank; the checkpoint keeps the total (see restore_state).
  long clamped = 0;
  MPI_Allreduce(&clamped_, &clamped, 1, MPI_LONG, MPI_SUM, comm_);
  long flips = 0;  // phase changes, per rank like the clamp counter
  MPI_Allreduce(&heat_.flips, &flips, 1, MPI_LONG, MPI_SUM, comm_);
  return {{"steps", static_cast<double>(steps_)}, {"clamped_particles", static_cast<double>(clamped)},
          {"time", time_}, {"phase_changes", static_cast<double>(flips)},
          // The Newton solves' SOR -> GAMG switch: a restart that went back to SOR would take other
          // (inexact) linear solves than the straight run and leave it by the Newton tolerance.
          {"newton_multigrid", implicit_solver_ && implicit_solver_->multigrid() ? 1.0 : 0.0}};
}

template <int Dim>
void MpmMethod<Dim>::restore_state(const std::vector<std::pair<std::string, double>>& state) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  for (const auto& [k, v] : state) {
    // steps_ sets the sorting schedule, so a restarted run sorts on the same steps as a straight one.
    if (k == "steps") steps_ = static_cast<long>(v);
    if (k == "time") time_ = v;  // where moving colliders are
    // Diagnostics sum the counter over ranks: rank 0 carries the restored total.
    if (k == "clamped_particles") clamped_ = rank == 0 ? static_cast<long>(v) : 0;
    if (k == "phase_changes") heat_.flips = rank == 0 ? static_cast<long>(v) : 0;
    if (k == "newton_multigrid" && implicit_solver_) implicit_solver_->restore_multigrid(v > 0);
  }
}

template <int Dim>
void MpmMethod<Dim>::redistribute_particles() {
  step_speed_known_ = false;
  particles::send_to_owners<Dim>(set_, *decomp_, f_.x);
  particles::sort_by_cell<Dim>(set_, *decomp_, f_.x);
}

template <int Dim>
bool MpmMethod<Dim>::grid_snapshot(GridSnapshot& out, bool shared_faces) {
  // A P2G without stress (dt = 0) gives the nodal mass and the momentum the particles carry,
  // also before the first step; the next step rebuilds the grid from scratch anyway. The summed
  // values are then brought to the ghost layer so that a block can reach past its upper faces.
  grid::NodeBox<Dim> block;
  for (int d = 0; d < Dim; ++d) {
    block.lo[d] = decomp_->owned_lo()[d];
    const int hi = shared_faces ? std::min(decomp_->owned_hi()[d] + 1, decomp_->nodes()[d]) : decomp_->owned_hi()[d];
    block.n[d] = hi - block.lo[d];
  }
  // The compact grid covers the block too, so other ranks' particles that reach into it are summed.
  p2g(0.0, &block);
  auto t = timers_.scope("output_grid");
  if (implicit_) grid_->global_to_local();  // the explicit P2G summed the ghosts in place
  const auto gbox = node_box();
  const long n = block.size();
  grid::NodeArray a = compact_grid_ ? grid_->active() : grid_->acquire_local(false);
  Kokkos::View<double**, Kokkos::LayoutRight> mv("grid_output", n, 4);
  Kokkos::parallel_for(
      "mpm::grid_output", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const long i) {
        int node[Dim];
        block.node(i, node);
        bool inside = true;
        for (int d = 0; d < Dim; ++d) inside = inside && node[d] >= gbox.lo[d] && node[d] < gbox.lo[d] + gbox.n[d];
        const long g = inside ? gbox.index(node) : 0;
        const double m = inside ? a(g, 0) : 0.0;
        mv(i, 0) = m;
        for (int d = 0; d < 3; ++d) mv(i, 1 + d) = (d < Dim && m > 0) ? a(g, 1 + d) / m : 0.0;
      });
  if (!compact_grid_) grid_->release_local(a);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mv);
  out = GridSnapshot{};
  out.dx = decomp_->dx();
  for (int d = 0; d < Dim; ++d) {
    out.lower[d] = decomp_->lower()[d];
    out.nodes[d] = decomp_->nodes()[d];
    out.owned_lo[d] = block.lo[d];
    out.owned_n[d] = block.n[d];
  }
  GridSnapshot::Field mass{"mass", 1, std::vector<double>(n)}, velocity{"velocity", 3, std::vector<double>(3 * n)};
  for (long i = 0; i < n; ++i) {
    mass.values[i] = h(i, 0);
    for (int d = 0; d < 3; ++d) velocity.values[3 * i + d] = h(i, 1 + d);
  }
  out.fields.push_back(std::move(mass));
  out.fields.push_back(std::move(velocity));
  return true;
}

template <int Dim>
void MpmMethod<Dim>::particles_replaced() {
  // Only the speed of the last step is derived from the particles between steps (the grid is rebuilt
  // by every P2G).
  step_speed_known_ = false;
  // With rebalancing the writer's cuts followed its particles, not the sources this run started from:
  // the cuts follow the restored particles, which then move to their owners.
  if (rebalancer_.enabled()) rebalance(true);
}

template <int Dim>
long MpmMethod<Dim>::global_particle_count() {
  long n = static_cast<long>(set_.size()), total = 0;
  MPI_Allreduce(&n, &total, 1, MPI_LONG, MPI_SUM, comm_);
  return total;
}
template class MpmMethod<2>;
template class MpmMethod<3>;

}  // namespace meniscus::mpm
