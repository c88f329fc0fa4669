#pragma once
// Implicit cohesion surface tension (Jeske et al. 2023), adhesion to colliders and implicit
// viscosity (Weiler et al. 2018), solved together in one linear system for the new velocities
// (Jeske et al. 2023, Sec. 3.2-3.4, Algorithm 1, Eqs. 19-25):
//
//   (I + dt (A_st + A_visc)) v_new = v* + b
//
// A_st couples same-phase neighbours with the linearised kernel weights g~_ij (the kernel over the
// mean density, Taylor-expanded in time with rho-dot), A_visc is Weiler's velocity-Laplacian, both
// symmetric positive semidefinite for uniform masses, so the system is SPD and solved by PETSc CG
// (BiCGStab when masses differ) on a MATSHELL over the owned velocity dofs. Every operator
// application refreshes ghost rows through the neighbourhood's halo callback, so the result does
// not depend on the rank count beyond the solver tolerance. Options: -sph_st_ksp_type, ..._rtol,
// ..._max_it, -sph_st_pc_type, -sph_st_ksp_monitor (they override the deck values).
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <memory>
#include <string>

#include "methods/sph/sph_neighborhood.hpp"

namespace meniscus::sph {

struct ImplicitForceParams {
  double dt = 0;                 // time step (s)
  double sigma = 0;              // cohesion coefficient sigma of the paper (N/m), not the physical gamma
  double viscosity = 0;          // dynamic viscosity mu (Pa s) of the coupled Weiler term
  double rest_density = 0;       // rho0 (kg/m^3), also the boundary density
  double particle_diameter = 0;  // d (m); the cohesion kernel is clamped below d, support = nb.support
  double rtol = 1e-3;            // relative residual ||v* + b - M v|| / ||v* + b|| (paper: 1e-3)
  int max_iterations = 100;
  // Additions (defaults reproduce the paper):
  bool adhesion_theta = true;               // theta in the adhesion kernel (false: reference code's sigma^b)
  double boundary_viscosity = 0;            // mu_b (Pa s) of the fluid-collider friction, 0 = off
  double tangential_distance_factor = 0.5;  // Weiler's boundary samples at x^b +- f h t
  bool solve_for_delta = false;  // solve for dv (tolerance relative to the impulse, ours, docs/theory-sph-implicit.md)
};

// One (nearest) boundary sample per owned particle (volume maps, Bender et al. 2019; Jeske et al. 2023, Sec. 3.3): closest boundary point
// x, its velocity v, the boundary volume inside the particle's support (0 = no boundary nearby) and
// the adhesion coefficient sigma^b (N/m) of that collider. Empty views mean no boundary at all.
struct BoundarySamples {
  Kokkos::View<double**, Kokkos::LayoutRight> x, v;
  Kokkos::View<double*> volume, sigma;
};

struct ImplicitSolveStats {
  int iterations = 0;
  double residual = 0;     // final ||rhs - M v|| / ||rhs|| (delta form: of the dv system)
  bool converged = false;
  long pairs = 0;          // same-phase neighbour pairs (directed, summed over ranks)
  long clamped_pairs = 0;  // pairs whose g~ turned negative and was set to 0 (docs/theory-sph-implicit.md)
};

// theta normalises the clamped kernel to integrate to 1 for support = 2d: 10/7 in 3D (paper), 7/4 in
// 2D (same construction: the clamped cubic spline integrates to 4/7 in 2D).
template <int Dim>
constexpr double cohesion_theta() {
  return Dim == 3 ? 10.0 / 7.0 : 7.0 / 4.0;
}

template <int Dim>
class ImplicitCohesionViscosity {
 public:
  explicit ImplicitCohesionViscosity(MPI_Comm comm, const std::string& options_prefix = "sph_st_");
  ~ImplicitCohesionViscosity();
  ImplicitCohesionViscosity(const ImplicitCohesionViscosity&) = delete;
  ImplicitCohesionViscosity& operator=(const ImplicitCohesionViscosity&) = delete;

  // v: total x Dim (owned rows = predicted v*, overwritten with the solution; ghost rows refreshed
  // inside, also after the solve); mass, density, phase: total (ghost rows current); warm_dv: owned x
  // Dim, the previous step's velocity change (initial guess v* + warm_dv), replaced by this step's.
  ImplicitSolveStats solve(const Neighborhood& nb, const ImplicitForceParams& p, Kokkos::View<double**, Kokkos::LayoutRight> v,
                           Kokkos::View<const double*> mass, Kokkos::View<const double*> density,
                           Kokkos::View<const int*> phase, const BoundarySamples& boundary,
                           Kokkos::View<double**, Kokkos::LayoutRight> warm_dv);

  // The stages of solve(), public for tests and diagnostics. prepare() refreshes v's ghost rows,
  // computes rho-dot, the per-pair coefficients (cached for every operator application) and the
  // right-hand side; apply() is the operator M (owned x Dim in and out, collective).
  void prepare(const Neighborhood& nb, const ImplicitForceParams& p, Kokkos::View<double**, Kokkos::LayoutRight> v,
               Kokkos::View<const double*> mass, Kokkos::View<const double*> density, Kokkos::View<const int*> phase,
               const BoundarySamples& boundary);
  void apply(Kokkos::View<const double**, Kokkos::LayoutRight> u, Kokkos::View<double**, Kokkos::LayoutRight> y) const;
  Kokkos::View<const double**, Kokkos::LayoutRight> right_hand_side() const;  // v* + b, owned x Dim
  Kokkos::View<const double*> pair_weights() const;       // g~_ij per CSR entry (0 across phases)
  Kokkos::View<const double**, Kokkos::LayoutRight> density_rate() const;      // rho-dot, total x 1
  std::string krylov_type() const;                        // the PETSc KSP type of the last solve

  // The explicit variant (paper Eq. 8 plus explicit adhesion, Weiler viscosity and boundary friction
  // evaluated at time t): acceleration a (owned x Dim). Refreshes v's ghost rows.
  static void explicit_acceleration(const Neighborhood& nb, const ImplicitForceParams& p, Kokkos::View<double**, Kokkos::LayoutRight> v,
                                    Kokkos::View<const double*> mass, Kokkos::View<const double*> density,
                                    Kokkos::View<const int*> phase, const BoundarySamples& boundary,
                                    Kokkos::View<double**, Kokkos::LayoutRight> a);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace meniscus::sph
