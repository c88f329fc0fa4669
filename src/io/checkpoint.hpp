#pragma once
// Checkpoints: everything a run needs to continue, in one parallel HDF5 file
// DIR/checkpoints/chk_NNNNNN.h5 (NNNNNN = step). Layout:
//   /particles/<field>        N x components float64, every persistent field of the method
//   /particles/id, /material  N int64
//   /particles/rank_counts    writer ranks, int64: how many particles each rank wrote (in order)
//   /method_state             group; one float64 attribute per Method::state() entry
//   /rng                      empty group: the place for random number generator states
//   /deck                     text: the resolved deck (YAML) of the run that wrote it
//   attributes of /: meniscus_format = "checkpoint", format_version, meniscus_version, method,
//   dimension, step, time, dt, wall_s, writer_ranks, particle_count
// A file is written as chk_NNNNNN.h5.tmp, closed collectively and only then renamed (and synced),
// so a crash mid-write leaves the previous checkpoints intact and a .tmp that readers ignore.
#include <mpi.h>

#include <string>

#include "core/deck.hpp"
#include "methods/method.hpp"

namespace meniscus::io {

struct CheckpointInfo {
  long step = 0;
  double time = 0;     // simulated time [s]
  double dt = 0;       // the last step's size [s]
  double wall_s = 0;   // wall time the run had used [s]
  int writer_ranks = 0;
  long particles = 0;
};

// DIR/checkpoints for the output folder DIR.
std::string checkpoint_folder(const std::string& output_dir);

// Writes a checkpoint of `method` into `folder` and deletes all but the newest `keep` (and any
// of a later step: they belong to a run this one has replaced). Returns its path. Collective;
// failures are RuntimeErrors.
std::string write_checkpoint(MPI_Comm comm, Method& method, const std::string& method_name, const config::Deck& deck,
                             const std::string& folder, const CheckpointInfo& info, int keep);

// Replaces the particles and state of `method` (built from `deck`) by the checkpoint's. At the
// writer's rank count every rank reads back its own block (the same particle order, so the run
// continues bit for bit); otherwise the particles are read in even blocks and sent to their owners.
// A missing, damaged or foreign file, or one from another method, dimension, domain or material
// list, is an InputError naming the file. Collective.
CheckpointInfo read_checkpoint(MPI_Comm comm, const std::string& path, Method& method, const std::string& method_name,
                               const config::Deck& deck);

// The newest complete checkpoint in `dir`/checkpoints (or in `dir` itself if it holds the
// chk_*.h5 files); unreadable ones are skipped with a warning, .tmp files ignored. InputError if
// there is none. Collective; every rank gets the path.
std::string latest_checkpoint(MPI_Comm comm, const std::string& dir);

}  // namespace meniscus::io
