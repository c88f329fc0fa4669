#pragma once
// Point-to-point exchange of particle rows with the neighbouring ranks of the decomposition. A plan
// is the list of local particles to send to each neighbour; once the counts are agreed, any set of
// fields can be shipped along the plan (migration ships every persistent field once; halo refreshes
// replay the same plan for each solver iteration).
#include <mpi.h>

#include <vector>

#include "particles/particle_set.hpp"

namespace meniscus::particles {

class NeighborExchange {
 public:
  NeighborExchange() = default;
  NeighborExchange(MPI_Comm comm, std::vector<int> neighbors) : comm_(comm), neighbors_(std::move(neighbors)) {}

  // send: particle indices grouped by neighbour; counts[k] of them go to neighbors[k].
  // Collective among neighbours: exchanges the counts.
  void plan(const IndexList& send, const std::vector<int>& counts);

  size_t send_total() const { return send_total_; }
  size_t recv_total() const { return recv_total_; }
  const std::vector<int>& recv_counts() const { return recv_counts_; }
  const std::vector<int>& send_counts() const { return send_counts_; }
  const IndexList& send_list() const { return send_; }
  const std::vector<int>& neighbors() const { return neighbors_; }
  MPI_Comm comm() const { return comm_; }

  // Ships the planned rows of `fields` (and ids/materials when given) to the neighbours and writes the
  // received rows into `out_fields` from row `offset` on (in neighbour order).
  void ship(const std::vector<RealField>& fields, const IdField* ids, const IntField* mats,
            const std::vector<RealField>& out_fields, IdField* out_ids, IntField* out_mats, size_t offset);

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<int> neighbors_;
  IndexList send_;
  std::vector<int> send_counts_, recv_counts_;
  size_t send_total_ = 0, recv_total_ = 0;
};

}  // namespace meniscus::particles
