// NewtonMinimizer on a separable energy whose exact Hessian and per-term PSD projection differ:
// Phi(x) = sum_i 0.5 x_i^2 - c cos(x_i) - b_i x_i. Term by term, the projection keeps the curvature
// 1 + max(c cos x, 0) and so overestimates it where cos x < 0: Newton with it converges only linearly
// (rate 1 - (1 + c cos x*) there), with the exact Hessian quadratically. Where 1 + c cos x < 0 the exact
// Hessian is indefinite and the minimiser must fall back to the projection.
#include <gtest/gtest.h>
#include <petscvec.h>

#include <cmath>
#include <vector>

#include "solvers/newton_minimizer.hpp"

namespace {

using meniscus::solvers::NewtonMinimizer;
using meniscus::solvers::NewtonOptions;
using meniscus::solvers::NewtonProblem;
using meniscus::solvers::NewtonResult;

struct CosineWell {
  double c;
  std::vector<double> b;
  std::vector<double> h;  // the linearised curvature per component

  static std::vector<double> values(Vec x) {
    PetscInt n = 0;
    VecGetLocalSize(x, &n);
    const PetscScalar* a = nullptr;
    VecGetArrayRead(x, &a);
    std::vector<double> out(a, a + n);
    VecRestoreArrayRead(x, &a);
    return out;
  }
  static void assign(Vec y, const std::vector<double>& v) {
    PetscScalar* a = nullptr;
    VecGetArray(y, &a);
    for (size_t i = 0; i < v.size(); ++i) a[i] = v[i];
    VecRestoreArray(y, &a);
  }
  void linearize(Vec x, bool projected) {
    const auto v = values(x);
    h.resize(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = 1.0 + (projected ? std::max(c * std::cos(v[i]), 0.0) : c * std::cos(v[i]));
  }
  NewtonProblem problem(bool with_exact) {
    NewtonProblem p;
    p.energy = [this](Vec x) {
      const auto v = values(x);
      double e = 0;
      for (size_t i = 0; i < v.size(); ++i) e += 0.5 * v[i] * v[i] - c * std::cos(v[i]) - b[i] * v[i];
      return e;
    };
    p.gradient = [this](Vec x, Vec g) {
      auto v = values(x);
      for (size_t i = 0; i < v.size(); ++i) v[i] = v[i] + c * std::sin(v[i]) - b[i];
      assign(g, v);
    };
    if (with_exact) {
      p.linearize = [this](Vec x) { linearize(x, false); };
      p.linearize_projected = [this](Vec x) { linearize(x, true); };
    } else {
      p.linearize = [this](Vec x) { linearize(x, true); };
    }
    p.hessian = [this](Vec in, Vec out) {
      auto v = values(in);
      for (size_t i = 0; i < v.size(); ++i) v[i] *= h[i];
      assign(out, v);
    };
    p.diagonal = [this](Vec d) { assign(d, h); };
    p.residual_norm = [](Vec g) {
      PetscReal n = 0;
      VecNorm(g, NORM_2, &n);
      return static_cast<double>(n);
    };
    p.reference = 1.0;
    return p;
  }
};

NewtonResult run(CosineWell& w, bool with_exact, double x0, int max_iterations, Vec* x, NewtonOptions o = {}) {
  VecCreateSeq(PETSC_COMM_SELF, static_cast<PetscInt>(w.b.size()), x);
  VecSet(*x, x0);
  o.tolerance = 1e-10;
  o.max_iterations = max_iterations;
  o.prefix = "newton_unit_";
  NewtonMinimizer newton(*x, o);
  return newton.minimize(w.problem(with_exact), *x);
}

// The cosine well with its components coupled by springs, Phi += k/2 sum_i (x_{i+1} - x_i)^2, so that
// CG needs several iterations per Newton step (the forcing term then has something to loosen).
struct ChainWell : CosineWell {
  double k;
  NewtonProblem chain_problem() {
    NewtonProblem p = problem(true);
    auto spring = [this](const std::vector<double>& v, std::vector<double>& out) {
      for (size_t i = 0; i + 1 < v.size(); ++i) {
        const double f = k * (v[i + 1] - v[i]);
        out[i] -= f;
        out[i + 1] += f;
      }
    };
    auto energy = p.energy;
    p.energy = [this, energy](Vec x) {
      const auto v = values(x);
      double e = energy(x);
      for (size_t i = 0; i + 1 < v.size(); ++i) e += 0.5 * k * (v[i + 1] - v[i]) * (v[i + 1] - v[i]);
      return e;
    };
    auto gradient = p.gradient;
    p.gradient = [spring, gradient](Vec x, Vec g) {
      gradient(x, g);
      auto out = values(g);
      spring(values(x), out);
      assign(g, out);
    };
    p.hessian = [this, spring](Vec in, Vec out) {
      const auto v = values(in);
      std::vector<double> o(v.size());
      for (size_t i = 0; i < v.size(); ++i) o[i] = h[i] * v[i];
      spring(v, o);
      assign(out, o);
    };
    p.diagonal = [this](Vec d) {
      std::vector<double> o(h);
      for (size_t i = 0; i < o.size(); ++i) o[i] += k * ((i > 0) + (i + 1 < o.size()));
      assign(d, o);
    };
    return p;
  }
};

TEST(NewtonMinimizer, ExactHessianConvergesWhereTheProjectedOneCrawls) {
  // c = 0.8, b in [3, 3.3]: x* near 2.5-2.8 where cos x* < 0, exact curvature 0.3-0.4 against 1 for
  // the projection, so the projected iteration contracts the error by about 0.65 per step.
  CosineWell w{0.8, {3.0, 3.1, 3.2, 3.3}, {}};
  Vec x = nullptr;
  const NewtonResult exact = run(w, true, 0.0, 30, &x);
  EXPECT_TRUE(exact.converged) << exact.reason;
  EXPECT_LE(exact.iterations, 8);  // measured 7; projected-only: residual 2.8e-3 after 20
  const auto v = CosineWell::values(x);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i] + 0.8 * std::sin(v[i]), w.b[i], 1e-9);
  VecDestroy(&x);
  const NewtonResult projected = run(w, false, 0.0, 20, &x);
  EXPECT_FALSE(projected.converged) << "projected-only Newton converged in " << projected.iterations;
  VecDestroy(&x);
}

