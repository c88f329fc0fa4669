#pragma once
// The boundary between the run and the ParaView side of the in-situ adaptor.
//
// ParaView 5.11 brings about 350 shared libraries (VTK, Qt, Python). Linking them into `meniscus`
// would add about half a second to every process start, on every rank, even with no `insitu`
// section. So the VTK code is a separate shared module, libmeniscus_catalyst_vtk.so
// (catalyst_pipeline.cpp). The observer (catalyst_observer.cpp) dlopen()s it only when a deck names
// a pipeline script. Only plain data crosses this boundary: host pointers, std::string and MPI
// handles. No Kokkos, no meniscus types, and no VTK headers on the run's side.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace meniscus::io::catalyst_abi {

// Bumped whenever anything in this header changes.
constexpr int kVersion = 4;
// The module's one exported symbol (extern "C", default visibility).
constexpr const char* kCreateSymbol = "meniscus_catalyst_create";

// One particle field on the host: count x components doubles, row-major (components 1, dim, dim*dim).
struct Field {
  std::string name;
  int components = 1;
  const double* data = nullptr;
};

// A rank's particles for one call. All pointers are valid only during Pipeline::execute.
struct Particles {
  int dimension = 3;
  size_t count = 0;
  const double* position = nullptr;  // count x dimension
  std::vector<Field> fields;         // persistent fields except the position
  const int64_t* id = nullptr;
  const int32_t* material = nullptr;
};

// A rank's block of the method's uniform grid: nodes lower + i*spacing; this rank holds the node box
// piece[0..1] x piece[2..3] x piece[4..5] (inclusive, VTK extent order) of the whole box `whole`.
// Fields hold the block's nodes, x fastest, `components` doubles each.
struct Grid {
  double origin[3] = {0, 0, 0};
  double spacing = 1;
  int whole[6] = {0, 0, 0, 0, 0, 0};
  int piece[6] = {0, 0, 0, 0, 0, 0};
  std::vector<Field> fields;
};

// Fills a Grid on demand (the pipeline asks only when a script uses the "grid" channel); returns
// false when the method has no grid. Collective: every rank is asked, or none.
using GridSource = std::function<bool(Grid&)>;

// The method's interface mesh (the membrane of Ruan et al. 2021), whole on rank 0, empty on the other
// ranks: vertices (x, y, z) with their velocity, and cells of nodes_per_cell vertex rows (3: triangles
// in 3D, 2: the segments of a 2D polyline).
struct Surface {
  size_t vertices = 0;
  const double* position = nullptr;  // vertices x 3
  const double* velocity = nullptr;  // vertices x 3
  size_t cells = 0;
  int nodes_per_cell = 3;
  const int64_t* connectivity = nullptr;  // cells x nodes_per_cell, 0-based vertex rows
};

// Fills a Surface on demand (only when a script uses the "membrane" channel); returns false when the
// method has no such mesh. Collective, like GridSource.
using SurfaceSource = std::function<bool(Surface&)>;

enum class Status {
  ok,      // ran, or the pipeline did not want this step
  failed,  // the pipeline reported a failure (`error` says so); later calls may work
  broken,  // the first execution failed on some rank (a script error): the run should stop
};

class Pipeline {
 public:
  virtual ~Pipeline() = default;
  // Collective. Hands the particles (channel "particles") and, when a script asks for them, the grid
  // (channel "grid") and the membrane (channel "membrane") to the pipeline when it wants this step.
  virtual Status execute(const Particles& particles, const GridSource& grid, const SurfaceSource& surface, long step,
                         double time, std::string& error) = 0;
  // Collective: finalizes and deletes the vtkCPProcessor and frees its communicator. Idempotent.
  // Must run before MPI_Finalize.
  virtual void finalize() = 0;
  virtual long calls() const = 0;  // pipeline executions so far
};

// Collective over `comm`. Returns nullptr and fills `error` when Catalyst cannot be initialized or
// the script fails to load (the same on every rank). `output_dir` must be absolute.
using CreateFn = Pipeline* (*)(int abi_version, MPI_Comm comm, const char* script, const char* output_dir,
                               const char* channel, std::string* error);

}  // namespace meniscus::io::catalyst_abi
