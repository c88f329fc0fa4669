#include "methods/mpm/implicit_solve.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/kmath.hpp"
#include "core/log.hpp"
#include "methods/method.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/vec_access.hpp"

namespace meniscus::mpm {

namespace {

// The inner KSP when `ksp` is the default PREONLY + the assembled Hessian's reduced solve (a
// PCSHELL), else null: an outer configuration from the options database stands for itself.
template <int Dim>
KSP reduced_ksp(KSP ksp, const AssembledHessian<Dim>& matrix) {
  PetscBool preonly = PETSC_FALSE, shell = PETSC_FALSE;
  solvers::petsc_check(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(ksp), KSPPREONLY, &preonly),
                       "PetscObjectTypeCompare");
  PC pc;
  solvers::petsc_check(KSPGetPC(ksp, &pc), "KSPGetPC");
  solvers::petsc_check(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCSHELL, &shell),
                       "PetscObjectTypeCompare");
  return preonly && shell ? matrix.inner_ksp() : nullptr;
}

// Light: a node below the light-node mass threshold, held at its P2G velocity (treated as Fixed by
// the solver, then shifted with the free nodes; see treat_light_nodes). LightOnCollider: the same for
// a node under a slip collider's constraint, held at its P2G velocity with the constraint applied, and
// not shifted (the collider takes up momentum there anyway).
enum NodeKind : int { Inactive = 0, Free = 1, NormalFixed = 2, Fixed = 3, Light = 4, LightOnCollider = 5 };
KOKKOS_INLINE_FUNCTION bool held(int k) { return k == Inactive || k == Fixed || k == Light || k == LightOnCollider; }

// "(x, y[, z])" of owned node i, for the -mpm_newton_monitor lines.
template <int Dim>
std::string node_position(const grid::Decomposition<Dim>& decomp, const grid::NodeBox<Dim>& box, long i) {
  int ijk[Dim];
  box.node(i, ijk);
  std::string s = "(";
  for (int d = 0; d < Dim; ++d) s += log::format(d ? ", %.4f" : "%.4f", decomp.lower()[d] + ijk[d] * decomp.dx());
  return s + ")";
}

// PETSc log events (-log_view) of the Newton stage's particle work, beside PETSc's own (KSPSolve,
// PCSetUp, MatSetValuesCOO): where a step's time goes (docs/theory-mpm-implicit.md, profile).
struct ImplicitEvents {
  PetscLogEvent energy = 0, gradient = 0, linearize = 0, assemble = 0;
  ImplicitEvents() {
    PetscClassId id = 0;
    solvers::petsc_check(PetscClassIdRegister("MPM implicit", &id), "PetscClassIdRegister");
    solvers::petsc_check(PetscLogEventRegister("MPMEnergy", id, &energy), "PetscLogEventRegister");
    solvers::petsc_check(PetscLogEventRegister("MPMGradient", id, &gradient), "PetscLogEventRegister");
    solvers::petsc_check(PetscLogEventRegister("MPMLinearize", id, &linearize), "PetscLogEventRegister");
    solvers::petsc_check(PetscLogEventRegister("MPMAssemble", id, &assemble), "PetscLogEventRegister");
  }
};
const ImplicitEvents& events() {
  static const ImplicitEvents e;
  return e;
}
struct EventScope {
  PetscLogEvent e;
  explicit EventScope(PetscLogEvent ev) : e(ev) { solvers::petsc_check(PetscLogEventBegin(e, 0, 0, 0, 0), "PetscLogEventBegin"); }
  ~EventScope() { solvers::petsc_check_noexcept(PetscLogEventEnd(e, 0, 0, 0, 0), "PetscLogEventEnd"); }
};
}

template <int Dim>
ImplicitGridSolver<Dim>::ImplicitGridSolver(const grid::Decomposition<Dim>& decomp, const solvers::NewtonOptions& options)
    : decomp_(decomp), options_(options) {
  // Same ownership and ghost width as the MPM grid, Dim unknowns per node.
  solvers::petsc_check(DMDACreateCompatibleDMDA(decomp.dm(), Dim, &dm_), "DMDACreateCompatibleDMDA");
  solvers::petsc_check(DMCreateGlobalVector(dm_, &box_), "DMCreateGlobalVector");
  solvers::petsc_check(DMCreateLocalVector(dm_, &in_local_), "DMCreateLocalVector");
  solvers::petsc_check(VecDuplicate(in_local_, &out_local_), "VecDuplicate");
  PetscInt nb = 0, nl = 0;
  solvers::petsc_check(VecGetSize(box_, &nb), "VecGetSize");
  solvers::petsc_check(VecGetLocalSize(in_local_, &nl), "VecGetLocalSize");
  direct_ = nb == nl;  // one rank, no periodic ghosts: local and owned boxes coincide
  resize(0);
}

template <int Dim>
void ImplicitGridSolver<Dim>::resize(long active) {
  PetscInt n = -1;
  if (v_) solvers::petsc_check(VecGetLocalSize(v_, &n), "VecGetLocalSize");
  int changed = n != active * Dim ? 1 : 0;  // creating a Vec is collective: all ranks or none
  MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_MAX, decomp_.comm());
  if (changed) {
    newton_.reset();
    for (Vec* v : {&v_, &work_})
      if (*v) solvers::petsc_check(VecDestroy(v), "VecDestroy");
    // The box vector's type (a device type when the options database asks for one), Dim per node.
    VecType type;
    solvers::petsc_check(VecGetType(box_, &type), "VecGetType");
    solvers::petsc_check(VecCreate(decomp_.comm(), &v_), "VecCreate");
    solvers::petsc_check(VecSetSizes(v_, static_cast<PetscInt>(active * Dim), PETSC_DETERMINE), "VecSetSizes");
    solvers::petsc_check(VecSetBlockSize(v_, Dim), "VecSetBlockSize");
    solvers::petsc_check(VecSetType(v_, type), "VecSetType");
    solvers::petsc_check(VecDuplicate(v_, &work_), "VecDuplicate");
    newton_ = std::make_unique<solvers::NewtonMinimizer>(v_, options_);
  }
  if (static_cast<long>(mass_.extent(0)) != active) {
    mass_ = Kokkos::View<double*>("implicit_mass", active);
    real_mass_ = Kokkos::View<double*>("implicit_real_mass", active);
    vn_ = Kokkos::View<double**, Kokkos::LayoutRight>("implicit_vn", active, Dim);
    normal_ = Kokkos::View<double**, Kokkos::LayoutRight>("implicit_normal", active, Dim);
    vfix_ = Kokkos::View<double**, Kokkos::LayoutRight>("implicit_vfix", active, Dim);
    kind_ = Kokkos::View<int*>("implicit_kind", active);
    hold_ = Kokkos::View<double*>("implicit_hold", active);
    active_ = Kokkos::View<long*>("implicit_active", active);
  }
}

