#include "methods/sph/implicit_cohesion_viscosity.hpp"

#include "core/error.hpp"
#include "core/view_shape.hpp"
#include "methods/method.hpp"
#include "methods/sph/implicit_pair_terms.hpp"
#include "methods/sph/implicit_step_terms.hpp"
#include "solvers/krylov_solver.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/shell_operator.hpp"

namespace meniscus::sph {

namespace {
using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
using Owned = Kokkos::View<double**, Kokkos::LayoutRight, Mem>;  // owned x Dim, PETSc's dof order
using HostOwned = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using HostOwnedConst =
    Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

using implicit_terms::for_each_friction_sample;
using implicit_terms::make_terms;
using implicit_terms::refresh;
using implicit_terms::Terms;
}  // namespace

template <int Dim>
struct ImplicitCohesionViscosity<Dim>::State {
  MPI_Comm comm = MPI_COMM_NULL;
  std::unique_ptr<solvers::KrylovSolver> krylov;
  Neighborhood nb;
  Kokkos::View<double**, Kokkos::LayoutRight> work;     // operand of apply(), total x Dim (ghost rows refreshed)
  Kokkos::View<double**, Kokkos::LayoutRight> rho_dot;  // total x 1
  Kokkos::View<double*> g_tilde;   // per CSR entry
  Kokkos::View<double*> c_st;      // dt^2 sigma m_bar / m_i g~
  Kokkos::View<double*> c_visc;    // dt * Weiler coupling (<= 0)
  Kokkos::View<double***, Kokkos::LayoutRight> diag;    // owned x Dim x Dim: adhesion and boundary friction
  Owned rhs;                       // v* + b
  long pairs = 0, clamped = 0;
  bool prepared = false;
  bool viscous = false;  // some pair has a viscous coefficient (mu > 0)
};

template <int Dim>
ImplicitCohesionViscosity<Dim>::ImplicitCohesionViscosity(MPI_Comm comm, const std::string& options_prefix)
    : s_(std::make_unique<State>()) {
  s_->comm = comm;
  s_->krylov = std::make_unique<solvers::KrylovSolver>(comm, options_prefix);
}

template <int Dim>
ImplicitCohesionViscosity<Dim>::~ImplicitCohesionViscosity() = default;

template <int Dim>
void ImplicitCohesionViscosity<Dim>::prepare(const Neighborhood& nb, const ImplicitForceParams& p,
                                             Kokkos::View<double**, Kokkos::LayoutRight> v, Kokkos::View<const double*> mass,
                                             Kokkos::View<const double*> density, Kokkos::View<const int*> phase,
                                             const BoundarySamples& boundary) {
  State& s = *s_;
  s.nb = nb;
  const int owned = nb.owned, total = nb.total;
  const long nnz = owned > 0 ? long(Kokkos::create_mirror_view_and_copy(
                                   Kokkos::HostSpace(), Kokkos::subview(nb.offset, Kokkos::make_pair(owned, owned + 1)))(0))
                             : 0;
  // Shapes are compared whole, not by rows alone: with no particles a default-constructed (0 x 0)
  // view would otherwise be kept and then fail every copy to or from a 0 x Dim view (a restart from
  // a checkpoint whose particles had all left failed so in its first solve).
  if (!same_shape(s.work, total, Dim)) s.work = Kokkos::View<double**, Kokkos::LayoutRight>("sph_st::work", total, Dim);
  if (!same_shape(s.rho_dot, total, 1)) s.rho_dot = Kokkos::View<double**, Kokkos::LayoutRight>("sph_st::rho_dot", total, 1);
  if (s.g_tilde.extent(0) != size_t(nnz)) {
    s.g_tilde = Kokkos::View<double*>("sph_st::g_tilde", nnz);
    s.c_st = Kokkos::View<double*>("sph_st::c_st", nnz);
    s.c_visc = Kokkos::View<double*>("sph_st::c_visc", nnz);
  }
  if (!same_shape(s.diag, owned, Dim, Dim)) s.diag = Kokkos::View<double***, Kokkos::LayoutRight>("sph_st::diag", owned, Dim, Dim);
  if (!same_shape(s.rhs, owned, Dim)) s.rhs = Owned("sph_st::rhs", owned, Dim);

  const Terms<Dim> t = make_terms<Dim>(nb, p, boundary);
  auto offset = nb.offset;
  auto index = nb.index;
  auto x = nb.x;

  // Stage 1: rho-dot (paper Eq. 16) with the cubic kernel over all fluid neighbours; boundaries are
  // left out as in the authors' reference implementation (SPlisHSPlasH, which the paper's scenes use).
  refresh(nb, v);
  auto rho_dot = s.rho_dot;
  Kokkos::parallel_for(
      "sph_st::rho_dot", Kokkos::RangePolicy<Exec>(0, owned), KOKKOS_LAMBDA(const int i) {
        double sum = 0;
        for (int k = offset(i); k < offset(i + 1); ++k) {
          const int j = index(k);
          double r2 = 0, xv = 0;
          for (int d = 0; d < Dim; ++d) {
            const double xd = x(i, d) - x(j, d);
            r2 += xd * xd;
            xv += xd * (v(i, d) - v(j, d));
          }
          sum += mass(j) * t.fluid.at(kmath::sqrt(r2)).dw_over_r * xv;  // m_j v_ij . grad W_ij
        }
        rho_dot(i, 0) = sum;
      });
  refresh(nb, rho_dot);

  // Stage 2: per-pair weights and coefficients, per-particle diagonal blocks, right-hand side.
  auto g_tilde = s.g_tilde;
  auto c_st = s.c_st;
  auto c_visc = s.c_visc;
  auto diag = s.diag;
  auto rhs = s.rhs;
  auto bx = boundary.x;
  auto bv = boundary.v;
  auto bvol = boundary.volume;
  auto bsig = boundary.sigma;
  long counts[2] = {0, 0};
  Kokkos::parallel_reduce(
      "sph_st::coefficients", Kokkos::RangePolicy<Exec>(0, owned),
      KOKKOS_LAMBDA(const int i, long& pairs, long& clamped) {
        const double mi = mass(i), rhoi = density(i), inv_rhoi = 1.0 / rhoi;
        const double dt_sigma_over_m = t.dt * t.sigma / mi, dt2_sigma_over_m = t.dt * dt_sigma_over_m;
        double b[Dim];
        for (int d = 0; d < Dim; ++d) b[d] = 0;
        for (int k = offset(i); k < offset(i + 1); ++k) {
          const int j = index(k);
          if (phase(j) != phase(i)) {
            g_tilde(k) = 0;
            c_st(k) = 0;
            c_visc(k) = 0;
            continue;
          }
          double xij[Dim], r2 = 0, xv = 0;
          for (int d = 0; d < Dim; ++d) {
            xij[d] = x(i, d) - x(j, d);
            r2 += xij[d] * xij[d];
            xv += xij[d] * (v(i, d) - v(j, d));
          }
          const auto kv = t.fluid.at(kmath::sqrt(r2));
          const double rho_bar = 0.5 * (rhoi + density(j)), m_bar = 0.5 * (mi + mass(j));
          double g = implicit_terms::linearised_weight(t.dt, kv.w_st, kv.dw_st_over_r, xv, rho_bar,
                                                       0.5 * (rho_dot(i, 0) + rho_dot(j, 0)));
          pairs += 1;
          if (g < 0) {  // keeps the operator positive definite (docs/theory-sph-implicit.md, "Properties and the safeguards behind them")
            g = 0;
            clamped += 1;
          }
          g_tilde(k) = g;
          c_st(k) = dt2_sigma_over_m * m_bar * g;
          c_visc(k) = t.mu > 0 ? t.dt * implicit_terms::viscosity_coupling<Dim>(kv.dw_over_r, r2, t.h,
                                                                               t.mu * m_bar * inv_rhoi / density(j))
                               : 0.0;
          for (int d = 0; d < Dim; ++d) b[d] -= dt_sigma_over_m * m_bar * g * xij[d];
        }
        for (int a = 0; a < Dim; ++a)
          for (int c = 0; c < Dim; ++c) diag(i, a, c) = 0;
        if (t.has_boundary && bvol(i) > 0) {
          // Adhesion (paper Eqs. 21-22): boundary density rho0, its rate 0; moving boundary enters
          // through x_i - x^b - dt v^b (the "dt sigma^b" printed in Jeske et al. 2023, Eqs. 21-22, is dt v^b).
          double xib[Dim], r2 = 0, xv = 0;
          for (int d = 0; d < Dim; ++d) {
            xib[d] = x(i, d) - bx(i, d);
            r2 += xib[d] * xib[d];
            xv += xib[d] * (v(i, d) - bv(i, d));
          }
          const double r = kmath::sqrt(r2);
          const double rho_b = 0.5 * (rhoi + t.rho0), m_b = 0.5 * (mi + t.rho0 * bvol(i));
          if (r < t.h) {
            const auto kb = t.wall.at(r);
            double gb = implicit_terms::linearised_weight(t.dt, kb.w_st, kb.dw_st_over_r, xv, rho_b, 0.5 * rho_dot(i, 0));
            if (gb < 0) gb = 0;
            const double coef = bsig(i) * m_b * gb;
            for (int d = 0; d < Dim; ++d) {
              diag(i, d, d) += t.dt * t.dt / mi * coef;
              b[d] -= t.dt / mi * coef * (xib[d] - t.dt * bv(i, d));
            }
          }
          if (t.mu_b > 0) {
            double xi[3] = {0, 0, 0}, xb[3] = {0, 0, 0};
            for (int d = 0; d < Dim; ++d) {
              xi[d] = x(i, d);
              xb[d] = bx(i, d);
            }
            const double vk = bvol(i) / (2 * (Dim - 1));
            for_each_friction_sample<Dim>(xi, xb, t.tangent_offset, [&](const double* xik) {
              double rk2 = 0, xvb = 0;
              for (int d = 0; d < Dim; ++d) {
                rk2 += xik[d] * xik[d];
                xvb += xik[d] * bv(i, d);
              }
              const double c = t.dt * implicit_terms::viscosity_coupling<Dim>(t.fluid.at(kmath::sqrt(rk2)).dw_over_r, rk2,
                                                                              t.h, t.mu_b * vk / rhoi);
              for (int a = 0; a < Dim; ++a) {
                for (int e = 0; e < Dim; ++e) diag(i, a, e) -= c * xik[a] * xik[e];
                b[a] -= c * xik[a] * xvb;
              }
            });
          }
        }
        for (int d = 0; d < Dim; ++d) rhs(i, d) = v(i, d) + b[d];
      },
      counts[0], counts[1]);
  long global[2] = {counts[0], counts[1]};
  MPI_Allreduce(MPI_IN_PLACE, global, 2, MPI_LONG, MPI_SUM, s.comm);
  s.pairs = global[0];
  s.clamped = global[1];
  s.prepared = true;
  s.viscous = p.viscosity > 0;
}

namespace {
// y = M u for owned rows; u's ghost rows already refreshed (u: total x Dim). Without viscosity the
// pair term needs neither positions nor the viscous coefficient, which saves most of the memory
// traffic of the inviscid scenes.
template <int Dim, bool Viscous, class YView>
void apply_rows(const Neighborhood& nb, Kokkos::View<double**, Kokkos::LayoutRight> u, Kokkos::View<double*> c_st,
                Kokkos::View<double*> c_visc, Kokkos::View<double***, Kokkos::LayoutRight> diag, YView y) {
  auto offset = nb.offset;
  auto index = nb.index;
  auto x = nb.x;
  Kokkos::parallel_for(
      "sph_st::apply", Kokkos::RangePolicy<Exec>(0, nb.owned), KOKKOS_LAMBDA(const int i) {
        double ui[Dim], yi[Dim];
        for (int d = 0; d < Dim; ++d) ui[d] = u(i, d);
        for (int a = 0; a < Dim; ++a) {
          yi[a] = ui[a];
          for (int e = 0; e < Dim; ++e) yi[a] += diag(i, a, e) * ui[e];
        }
        for (int k = offset(i); k < offset(i + 1); ++k) {
          const int j = index(k);
          const double cs = c_st(k);
          double du[Dim];
          for (int d = 0; d < Dim; ++d) du[d] = ui[d] - u(j, d);
          if (Viscous) {
            const double cv = c_visc(k);
            double xij[Dim], xdu = 0;
            for (int d = 0; d < Dim; ++d) {
              xij[d] = x(i, d) - x(j, d);
              xdu += xij[d] * du[d];
            }
            for (int d = 0; d < Dim; ++d) yi[d] += cs * du[d] - cv * xij[d] * xdu;
          } else {
            for (int d = 0; d < Dim; ++d) yi[d] += cs * du[d];
          }
        }
        for (int d = 0; d < Dim; ++d) y(i, d) = yi[d];
      });
}

template <int Dim, class YView>
void apply_operator(const Neighborhood& nb, bool viscous, Kokkos::View<double**, Kokkos::LayoutRight> u, Kokkos::View<double*> c_st,
                    Kokkos::View<double*> c_visc, Kokkos::View<double***, Kokkos::LayoutRight> diag, YView y) {
  if (viscous)
    apply_rows<Dim, true>(nb, u, c_st, c_visc, diag, y);
  else
    apply_rows<Dim, false>(nb, u, c_st, c_visc, diag, y);
}

// The diagonal of M for owned rows.
template <int Dim, class DView>
void operator_diagonal(const Neighborhood& nb, Kokkos::View<double*> c_st, Kokkos::View<double*> c_visc,
                       Kokkos::View<double***, Kokkos::LayoutRight> diag, DView out) {
  auto offset = nb.offset;
  auto index = nb.index;
  auto x = nb.x;
  Kokkos::parallel_for(
      "sph_st::diagonal", Kokkos::RangePolicy<Exec>(0, nb.owned), KOKKOS_LAMBDA(const int i) {
        double di[Dim];
        for (int a = 0; a < Dim; ++a) di[a] = 1.0 + diag(i, a, a);
        for (int k = offset(i); k < offset(i + 1); ++k) {
          const int j = index(k);
          for (int a = 0; a < Dim; ++a) {
            const double xa = x(i, a) - x(j, a);
            di[a] += c_st(k) - c_visc(k) * xa * xa;
          }
        }
        for (int a = 0; a < Dim; ++a) out(i, a) = di[a];
      });
}

template <class UView>
void load_operand(Kokkos::View<double**, Kokkos::LayoutRight> work, UView u, int owned, int dim) {
  Kokkos::parallel_for(
      "sph_st::load", Kokkos::RangePolicy<Exec>(0, owned), KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < dim; ++d) work(i, d) = u(i, d);
      });
}
}  // namespace

