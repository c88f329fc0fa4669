#include "methods/sph/register.hpp"

#include "methods/method.hpp"
#include "methods/sph/sph_deck.hpp"
#include "methods/sph/sph_jeske.hpp"
#include "particles/particle_sources.hpp"
#include "physics/collider_deck.hpp"

namespace meniscus::sph {

void register_methods() {
  MethodInfo info;
  info.name = "sph-jeske2023";
  info.doc = "DFSPH with implicit cohesion surface tension, viscosity and adhesion (Jeske et al. 2023).";
  info.schema = [](config::Schema& s) {
    declare_sph_sections(s);
    particles::declare_sources(s);
    physics::declare_colliders(s);
  };
  info.create = [](const MethodContext& ctx) -> std::unique_ptr<Method> {
    if (ctx.dimension == 2) return std::make_unique<SphJeske<2>>(ctx);
    return std::make_unique<SphJeske<3>>(ctx);
  };
  register_method(info);
}

}  // namespace meniscus::sph