template <int Dim>
ImplicitGridSolver<Dim>::~ImplicitGridSolver() {
  newton_.reset();
  for (Vec* v : {&v_, &work_, &box_, &in_local_, &out_local_})
    if (*v) solvers::petsc_check_noexcept(VecDestroy(v), "VecDestroy");
  if (dm_) solvers::petsc_check_noexcept(DMDestroy(&dm_), "DMDestroy");
}

template <int Dim>
void ImplicitGridSolver<Dim>::load(Vec compact) {
  // Massless nodes stay zero in the target between calls (the active nodes are overwritten each
  // time), so only a target that was used for something else is cleared first.
  if (direct_) {
    if (!in_clean_) solvers::petsc_check(VecZeroEntries(in_local_), "VecZeroEntries");
    in_clean_ = true;
    solvers::VecAccess c(compact, Dim, false), l(in_local_, Dim);
    copy_listed_rows<Dim>(c.view, l.view, active_, false);
    return;
  }
  if (!box_clean_) solvers::petsc_check(VecZeroEntries(box_), "VecZeroEntries");
  box_clean_ = true;
  {
    solvers::VecAccess c(compact, Dim, false), b(box_, Dim);
    copy_listed_rows<Dim>(c.view, b.view, active_, false);
  }
  solvers::petsc_check(DMGlobalToLocalBegin(dm_, box_, INSERT_VALUES, in_local_), "DMGlobalToLocalBegin");
  solvers::petsc_check(DMGlobalToLocalEnd(dm_, box_, INSERT_VALUES, in_local_), "DMGlobalToLocalEnd");
  in_clean_ = false;
}

template <int Dim>
void ImplicitGridSolver<Dim>::store(Vec compact) {
  if (direct_) {
    solvers::VecAccess l(out_local_, Dim, false), c(compact, Dim);
    copy_listed_rows<Dim>(l.view, c.view, active_, true);
    return;
  }
  solvers::petsc_check(VecZeroEntries(box_), "VecZeroEntries");
  solvers::petsc_check(DMLocalToGlobalBegin(dm_, out_local_, ADD_VALUES, box_), "DMLocalToGlobalBegin");
  solvers::petsc_check(DMLocalToGlobalEnd(dm_, out_local_, ADD_VALUES, box_), "DMLocalToGlobalEnd");
  box_clean_ = false;  // the samples' stencils reach massless nodes too
  solvers::VecAccess b(box_, Dim, false), c(compact, Dim);
  copy_listed_rows<Dim>(b.view, c.view, active_, true);
}

template <int Dim>
long ImplicitGridSolver<Dim>::list_active_nodes(const grid::NodeArray& a) {
  const long n = static_cast<long>(a.extent(0));
  if (static_cast<long>(compact_of_.extent(0)) != n) {
    compact_of_ = Kokkos::View<int*>("implicit_compact_of", n);
    released_ = Kokkos::View<int*>("implicit_hold_released", n);
  }
  auto cof = compact_of_;
  long count = 0;
  Kokkos::parallel_scan(
      "implicit::active_nodes", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const long i, long& upd, const bool final) {
        const bool active = a(i, 0) > 0;
        if (final) cof(i) = active ? static_cast<int>(upd) : -1;
        if (active) upd += 1;
      },
      count);
  resize(count);
  auto act = active_;
  Kokkos::parallel_for(
      "implicit::active_list", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const long i) {
        if (cof(i) >= 0) act(cof(i)) = i;
      });
  box_clean_ = in_clean_ = false;  // the last step's active nodes are no longer this step's
  return count;
}

