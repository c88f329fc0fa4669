#include "methods/membrane/receding_contact.hpp"

#include <cmath>

namespace meniscus::membrane {

namespace {
// Outward unit normal of the body's surface at x (on or near it): radial for a disc, else central
// differences of the exact signed distance.
void surface_normal(const Disc& b, const double* x, double* n) {
  if (b.outline == Disc::Outline::Disc) {
    n[0] = x[0] - b.c[0];
    n[1] = x[1] - b.c[1];
  } else {
    const double h = 1e-7 * std::max(b.reach(0), b.reach(1));
    for (int d = 0; d < 2; ++d) {
      double p[2] = {x[0], x[1]}, m[2] = {x[0], x[1]};
      p[d] += h;
      m[d] -= h;
      n[d] = b.phi(p) - b.phi(m);
    }
  }
  const double len = std::hypot(n[0], n[1]);
  n[0] = len > 0 ? n[0] / len : 1.0;
  n[1] = len > 0 ? n[1] / len : 0.0;
}
}  // namespace

double contact_angle_through_liquid(const Disc& body, const double* xi, const double* xk, const double* xj) {
  double n[2];
  surface_normal(body, xi, n);
  // The surface's tangent at i, toward the wetted side (where k lies).
  double s[2] = {-n[1], n[0]};
  if (s[0] * (xk[0] - xi[0]) + s[1] * (xk[1] - xi[1]) < 0) s[0] = -s[0], s[1] = -s[1];
  double t[2] = {xj[0] - xi[0], xj[1] - xi[1]};
  const double len = std::hypot(t[0], t[1]);
  if (!(len > 0)) return M_PI;
  t[0] /= len;
  t[1] /= len;
  // Measured from s toward the liquid, which lies on the side of s that n points to.
  const double side = s[0] * n[1] - s[1] * n[0] > 0 ? 1.0 : -1.0;
  const double a = std::atan2(side * (s[0] * t[1] - s[1] * t[0]), s[0] * t[0] + s[1] * t[1]);
  return a < 0 ? a + 2 * M_PI : a;
}

int release_receding_ends(const std::vector<Disc>& bodies, const std::vector<double>& xy, const std::vector<int>& edges,
                          double receding, std::vector<int>& contact) {
  const size_t n = contact.size();
  // A polyline vertex has at most two neighbours.
  std::vector<int> nb(2 * n, -1);
  for (size_t e = 0; e + 1 < edges.size(); e += 2)
    for (int end = 0; end < 2; ++end) {
      const int a = edges[e + end], b = edges[e + 1 - end];
      if (nb[2 * a] < 0) nb[2 * a] = b;
      else nb[2 * a + 1] = b;
    }
  std::vector<int> release;
  for (size_t i = 0; i < n; ++i) {
    const int b = contact[i];
    if (b < 0 || nb[2 * i + 1] < 0) continue;
    const int p = nb[2 * i], q = nb[2 * i + 1];
    const bool p_wet = contact[p] == b, q_wet = contact[q] == b;
    if (p_wet == q_wet || contact[p_wet ? q : p] >= 0) continue;  // not a chain end next to free membrane
    const int k = p_wet ? p : q, j = p_wet ? q : p;
    if (contact_angle_through_liquid(bodies[b], &xy[2 * i], &xy[2 * k], &xy[2 * j]) < receding)
      release.push_back(static_cast<int>(i));
  }
  for (const int i : release) contact[i] = -1;
  // Rule 3 again: a contact vertex with no contact neighbour on its body is not one.
  int released = static_cast<int>(release.size());
  if (released > 0) {
    const std::vector<int> kept = contact_set(contact, edges);
    for (size_t i = 0; i < n; ++i) released += contact[i] >= 0 && kept[i] < 0;
    contact = kept;
  }
  return released;
}

}  // namespace meniscus::membrane
