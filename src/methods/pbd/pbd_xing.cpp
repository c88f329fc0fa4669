#include "methods/pbd/pbd_xing.hpp"
#include "methods/pbd/filament.hpp"
#include "methods/pbd/solid_coupling.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/reproducible_sum.hpp"
#include "grid/domain_deck.hpp"
#include "particles/balance.hpp"
#include "particles/migration.hpp"
#include "particles/particle_sources.hpp"
#include "particles/redistribute.hpp"
#include "physics/collider_deck.hpp"
#include "particles/largest_id.hpp"

namespace meniscus::pbd {

namespace {
particles::RealField as_column(const Kokkos::View<double*>& v) {
  return particles::RealField(v.data(), v.extent(0), 1);
}
}  // namespace

PbdXing::PbdXing(const MethodContext& ctx) : comm_(ctx.comm) {
  MPI_Comm_rank(comm_, &rank_);
  const auto& root = ctx.root;
  p_ = read_pbd(root);
  auto spec = grid::read_domain<3>(root, 1, 1);
  // Ghosts come only from face, edge and corner neighbours: every block must be at least as thick as
  // the halo (one kernel support), or a neighbour two ranks away would be missed.
  const double h = p_.support();
  // Particle-balanced cuts at start-up (domain.balance: particles), as MPM and SPH; blocks at least as
  // thick as the halo (two supports with area constraints, one without; checked below and at every
  // rebuild) plus two nodes for the predicted positions' excursion beyond the block (0.21 measured in
  // 3 steps at dx = 0.2, test PbdDistributed.BalancedStartUpCutsMatchOneRankBitForBit). No rebalancing
  // during the run.
  const double halo = p_.area_constraints ? 2 * h : h;
  const int min_nodes = std::max(2, static_cast<int>(std::ceil(halo / spec.dx - 1e-9)) + 2);
  decomp_ = particles::balanced_decomposition<3>(comm_, spec, root, p_.material_names, min_nodes);
  particles::warn_no_rebalancing(root, "pbd-xing2022", comm_);
  min_block_ = 1e300;
  for (int r = 0; r < decomp_->size(); ++r) {
    double lo[3], hi[3];
    decomp_->region(r, lo, hi);
    for (int d = 0; d < 3; ++d) min_block_ = std::min(min_block_, hi[d] - lo[d]);
    for (int d = 0; d < 3; ++d)
      if (hi[d] - lo[d] < h)
        throw InputError(root.file(), "domain.ranks",
                         log::format("rank %d's block is %.3g thick along axis %d, less than the kernel support "
                                     "h = 6 x pbd.particle_radius = %.3g: use fewer ranks along that axis",
                                     r, hi[d] - lo[d], d, h));
    for (int d = 0; d < 3; ++d)
      if (decomp_->periodic()[d] && decomp_->upper()[d] - decomp_->lower()[d] < 2 * h)
        throw InputError(root.file(), "domain.periodic",
                         log::format("the box is shorter than two kernel supports (%.3g) along periodic axis %d",
                                     2 * h, d));
  }
  colliders_ = physics::read_colliders<3>(root, *decomp_);
  placed_ = colliders_.at_time(0.0);  // the constructor's rebuild (thin-wall pairs) sees them too
  f_.x = set_.add_field("position", 3);
  f_.v = set_.add_field("velocity", 3);
  f_.ps = set_.add_field("predicted_position", 3, false);
  kinematic_ = Kokkos::View<int*>("pbd_kinematic", std::max<size_t>(p_.kinematic.size(), 1));
  {
    auto h = Kokkos::create_mirror_view(kinematic_);
    for (size_t k = 0; k < h.extent(0); ++k) h(k) = k < p_.kinematic.size() ? p_.kinematic[k] : 0;
    Kokkos::deep_copy(kinematic_, h);
  }
  seed_particles(root);
  calibrate_mass();
  emitted_layers_.assign(p_.emitters.size(), 0);
  next_id_ = particles::largest_id(set_, comm_) + 1;
}

void PbdXing::emit(double t) {
  if (p_.emitters.empty()) return;
  auto tm = timers_.scope("emit");
  if (p_.film_insertion_edge > 0) {  // inserted film particles took ids after the largest
    next_id_ = std::max<int64_t>(next_id_, particles::largest_id(set_, comm_) + 1);
  }
  const int64_t first = next_id_;
  particles::EmittedPoints pts;
  particles::emit_disc_layers<3>(p_.emitters, p_.diameter(), t, emitted_layers_, next_id_, *decomp_, rank_, pts);
  emitted_ += static_cast<long>(next_id_ - first);
  const size_t add = pts.size(), n0 = set_.size();
  if (add == 0) return;
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> xh("pbd_emit_x", add, 3), vh("pbd_emit_v", add, 3);
  Kokkos::View<int64_t*, Kokkos::HostSpace> idh("pbd_emit_id", add);
  Kokkos::View<int*, Kokkos::HostSpace> mh("pbd_emit_mat", add);
  for (size_t i = 0; i < add; ++i) {
    for (int d = 0; d < 3; ++d) {
      xh(i, d) = pts.x[3 * i + d];
      vh(i, d) = pts.v[3 * i + d];
    }
    idh(i) = pts.id[i];
    mh(i) = pts.material[i];
  }
  auto xd = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace::memory_space(), xh);
  auto vd = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace::memory_space(), vh);
  auto idd = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace::memory_space(), idh);
  auto md = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace::memory_space(), mh);
  set_.resize(n0 + add);
  auto x = set_.field(f_.x), v = set_.field(f_.v), ps = set_.field(f_.ps);
  auto id = set_.id();
  auto mat = set_.material();
  Kokkos::parallel_for(
      "pbd::emit", Kokkos::RangePolicy<>(0, add), KOKKOS_LAMBDA(const int k) {
        const int q = static_cast<int>(n0) + k;
        for (int d = 0; d < 3; ++d) {
          x(q, d) = xd(k, d);
          ps(q, d) = xd(k, d);
          v(q, d) = vd(k, d);
        }
        id(q) = idd(k);
        mat(q) = md(k);
      });
}