template <int Dim>
void ImplicitGridSolver<Dim>::setup(grid::GridField<Dim>& grid, const physics::ColliderSet<Dim>& colliders,
                                    const double* gravity, double dt) {
  dt_ = dt;
  colliders_ = colliders;
  for (int d = 0; d < Dim; ++d) gravity_[d] = gravity[d];
  const auto obox = grid.owned_box();
  const long n = obox.size();
  {
    PetscInt nb = 0, nl = 0;
    solvers::petsc_check(VecGetLocalSize(box_, &nb), "VecGetLocalSize");
    solvers::petsc_check(VecGetLocalSize(in_local_, &nl), "VecGetLocalSize");
    if (nb != n * Dim || nl != grid.ghost_box().size() * Dim)
      throw RuntimeError(log::format("implicit MPM: velocity layout %ld/%ld does not match the grid %ld/%ld", (long)nb,
                                     (long)nl, n * Dim, grid.ghost_box().size() * Dim));
  }
  grid::NodeArray a = grid.acquire_owned();
  const long na = list_active_nodes(a);
  auto act = active_;
  auto mass = mass_;
  auto vn = vn_, normal = normal_, vfix = vfix_;
  auto kind = kind_;
  auto hold = hold_;
  auto released = released_;
  const bool line_hold = line_hold_;
  double lower[Dim], g[Dim];
  for (int d = 0; d < Dim; ++d) {
    lower[d] = decomp_.lower()[d];
    g[d] = gravity[d];
  }
  const double dx = decomp_.dx();
  const auto cs = colliders;
  {
    solvers::VecAccess v0(v_, Dim);
    auto v = v0.view;
    Kokkos::parallel_for(
        "implicit::setup", Kokkos::RangePolicy<>(0, na), KOKKOS_LAMBDA(const long k) {
          const long i = act(k);  // a's row; k the active node's entry
          const double m = a(i, 0);
          mass(k) = m;
          hold(k) = 0;
          // The contact-line hold's limit (a force, summed in P2G): its node starts held on the wall, or free
          // where the last step released it and its predictor leaves the wall; the active-set loop of solve()
          // then releases or holds it.
          const double cap = line_hold && m > 0 ? a(i, 1 + Dim) : 0.0;
          for (int d = 0; d < Dim; ++d) {
            vn(k, d) = m > 0 ? a(i, 1 + d) / m : 0.0;
            normal(k, d) = 0;
            vfix(k, d) = 0;
          }
          if (!(m > 0)) {
            kind(k) = Inactive;
            for (int d = 0; d < Dim; ++d) v(k, d) = 0;
            return;
          }
          int node[Dim];
          obox.node(i, node);
          double xi[Dim], pred[Dim];
          for (int d = 0; d < Dim; ++d) {
            xi[d] = lower[d] + node[d] * dx;
            pred[d] = vn(k, d) + dt * g[d];
          }
          int type = Free;
          for (int c = 0; c < cs.count && type == Free; ++c) {
            const auto& col = cs.items[c];
            if (!col.holds(xi)) continue;  // inside, or within a wetting wall's hold distance
            if (col.type == physics::BoundaryType::Sticky) {
              type = Fixed;
              for (int d = 0; d < Dim; ++d) vfix(k, d) = col.velocity[d];
              continue;
            }
            double nn[Dim], rel = 0;
            col.shape.normal(xi, nn);
            for (int d = 0; d < Dim; ++d) rel += (pred[d] - col.velocity[d]) * nn[d];
            const bool line = cap > 0 && col.hold_distance > 0;
            if (rel < 0 || line) {
              for (int d = 0; d < Dim; ++d) {
                normal(k, d) = nn[d];
                vfix(k, d) = col.velocity[d];
              }
              if (!line) {
                type = NormalFixed;
                continue;
              }
              hold(k) = dt * cap;
              if (rel < 0 || released(i) == 0) type = NormalFixed;
              break;  // the first wetting wall holds the line, as in the explicit step (hold_contact_line)
            }
          }
          kind(k) = type;
          // The initial guess (explicit predictor without forces) satisfies the constraints.
          if (type == Fixed) {
            for (int d = 0; d < Dim; ++d) pred[d] = vfix(k, d);
          } else if (type == NormalFixed) {
            double s = 0;
            for (int d = 0; d < Dim; ++d) s += (pred[d] - vfix(k, d)) * normal(k, d);
            for (int d = 0; d < Dim; ++d) pred[d] -= s * normal(k, d);
          }
          for (int d = 0; d < Dim; ++d) v(k, d) = pred[d];
        });
  }
  grid.release_owned(a);
  gbox_ = grid.ghost_box();
  obox_ = obox;
  constraints_ready_ = false;
  if (assembled_ && !matrix_) {
    matrix_ = std::make_unique<AssembledHessian<Dim>>(dm_, gbox_, obox_, decomp_.lower().data(), decomp_.dx(),
                                                      options_.prefix.c_str());
    if (start_multigrid_) matrix_->switch_to_multigrid();
  }
  if (matrix_) matrix_->set_active(compact_of_, na);
  light_count_ = 0;
  Kokkos::deep_copy(real_mass_, mass_);
  if (light_fraction_ > 0 || floor_fraction_ > 0) treat_light_nodes();
}

template <int Dim>
void ImplicitGridSolver<Dim>::treat_light_nodes() {
  // A node reached only by the tails of a few stencils (mass down to 1e-11 of a full node) is nearly
  // free in Phi: its Hessian row is the surface/pressure stiffness, whose null modes its mass does
  // not regularise, so CG meets round-off "negative curvature" (KSP_DIVERGED_INDEFINITE_MAT) and
  // Newton stalls on its residual. Such nodes keep v^n (kind Light): their
  // momentum returns to the particles unchanged, and the forces their stencil weights would receive
  // (O(sqrt(m_i)) with quadratic B-splines) go to every free and light node as one uniform velocity
  // shift after the solve (restore_momentum), so that linear momentum stays conserved. A light node
  // under a slip constraint is held too, at v^n without its normal approach to the collider: free in
  // its tangential directions it reached 2000 m/s in the 3D impact (a drop one cell above the ground,
  // whose stencil tails reach nodes inside the collider), which set the CFL step and stalled Newton.
  auto mass = mass_;
  auto vn = vn_, vfix = vfix_, normal = normal_;
  auto kind = kind_;
  const long n = static_cast<long>(mass.extent(0));
  double mmax = 0;
  Kokkos::parallel_reduce(
      "implicit::max_node_mass", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const long i, double& m) { m = mass(i) > m ? mass(i) : m; }, Kokkos::Max<double>(mmax));
  MPI_Allreduce(MPI_IN_PLACE, &mmax, 1, MPI_DOUBLE, MPI_MAX, decomp_.comm());
  const double threshold = light_fraction_ * mmax, floor = floor_fraction_ * mmax;
  long count = 0;
  solvers::VecAccess v0(v_, Dim);
  auto v = v0.view;
  Kokkos::parallel_reduce(
      "implicit::light_nodes", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const long i, long& c) {
        if (kind(i) != Free && kind(i) != NormalFixed) return;
        if (mass(i) >= threshold) {
          if (kind(i) == Free && mass(i) < floor) mass(i) = floor;
          return;
        }
        c += 1;
        if (kind(i) == Free) {
          kind(i) = Light;
          for (int d = 0; d < Dim; ++d) vfix(i, d) = v(i, d) = vn(i, d);
          return;
        }
        // vfix holds the collider's velocity: remove the approach (v^n - v_c).n < 0 only.
        double s = 0;
        for (int d = 0; d < Dim; ++d) s += (vn(i, d) - vfix(i, d)) * normal(i, d);
        s = s < 0 ? s : 0.0;
        kind(i) = LightOnCollider;
        for (int d = 0; d < Dim; ++d) vfix(i, d) = v(i, d) = vn(i, d) - s * normal(i, d);
      },
      count);
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_LONG, MPI_SUM, decomp_.comm());
  light_count_ = count;
}

template <int Dim>
void ImplicitGridSolver<Dim>::project(Vec vec) {
  solvers::VecAccess acc(vec, Dim);
  auto v = acc.view;
  auto kind = kind_;
  auto normal = normal_;
  Kokkos::parallel_for(
      "implicit::project", Kokkos::RangePolicy<>(0, kind.extent(0)), KOKKOS_LAMBDA(const long i) {
        if (held(kind(i))) {
          for (int d = 0; d < Dim; ++d) v(i, d) = 0;
        } else if (kind(i) == NormalFixed) {
          double s = 0;
          for (int d = 0; d < Dim; ++d) s += v(i, d) * normal(i, d);
          for (int d = 0; d < Dim; ++d) v(i, d) -= s * normal(i, d);
        }
      });
}

