#pragma once
// Checkpoint packing of the membrane method's state: every dof of the MAC grid's owned nodes (face
// velocities carry over from step to step, so a restart needs them), and the gathering of the
// membrane vertices on rank 0 (the membrane is replicated; rank 0 holds it as the method's particles).
#include <mpi.h>

#include <vector>

#include "methods/membrane/mac_grid.hpp"
#include "methods/method.hpp"
#include "methods/membrane/polyline.hpp"
#include "particles/particle_set.hpp"

namespace meniscus::membrane {

// Columns of a grid row: the node ((i, j) or (i, j, k)), then its mac_dofs<Dim>() values.
template <int Dim>
constexpr int grid_state_columns() {
  return Dim + mac_dofs<Dim>();
}
constexpr int kGridStateColumns = grid_state_columns<2>();

// This rank's owned nodes as rows of grid_state_columns<Dim>() doubles.
std::vector<double> pack_grid_rows(MacGrid& grid);
std::vector<double> pack_grid_rows(MacGrid3& grid);
// Writes every row whose node this rank owns (the table may hold all ranks' rows) and refreshes
// ghosts. Collective. Returns how many rows it used.
long unpack_grid_rows(MacGrid& grid, const std::vector<double>& rows);
long unpack_grid_rows(MacGrid3& grid, const std::vector<double>& rows);

// The grid output at cell centres (this rank's owned cells; shared_faces: also the first row of
// the next rank's cells, from the ghosts): pressure p-hat / last_dt, cell type and the velocity as
// the mean of the two faces of each axis (z = 0 in 2D). Host loop, once per output time.
void mac_grid_snapshot(MacGrid& grid, double last_dt, GridSnapshot& out, bool shared_faces);
void mac_grid_snapshot(MacGrid3& grid, double last_dt, GridSnapshot& out, bool shared_faces);

// Moves every vertex of `set` (fields: position, velocity; 2 or 3 components) to rank 0, in id
// order. Collective.
void gather_vertices_to_root(MPI_Comm comm, particles::ParticleSet& set);
// Rank 0's vertices (positions and velocities, dim per vertex, placed by id) on every rank; bad_id:
// an id outside 0 .. n-1 (a damaged checkpoint; x and v are then empty). Collective.
struct MembraneVertexRows {
  int dim = 0;
  std::vector<double> x, v;
  bool bad_id = false;
  long vertices() const { return dim > 0 ? static_cast<long>(x.size()) / dim : 0; }
};
MembraneVertexRows broadcast_vertices(MPI_Comm comm, particles::ParticleSet& set);
// The membrane from rank 0's particle set (positions and velocities in id order), on every rank.
// Collective.
Polyline broadcast_membrane(MPI_Comm comm, particles::ParticleSet& set, bool closed);

// The membrane's vertices (positions x, velocities v: n x Dim views) become the particle set's
// first n entries (fields position, velocity, mass), each carrying the mass share `share`.
template <class X>
void copy_vertices(particles::ParticleSet& set, const X& mx, const X& mv, long n, double share) {
  auto x = set.field(0), v = set.field(1), mass = set.field(2);
  auto id = set.id();
  auto mat = set.material();
  const int dim = static_cast<int>(mx.extent(1));
  Kokkos::parallel_for(
      "membrane_publish_vertices", n, KOKKOS_LAMBDA(const long i) {
        for (int d = 0; d < dim; ++d) {
          x(i, d) = mx(i, d);
          v(i, d) = mv(i, d);
        }
        mass(i, 0) = share;
        id(i) = i;
        mat(i) = 0;
      });
}

}  // namespace meniscus::membrane