void PbdXing::mark_nozzle_rows(double t) {
  const int n = static_cast<int>(set_.size());
  held_rows_ = 0;
  if (p_.emitters.empty()) return;
  held_ = Kokkos::View<int*>("pbd_held", std::max(n, 1));
  held_velocity_ = Kokkos::View<double**, Kokkos::LayoutRight>("pbd_held_velocity", std::max(n, 1), 3);
  auto x = set_.field(f_.x);
  auto flag = held_;
  auto vel = held_velocity_;
  const double d = p_.diameter(), length = p_.nozzle_length;
  for (const auto& em : p_.emitters) {
    double u[3], c[3], nrm[3], speed = 0;
    for (int k = 0; k < 3; ++k) {
      u[k] = em.velocity[k];
      c[k] = em.center[k];
      speed += u[k] * u[k];
    }
    speed = std::sqrt(speed);
    for (int k = 0; k < 3; ++k) nrm[k] = u[k] / speed;
    // Held from the first layer until the last one has left the nozzle.
    if (t < em.start_time - 1e-12 || (em.end_time > 0 && t > em.end_time + length / speed)) continue;
    const double rim2 = (em.radius + 0.5 * d) * (em.radius + 0.5 * d), back = -0.5 * d;
    int held = 0;
    Kokkos::parallel_reduce(
        "pbd::mark_nozzle", Kokkos::RangePolicy<>(0, n),
        KOKKOS_LAMBDA(const int i, int& cnt) {
          double s = 0, r2 = 0;
          for (int k = 0; k < 3; ++k) s += (x(i, k) - c[k]) * nrm[k];
          for (int k = 0; k < 3; ++k) {
            const double lateral = x(i, k) - c[k] - s * nrm[k];
            r2 += lateral * lateral;
          }
          if (s >= back && s < length && r2 <= rim2 && flag(i) == 0) {
            flag(i) = 1;
            for (int k = 0; k < 3; ++k) vel(i, k) = u[k];
            ++cnt;
          }
        },
        held);
    held_rows_ += held;
  }
}

void PbdXing::restore_kinematic() {
  // A kinematic particle (a ring a film hangs on) moves with its prescribed velocity: whatever the
  // sweep or the colliders did to its row is undone (p* = p + dt v).
  if (!p_.any_kinematic() && held_rows_ == 0) return;
  auto xt = xt_;
  auto x = set_.field(f_.x), v = set_.field(f_.v);
  auto mat = set_.material();
  auto kin = kinematic_;
  auto held = held_;
  const bool any_held = held_rows_ > 0;
  const double dt = dt_now_ > 0 ? dt_now_ : p_.dt;
  Kokkos::parallel_for(
      "pbd::restore_kinematic", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        if (!kin(mat(i)) && !(any_held && held(i))) return;
        for (int d = 0; d < 3; ++d) xt(i, d) = x(i, d) + dt * v(i, d);
      });
}

void PbdXing::seed_particles(const config::Section& root) {
  auto seeded = particles::seed_sources<3>(root, *decomp_, p_.material_names);
  const size_t n = seeded.x.extent(0);
  particles::require_lattice_spacing(seeded, 3, p_.diameter(), "pbd.particle_radius", root.file(), comm_);
  set_.resize(n);
  auto x = set_.field(f_.x), v = set_.field(f_.v), ps = set_.field(f_.ps);
  auto id = set_.id();
  auto mat = set_.material();
  Kokkos::parallel_for(
      "pbd::init", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < 3; ++d) {
          x(i, d) = seeded.x(i, d);
          ps(i, d) = seeded.x(i, d);
          v(i, d) = seeded.v(i, d);
        }
        id(i) = seeded.id(i);
        mat(i) = seeded.material(i);
      });
  particles::sort_by_cell<3>(set_, *decomp_, f_.x);
}

void PbdXing::refresh(Kokkos::View<double**, Kokkos::LayoutRight> total) {
  halo_.refresh_rows(particles::RealField(total), static_cast<size_t>(owned_));
}

void PbdXing::refresh(Kokkos::View<double*> total) { halo_.refresh_rows(as_column(total), static_cast<size_t>(owned_)); }