template <int Dim>
double ImplicitGridSolver<Dim>::node_energy(Vec vec) {
  solvers::VecAccess acc(vec, Dim, false);
  auto v = acc.view;
  auto kind = kind_;
  auto mass = mass_;
  auto vn = vn_;
  auto hold = hold_;
  auto normal = normal_, vfix = vfix_;
  double g[Dim];
  for (int d = 0; d < Dim; ++d) g[d] = gravity_[d];
  const double dt = dt_;
  double e = 0;
  Kokkos::parallel_reduce(
      "implicit::node_energy", Kokkos::RangePolicy<>(0, kind.extent(0)),
      KOKKOS_LAMBDA(const long i, double& s) {
        if (kind(i) == Inactive) return;
        for (int d = 0; d < Dim; ++d) {
          const double dv = v(i, d) - vn(i, d);
          s += 0.5 * mass(i) * dv * dv - dt * mass(i) * g[d] * v(i, d);
        }
        // The contact-line hold's work dt cap_i (v_i - v_c).n_i (constant while the node is held).
        if (hold(i) > 0 && (kind(i) == Free || kind(i) == NormalFixed))
          for (int d = 0; d < Dim; ++d) s += hold(i) * (v(i, d) - vfix(i, d)) * normal(i, d);
      },
      e);
  return e;
}

template <int Dim>
double ImplicitGridSolver<Dim>::energy(IncrementalPotential<Dim>& potential, Vec v) {
  EventScope scope(events().energy);
  load(v);
  double e = node_energy(v);
  {
    solvers::VecAccess in(in_local_, Dim, false);
    e += potential.energy(in.view);
  }
  MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_SUM, decomp_.comm());
  return e;
}

template <int Dim>
void ImplicitGridSolver<Dim>::gradient(IncrementalPotential<Dim>& potential, Vec vec, Vec out, bool projected) {
  EventScope scope(events().gradient);
  load(vec);
  solvers::petsc_check(VecZeroEntries(out_local_), "VecZeroEntries");
  {
    solvers::VecAccess in(in_local_, Dim, false), acc(out_local_, Dim);
    potential.add_gradient(in.view, acc.view);
  }
  store(out);
  {
    solvers::VecAccess va(vec, Dim, false), ga(out, Dim);
    auto v = va.view, g = ga.view;
    auto kind = kind_;
    auto mass = mass_;
    auto vn = vn_;
    auto hold = hold_;
    auto normal = normal_;
    double gr[Dim];
    for (int d = 0; d < Dim; ++d) gr[d] = gravity_[d];
    const double dt = dt_;
    Kokkos::parallel_for(
        "implicit::node_gradient", Kokkos::RangePolicy<>(0, kind.extent(0)), KOKKOS_LAMBDA(const long i) {
          const double h = hold(i) > 0 && (kind(i) == Free || kind(i) == NormalFixed) ? hold(i) : 0.0;
          for (int d = 0; d < Dim; ++d)
            g(i, d) = kind(i) == Inactive ? 0.0 : g(i, d) + mass(i) * (v(i, d) - vn(i, d) - dt * gr[d]) + h * normal(i, d);
        });
  }
  if (projected) project(out);
}

template <int Dim>
void ImplicitGridSolver<Dim>::linearize(IncrementalPotential<Dim>& potential, Vec v, bool project) {
  EventScope scope(events().linearize);
  load(v);
  solvers::VecAccess in(in_local_, Dim, false);
  potential.linearize(in.view, project);
}

template <int Dim>
void ImplicitGridSolver<Dim>::hessian(IncrementalPotential<Dim>& potential, Vec d, Vec out) {
  // P H P d + (I - P) d, with P the projection onto the free components.
  solvers::petsc_check(VecCopy(d, work_), "VecCopy");
  project(work_);
  load(work_);
  solvers::petsc_check(VecZeroEntries(out_local_), "VecZeroEntries");
  {
    solvers::VecAccess in(in_local_, Dim, false), acc(out_local_, Dim);
    potential.add_hessian(in.view, acc.view);
  }
  store(out);
  {
    solvers::VecAccess pa(work_, Dim, false), oa(out, Dim);
    auto pd = pa.view, o = oa.view;
    auto mass = mass_;
    Kokkos::parallel_for(
        "implicit::node_hessian", Kokkos::RangePolicy<>(0, mass.extent(0)), KOKKOS_LAMBDA(const long i) {
          for (int c = 0; c < Dim; ++c) o(i, c) += mass(i) * pd(i, c);
        });
  }
  project(out);
  // (I - P) d = d - P d.
  solvers::petsc_check(VecAXPY(out, 1.0, d), "VecAXPY");
  solvers::petsc_check(VecAXPY(out, -1.0, work_), "VecAXPY");
}

template <int Dim>
void ImplicitGridSolver<Dim>::gather_ghost_constraints() {
  // The owners' constraints and normals onto the ghost nodes, through the velocity layout: a rank's
  // share of a ghost row must be projected with that node's own constraint.
  const long ng = gbox_.size();
  if (static_cast<long>(ghost_constraint_.extent(0)) != ng) {
    ghost_constraint_ = Kokkos::View<int*>("implicit_ghost_constraint", ng);
    ghost_normal_ = Kokkos::View<double**, Kokkos::LayoutRight>("implicit_ghost_normal", ng, Dim);
  }
  auto kind = kind_;
  auto normal = normal_;
  auto act = active_;
  box_clean_ = in_clean_ = false;
  for (int pass = 0; pass < 2; ++pass) {
    // Massless nodes: held (0), no normal.
    solvers::petsc_check(VecZeroEntries(box_), "VecZeroEntries");
    {
      solvers::VecAccess acc(box_, Dim);
      auto w = acc.view;
      Kokkos::parallel_for(
          "implicit::constraint_out", Kokkos::RangePolicy<>(0, kind.extent(0)), KOKKOS_LAMBDA(const long k) {
            const long i = act(k);
            for (int d = 0; d < Dim; ++d) {
              if (pass == 0) {
                w(i, d) = kind(k) == NormalFixed ? normal(k, d) : 0.0;
              } else {
                const int c = kind(k) == Free ? static_cast<int>(NodeConstraint::Free)
                              : kind(k) == NormalFixed ? static_cast<int>(NodeConstraint::Normal)
                                                       : static_cast<int>(NodeConstraint::Held);
                w(i, d) = d == 0 ? c : 0.0;
              }
            }
          });
    }
    solvers::petsc_check(DMGlobalToLocalBegin(dm_, box_, INSERT_VALUES, in_local_), "DMGlobalToLocalBegin");
    solvers::petsc_check(DMGlobalToLocalEnd(dm_, box_, INSERT_VALUES, in_local_), "DMGlobalToLocalEnd");
    solvers::VecAccess acc(in_local_, Dim, false);
    auto in = acc.view;
    auto gc = ghost_constraint_;
    auto gn = ghost_normal_;
    Kokkos::parallel_for(
        "implicit::constraint_in", Kokkos::RangePolicy<>(0, ng), KOKKOS_LAMBDA(const long l) {
          if (pass == 0) {
            for (int d = 0; d < Dim; ++d) gn(l, d) = in(l, d);
          } else {
            gc(l) = static_cast<int>(in(l, 0) + 0.5);
          }
        });
  }
  constraints_ready_ = true;
}

