#include "methods/pbd/register.hpp"

#include "core/error.hpp"
#include "methods/method.hpp"
#include "methods/pbd/pbd_deck.hpp"
#include "methods/pbd/pbd_xing.hpp"
#include "particles/particle_sources.hpp"
#include "physics/collider_deck.hpp"

namespace meniscus::pbd {

void register_methods() {
  MethodInfo info;
  info.name = "pbd-xing2022";
  info.doc = "Position-based surface tension flow (Xing et al. 2022): density, distance and area constraints on "
             "local meshes of light-shading surface particles. 3D only.";
  info.schema = [](config::Schema& s) {
    declare_pbd_sections(s);
    particles::declare_sources(s);
    physics::declare_colliders(s);
  };
  info.create = [](const MethodContext& ctx) -> std::unique_ptr<Method> {
    if (ctx.dimension != 3)
      throw InputError(ctx.root.file(), "simulation.dimension",
                       "pbd-xing2022 is 3D only (its area constraints live on surface fans in 3D)");
    return std::make_unique<PbdXing>(ctx);
  };
  register_method(info);
}

}  // namespace meniscus::pbd
