#pragma once
// Checksums that let a restart detect a damaged checkpoint. A dataset's checksum is a sum over its
// elements of a mixed hash of (global element index, element bits): the sum does not depend on how
// the rows are split among ranks, so the writer's ranks and a reader at any other rank count compute
// the same value from their own blocks, and every element, including its position, counts.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace meniscus::io {

// Sum over this rank's `elements` 8-byte values (doubles or int64) that start at global element
// index `first`. Not collective.
uint64_t block_checksum(const void* data, size_t elements, uint64_t first);

// The dataset's checksum: block_checksum summed over the ranks of `comm` (modulo 2^64). Collective.
uint64_t dataset_checksum(MPI_Comm comm, const void* data, size_t elements, uint64_t first);

// A 64-bit hash of a text (FNV-1a), for the deck and the header values.
uint64_t text_checksum(const std::string& text);

}  // namespace meniscus::io