template <int Dim>
Mat ImplicitGridSolver<Dim>::assemble_hessian(IncrementalPotential<Dim>& potential) {
  if (!matrix_) throw RuntimeError("implicit MPM: assemble_hessian needs the assembled Hessian (mpm.newton.hessian)");
  if (!constraints_ready_) {
    gather_ghost_constraints();
    matrix_->prepare(ghost_constraint_, ghost_normal_, box_, in_local_);
    box_clean_ = in_clean_ = false;
  }
  {
    EventScope scope(events().assemble);
    matrix_->assemble(potential, mass_);
  }
  return matrix_->mat();
}

template <int Dim>
void ImplicitGridSolver<Dim>::restore_momentum(IncrementalPotential<Dim>& potential) {
  // The impulse a light node would have received, -(dE/dv_i - m_i dt g) (its kinetic term vanishes
  // at v^n), summed over light nodes and spread as v += lost / (free + light mass): the momentum
  // change is then dt g M plus the colliders' reactions, as without held nodes (sum_i dE/dv_i = 0).
  Vec g;
  solvers::petsc_check(VecDuplicate(v_, &g), "VecDuplicate");
  gradient(potential, v_, g, false);
  double sums[Dim + 1] = {};
  auto kind = kind_;
  auto mass = mass_, real = real_mass_;
  auto vn = vn_;
  double gr[Dim];
  for (int d = 0; d < Dim; ++d) gr[d] = gravity_[d];
  const double dt = dt_;
  {
    solvers::VecAccess ga(g, Dim, false), va(v_, Dim, false);
    auto gv = ga.view, v = va.view;
    for (int d = 0; d <= Dim; ++d) {
      double s = 0;
      Kokkos::parallel_reduce(
          "implicit::light_impulse", Kokkos::RangePolicy<>(0, kind.extent(0)),
          KOKKOS_LAMBDA(const long i, double& acc) {
            if (d == Dim) {
              if (kind(i) == Free || kind(i) == Light) acc += real(i);
            } else if (kind(i) == Light) {
              acc -= gv(i, d);
            } else if (kind(i) == Free) {
              // A floored kinetic mass m~ > m: the solve balanced m~ (v - v^n - dt g) against the
              // forces, the particles carry m (v - v^n).
              acc += (mass(i) - real(i)) * (v(i, d) - vn(i, d) - dt * gr[d]);
            }
          },
          s);
      sums[d] = s;
    }
  }
  solvers::petsc_check_noexcept(VecDestroy(&g), "VecDestroy");
  MPI_Allreduce(MPI_IN_PLACE, sums, Dim + 1, MPI_DOUBLE, MPI_SUM, decomp_.comm());
  if (!(sums[Dim] > 0)) return;
  double shift[Dim];
  for (int d = 0; d < Dim; ++d) shift[d] = sums[d] / sums[Dim];
  solvers::VecAccess va(v_, Dim);
  auto v = va.view;
  Kokkos::parallel_for(
      "implicit::light_shift", Kokkos::RangePolicy<>(0, kind.extent(0)), KOKKOS_LAMBDA(const long i) {
        if (kind(i) != Free && kind(i) != Light) return;
        for (int d = 0; d < Dim; ++d) v(i, d) += shift[d];
      });
}

template <int Dim>
long ImplicitGridSolver<Dim>::update_hold_set(IncrementalPotential<Dim>& potential, bool apply, double tolerance) {
  // One active-set update of the contact-line hold at the current iterate. A held node's multiplier is the
  // normal component of the unprojected gradient of Phi + hold work, mu_i = dPhi/dv_i.n_i + dt cap_i: the wall
  // must push (mu_i >= 0) for the node to stay, so mu_i < 0 (beyond the Newton tolerance on that node) releases
  // it; a released node with (v_i - v_c).n_i < 0 moves into the wall and is held again. Returns the number of
  // nodes that change (all ranks); with apply false nothing changes: the released nodes are counted and kept as
  // the next step's start (setup).
  auto kind = kind_;
  auto mass = mass_;
  auto hold = hold_;
  auto released = released_;
  auto act = active_;
  auto normal = normal_, vfix = vfix_;
  long count = 0;
  if (!apply) {
    Kokkos::deep_copy(released, 0);  // massless nodes too
    Kokkos::parallel_reduce(
        "implicit::hold_released", Kokkos::RangePolicy<>(0, kind.extent(0)),
        KOKKOS_LAMBDA(const long i, long& c) {
          const int r = hold(i) > 0 && kind(i) == Free ? 1 : 0;
          released(act(i)) = r;
          c += r;
        },
        count);
  } else {
    Vec g;
    solvers::petsc_check(VecDuplicate(v_, &g), "VecDuplicate");
    gradient(potential, v_, g, false);
    {
      solvers::VecAccess ga(g, Dim, false), va(v_, Dim);
      auto gv = ga.view, v = va.view;
      Kokkos::parallel_reduce(
          "implicit::hold_set", Kokkos::RangePolicy<>(0, kind.extent(0)),
          KOKKOS_LAMBDA(const long i, long& c) {
            if (!(hold(i) > 0)) return;
            if (kind(i) == NormalFixed) {
              double mu = 0;
              for (int d = 0; d < Dim; ++d) mu += gv(i, d) * normal(i, d);
              if (mu < -tolerance * kmath::sqrt(mass(i))) {
                kind(i) = Free;
                c += 1;
              }
            } else if (kind(i) == Free) {
              double s = 0;
              for (int d = 0; d < Dim; ++d) s += (v(i, d) - vfix(i, d)) * normal(i, d);
              if (s < 0) {
                kind(i) = NormalFixed;
                for (int d = 0; d < Dim; ++d) v(i, d) -= s * normal(i, d);
                c += 1;
              }
            }
          },
          count);
    }
    solvers::petsc_check_noexcept(VecDestroy(&g), "VecDestroy");
  }
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_LONG, MPI_SUM, decomp_.comm());
  return count;
}

