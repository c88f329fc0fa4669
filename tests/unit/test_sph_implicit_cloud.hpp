#pragma once
// Test fixtures for the implicit cohesion + viscosity solver: particle clouds on the host, brute-force
// O(N^2) neighbour lists (strict |x_ij| < support), SPH densities, and a Neighborhood whose ghost
// rows are either absent or filled by a caller-supplied refresh (periodic images, MPI copies).
#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "methods/sph/implicit_cohesion_viscosity.hpp"
#include "methods/sph/sph_kernels.hpp"
#include "methods/sph/sph_neighborhood.hpp"

namespace sph_implicit_test {

using meniscus::sph::Neighborhood;

template <int Dim>
using Point = std::array<double, Dim>;

template <int Dim>
double dist(const Point<Dim>& a, const Point<Dim>& b) {
  double s = 0;
  for (int d = 0; d < Dim; ++d) s += (a[d] - b[d]) * (a[d] - b[d]);
  return std::sqrt(s);
}

// A particle cloud: rows [0, owned) owned, [owned, size) ghosts.
template <int Dim>
struct Cloud {
  std::vector<Point<Dim>> x, v;
  std::vector<double> mass, density;
  std::vector<int> phase;
  int owned = 0;
  int size() const { return int(x.size()); }
};

// Lattice of spacing d over n[0] x n[1] (x n[2]) sites starting at `origin`, jittered by +-jitter*d.
template <int Dim>
std::vector<Point<Dim>> lattice(const std::array<int, Dim>& n, double d, double jitter, unsigned seed,
                                Point<Dim> origin = {}) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Point<Dim>> out;
  int total = 1;
  for (int a = 0; a < Dim; ++a) total *= n[a];
  for (int idx = 0; idx < total; ++idx) {
    Point<Dim> p;
    int rest = idx;
    for (int a = Dim - 1; a >= 0; --a) {  // x slowest: rank slabs by x are contiguous ranges
      p[a] = origin[a] + (rest % n[a]) * d;
      rest /= n[a];
    }
    for (int a = 0; a < Dim; ++a) p[a] += jitter * d * u(rng);
    out.push_back(p);
  }
  return out;
}

template <int Dim>
std::vector<Point<Dim>> random_velocities(int n, double vmax, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Point<Dim>> out(n);
  for (auto& p : out) {
    double s = 0;
    for (int a = 0; a < Dim; ++a) s += (p[a] = u(rng)) * p[a];
    const double scale = vmax * u(rng) / std::sqrt(std::max(s, 1e-30));  // |v| <= vmax
    for (int a = 0; a < Dim; ++a) p[a] *= scale;
  }
  return out;
}

// SPH density of every row (owned and ghost) from all rows of the cloud (self included).
template <int Dim>
void compute_density(Cloud<Dim>& c, double support) {
  meniscus::sph::CubicSpline<Dim> w(support);
  c.density.assign(c.size(), 0.0);
  for (int i = 0; i < c.size(); ++i)
    for (int j = 0; j < c.size(); ++j) c.density[i] += c.mass[j] * w.value(dist<Dim>(c.x[i], c.x[j]));
}

template <int Dim>
Cloud<Dim> make_cloud(const std::vector<Point<Dim>>& x, double rho0, double volume, double support) {
  Cloud<Dim> c;
  c.x = x;
  c.v.assign(x.size(), Point<Dim>{});
  c.mass.assign(x.size(), rho0 * volume);
  c.phase.assign(x.size(), 0);
  c.owned = int(x.size());
  compute_density(c, support);
  return c;
}

// Device views of a cloud's fields.
template <int Dim>
struct Views {
  Kokkos::View<double**> v;
  Kokkos::View<double*> mass, density;
  Kokkos::View<int*> phase;
  Kokkos::View<double**> warm;
};

