#include "methods/mpm/register.hpp"

#include "grid/domain_deck.hpp"
#include "methods/method.hpp"
#include "methods/mpm/explicit_mpm.hpp"
#include "methods/mpm/mpm_deck.hpp"
#include "particles/particle_sources.hpp"
#include "physics/collider_deck.hpp"

namespace meniscus::mpm {

void register_methods() {
  MethodInfo info;
  info.name = "mpm-explicit";
  info.doc = "Explicit APIC MPM (quadratic B-splines): weakly compressible fluids, fixed-corotated solids.";
  info.schema = [](config::Schema& s) {
    declare_mpm_sections(s);
    particles::declare_sources(s);
    physics::declare_colliders(s);
  };
  info.create = [](const MethodContext& ctx) -> std::unique_ptr<Method> {
    if (ctx.dimension == 2) return std::make_unique<ExplicitMPM<2>>(ctx);
    return std::make_unique<ExplicitMPM<3>>(ctx);
  };
  register_method(info);
}

}  // namespace meniscus::mpm