template <int Dim>
void ImplicitGridSolver<Dim>::choose_initial_guess(IncrementalPotential<Dim>& potential) {
  // v^n + dt g is a poor start at steps far above the acoustic or capillary limit: dt grad v^n
  // alone may compress a particle or stretch a sample by O(1) (Phi = 134 J against 0.1 J at the
  // minimiser in the 2D drop at 21 dt_capillary, and Newton then needs 40 iterations or fails).
  // The free nodes at rest (dt g) are the other candidate; the one of lower Phi is kept (a global
  // sum, so every rank chooses the same).
  const double e_moving = energy(potential, v_);
  solvers::petsc_check(VecCopy(v_, work_), "VecCopy");
  {
    solvers::VecAccess acc(work_, Dim);
    auto w = acc.view;
    auto kind = kind_;
    double g[Dim];
    for (int d = 0; d < Dim; ++d) g[d] = gravity_[d];
    const double dt = dt_;
    Kokkos::parallel_for(
        "implicit::rest_guess", Kokkos::RangePolicy<>(0, kind.extent(0)), KOKKOS_LAMBDA(const long i) {
          if (kind(i) != Free) return;
          for (int d = 0; d < Dim; ++d) w(i, d) = dt * g[d];
        });
  }
  const double e_rest = energy(potential, work_);
  if (e_rest < e_moving) solvers::petsc_check(VecCopy(work_, v_), "VecCopy");
}

