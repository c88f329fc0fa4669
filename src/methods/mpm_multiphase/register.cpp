#include "methods/mpm_multiphase/register.hpp"

#include "methods/method.hpp"
#include "methods/mpm_multiphase/multiphase_deck.hpp"
#include "methods/mpm_multiphase/multiphase_method.hpp"
#include "particles/particle_sources.hpp"
#include "physics/collider_deck.hpp"

namespace meniscus::mpm_multiphase {

void register_methods() {
  MethodInfo info;
  info.name = "mpm-multiphase";
  info.doc = "Multiphase MPM for interacting fluids and solids (Yan et al. 2018): a grid velocity field per material "
             "group, SPH-density Tait fluids, hypoelastic solids, anti-penetration contact.";
  info.schema = [](config::Schema& s) {
    declare_multiphase_sections(s);
    particles::declare_sources(s);
    physics::declare_colliders(s);
  };
  info.create = [](const MethodContext& ctx) -> std::unique_ptr<Method> {
    if (ctx.dimension == 2) return std::make_unique<MultiphaseMpm<2>>(ctx);
    return std::make_unique<MultiphaseMpm<3>>(ctx);
  };
  register_method(info);
}

}  // namespace meniscus::mpm_multiphase