void PbdXing::refresh(Kokkos::View<int*> total) {
  Kokkos::View<double*> tmp(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pbd_flag_rows"), total.extent(0));
  const int owned = owned_;
  Kokkos::parallel_for(
      "pbd::flags_to_real", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) { tmp(i) = total(i); });
  refresh(tmp);
  const int n = static_cast<int>(total.extent(0));
  Kokkos::parallel_for(
      "pbd::flags_from_real", Kokkos::RangePolicy<>(owned, n),
      KOKKOS_LAMBDA(const int i) { total(i) = static_cast<int>(tmp(i) + 0.5); });
}

void PbdXing::classify_surface() {
  // Paper Algorithm 1, reset block: densities on p*, light-shading surface detection, colour-field
  // normals. Labels and isolation flags are needed on ghost rows (distance pairs, density switch).
  auto t = timers_.scope("surface_detection");
  density_and_lambda(sweep_inputs(), rho_, lambda_);
  refresh(rho_);
  ShadingInputs in;
  in.x = xt_;
  in.offset = lists_.offset;
  in.index = lists_.index;
  in.owned = owned_;
  in.radius = p_.particle_radius;
  in.threshold = p_.illumination_threshold;
  in.isolation = 2 * p_.min_distance();
  in.mode = static_cast<ShadingMode>(p_.shading_mode);
  if (in.mode == ShadingMode::Cones) {
    if (shading_dirs_.extent(0) != static_cast<size_t>(p_.shading_directions))
      shading_dirs_ = fibonacci_directions(p_.shading_directions);
    in.directions = shading_dirs_;
  }
  Kokkos::View<int*> surface("pbd_surface", total_);
  shade(in, illuminated_, surface, density_off_);
  auto label = label_, off = density_off_;
  Kokkos::parallel_for(
      "pbd::labels", Kokkos::RangePolicy<>(0, owned_),
      KOKKOS_LAMBDA(const int i) { label(i) = surface(i) && !off(i) ? 1 : 0; });
  Kokkos::parallel_reduce(
      "pbd::count_classes", Kokkos::RangePolicy<>(0, owned_),
      KOKKOS_LAMBDA(const int i, long& s, long& o) {
        s += label(i);
        o += off(i);
      },
      surface_count_, isolated_count_);
  refresh(label_);
  refresh(density_off_);
  {  // filaments (sec. 4.3): no density constraint; isolated particles have none either
    detect_filaments(xt_, lists_.offset, lists_.index, owned_, p_.support(), p_.filament_ratio, filament_);
    auto fil = filament_, nod = no_density_, iso = density_off_;
    Kokkos::parallel_reduce(
        "pbd::no_density", Kokkos::RangePolicy<>(0, owned_),
        KOKKOS_LAMBDA(const int i, long& n) {
          nod(i) = iso(i) || fil(i) ? 1 : 0;
          n += fil(i) && !iso(i) ? 1 : 0;
        },
        filament_count_);
  }
  colour_normals(xt_, lists_.offset, lists_.index, owned_, mass_, rho_, p_.support(), normal_, has_normal_);
  refresh(normal_);
  refresh(has_normal_);
}

void PbdXing::build_meshes() {
  auto t = timers_.scope("local_meshing");
  MeshInputs in;
  in.x = xt_;
  in.normal = normal_;
  in.offset = lists_.offset;
  in.index = lists_.index;
  in.label = label_;
  in.isolated = density_off_;
  in.has_normal = has_normal_;
  in.ids = ids_;
  in.owned = p_.area_constraints ? total_ : owned_;
  if (p_.area_constraints) {
    in.offset = all_lists_.offset;
    in.index = all_lists_.index;
  }
  in.support = p_.support();
  in.far_cut = 4 * p_.particle_radius;
  in.lifted_angles = p_.lifted_angles;
  build_local_meshes(in, meshes_);
  auto flags = meshes_.flags;
  Kokkos::parallel_reduce(
      "pbd::count_fans", Kokkos::RangePolicy<>(0, owned_),
      KOKKOS_LAMBDA(const int i, long& v, long& c, long& o) {
        v += (flags(i) & kMeshValid) ? 1 : 0;
        c += (flags(i) & kMeshClosed) ? 1 : 0;
        o += (flags(i) & kMeshOverflow) ? 1 : 0;
      },
      fan_counts_[0], fan_counts_[1], fan_counts_[2]);
}

