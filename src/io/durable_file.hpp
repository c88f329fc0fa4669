#pragma once
// Files that readers must never see half-written (checkpoints, XDMF collections): the data goes to
// NAME.tmp, is flushed to disk, and a rename puts it in place. A crash at any moment leaves either
// the previous complete NAME or the new one, never a mixture. Single-process functions: in a
// parallel run rank 0 calls them after the collective write has finished.
#include <mpi.h>

#include <functional>
#include <string>

namespace meniscus::io {

// Flushes a file's (or a directory's) data and metadata to disk; file systems that cannot
// (some network mounts) are not an error.
void sync_path(const std::string& path);

// fsync(from); rename(from, to); fsync(parent folder). Throws RuntimeError naming both paths.
void durable_rename(const std::string& from, const std::string& to);

// Writes `text` to path.tmp, then durable_rename to path. Throws RuntimeError.
void write_file_atomically(const std::string& path, const std::string& text);

// Runs `fn` on rank 0 only (file-system bookkeeping) and rethrows its failure on every rank, so
// that the other ranks do not carry on into the next collective call alone. Collective.
void on_rank0(MPI_Comm comm, const std::function<void()>& fn);

}  // namespace meniscus::io
