#include "methods/membrane/rigid_body.hpp"

#include <algorithm>
#include <cmath>

namespace meniscus::membrane {

void Disc::project(const double* x, double* out) const {
  const double dx = x[0] - c[0], dy = x[1] - c[1];
  const double r = std::hypot(dx, dy);
  if (r == 0) {  // the centre itself: any surface point is closest; take the top
    out[0] = c[0];
    out[1] = c[1] + radius;
    return;
  }
  out[0] = c[0] + radius * dx / r;
  out[1] = c[1] + radius * dy / r;
}

int body_containing(const std::vector<Disc>& bodies, const double* x) {
  for (size_t b = 0; b < bodies.size(); ++b)
    if (bodies[b].phi(x) < 0) return static_cast<int>(b);
  return -1;
}

int body_within(const std::vector<Disc>& bodies, const double* x, double eps) {
  int best = -1;
  double dmin = eps;
  for (size_t b = 0; b < bodies.size(); ++b) {
    const double d = bodies[b].phi(x);
    if (d < dmin) {
      dmin = d;
      best = static_cast<int>(b);
    }
  }
  return best;
}

// A flat pool surface at `level` from x0 to x1 with edges about `edge`, which wraps the wetted lower
// arc of every disc that the level cuts: the liquid starts in contact with the body's submerged
// part, its contact line at the level.
std::vector<double> pool_surface(double x0, double x1, double level, double edge, std::vector<Disc> bodies) {
  std::vector<Disc> cut;
  for (const auto& b : bodies)
    if (std::abs(level - b.c[1]) < b.radius) cut.push_back(b);
  std::sort(cut.begin(), cut.end(), [](const Disc& a, const Disc& b) { return a.c[0] < b.c[0]; });
  std::vector<double> xy;
  auto flat = [&](double from, double to) {
    const int n = std::max(1, static_cast<int>(std::ceil((to - from) / edge)));
    for (int i = 0; i < n; ++i) {
      xy.push_back(from + (to - from) * i / n);
      xy.push_back(level);
    }
  };
  double x = x0;
  for (const auto& b : cut) {
    const double dy = level - b.c[1], hw = std::sqrt(b.radius * b.radius - dy * dy);
    flat(x, b.c[0] - hw);
    // Counter-clockwise along the bottom, from the left contact point to the right one.
    double tl = std::atan2(dy, -hw), tr = std::atan2(dy, hw);
    if (tl < 0) tl += 2 * M_PI;
    tr += 2 * M_PI;
    const int n = std::max(2, static_cast<int>(std::ceil(b.radius * (tr - tl) / edge)));
    for (int i = 0; i < n; ++i) {
      const double t = tl + (tr - tl) * i / n;
      xy.push_back(b.c[0] + b.radius * std::cos(t));
      xy.push_back(b.c[1] + b.radius * std::sin(t));
    }
    x = b.c[0] + hw;
  }
  flat(x, x1);
  xy.push_back(x1);
  xy.push_back(level);
  return xy;
}

void attach_links(std::vector<Disc>& bodies, double t) {
  for (auto& link : bodies) {
    if (link.root < 0) continue;
    const Disc& root = bodies[static_cast<size_t>(link.root)];
    const double w = 2 * M_PI * link.stroke_frequency, th = w * t + link.stroke_phase;
    const double r[2] = {link.stroke_centre[0] - link.stroke_amplitude[0] * std::cos(th),
                         link.stroke_centre[1] + link.stroke_amplitude[1] * std::sin(th)};
    link.v_kin[0] = w * link.stroke_amplitude[0] * std::sin(th);
    link.v_kin[1] = w * link.stroke_amplitude[1] * std::cos(th);
    for (int d = 0; d < 2; ++d) {
      link.c[d] = root.c[d] + r[d];
      link.v[d] = root.v[d] + link.v_kin[d];
    }
    link.angle = root.angle;
    link.omega = 0;
  }
}

void composite_inertia(const std::vector<Disc>& bodies, size_t b, double* out) {
  const Disc& body = bodies[b];
  out[0] = out[1] = body.mass();
  out[2] = body.inertia();
  for (const auto& link : bodies) {
    if (link.root != static_cast<int>(b)) continue;
    const double dx = link.c[0] - body.c[0], dy = link.c[1] - body.c[1];
    out[0] += link.mass();
    out[1] += link.mass();
    out[2] += link.inertia() + link.mass() * (dx * dx + dy * dy);
  }
}

void predict_positions(std::vector<Disc>& bodies, double dt) {
  for (auto& b : bodies) {
    b.c[0] += dt * b.v[0];
    b.c[1] += dt * b.v[1];
    b.angle += dt * b.omega;
  }
}

}  // namespace meniscus::membrane