void PbdXing::rebuild() {
  auto t = timers_.scope("neighbor_search");
  const double h = p_.support();
  owned_ = static_cast<int>(set_.size());
  // The predicted positions have left this rank's region by up to `excursion` (particles migrate only
  // at the end of a step): the halo is widened by the largest excursion of any rank, so that every
  // pair closer than h is still seen from both sides.
  double lo[3], hi[3];
  decomp_->region(rank_, lo, hi);
  auto ps = set_.field(f_.ps);
  double excursion = 0;
  Kokkos::parallel_reduce(
      "pbd::excursion", Kokkos::RangePolicy<>(0, owned_),
      KOKKOS_LAMBDA(const int i, double& e) {
        for (int d = 0; d < 3; ++d) {
          const double out = ps(i, d) < lo[d] ? lo[d] - ps(i, d) : (ps(i, d) > hi[d] ? ps(i, d) - hi[d] : 0.0);
          e = out > e ? out : e;
        }
      },
      Kokkos::Max<double>(excursion));
  MPI_Allreduce(MPI_IN_PLACE, &excursion, 1, MPI_DOUBLE, MPI_MAX, comm_);
  const double width = (p_.area_constraints ? 2 * h : h) + excursion;
  if (decomp_->size() > 1 && width > min_block_)
    throw RuntimeError(log::format("pbd step %ld: a predicted position left its rank's region by %.3g, so the halo "
                                   "(%.3g) is wider than the thinnest rank block (%.3g): use fewer ranks or a "
                                   "smaller pbd.dt",
                                   steps_ + 1, excursion, width, min_block_));
  halo_.build(set_, *decomp_, f_.ps, width);
  total_ = owned_ + static_cast<int>(halo_.ghost_count());
  xt_ = Kokkos::View<double**, Kokkos::LayoutRight>("pbd_ps", total_, 3);
  rho_ = Kokkos::View<double*>("pbd_rho", total_);
  lambda_ = Kokkos::View<double*>("pbd_lambda", total_);
  label_ = Kokkos::View<int*>("pbd_label", total_);
  density_off_ = Kokkos::View<int*>("pbd_density_off", total_);
  filament_ = Kokkos::View<int*>("pbd_filament", total_);
  no_density_ = Kokkos::View<int*>("pbd_no_density", total_);
  illuminated_ = Kokkos::View<double*>("pbd_illuminated", total_);
  normal_ = Kokkos::View<double**, Kokkos::LayoutRight>("pbd_normal", total_, 3);
  has_normal_ = Kokkos::View<int*>("pbd_has_normal", total_);
  auto xt = xt_;
  Kokkos::parallel_for(
      "pbd::own_rows", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < 3; ++d) xt(i, d) = ps(i, d);
      });
  halo_.refresh_position_rows(particles::RealField(xt_), static_cast<size_t>(owned_));
  particles::build_neighbor_lists<3>(xt_, owned_, h, lists_);
  ids_ = Kokkos::View<int64_t*>("pbd_ids", total_);
  auto own_ids = set_.id();
  auto ids = ids_;
  auto ghost_ids = halo_.ghost_ids();
  const int owned = owned_;
  Kokkos::parallel_for(
      "pbd::ids", Kokkos::RangePolicy<>(0, total_),
      KOKKOS_LAMBDA(const int i) { ids(i) = i < owned ? own_ids(i) : ghost_ids(i - owned); });
  sort_rows_by_id(lists_.offset, lists_.index, ids_, owned_);
  // Thin walls (sec. 3.4): pairs through a solid are no neighbours (the same pairs on every rank).
  const bool split = p_.split_pairs_by_solids;
  if (split) drop_pairs_through_solids(lists_, xt_, ids_, owned_, placed_, h, p_.particle_radius);
  if (p_.area_constraints) {
    // Fans of ghost rows (within h of this rank's particles, hence with complete neighbourhoods inside
    // the 2h halo) are built here from the same data as on their owners.
    particles::build_neighbor_lists<3>(xt_, total_, h, all_lists_);
    sort_rows_by_id(all_lists_.offset, all_lists_.index, ids_, total_);
    if (split) drop_pairs_through_solids(all_lists_, xt_, ids_, total_, placed_, h, p_.particle_radius);
  }
  area_ = Kokkos::View<double*>("pbd_area", total_);
  area_lambda_ = Kokkos::View<double*>("pbd_area_lambda", total_);
}

PbfSweep PbdXing::sweep_inputs() const {
  PbfSweep s;
  s.x = xt_;
  s.offset = lists_.offset;
  s.index = lists_.index;
  s.label = label_;
  s.density_off = no_density_;
  s.owned = owned_;
  s.mass = mass_;
  s.rest_density = p_.rest_density;
  s.support = p_.support();
  s.min_distance = p_.min_distance();
  s.density_cfm = p_.density_cfm;
  s.unilateral_density = p_.unilateral_density;
  s.distance_cfm = p_.distance_cfm;
  s.distance_same_label = p_.distance_same_label;
  return s;
}

AreaSweep PbdXing::area_inputs() const {
  AreaSweep a;
  a.x = xt_;
  a.offset = lists_.offset;
  a.index = lists_.index;
  a.fans = meshes_;
  a.owned = owned_;
  a.total = meshes_.count.extent(0) < static_cast<size_t>(total_) ? static_cast<int>(meshes_.count.extent(0)) : total_;
  a.cfm = p_.area_cfm;
  a.tiny = 1e-12 * p_.support() * p_.support();
  return a;
}

