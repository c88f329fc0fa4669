#include "particles/disc_emitters.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace meniscus::particles {

std::shared_ptr<config::Schema> disc_emitter_schema() {
  auto em = std::make_shared<config::Schema>("An inflow disc of particles.");
  em->vector("center", "m", "centre of the disc").req();
  em->vector("velocity", "m/s", "inflow velocity; the disc is normal to it").req();
  em->real("radius", "m", "disc radius").req().positive();
  em->text("material", "name of a material in `materials`").req();
  em->real("start_time", "s", "first emission").def(0.0).nonnegative();
  em->real("end_time", "s", "last emission (0: never stops)").def(0.0).nonnegative();
  return em;
}

std::vector<DiscEmitter> read_disc_emitters(const config::Section& method, int dim,
                                            const std::vector<std::string>& material_names) {
  std::vector<DiscEmitter> out;
  for (const auto& e : method.list("emitters")) {
    DiscEmitter spec;
    const auto c = e.vector("center"), v = e.vector("velocity");
    double speed = 0;
    for (int d = 0; d < dim; ++d) {
      spec.center[d] = c[d];
      spec.velocity[d] = v[d];
      speed += v[d] * v[d];
    }
    if (!(speed > 0)) throw InputError(e.file(), e.key_path("velocity"), "an emitter needs a nonzero velocity");
    spec.radius = e.real("radius");
    spec.start_time = e.real("start_time");
    spec.end_time = e.real("end_time");
    const std::string mat = e.text("material");
    auto it = std::find(material_names.begin(), material_names.end(), mat);
    if (it == material_names.end())
      throw InputError(e.file(), e.key_path("material"), "no material named '" + mat + "' in `materials`");
    spec.material = static_cast<int>(it - material_names.begin());
    out.push_back(spec);
  }
  return out;
}

namespace {
// Unit jet direction n and an orthonormal basis (e1, e2) of the disc (e2 = 0 in 2D); returns |u|.
double disc_frame(const DiscEmitter& em, int dim, double n[3], double e1[3], double e2[3]) {
  double speed = 0;
  for (int c = 0; c < 3; ++c) {
    n[c] = c < dim ? em.velocity[c] : 0.0;
    speed += n[c] * n[c];
    e1[c] = e2[c] = 0;
  }
  speed = std::sqrt(speed);
  for (int c = 0; c < 3; ++c) n[c] /= speed;
  if (dim == 2) {
    e1[0] = -n[1];
    e1[1] = n[0];
  } else {
    const double a[3] = {std::fabs(n[0]) < 0.9 ? 1.0 : 0.0, std::fabs(n[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    e1[0] = a[1] * n[2] - a[2] * n[1];
    e1[1] = a[2] * n[0] - a[0] * n[2];
    e1[2] = a[0] * n[1] - a[1] * n[0];
    const double l = std::sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int c = 0; c < 3; ++c) e1[c] /= l;
    e2[0] = n[1] * e1[2] - n[2] * e1[1];
    e2[1] = n[2] * e1[0] - n[0] * e1[2];
    e2[2] = n[0] * e1[1] - n[1] * e1[0];
  }
  return speed;
}

// Lattice points of the disc in its own coordinates, offset by half a spacing: the disc is symmetric
// and no particle sits on the jet axis. An axis column is exactly symmetric, so in a head-on collision
// (the water bell) nothing can push it sideways and it was driven back into the nozzle.
template <typename F>
void for_disc_points(const DiscEmitter& em, double d, int dim, F&& f) {
  const int kr = static_cast<int>(std::floor(em.radius / d));
  for (int b = (dim == 3 ? -kr - 1 : 0); b <= (dim == 3 ? kr : 0); ++b)
    for (int a = -kr - 1; a <= kr; ++a) {
      const double pa = (a + 0.5) * d, pb = dim == 3 ? (b + 0.5) * d : 0.0;
      if (pa * pa + pb * pb > em.radius * em.radius + 1e-12) continue;
      f(pa, pb);
    }
}
}  // namespace

int disc_layer_size(const DiscEmitter& emitter, double spacing, int dim) {
  int n = 0;
  for_disc_points(emitter, spacing, dim, [&](double, double) { ++n; });
  return n;
}

template <int Dim>
void emit_disc_layers(const std::vector<DiscEmitter>& emitters, double spacing, double t, std::vector<long>& layers,
                      int64_t& next_id, const grid::Decomposition<Dim>& decomp, int rank, EmittedPoints& out) {
  const double d = spacing;
  const auto owners = decomp.owner_map();  // wraps emitted points on periodic axes
  for (size_t e = 0; e < emitters.size(); ++e) {
    const auto& em = emitters[e];
    double n[3], e1[3], e2[3];
    const double speed = disc_frame(em, Dim, n, e1, e2);
    for (;;) {
      const double tk = em.start_time + layers[e] * d / speed;
      if (tk > t + 1e-12 || (em.end_time > 0 && tk > em.end_time)) break;
      const double travel = speed * (t - tk);
      for_disc_points(em, d, Dim, [&](double pa, double pb) {
        double xp[Dim];
        for (int c = 0; c < Dim; ++c) xp[c] = em.center[c] + pa * e1[c] + pb * e2[c] + travel * n[c];
        owners.wrap(xp);
        const int64_t id = next_id++;
        if (decomp.owner_of(xp) != rank) return;
        for (int c = 0; c < Dim; ++c) {
          out.x.push_back(xp[c]);
          out.v.push_back(em.velocity[c]);
        }
        out.id.push_back(id);
        out.material.push_back(em.material);
      });
      layers[e]++;
    }
  }
}

template void emit_disc_layers<2>(const std::vector<DiscEmitter>&, double, double, std::vector<long>&, int64_t&,
                                  const grid::Decomposition<2>&, int, EmittedPoints&);
template void emit_disc_layers<3>(const std::vector<DiscEmitter>&, double, double, std::vector<long>&, int64_t&,
                                  const grid::Decomposition<3>&, int, EmittedPoints&);

}  // namespace meniscus::particles