TEST(NewtonMinimizer, FallsBackToTheProjectionWhereTheExactHessianIsIndefinite) {
  // c = 2, start at x = 3 where 1 + 2 cos x = -0.98: the exact Newton step would head for a maximum.
  CosineWell w{2.0, {4.0, 4.1, 4.2}, {}};
  Vec x = nullptr;
  const NewtonResult r = run(w, true, 3.0, 30, &x);
  EXPECT_TRUE(r.converged) << r.reason;
  EXPECT_LE(r.iterations, 10);  // measured 6
  // Each CG solve of this diagonal system takes one iteration: more solves than Newton iterations
  // means some iterations were re-solved with the projection (measured 8 solves in 6 iterations).
  EXPECT_GT(r.linear_iterations, r.iterations);
  const auto v = CosineWell::values(x);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_NEAR(v[i] + 2.0 * std::sin(v[i]), w.b[i], 1e-9);
    EXPECT_GT(1.0 + 2.0 * std::cos(v[i]), 0.0) << "a maximum, not a minimum, at x = " << v[i];
  }
  VecDestroy(&x);
}

TEST(NewtonMinimizer, SkipsTheExactAttemptRightAfterAFailure) {
  // The fallback example above: "alternate" (the default) goes straight to the projection in the
  // iteration after a failed exact attempt, "exact" tries the exact Hessian every time. Both reach
  // the same minimiser; every failed attempt costs one extra linearisation.
  CosineWell w{2.0, {4.0, 4.1, 4.2}, {}};
  NewtonResult r[2];
  std::vector<double> v[2];
  for (int k = 0; k < 2; ++k) {
    NewtonOptions o;
    o.hessian_first = k == 0 ? "exact" : "alternate";
    Vec x = nullptr;
    r[k] = run(w, true, 3.0, 30, &x, o);
    EXPECT_TRUE(r[k].converged) << o.hessian_first << ": " << r[k].reason;
    EXPECT_EQ(r[k].linearizations, r[k].iterations + r[k].failed_exact) << o.hessian_first;
    v[k] = CosineWell::values(x);
    VecDestroy(&x);
  }
  EXPECT_GE(r[0].failed_exact, 1) << "the example must meet an indefinite exact Hessian";
  EXPECT_LT(r[1].failed_exact, r[0].failed_exact) << "alternate skipped no failing exact attempt";
  for (size_t i = 0; i < v[0].size(); ++i) EXPECT_NEAR(v[1][i], v[0][i], 1e-9);
}

TEST(NewtonMinimizer, ForcingTermSavesLinearIterationsNotAccuracy) {
  // 40 coupled wells (c = 0.8, springs k = 5): CG needs several iterations per solve. With the
  // Eisenstat-Walker forcing term (opt-in) the early solves stop at rtol 0.03 instead of 1e-4:
  // fewer CG iterations in all, the same minimiser to the Newton tolerance, and no more than two
  // extra Newton iterations.
  ChainWell w;
  w.c = 0.8;
  w.k = 5.0;
  for (int i = 0; i < 40; ++i) w.b.push_back(3.0 + 0.3 * std::sin(0.7 * i));
  NewtonResult r[2];
  std::vector<double> v[2];
  for (int k = 0; k < 2; ++k) {
    Vec x = nullptr;
    VecCreateSeq(PETSC_COMM_SELF, static_cast<PetscInt>(w.b.size()), &x);
    VecSet(x, 0.0);
    NewtonOptions o;
    o.tolerance = 1e-10;
    o.prefix = "newton_unit_";
    o.forcing = k == 1;
    NewtonMinimizer newton(x, o);
    r[k] = newton.minimize(w.chain_problem(), x);
    EXPECT_TRUE(r[k].converged) << r[k].reason;
    v[k] = CosineWell::values(x);
    VecDestroy(&x);
  }
  EXPECT_LT(r[1].linear_iterations, r[0].linear_iterations) << "forcing: " << r[1].linear_iterations
                                                           << " CG iterations, fixed rtol: " << r[0].linear_iterations;
  EXPECT_LE(r[1].iterations, r[0].iterations + 2);
  for (size_t i = 0; i < v[0].size(); ++i) EXPECT_NEAR(v[1][i], v[0][i], 1e-8);
}

}  // namespace