void PbdXing::calibrate_mass() {
  // m = rho0 / max_i sum_j W_ij over the initial configuration, so the densest particle is exactly at
  // rest density (the rule of the paper's first author's re-implementation; the paper says only that
  // rho0 is the density of the initial configuration).
  rebuild();
  const kernels::CubicSpline<3> w(p_.support());
  auto x = xt_;
  auto off = lists_.offset, idx = lists_.index;
  double wmax = 0;
  Kokkos::parallel_reduce(
      "pbd::max_kernel_sum", Kokkos::RangePolicy<>(0, owned_),
      KOKKOS_LAMBDA(const int i, double& m) {
        double s = w.w_zero;
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          double r2 = 0;
          for (int d = 0; d < 3; ++d) r2 += (x(i, d) - x(j, d)) * (x(i, d) - x(j, d));
          s += w.value(kmath::sqrt(r2));
        }
        m = s > m ? s : m;
      },
      Kokkos::Max<double>(wmax));
  MPI_Allreduce(MPI_IN_PLACE, &wmax, 1, MPI_DOUBLE, MPI_MAX, comm_);
  if (!p_.emitters.empty()) {
    // Emitted liquid has no initial configuration: calibrate on the kernel sum of an interior particle
    // of the emitters' cubic lattice (spacing 2r), which is also the densest seeded particle's.
    const double d = p_.diameter(), hs = p_.support();
    const int k = static_cast<int>(std::ceil(hs / d));
    double lattice = 0;
    for (int a = -k; a <= k; ++a)
      for (int b = -k; b <= k; ++b)
        for (int c = -k; c <= k; ++c) lattice += w.value(d * std::sqrt(static_cast<double>(a * a + b * b + c * c)));
    wmax = std::max(wmax, lattice);
  }
  mass_ = wmax > 0 ? p_.rest_density / wmax : 0.0;
}

void PbdXing::sweep() {
  const auto s = sweep_inputs();
  {
    auto t = timers_.scope("constraint_projection");
    density_and_lambda(s, rho_, lambda_);
    refresh(lambda_);
    Kokkos::View<double**, Kokkos::LayoutRight> dp(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pbd_dp"), owned_, 3);
    gather_corrections(s, lambda_, dp);
    if (p_.area_constraints) {
      const auto a = area_inputs();
      area_lambda(a, area_, area_lambda_);
      gather_area_corrections(a, area_lambda_, dp);
    }
    auto xt = xt_;
    Kokkos::parallel_for(
        "pbd::apply_dp", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
          for (int d = 0; d < 3; ++d) xt(i, d) += dp(i, d);
        });
  }
  project_colliders();
  restore_kinematic();
  halo_.refresh_position_rows(particles::RealField(xt_), static_cast<size_t>(owned_));
}

void PbdXing::project_colliders() {
  // Solid coupling (Xing et al. 2022 sec. 3.4): collision with the swept test, then adhesion
  // (methods/pbd/solid_coupling.hpp).
  auto t = timers_.scope("collision");
  const auto colliders = placed_;
  const double r = p_.particle_radius, range = p_.adhesion_range, wcfm = p_.adhesion_cfm;
  const bool swept = p_.swept_collisions, adhesion = p_.adhesion;
  auto xt = xt_;
  auto x0 = set_.field(f_.x);  // start-of-step positions of the owned rows
  long n = 0;
  Kokkos::parallel_reduce(
      "pbd::collide", Kokkos::RangePolicy<>(0, owned_),
      KOKKOS_LAMBDA(const int i, long& cnt) {
        const double a[3] = {x0(i, 0), x0(i, 1), x0(i, 2)};
        for (int c = 0; c < colliders.count; ++c) {
          const auto& col = colliders.items[c];
          double p[3] = {xt(i, 0), xt(i, 1), xt(i, 2)};
          if (collide_particle(col, a, p, r, swept)) ++cnt;
          if (adhesion) adhere_particle(col, p, r, range, wcfm);
          for (int d = 0; d < 3; ++d) xt(i, d) = p[d];
        }
      },
      n);
  projected_ += n;
}

void PbdXing::xsph(Kokkos::View<double**, Kokkos::LayoutRight> vt) {
  // XSPH (Schechter & Bridson 2012 form used by PBF): v_i += c sum_j (m/rho_j)(v_j - v_i) W_ij, with
  // rho on the final p*; a gather over the frozen lists, ghosts' v and rho refreshed first.
  auto t = timers_.scope("viscosity");
  refresh(vt);
  refresh(rho_);
  const kernels::CubicSpline<3> w(p_.support());
  auto x = xt_;
  auto off = lists_.offset, idx = lists_.index;
  auto rho = rho_;
  const double c = p_.xsph, m = mass_;
  Kokkos::View<double**, Kokkos::LayoutRight> dv(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pbd_xsph"), owned_, 3);
  Kokkos::parallel_for(
      "pbd::xsph", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        double a[3] = {0, 0, 0};
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          double r2 = 0;
          for (int d = 0; d < 3; ++d) r2 += (x(i, d) - x(j, d)) * (x(i, d) - x(j, d));
          const double f = m / rho(j) * w.value(kmath::sqrt(r2));
          for (int d = 0; d < 3; ++d) a[d] += f * (vt(j, d) - vt(i, d));
        }
        for (int d = 0; d < 3; ++d) dv(i, d) = c * a[d];
      });
  auto mat = set_.material();
  auto kin = kinematic_;
  auto held = held_;
  const bool any_held = held_rows_ > 0;
  Kokkos::parallel_for(
      "pbd::xsph_apply", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        if (kin(mat(i)) || (any_held && held(i))) return;  // prescribed motion
        for (int d = 0; d < 3; ++d) vt(i, d) += dv(i, d);
      });
}