template <int Dim>
void ImplicitCohesionViscosity<Dim>::apply(Kokkos::View<const double**, Kokkos::LayoutRight> u, Kokkos::View<double**, Kokkos::LayoutRight> y) const {
  const State& s = *s_;
  if (!s.prepared) throw RuntimeError("implicit cohesion: apply() before prepare()");
  load_operand(s.work, u, s.nb.owned, Dim);
  refresh(s.nb, s.work);
  apply_operator<Dim>(s.nb, s.viscous, s.work, s.c_st, s.c_visc, s.diag, y);
}

template <int Dim>
Kokkos::View<const double**, Kokkos::LayoutRight> ImplicitCohesionViscosity<Dim>::right_hand_side() const {
  Kokkos::View<double**, Kokkos::LayoutRight> out("sph_st::rhs_copy", s_->rhs.extent(0), Dim);
  auto rhs = s_->rhs;
  Kokkos::parallel_for(
      "sph_st::rhs_copy", Kokkos::RangePolicy<Exec>(0, rhs.extent(0)), KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < Dim; ++d) out(i, d) = rhs(i, d);
      });
  return out;
}

template <int Dim>
Kokkos::View<const double*> ImplicitCohesionViscosity<Dim>::pair_weights() const {
  return s_->g_tilde;
}