template <int Dim>
ImplicitStats ImplicitGridSolver<Dim>::solve(IncrementalPotential<Dim>& potential, grid::GridField<Dim>& grid) {
  auto mass = mass_;
  auto kind = kind_;
  auto vn = vn_;
  MPI_Comm comm = decomp_.comm();
  // The owned node of active node k (monitor lines).
  const auto active_host = Kokkos::create_mirror_view(Kokkos::HostSpace(), active_);
  bool active_copied = false;
  auto active_node = [&](long k) {
    if (!active_copied) Kokkos::deep_copy(active_host, active_);
    active_copied = true;
    return active_host(k);
  };
  solvers::NewtonProblem problem;
  problem.energy = [&](Vec v) { return energy(potential, v); };
  problem.gradient = [&](Vec v, Vec g) { gradient(potential, v, g, true); };
  // Exact Hessian first (quadratic convergence near the minimiser); the PSD-projected one is the
  // fallback when CG meets negative curvature (solvers/newton_minimizer.hpp).
  problem.linearize = [&](Vec v) { linearize(potential, v, false); };
  if (potential.projection_allowed()) problem.linearize_projected = [&](Vec v) { linearize(potential, v, true); };
  problem.hessian = [&](Vec d, Vec out) { hessian(potential, d, out); };
  if (assembled_) {
    // The assembled Hessian replaces the shell in the KSP; CG + symmetric SOR, switching to
    // smoothed-aggregation AMG (PCGAMG) when SOR is too slow (AssembledHessian::configure_pc),
    // -mpm_newton_* overrides.
    problem.linearize = [&](Vec v) {
      linearize(potential, v, false);
      assemble_hessian(potential);
    };
    if (potential.projection_allowed())
      problem.linearize_projected = [&](Vec v) {
        linearize(potential, v, true);
        assemble_hessian(potential);
      };
    problem.matrix = [&]() { return matrix_->mat(); };
    const auto& opt = options_;
    AssembledHessian<Dim>& matrix = *matrix_;
    problem.configure_ksp = [&opt, &matrix](KSP ksp) {
      // The held and inactive nodes (most of the box) are identity rows: the outer KSP applies the
      // reduced solve once (PREONLY + PCSHELL), whose inner KSP (prefix -mpm_newton_redistribute_)
      // runs CG + SOR or GAMG on the unknown nodes alone (assembled_hessian.hpp). With CG on the whole box
      // every iteration also paid two products and five vector operations over it (3D impact at
      // dx = 1/63: 2.3 M box unknowns for 22 k free ones), and GAMG spent most of its set-up on
      // those rows (dx = 2/63: PCSetUp 1.1 s against 0.44 s per step, same CG iterations).
      solvers::petsc_check(KSPSetType(ksp, KSPPREONLY), "KSPSetType");
      PC pc;
      solvers::petsc_check(KSPGetPC(ksp, &pc), "KSPGetPC");
      matrix.make_preconditioner(pc);
      // The Newton options' linear tolerance (the forcing term's floor), then the options database.
      matrix.configure_inner(opt.linear_tolerance, opt.max_linear_iterations);
      matrix.refresh_preconditioner();
    };
    problem.working_ksp = [&matrix](KSP ksp) {
      // The inner KSP of the default reduced solve takes the forcing term's tolerance.
      const KSP inner = reduced_ksp<Dim>(ksp, matrix);
      return inner ? inner : ksp;
    };
    problem.linear_outcome = [&matrix](KSP ksp, PetscInt& its, KSPConvergedReason& reason) {
      // With the default reduced solve the inner CG did the work: its iterations and reason
      // (negative curvature there selects the projected Hessian). Any other outer configuration
      // from the options database reports itself.
      const KSP inner = reduced_ksp<Dim>(ksp, matrix);
      if (!inner) return;
      its = matrix.last_iterations();
      reason = matrix.last_reason();
    };
  }
  problem.diagonal = [&](Vec diag) {
    solvers::petsc_check(VecZeroEntries(out_local_), "VecZeroEntries");
    {
      solvers::VecAccess acc(out_local_, Dim);
      potential.add_diagonal(acc.view);
    }
    store(diag);
    solvers::VecAccess da(diag, Dim);
    auto dg = da.view;
    Kokkos::parallel_for(
        "implicit::node_diagonal", Kokkos::RangePolicy<>(0, kind.extent(0)), KOKKOS_LAMBDA(const long i) {
          for (int c = 0; c < Dim; ++c)
            dg(i, c) = held(kind(i)) ? 1.0 : dg(i, c) + mass(i);
        });
  };
  problem.residual_norm = [&](Vec gv) {
    solvers::VecAccess ga(gv, Dim, false);
    auto g = ga.view;
    double s = 0;
    Kokkos::parallel_reduce(
        "implicit::residual_norm", Kokkos::RangePolicy<>(0, kind.extent(0)),
        KOKKOS_LAMBDA(const long i, double& acc) {
          if (kind(i) == Inactive) return;
          for (int c = 0; c < Dim; ++c) acc += g(i, c) * g(i, c) / mass(i);
        },
        s);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
    return std::sqrt(s);
  };
  // -mpm_newton_monitor: where the residual sqrt(sum |g|^2 / m) sits, by node-mass class (fractions of the
  // heaviest node, as the speed line after the solve) and at its largest node (this rank's; a diagnostic).
  problem.describe_residual = [&](Vec gv) {
    solvers::VecAccess ga(gv, Dim, false);
    auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ga.view);
    auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mass);
    auto k = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), kind);
    const auto obox = grid.owned_box();
    double mmax = 0;
    for (size_t i = 0; i < m.extent(0); ++i) mmax = std::max(mmax, m(i));
    MPI_Allreduce(MPI_IN_PLACE, &mmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    const double edges[5] = {0, 1e-4, 1e-2, 1e-1, 2};
    double share[4] = {0, 0, 0, 0}, worst = -1;
    long at = -1;
    for (size_t i = 0; i < m.extent(0); ++i) {
      if (k(i) == Inactive) continue;
      double r2 = 0;
      for (int c = 0; c < Dim; ++c) r2 += g(i, c) * g(i, c) / m(i);
      for (int c = 0; c < 4; ++c)
        if (m(i) >= edges[c] * mmax && m(i) < edges[c + 1] * mmax) share[c] += r2;
      if (r2 > worst) worst = r2, at = static_cast<long>(i);
    }
    MPI_Allreduce(MPI_IN_PLACE, share, 4, MPI_DOUBLE, MPI_SUM, comm);
    std::string line = "residual by node-mass class (sqrt of the class's sum |g|^2/m):";
    for (int c = 0; c < 4; ++c) line += log::format(" [%g,%g) %.3e;", edges[c], edges[c + 1], std::sqrt(share[c]));
    if (at >= 0)
      line += log::format(" largest on this rank %.3e at node mass %.3g of the heaviest, x = %s, held %d", std::sqrt(worst),
                          m(at) / mmax, node_position<Dim>(decomp_, obox, active_node(at)).c_str(), held(k(at)) ? 1 : 0);
    return line;
  };
  problem.step_norm = [&](Vec dv) {
    solvers::VecAccess da(dv, Dim, false);
    auto d = da.view;
    double s = 0;
    Kokkos::parallel_reduce(
        "implicit::step_norm", Kokkos::RangePolicy<>(0, kind.extent(0)),
        KOKKOS_LAMBDA(const long i, double& acc) {
          if (kind(i) == Inactive) return;
          for (int c = 0; c < Dim; ++c) acc += mass(i) * d(i, c) * d(i, c);
        },
        s);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
    return std::sqrt(s);
  };
  // Reference scale of the residual sqrt(sum |r|^2 / m) (units sqrt(kg) m/s): the grid's momentum
  // norm sqrt(sum m |v^n|^2), the gravity impulse dt |g| sqrt(sum m), or the impulse of the forces at
  // rest, sqrt(sum |dt f_i|^2 / m_i) with dt f = -dE/dv(0) (the explicit update's force impulse).
  // Not the residual of the initial guess v^n: at steps far above the capillary or acoustic limit
  // dt grad v^n alone compresses the particles and stretches the samples by O(1), and a residual
  // of that size (10^6 in the 2D drop at 21 dt_capillary) made the tolerance meaningless.
  double sums[2] = {0, 0};
  Kokkos::parallel_reduce(
      "implicit::reference_momentum", Kokkos::RangePolicy<>(0, kind.extent(0)),
      KOKKOS_LAMBDA(const long i, double& mv2) {
        if (kind(i) == Inactive) return;
        for (int c = 0; c < Dim; ++c) mv2 += mass(i) * vn(i, c) * vn(i, c);
      },
      sums[0]);
  Kokkos::parallel_reduce(
      "implicit::reference_mass", Kokkos::RangePolicy<>(0, kind.extent(0)),
      KOKKOS_LAMBDA(const long i, double& m) { m += kind(i) == Inactive ? 0.0 : mass(i); }, sums[1]);
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
  double gnorm = 0;
  for (int d = 0; d < Dim; ++d) gnorm += gravity_[d] * gravity_[d];
  double impulse = 0;
  {
    Vec zero, f0;
    solvers::petsc_check(VecDuplicate(v_, &zero), "VecDuplicate");
    solvers::petsc_check(VecDuplicate(v_, &f0), "VecDuplicate");
    solvers::petsc_check(VecZeroEntries(zero), "VecZeroEntries");
    gradient(potential, zero, f0, true);
    {
      // Remove the node terms m (0 - v^n - dt g) of the gradient: dE/dv(0) remains.
      solvers::VecAccess fa(f0, Dim);
      auto f = fa.view;
      double gr[Dim];
      for (int d = 0; d < Dim; ++d) gr[d] = gravity_[d];
      const double dt = dt_;
      Kokkos::parallel_for(
          "implicit::force_at_rest", Kokkos::RangePolicy<>(0, kind.extent(0)), KOKKOS_LAMBDA(const long i) {
            if (held(kind(i))) return;  // projected out below
            for (int c = 0; c < Dim; ++c) f(i, c) += mass(i) * (vn(i, c) + dt * gr[c]);
          });
    }
    project(f0);
    impulse = problem.residual_norm(f0);
    solvers::petsc_check_noexcept(VecDestroy(&zero), "VecDestroy");
    solvers::petsc_check_noexcept(VecDestroy(&f0), "VecDestroy");
  }
  problem.reference = std::max({std::sqrt(sums[0]), dt_ * std::sqrt(gnorm * sums[1]), impulse, 1e-300});

  choose_initial_guess(potential);
  // The contact-line hold's active set (primal-dual, Hintermueller, Ito & Kunisch 2003): its nodes start held on
  // the wall; after a converged solve a held node whose multiplier is negative (the liquid pulls it off harder
  // than dt cap_i) is released, a released node that moves into the wall is held again, and the solve is
  // repeated from the last iterate, until no node changes or after kHoldPasses solves.
  constexpr int kHoldPasses = 6;
  const double target = options_.tolerance * problem.reference;
  solvers::NewtonResult result;
  int newton_iterations = 0, passes = 0;
  long linear_iterations = 0;
  for (;;) {
    result = newton_->minimize(problem, v_);
    newton_iterations += result.iterations;
    linear_iterations += result.linear_iterations;
    ++passes;
    if (!result.converged) throw StepRejected("implicit MPM: " + result.reason);
    if (!line_hold_ || passes >= kHoldPasses || update_hold_set(potential, true, target) == 0) break;
    constraints_ready_ = false;  // the assembled Hessian's projections follow the new set
  }
  if (light_count_ > 0 || floor_fraction_ > 0) restore_momentum(potential);
  PetscBool monitor = PETSC_FALSE;
  solvers::petsc_check(PetscOptionsHasName(nullptr, options_.prefix.c_str(), "-monitor", &monitor), "PetscOptionsHasName");
  if (monitor) {
    // Largest |v| and |v - v^n| per node-mass class (fractions of the heaviest node; the kinetic
    // mass, so floored nodes count in the floor's class).
    double mmax = 0;
    Kokkos::parallel_reduce(
        "implicit::max_node_mass", Kokkos::RangePolicy<>(0, mass.extent(0)),
        KOKKOS_LAMBDA(const long i, double& m) { m = mass(i) > m ? mass(i) : m; }, Kokkos::Max<double>(mmax));
    MPI_Allreduce(MPI_IN_PLACE, &mmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    const double edges[5] = {0, 1e-4, 1e-2, 1e-1, 2};
    solvers::VecAccess va(v_, Dim, false);
    auto v = va.view;
    std::string line = "implicit node speeds by mass class (fraction of the heaviest: count, max|v|, max|v-v^n|):";
    for (int c = 0; c < 4; ++c) {
      const double lo = edges[c] * mmax, hi = edges[c + 1] * mmax;
      auto in_class = KOKKOS_LAMBDA(const long i)->bool { return kind(i) != Inactive && mass(i) >= lo && mass(i) < hi; };
      double count = 0, vmax = 0, dvmax = 0;
      Kokkos::parallel_reduce(
          "implicit::class_count", Kokkos::RangePolicy<>(0, mass.extent(0)),
          KOKKOS_LAMBDA(const long i, double& acc) { acc += in_class(i) ? 1.0 : 0.0; }, count);
      Kokkos::parallel_reduce(
          "implicit::class_speed", Kokkos::RangePolicy<>(0, mass.extent(0)),
          KOKKOS_LAMBDA(const long i, double& acc) {
            if (!in_class(i)) return;
            double s = 0;
            for (int d = 0; d < Dim; ++d) s += v(i, d) * v(i, d);
            acc = s > acc ? s : acc;
          },
          Kokkos::Max<double>(vmax));
      Kokkos::parallel_reduce(
          "implicit::class_change", Kokkos::RangePolicy<>(0, mass.extent(0)),
          KOKKOS_LAMBDA(const long i, double& acc) {
            if (!in_class(i)) return;
            double s = 0;
            for (int d = 0; d < Dim; ++d) s += (v(i, d) - vn(i, d)) * (v(i, d) - vn(i, d));
            acc = s > acc ? s : acc;
          },
          Kokkos::Max<double>(dvmax));
      MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_DOUBLE, MPI_SUM, comm);
      MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_DOUBLE, MPI_MAX, comm);
      MPI_Allreduce(MPI_IN_PLACE, &dvmax, 1, MPI_DOUBLE, MPI_MAX, comm);
      if (count > 0)
        line += log::format(" [%g,%g): %.0f, %.3g, %.3g;", edges[c], edges[c + 1], count, std::sqrt(vmax), std::sqrt(dvmax));
    }
    {
      // Where this rank's fastest node (by |v - v^n|) sits.
      auto vh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
      auto vnh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), vn);
      auto mh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mass);
      auto kh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), kind);
      double best = -1;
      long at = -1;
      for (size_t i = 0; i < mh.extent(0); ++i) {
        if (kh(i) == Inactive) continue;
        double s2 = 0;
        for (int d = 0; d < Dim; ++d) s2 += (vh(i, d) - vnh(i, d)) * (vh(i, d) - vnh(i, d));
        if (s2 > best) best = s2, at = static_cast<long>(i);
      }
      if (at >= 0)
        line += log::format(" fastest on this rank %.3g m/s at node mass %.3g of the heaviest, x = %s", std::sqrt(best),
                            mh(at) / mmax, node_position<Dim>(decomp_, grid.owned_box(), active_node(at)).c_str());
    }
    log::info("%s", line.c_str());
  }
  ImplicitStats stats{newton_iterations, linear_iterations, result.residual, light_count_};
  if (line_hold_) {
    stats.hold_passes = passes;
    stats.hold_released = update_hold_set(potential, false, target);
  }

  // Write the velocities into the MPM grid, through the explicit collider rule.
  const auto obox = grid.owned_box();
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_.lower()[d];
  const double dx = decomp_.dx();
  const auto cs = colliders_;
  grid::NodeArray a = grid.acquire_owned();
  {
    solvers::VecAccess va(v_, Dim, false);
    auto v = va.view;
    auto cof = compact_of_;
    Kokkos::parallel_for(
        "implicit::write_velocity", Kokkos::RangePolicy<>(0, obox.size()), KOKKOS_LAMBDA(const long i) {
          const long k = cof(i);
          if (k < 0 || kind(k) == Inactive) {
            for (int d = 0; d < Dim; ++d) a(i, 1 + d) = 0;
            return;
          }
          int node[Dim];
          obox.node(i, node);
          double xi[Dim], vi[Dim];
          for (int d = 0; d < Dim; ++d) {
            xi[d] = lower[d] + node[d] * dx;
            vi[d] = v(k, d);
          }
          cs.apply(xi, vi);
          for (int d = 0; d < Dim; ++d) a(i, 1 + d) = vi[d];
        });
  }
  grid.release_owned(a);
  grid.global_to_local();
  return stats;
}

template class ImplicitGridSolver<2>;
template class ImplicitGridSolver<3>;

}  // namespace meniscus::mpm