void PbdXing::step(double dt) {
  dt_now_ = dt;
  placed_ = colliders_.at_time(time_ + dt);
  emit(time_);
  mark_nozzle_rows(time_);
  const int n = static_cast<int>(set_.size());
  auto x = set_.field(f_.x), v = set_.field(f_.v), ps = set_.field(f_.ps);
  {
    const double g0 = p_.gravity[0], g1 = p_.gravity[1], g2 = p_.gravity[2];
    auto mat = set_.material();
    auto kin = kinematic_;
    auto held = held_;
    auto hv = held_velocity_;
    const bool any_held = held_rows_ > 0;
    Kokkos::parallel_for(
        "pbd::predict", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i) {
          const bool in_nozzle = any_held && held(i);
          const double f = kin(mat(i)) || in_nozzle ? 0.0 : 1.0;
          const double g[3] = {f * g0, f * g1, f * g2};
          for (int d = 0; d < 3; ++d) {
            if (in_nozzle) v(i, d) = hv(i, d);
            v(i, d) += dt * g[d];
            ps(i, d) = x(i, d) + dt * v(i, d);
          }
        });
  }
  for (int k = 0; k < p_.iterations; ++k) {
    if (k % p_.reset_iterations == 0) {
      if (k > 0) {  // hand the iterate back to the set: the halo is planned on the set's field
        auto xt = xt_;
        Kokkos::parallel_for(
            "pbd::store_iterate", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i) {
              for (int d = 0; d < 3; ++d) ps(i, d) = xt(i, d);
            });
      }
      rebuild();
      classify_surface();
      build_meshes();
    }
    sweep();
  }
  // Density on the final p* (for XSPH and diagnostics).
  {
    auto t = timers_.scope("constraint_projection");
    density_and_lambda(sweep_inputs(), rho_, lambda_);
  }
  Kokkos::View<double**, Kokkos::LayoutRight> vt("pbd_v", total_, 3);
  {
    auto xt = xt_;
    const double inv = 1.0 / dt;
    Kokkos::parallel_for(
        "pbd::velocity", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i) {
          for (int d = 0; d < 3; ++d) vt(i, d) = (xt(i, d) - x(i, d)) * inv;
        });
  }
  if (p_.xsph > 0) xsph(vt);
  {
    auto xt = xt_;
    const bool from_projection = p_.position_from_projection;
    Kokkos::parallel_for(
        "pbd::integrate", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i) {
          for (int d = 0; d < 3; ++d) {
            v(i, d) = vt(i, d);
            x(i, d) = from_projection ? xt(i, d) : x(i, d) + dt * vt(i, d);
            ps(i, d) = x(i, d);
          }
        });
  }
  time_ += dt;
  ++steps_;
  if (p_.film_insertion_edge > 0) inserted_ += insert_film_particles();
  {
    auto t = timers_.scope("migrate");
    particles::migrate<3>(set_, *decomp_, f_.x);
  }
  if (p_.sort_every > 0 && steps_ % p_.sort_every == 0) {
    auto t = timers_.scope("sort");
    particles::sort_by_cell<3>(set_, *decomp_, f_.x);
  }
}