template <int Dim>
Kokkos::View<const double**, Kokkos::LayoutRight> ImplicitCohesionViscosity<Dim>::density_rate() const {
  return s_->rho_dot;
}

template <int Dim>
std::string ImplicitCohesionViscosity<Dim>::krylov_type() const {
  KSPType type = nullptr;
  solvers::petsc_check(KSPGetType(s_->krylov->ksp(), &type), "KSPGetType");
  return type ? std::string(type) : std::string();
}

template <int Dim>
ImplicitSolveStats ImplicitCohesionViscosity<Dim>::solve(const Neighborhood& nb, const ImplicitForceParams& p,
                                                         Kokkos::View<double**, Kokkos::LayoutRight> v, Kokkos::View<const double*> mass,
                                                         Kokkos::View<const double*> density,
                                                         Kokkos::View<const int*> phase,
                                                         const BoundarySamples& boundary,
                                                         Kokkos::View<double**, Kokkos::LayoutRight> warm_dv) {
  prepare(nb, p, v, mass, density, phase, boundary);
  State& s = *s_;
  const int owned = nb.owned;

  // Non-uniform masses make the operator non-symmetric (the cohesion rows carry m_bar/m_i): BiCGStab.
  double range[2] = {0, 0};
  Kokkos::parallel_reduce(
      "sph_st::mass_range", Kokkos::RangePolicy<Exec>(0, owned),
      KOKKOS_LAMBDA(const int i, double& lo, double& hi) {
        lo = kmath::max(lo, -mass(i));
        hi = kmath::max(hi, mass(i));
      },
      Kokkos::Max<double>(range[0]), Kokkos::Max<double>(range[1]));
  if (owned == 0) range[0] = range[1] = -kmath::huge;
  MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_DOUBLE, MPI_MAX, s.comm);
  const double m_min = -range[0], m_max = range[1];
  const bool uniform = m_max - m_min <= 1e-12 * m_max;

  auto c_st = s.c_st;
  auto c_visc = s.c_visc;
  auto diag = s.diag;
  auto work = s.work;
  const bool viscous = s.viscous;
  const Neighborhood nbc = nb;
  solvers::ShellOperator op(s.comm, PetscInt(owned) * Dim, [=](solvers::HostConstArray in, solvers::HostArray out) {
    HostOwnedConst uh(in.data(), owned, Dim);
    HostOwned yh(out.data(), owned, Dim);
    auto ud = Kokkos::create_mirror_view_and_copy(Mem(), uh);
    auto yd = Kokkos::create_mirror_view(Mem(), yh);
    load_operand(work, ud, owned, Dim);
    refresh(nbc, work);
    apply_operator<Dim>(nbc, viscous, work, c_st, c_visc, diag, yd);
    Kokkos::deep_copy(yh, yd);
  });

  // The diagonal, for -sph_st_pc_type jacobi (the paper found no gain over no preconditioner).
  op.set_diagonal([=](solvers::HostArray out) {
    HostOwned dh(out.data(), owned, Dim);
    auto dd = Kokkos::create_mirror_view(Mem(), dh);
    operator_diagonal<Dim>(nbc, c_st, c_visc, diag, dd);
    Kokkos::deep_copy(dh, dd);
  });

  Vec b = op.create_vector(), sol = op.create_vector();
  // Right-hand side and warm start. Paper form: M v = v* + b from x0 = v* + dv_prev (Eq. 20).
  // Delta form (ours, docs/theory-sph-implicit.md): M dv = v* + b - M v* from x0 = dv_prev, so that the tolerance refers
  // to the velocity change rather than to v* itself.
  const bool delta = p.solve_for_delta;
  Owned rhs = s.rhs;
  Owned guess("sph_st::guess", owned, Dim);
  if (delta) {
    rhs = Owned("sph_st::rhs_delta", owned, Dim);
    Owned mv("sph_st::mv", owned, Dim);
    load_operand(work, v, owned, Dim);
    refresh(nb, work);
    apply_operator<Dim>(nb, viscous, work, c_st, c_visc, diag, mv);
    auto full = s.rhs;
    Kokkos::parallel_for(
        "sph_st::delta_rhs", Kokkos::RangePolicy<Exec>(0, owned), KOKKOS_LAMBDA(const int i) {
          for (int d = 0; d < Dim; ++d) {
            rhs(i, d) = full(i, d) - mv(i, d);
            guess(i, d) = warm_dv(i, d);
          }
        });
  } else {
    Kokkos::parallel_for(
        "sph_st::warm_start", Kokkos::RangePolicy<Exec>(0, owned), KOKKOS_LAMBDA(const int i) {
          for (int d = 0; d < Dim; ++d) guess(i, d) = v(i, d) + warm_dv(i, d);
        });
  }
  {
    PetscScalar* ba = nullptr;
    PetscScalar* xa = nullptr;
    solvers::petsc_check(VecGetArray(b, &ba), "VecGetArray");
    solvers::petsc_check(VecGetArray(sol, &xa), "VecGetArray");
    Kokkos::deep_copy(HostOwned(ba, owned, Dim), rhs);
    Kokkos::deep_copy(HostOwned(xa, owned, Dim), guess);
    solvers::petsc_check(VecRestoreArray(sol, &xa), "VecRestoreArray");
    solvers::petsc_check(VecRestoreArray(b, &ba), "VecRestoreArray");
  }

  solvers::KrylovDefaults def;
  def.type = uniform ? KSPCG : KSPBCGS;
  def.pc = PCNONE;
  def.rtol = p.rtol;
  def.max_iterations = p.max_iterations;
  solvers::KrylovResult res;
  try {
    res = s.krylov->solve(op.mat(), b, sol, def, true);
  } catch (...) {
    solvers::petsc_check_noexcept(VecDestroy(&b), "VecDestroy");
    solvers::petsc_check_noexcept(VecDestroy(&sol), "VecDestroy");
    throw;
  }
  // A capped solve (KSP_DIVERGED_ITS) still improves on v* and is counted by the caller; a breakdown,
  // NaN/Inf or divergence leaves an unusable iterate: the step is retried with a smaller dt.
  if (res.diverged()) {
    solvers::petsc_check(VecDestroy(&b), "VecDestroy");
    solvers::petsc_check(VecDestroy(&sol), "VecDestroy");
    throw StepRejected("SPH implicit surface tension + viscosity solve failed, " + res.describe());
  }

  {
    const PetscScalar* xa = nullptr;
    solvers::petsc_check(VecGetArrayRead(sol, &xa), "VecGetArrayRead");
    Kokkos::deep_copy(guess, HostOwnedConst(xa, owned, Dim));
    solvers::petsc_check(VecRestoreArrayRead(sol, &xa), "VecRestoreArrayRead");
  }
  solvers::petsc_check(VecDestroy(&b), "VecDestroy");
  solvers::petsc_check(VecDestroy(&sol), "VecDestroy");

  // Apply: dv = v_new - v*, kept for the next warm start; v* <- v_new.
  Kokkos::parallel_for(
      "sph_st::update", Kokkos::RangePolicy<Exec>(0, owned), KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < Dim; ++d) {
          const double dv = delta ? guess(i, d) : guess(i, d) - v(i, d);
          warm_dv(i, d) = dv;
          v(i, d) = delta ? v(i, d) + dv : guess(i, d);
        }
      });
  refresh(nb, v);

  ImplicitSolveStats st;
  st.iterations = res.iterations;
  st.residual = res.rhs_norm > 0 ? res.residual_norm / res.rhs_norm : res.residual_norm;
  st.converged = res.converged;
  st.pairs = s.pairs;
  st.clamped_pairs = s.clamped;
  return st;
}

template class ImplicitCohesionViscosity<2>;
template class ImplicitCohesionViscosity<3>;

}  // namespace meniscus::sph
