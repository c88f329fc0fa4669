#include "methods/membrane/receding_contact.hpp"

#include <cmath>

namespace meniscus::membrane {

namespace {
// Outward unit normal of the body's surface at x (on or near it): radial for a disc or a sphere, else
// by differences of the exact signed distance.
template <class Body>
void surface_normal(const Body& b, const double* x, double* n) {
  constexpr int dim = Body::kDim;
  bool round = false;
  if constexpr (dim == 2) round = b.outline == Disc::Outline::Disc;
  else round = b.sphere;
  if (!round) return surface_normal_by_differences(b, x, n);
  double len = 0;
  for (int d = 0; d < dim; ++d) len += (x[d] - b.c[d]) * (x[d] - b.c[d]);
  len = std::sqrt(len);
  for (int d = 0; d < dim; ++d) n[d] = len > 0 ? (x[d] - b.c[d]) / len : (d == 0 ? 1.0 : 0.0);
}

double dot(const double* a, const double* b, int dim) {
  double s = 0;
  for (int d = 0; d < dim; ++d) s += a[d] * b[d];
  return s;
}
}  // namespace

double angle_through_liquid(const double* n, const double* s, const double* t, int dim) {
  double u[3];
  const double sn = dot(s, n, dim);
  for (int d = 0; d < dim; ++d) u[d] = s[d] - sn * n[d];
  const double len = std::sqrt(dot(u, u, dim));
  if (!(len > 0)) return M_PI;
  const double a = std::atan2(dot(t, n, dim), dot(t, u, dim) / len);
  return a < 0 ? a + 2 * M_PI : a;
}

double contact_angle_through_liquid(const Disc& body, const double* xi, const double* xk, const double* xj) {
  double n[2];
  surface_normal(body, xi, n);
  const double s[2] = {xk[0] - xi[0], xk[1] - xi[1]}, t[2] = {xj[0] - xi[0], xj[1] - xi[1]};
  return angle_through_liquid(n, s, t, 2);
}

template <class Body>
std::vector<int> receding_vertices(const std::vector<Body>& bodies, const std::vector<double>& x,
                                   const std::vector<int>& edges, long owned, double receding,
                                   const std::vector<int>& contact) {
  constexpr int dim = Body::kDim;
  const long n = static_cast<long>(contact.size());
  // Per owned edge vertex: the sums s (to contact neighbours) and t (unit, to free ones), and counts.
  std::vector<double> s(dim * n, 0.0), t(dim * n, 0.0);
  std::vector<char> wet(n, 0), dry(n, 0);
  for (size_t e = 0; e + 1 < edges.size(); e += 2)
    for (int end = 0; end < 2; ++end) {
      const int i = edges[e + end], j = edges[e + 1 - end];
      if (i >= owned || contact[i] < 0) continue;
      double r[dim], len = 0;
      for (int d = 0; d < dim; ++d) r[d] = x[dim * j + d] - x[dim * i + d], len += r[d] * r[d];
      len = std::sqrt(len);
      if (!(len > 0)) continue;
      if (contact[j] == contact[i]) {
        for (int d = 0; d < dim; ++d) s[dim * i + d] += r[d];
        wet[i] = 1;
      } else if (contact[j] < 0) {
        for (int d = 0; d < dim; ++d) t[dim * i + d] += r[d] / len;
        dry[i] = 1;
      }
    }
  std::vector<int> out;
  for (long i = 0; i < owned && i < n; ++i) {
    if (!wet[i] || !dry[i]) continue;
    double nrm[dim];
    surface_normal(bodies[contact[i]], &x[dim * i], nrm);
    if (angle_through_liquid(nrm, &s[dim * i], &t[dim * i], dim) < receding) out.push_back(static_cast<int>(i));
  }
  return out;
}

template std::vector<int> receding_vertices(const std::vector<Disc>&, const std::vector<double>&, const std::vector<int>&,
                                            long, double, const std::vector<int>&);
template std::vector<int> receding_vertices(const std::vector<RigidBody3>&, const std::vector<double>&,
                                            const std::vector<int>&, long, double, const std::vector<int>&);

int release_receding_ends(const std::vector<Disc>& bodies, const std::vector<double>& xy, const std::vector<int>& edges,
                          double receding, std::vector<int>& contact) {
  const long n = static_cast<long>(contact.size());
  const std::vector<int> release = receding_vertices(bodies, xy, edges, n, receding, contact);
  if (release.empty()) return 0;
  for (const int i : release) contact[i] = -1;
  // Rule 3 again: a contact vertex with no contact neighbour on its body is not one.
  const std::vector<int> kept = contact_set(contact, edges);
  int released = static_cast<int>(release.size());
  for (long i = 0; i < n; ++i) released += contact[i] >= 0 && kept[i] < 0;
  contact = kept;
  return released;
}

}  // namespace meniscus::membrane
