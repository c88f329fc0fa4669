#include "methods/membrane/register.hpp"

#include "methods/membrane/membrane_deck.hpp"
#include "methods/membrane/membrane_ruan.hpp"
#include "methods/method.hpp"

namespace meniscus::membrane {

void register_methods() {
  MethodInfo info;
  info.name = "membrane-ruan2021";
  info.doc = "Liquid on a MAC grid with a Lagrangian surface-tension membrane, coupled in one PETSc "
             "saddle-point solve (Ruan et al. 2021); 2D, with rigid discs.";
  info.schema = [](config::Schema& s) { declare_membrane_sections(s); };
  info.create = [](const MethodContext& ctx) -> std::unique_ptr<Method> { return std::make_unique<MembraneRuan>(ctx); };
  register_method(info);
}

}  // namespace meniscus::membrane
