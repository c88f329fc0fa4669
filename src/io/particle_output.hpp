#pragma once
// Particle output for ParaView: one parallel HDF5 file per output time, DIR/particles_NNNNNN.h5
// (NNNNNN = step), each rank writing its particles as one block of every dataset, plus the XDMF
// documents DIR/particles_NNNNNN.xdmf and the collection DIR/particles.xdmf. Layout of a file:
//   /position     N x 3 float64 (2D runs: z = 0)
//   /point_index  N int64, 0 .. N-1 (the XDMF Polyvertex topology)
//   /<field>      N (scalars), N x 3 (vectors, 2D padded with 0) or N x Dim*Dim (matrices, row-major)
//   /id, /material  N int64
//   attributes of /: meniscus_format = "particles", format_version, method, dimension, step, time,
//   particle_count
#include <mpi.h>

#include <string>
#include <vector>

#include "io/series.hpp"
#include "methods/method.hpp"

namespace meniscus::io {

class ParticleOutput {
 public:
  // `fields` names fields of the method and/or "id" and "material"; empty: every persistent field,
  // ids and materials. An unknown name is an InputError naming `deck_file` and output.fields.
  ParticleOutput(MPI_Comm comm, Method& method, const std::string& method_name, const std::vector<std::string>& fields,
                 const std::string& dir, const std::string& deck_file);
  // Writes the files of this step and adds them to the collection. Collective.
  void write(Method& method, long step, double time);
  // A restarted run continues the collection of the run it resumes (outputs of steps <= step).
  void resume(long step) { series_.resume(step); }
  // The chosen fields in file order (for tests and the log).
  const std::vector<std::string>& fields() const { return fields_; }

 private:
  MPI_Comm comm_;
  std::string method_name_;
  std::vector<std::string> fields_;  // method fields, then "id" / "material" if chosen
  Series series_;
};

}  // namespace meniscus::io