template <int Dim>
Views<Dim> upload(const Cloud<Dim>& c) {
  Views<Dim> out;
  const int n = c.size();
  out.v = Kokkos::View<double**>("v", n, Dim);
  out.mass = Kokkos::View<double*>("m", n);
  out.density = Kokkos::View<double*>("rho", n);
  out.phase = Kokkos::View<int*>("phase", n);
  out.warm = Kokkos::View<double**>("warm", c.owned, Dim);
  auto hv = Kokkos::create_mirror_view(out.v);
  auto hm = Kokkos::create_mirror_view(out.mass);
  auto hr = Kokkos::create_mirror_view(out.density);
  auto hp = Kokkos::create_mirror_view(out.phase);
  for (int i = 0; i < n; ++i) {
    for (int a = 0; a < Dim; ++a) hv(i, a) = c.v[i][a];
    hm(i) = c.mass[i];
    hr(i) = c.density[i];
    hp(i) = c.phase[i];
  }
  Kokkos::deep_copy(out.v, hv);
  Kokkos::deep_copy(out.mass, hm);
  Kokkos::deep_copy(out.density, hr);
  Kokkos::deep_copy(out.phase, hp);
  return out;
}

// Brute-force CSR neighbourhood of the owned rows over all rows. refresh: ghost-row filler (nullptr:
// the cloud has no ghosts, or the ghosts are static copies that never need refreshing).
template <int Dim>
Neighborhood neighborhood(const Cloud<Dim>& c, double support,
                          std::function<void(Kokkos::View<double**>)> refresh = nullptr) {
  Neighborhood nb;
  nb.owned = c.owned;
  nb.total = c.size();
  nb.support = support;
  std::vector<int> off(1, 0), idx;
  for (int i = 0; i < c.owned; ++i) {
    for (int j = 0; j < c.size(); ++j)
      if (j != i && dist<Dim>(c.x[i], c.x[j]) < support) idx.push_back(j);
    off.push_back(int(idx.size()));
  }
  nb.offset = Kokkos::View<int*>("offset", off.size());
  nb.index = Kokkos::View<int*>("index", idx.size());
  nb.x = Kokkos::View<double**>("x", c.size(), Dim);
  auto ho = Kokkos::create_mirror_view(nb.offset);
  auto hi = Kokkos::create_mirror_view(nb.index);
  auto hx = Kokkos::create_mirror_view(nb.x);
  for (size_t k = 0; k < off.size(); ++k) ho(k) = off[k];
  for (size_t k = 0; k < idx.size(); ++k) hi(k) = idx[k];
  for (int i = 0; i < c.size(); ++i)
    for (int a = 0; a < Dim; ++a) hx(i, a) = c.x[i][a];
  Kokkos::deep_copy(nb.offset, ho);
  Kokkos::deep_copy(nb.index, hi);
  Kokkos::deep_copy(nb.x, hx);
  nb.refresh_ghosts = refresh ? refresh : [](Kokkos::View<double**>) {};
  return nb;
}

inline std::vector<double> to_host(Kokkos::View<const double**> v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out(h.extent(0) * h.extent(1));
  for (size_t i = 0; i < h.extent(0); ++i)
    for (size_t a = 0; a < h.extent(1); ++a) out[i * h.extent(1) + a] = h(i, a);
  return out;
}

inline Kokkos::View<double**> to_device(const std::vector<double>& flat, int rows, int cols) {
  Kokkos::View<double**> v("vec", rows, cols);
  auto h = Kokkos::create_mirror_view(v);
  for (int i = 0; i < rows; ++i)
    for (int a = 0; a < cols; ++a) h(i, a) = flat[size_t(i) * cols + a];
  Kokkos::deep_copy(v, h);
  return v;
}

// Parameters of the operator cloud: r = 0.01, sigma = 1e4, mu = 10,
// dt = 2e-3, rho0 = 1000, support 2d.
inline meniscus::sph::ImplicitForceParams operator_cloud_params() {
  meniscus::sph::ImplicitForceParams p;
  p.dt = 2e-3;
  p.sigma = 1e4;
  p.viscosity = 10;
  p.rest_density = 1000;
  p.particle_diameter = 0.02;
  p.rtol = 1e-12;
  p.max_iterations = 1000;
  return p;
}

}  // namespace sph_implicit_test
