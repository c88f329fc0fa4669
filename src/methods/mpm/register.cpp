#include "methods/mpm/register.hpp"

#include "grid/domain_deck.hpp"
#include "methods/method.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "methods/mpm/mpm_deck.hpp"
#include "particles/particle_sources.hpp"
#include "physics/collider_deck.hpp"

namespace meniscus::mpm {

void register_methods() {
  MethodInfo info;
  info.name = "mpm";
  info.aliases = {"mpm-explicit"};  // the name before the implicit integrator joined (older decks)
  info.doc = "APIC MPM (quadratic B-splines), explicit or implicit (mpm.integrator): weakly compressible fluids, "
             "fixed-corotated solids, surface tension (Chen et al. 2021).";
  info.schema = [](config::Schema& s) {
    declare_mpm_sections(s);
    particles::declare_sources(s);
    physics::declare_colliders(s);
  };
  info.create = [](const MethodContext& ctx) -> std::unique_ptr<Method> {
    if (ctx.dimension == 2) return std::make_unique<MpmMethod<2>>(ctx);
    return std::make_unique<MpmMethod<3>>(ctx);
  };
  register_method(info);
}

}  // namespace meniscus::mpm
