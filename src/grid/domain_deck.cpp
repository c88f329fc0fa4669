#include "grid/domain_deck.hpp"

#include <cmath>
#include <memory>

#include "core/error.hpp"

namespace meniscus::grid {

void declare_domain(config::Schema& root) {
  auto s = std::make_shared<config::Schema>();
  s->vector("lower", "m", "lower corner of the simulation box").req();
  s->vector("upper", "m", "upper corner of the simulation box").req();
  s->real("cell_size", "m", "grid spacing dx").req().positive();
  s->vector("ranks", "1", "MPI process grid per axis; 0 entries are chosen automatically").def_dim("[0, 0]", "[0, 0, 0]");
  s->choice("balance", {"particles", "even"},
            "how the grid nodes are divided among ranks: `particles` places the cuts between the blocks where "
            "the seeded particles (`sources`) split evenly, so that every rank starts with about as many "
            "particles as the others (MPM, SPH, mpm-multiphase and pbd-xing2022; membrane-ruan2021 splits "
            "its initially liquid cells instead; ranks given in `ranks` are kept); `even` gives every rank "
            "the same number of nodes. The cuts are chosen at the start, and again during the run when "
            "`rebalance_threshold` is set").def("particles");
  s->real("rebalance_threshold", "1",
          "rebalance during the run (MPM and SPH): every `rebalance_interval` steps, when the largest number "
          "of particles on a rank exceeds this multiple of the mean, the cuts move to where the particles now "
          "split evenly and the particles migrate to their new ranks (one log line per rebalance). 0: never; "
          "otherwise at least 1 (1.2 is a reasonable choice)").def(0.0).nonnegative();
  s->integer("rebalance_interval", "steps between checks of rebalance_threshold (each costs two reductions)")
      .def("10").min(1);
  s->choice("walls", {"slip", "sticky", "friction", "none"}, "boundary condition on the box faces").def("slip");
  s->real("wall_friction", "1", "Coulomb friction coefficient of the box faces (walls: friction)").def(0.0).nonnegative();
  s->integer("wall_cells", "thickness of the box faces in cells").def("2").min(1);
  s->names("periodic", "axes with periodic boundaries, e.g. [z]: a particle leaving through one face of "
           "the box re-enters through the opposite face and sees the particles there as neighbours; those "
           "faces get no walls. Only the SPH method (sph-jeske2023) supports them; the box must be at "
           "least two SPH support radii long along a periodic axis", {"x", "y", "z"}).def("[]");
  root.section("domain", s, "Simulation box, grid spacing and domain decomposition.");
}

template <int Dim>
typename Decomposition<Dim>::Spec read_domain(const config::Section& root, int stencil_width, int dof) {
  const auto d = root.section("domain");
  typename Decomposition<Dim>::Spec spec;
  const auto lo = d.vector("lower"), hi = d.vector("upper"), r = d.vector("ranks");
  for (int a = 0; a < Dim; ++a) {
    spec.lower[a] = lo[a];
    spec.upper[a] = hi[a];
    if (r[a] < 0 || r[a] != std::floor(r[a]))
      throw InputError(d.file(), d.key_path("ranks"), "process grid entries must be non-negative integers");
    spec.procs[a] = static_cast<int>(r[a]);
  }
  const char* axis_names[3] = {"x", "y", "z"};
  for (const auto& name : d.names("periodic")) {
    int a = -1;
    for (int e = 0; e < Dim; ++e)
      if (name == axis_names[e]) a = e;
    if (a < 0)
      throw InputError(d.file(), d.key_path("periodic"),
                       "unknown axis '" + name + (Dim == 3 ? "'; expected x, y or z" : "'; expected x or y"));
    if (spec.periodic[a]) throw InputError(d.file(), d.key_path("periodic"), "axis '" + name + "' is listed twice");
    spec.periodic[a] = true;
  }
  spec.dx = d.real("cell_size");
  spec.stencil_width = stencil_width;
  spec.dof = dof;
  spec.deck_file = d.file();
  return spec;
}

template Decomposition<2>::Spec read_domain<2>(const config::Section&, int, int);
template Decomposition<3>::Spec read_domain<3>(const config::Section&, int, int);

}  // namespace meniscus::grid