long PbdXing::insert_film_particles() {
  // A film between separating rings must cover a growing area (1.77 times from H = 0.5 R to the
  // critical separation of the catenoid); with a fixed particle count its spacing grows past the
  // distance constraints' d0 = 2r, which only push apart, until it tears long before the catenoid
  // ceases to exist. Fill stretched triangles of the local meshes (built at the last reset on the
  // final iterate's rows).
  auto t = timers_.scope("film_insertion");
  // A fan is stretched when its mean triangle area exceeds that of the equilateral triangle of edge e
  // (area per particle, not edge length: near a contracting neck triangles are long along the axis and
  // short around it, and need no particle; nor the largest triangle, which in an irregular film is
  // often large); edges of 1.5 e or more span a hole, which must stay open.
  const double e = p_.film_insertion_edge, a_lo = 0.25 * std::sqrt(3.0) * e * e, e_hi = 1.5 * e;
  const int owned = std::min(owned_, static_cast<int>(meshes_.count.extent(0)));
  auto xt = xt_;
  auto ids = ids_;
  auto label = label_;
  auto ring = meshes_.ring;
  auto count = meshes_.count;
  auto flags = meshes_.flags;
  auto mat = set_.material();
  auto kin = kinematic_;
  Kokkos::View<int*> pick("pbd_insert_pick", std::max(owned, 1));
  long local = 0;
  Kokkos::parallel_reduce(
      "pbd::pick_stretched_triangle", Kokkos::RangePolicy<>(0, owned),
      KOKKOS_LAMBDA(const int i, long& n) {
        pick(i) = -1;
        const int c = count(i);
        if (label(i) != 1 || c < 3 || kin(mat(i))) return;
        const int tris = (flags(i) & kMeshClosed) ? c : c - 1;
        // The fan's mean triangle area (the film's area per particle there) decides; the new particle
        // goes into the largest triangle that i has the smallest id in (so two fans sharing a
        // triangle do not both fill it), unless an edge spans a hole.
        double best = 0, sum = 0;
        int best_a = -1;
        for (int a = 0; a < tris; ++a) {
          const int j = ring(i, a), k = ring(i, (a + 1) % c);
          double u[3], w[3], lmax = 0;
          for (int d = 0; d < 3; ++d) {
            u[d] = xt(j, d) - xt(i, d);
            w[d] = xt(k, d) - xt(i, d);
          }
          const double cx = u[1] * w[2] - u[2] * w[1], cy = u[2] * w[0] - u[0] * w[2], cz = u[0] * w[1] - u[1] * w[0];
          const double area = 0.5 * kmath::sqrt(cx * cx + cy * cy + cz * cz);
          sum += area;
          const int v[3] = {i, j, k};
          for (int e = 0; e < 3; ++e) {
            double l2 = 0;
            for (int d = 0; d < 3; ++d) l2 += (xt(v[e], d) - xt(v[(e + 1) % 3], d)) * (xt(v[e], d) - xt(v[(e + 1) % 3], d));
            lmax = kmath::sqrt(l2) > lmax ? kmath::sqrt(l2) : lmax;
          }
          if (ids(i) < ids(j) && ids(i) < ids(k) && lmax < e_hi && area > best) {
            best = area;
            best_a = a;
          }
        }
        if (sum > a_lo * tris) pick(i) = best_a;
        if (pick(i) >= 0) ++n;
      },
      local);
  // Ids: the next free id is one past the largest in the run; the new particles take the ids after it
  // in the order of their creators' ids (gathered from every rank).
  const int64_t max_id = particles::largest_id(set_, comm_);
  auto hpick = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pick);
  auto hids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ids);
  std::vector<int64_t> creators;
  std::vector<int> rows;
  for (int i = 0; i < owned; ++i)
    if (hpick(i) >= 0) {
      creators.push_back(hids(i));
      rows.push_back(i);
    }
  int size = 1;
  MPI_Comm_size(comm_, &size);
  int mine = static_cast<int>(creators.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<int64_t> all(static_cast<size_t>(displs[size - 1] + counts[size - 1]));
  MPI_Allgatherv(creators.data(), mine, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T, comm_);
  std::sort(all.begin(), all.end());
  if (mine > 0) {
    Kokkos::View<int*> new_rows("pbd_insert_rows", mine);
    Kokkos::View<int64_t*> new_ids("pbd_insert_ids", mine);
    {
      auto hr = Kokkos::create_mirror_view(new_rows);
      auto hi = Kokkos::create_mirror_view(new_ids);
      for (int k = 0; k < mine; ++k) {
        hr(k) = rows[k];
        hi(k) = max_id + 1 + (std::lower_bound(all.begin(), all.end(), creators[k]) - all.begin());
      }
      Kokkos::deep_copy(new_rows, hr);
      Kokkos::deep_copy(new_ids, hi);
    }
    const int n0 = static_cast<int>(set_.size());
    set_.resize(static_cast<size_t>(n0 + mine));
    auto x = set_.field(f_.x), v = set_.field(f_.v), ps = set_.field(f_.ps);
    auto id = set_.id();
    auto material = set_.material();
    Kokkos::parallel_for(
        "pbd::insert_film_particles", Kokkos::RangePolicy<>(0, mine), KOKKOS_LAMBDA(const int k) {
          const int i = new_rows(k), q = n0 + k;
          const int c = count(i), a = pick(i);
          const int j = ring(i, a), l = ring(i, (a + 1) % c);
          for (int d = 0; d < 3; ++d) {
            x(q, d) = (xt(i, d) + xt(j, d) + xt(l, d)) / 3.0;
            ps(q, d) = x(q, d);
            v(q, d) = v(i, d);  // the creator's velocity (ghost rows carry no velocity)
          }
          id(q) = new_ids(k);
          material(q) = material(i);
        });
  }
  return static_cast<long>(all.size());
}

namespace {
// Per particle: |v|^2 / 2 and its position (kinetic energy and centroid sums).
struct PbdMotionTerms {
  static constexpr int count = 4;
  particles::RealField x, v;
  KOKKOS_INLINE_FUNCTION void operator()(const long i, double* t) const {
    double s = 0;
    for (int d = 0; d < 3; ++d) {
      s += v(i, d) * v(i, d);
      t[1 + d] = x(i, d);
    }
    t[0] = 0.5 * s;
  }
};

// Per owned row of the last sweep: volume m / rho, density, fan area.
struct PbdSweepTerms {
  static constexpr int count = 3;
  Kokkos::View<const double*> rho, area;
  double mass;
  KOKKOS_INLINE_FUNCTION void operator()(const long i, double* t) const {
    t[0] = rho.extent(0) > 0 ? mass / rho(i) : 0.0;
    t[1] = rho.extent(0) > 0 ? rho(i) : 0.0;
    t[2] = area.extent(0) > 0 ? area(i) : 0.0;
  }
};
}  // namespace

