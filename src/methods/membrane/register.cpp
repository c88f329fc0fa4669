#include "methods/membrane/register.hpp"

#include "methods/membrane/membrane_deck.hpp"
#include "methods/membrane/membrane_ruan.hpp"
#include "methods/membrane/membrane_ruan_3d.hpp"
#include "methods/method.hpp"

namespace meniscus::membrane {

void register_methods() {
  MethodInfo info;
  info.name = "membrane-ruan2021";
  info.doc = "Liquid on a MAC grid with a Lagrangian surface-tension membrane, coupled in one PETSc "
             "saddle-point solve (Ruan et al. 2021); 2D with rigid discs, 3D with rigid bodies (sphere, box, capsule, paperclip or OBJ mesh); the grid is split over "
             "the ranks, the membrane replicated. Units are CGS, as the paper's: the "
             "`domain` keys are read in cm (and `meniscus check` prints them so).";
  // The method works in CGS (Ruan et al. 2021's units), the core sections are declared in SI: their
  // lengths and speeds read as cm and cm/s here (a deck's "0.25 mm" converts to 0.025 cm).
  info.schema = [](config::Schema& s) {
    declare_membrane_sections(s);
    s.redeclare_units({{"m", "cm"}, {"m/s", "cm/s"}, {"m/s^2", "cm/s^2"}});
  };
  info.create = [](const MethodContext& ctx) -> std::unique_ptr<Method> {
    if (ctx.dimension == 3) return std::make_unique<MembraneRuan3>(ctx);
    return std::make_unique<MembraneRuan>(ctx);
  };
  register_method(info);
}

}  // namespace meniscus::membrane
