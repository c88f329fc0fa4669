#pragma once
// Ghost particles: copies of the particles that lie within `width` of a neighbouring rank's region.
// build() decides who goes where once per step; refresh() replays that plan for any field, as many
// times as a solver needs (one message per neighbour per refresh). Across a periodic face the
// neighbouring region is an image shifted by the box length (grid::Decomposition::Image): the ghost
// then carries its owner's position plus that shift, so positions must be refreshed with
// refresh_position_rows; every other field is copied unchanged. A rank alone along a periodic axis
// is its own neighbour there and receives its own particles' images.
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
  // refresh_rows for the position field: ghost rows get the periodic shift of their image added.
  void refresh_position_rows(const RealField& total, size_t owned);
  // Per ghost, the shift added to its owner's position (zero except across periodic faces).
  RealField ghost_shift() const { return ghost_shift_; }

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
  RealField ghost_shift_;
  bool shifted_ = false;  // the decomposition has a periodic axis
};

}  // namespace meniscus::particles