void PbdXing::diagnostics(DiagnosticRow& row) {
  // Density ratio statistics use the densities of the last step's final iterate (owned rows).
  const int n = static_cast<int>(set_.size());
  auto x = set_.field(f_.x), v = set_.field(f_.v);
  double sums[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};  // count, ke, x, y, z, volume, rho sum, rho count, fan area
  // The floating-point sums are exact sums of the per-particle terms (reproducible_sum, Demmel & Nguyen
  // 2013): the same particles give the same bits at any rank or thread count. The counts are integers.
  reproducible_sum(comm_, static_cast<long>(n), PbdMotionTerms{x, v}, sums + 1, "pbd::diag");
  double vmax = 0;
  Kokkos::parallel_reduce(
      "pbd::diag_speed", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const int i, double& vm) {
        double s = 0;
        for (int d = 0; d < 3; ++d) s += v(i, d) * v(i, d);
        vm = s > vm ? s : vm;
      },
      Kokkos::Max<double>(vmax));
  // The last sweep's rows (before migration); a rank without them adds nothing (the sum is collective).
  const bool have_rho = rho_.extent(0) >= static_cast<size_t>(owned_);
  const bool have_area = area_.extent(0) >= static_cast<size_t>(owned_);
  PbdSweepTerms sweep{have_rho ? rho_ : Kokkos::View<double*>(), have_area ? area_ : Kokkos::View<double*>(), mass_};
  double swept[3];
  reproducible_sum(comm_, (have_rho || have_area) ? static_cast<long>(owned_) : 0L, sweep, swept, "pbd::diag_sweep");
  sums[5] = swept[0];
  sums[6] = swept[1];
  sums[8] = swept[2];
  double counts[2] = {static_cast<double>(n), have_rho ? static_cast<double>(owned_) : 0.0};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_DOUBLE, MPI_SUM, comm_);
  sums[0] = counts[0];
  sums[7] = counts[1];
  MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_DOUBLE, MPI_MAX, comm_);
  long proj = projected_;
  MPI_Allreduce(MPI_IN_PLACE, &proj, 1, MPI_LONG, MPI_SUM, comm_);
  long classes[3] = {surface_count_, isolated_count_, filament_count_};  // at the last classification
  MPI_Allreduce(MPI_IN_PLACE, classes, 3, MPI_LONG, MPI_SUM, comm_);
  long fans[3] = {fan_counts_[0], fan_counts_[1], fan_counts_[2]};
  MPI_Allreduce(MPI_IN_PLACE, fans, 3, MPI_LONG, MPI_SUM, comm_);
  const double cnt = std::max(sums[0], 1.0);
  row.emplace_back("particles", sums[0]);
  row.emplace_back("kinetic_energy", mass_ * sums[1]);
  row.emplace_back("max_speed", std::sqrt(vmax));
  row.emplace_back("center_x", sums[2] / cnt);
  row.emplace_back("center_y", sums[3] / cnt);
  row.emplace_back("center_z", sums[4] / cnt);
  row.emplace_back("volume", sums[5]);
  row.emplace_back("mean_density_ratio", sums[7] > 0 ? sums[6] / sums[7] / p_.rest_density : 0.0);
  row.emplace_back("collider_projections", static_cast<double>(proj));
  // Every consistent triangle lies in the fans of its three vertices (Xing et al. 2022, sec. 6.4).
  row.emplace_back("surface_area", sums[8] / 3.0);
  row.emplace_back("surface_particles", static_cast<double>(classes[0]));
  row.emplace_back("isolated_particles", static_cast<double>(classes[1]));
  row.emplace_back("filament_particles", static_cast<double>(classes[2]));
  row.emplace_back("valid_fans", static_cast<double>(fans[0]));
  row.emplace_back("closed_fans", static_cast<double>(fans[1]));
  row.emplace_back("overflowing_fans", static_cast<double>(fans[2]));
}

long PbdXing::global_particle_count() {
  long n = static_cast<long>(set_.size()), total = 0;
  MPI_Allreduce(&n, &total, 1, MPI_LONG, MPI_SUM, comm_);
  return total;
}

std::vector<std::pair<std::string, double>> PbdXing::state() {
  long proj = projected_;
  MPI_Allreduce(MPI_IN_PLACE, &proj, 1, MPI_LONG, MPI_SUM, comm_);
  std::vector<std::pair<std::string, double>> s = {{"steps", static_cast<double>(steps_)},
                                                    {"time", time_},
                                                    {"particle_mass", mass_},
                                                    {"collider_projections", static_cast<double>(proj)}};
  if (!p_.emitters.empty()) {
    s.emplace_back("next_id", static_cast<double>(next_id_));
    s.emplace_back("emitted", static_cast<double>(emitted_));
    for (size_t e = 0; e < emitted_layers_.size(); ++e)
      s.emplace_back("emitter_" + std::to_string(e) + "_layers", static_cast<double>(emitted_layers_[e]));
  }
  return s;
}

void PbdXing::restore_state(const std::vector<std::pair<std::string, double>>& state) {
  for (const auto& [k, v] : state) {
    if (k == "steps") steps_ = static_cast<long>(v);
    if (k == "time") time_ = v;
    // The mass was calibrated on the initial configuration, not on the restarted one.
    if (k == "particle_mass") mass_ = v;
    if (k == "collider_projections") projected_ = rank_ == 0 ? static_cast<long>(v) : 0;
    if (k == "next_id") next_id_ = static_cast<int64_t>(v);
    if (k == "emitted") emitted_ = static_cast<long>(v);
    for (size_t e = 0; e < emitted_layers_.size(); ++e)
      if (k == "emitter_" + std::to_string(e) + "_layers") emitted_layers_[e] = static_cast<long>(v);
  }
}

void PbdXing::redistribute_particles() {
  particles::send_to_owners<3>(set_, *decomp_, f_.x);
  particles::sort_by_cell<3>(set_, *decomp_, f_.x);
}

}  // namespace meniscus::pbd
