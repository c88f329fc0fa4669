#pragma once
// Ghost particles: copies of the particles that lie within `width` of a neighbouring rank's region.
// build() decides who goes where once per step; refresh() replays that plan for any field, as many
// times as a solver needs (one message per neighbour per refresh).
#include "grid/decomposition.hpp"
#include "particles/neighbor_exchange.hpp"
#include "particles/particle_set.hpp"

namespace meniscus::particles {

template <int Dim>
class HaloPlan {
 public:
  // Collective among neighbours.
  void build(const ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field, double width);
  size_t ghost_count() const { return exchange_.recv_total(); }
  size_t sent_count() const { return exchange_.send_total(); }
  // Ghost copies of `field` (ghost_count x components), in neighbour order.
  RealField refresh(const RealField& field);
  void refresh_into(const RealField& field, RealField& ghosts);
  IdField ghost_ids() const { return ghost_ids_; }
  // In place: `total` holds the owned rows first; the ghosts are written into rows [owned, owned +
  // ghost_count()) of the same view (SPH keeps owned and ghost rows in one array).
  void refresh_rows(const RealField& total, size_t owned);

  // The reverse direction: rows that belong to ghosts (e.g. surface samples whose nearest particle is
  // a ghost) are sent to the ranks owning those ghosts. ghost_of_row(i) is the ghost index of row i.
  // Returns the rows this rank received and, for each, the local index of the owned particle it
  // belongs to. Collective among neighbours.
  struct Returned {
    std::vector<RealField> fields;
    IndexList owner_index;
  };
  Returned send_to_owners(const IndexList& ghost_of_row, const std::vector<RealField>& fields);

 private:
  NeighborExchange exchange_;
  IdField ghost_ids_;
};

}  // namespace meniscus::particles
