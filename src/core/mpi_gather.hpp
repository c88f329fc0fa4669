#pragma once
// Gathers every rank's vector on every rank (rank order), for trivially copyable element types.
// Used by reductions over names (timers) and by tests that compare global particle sets.
#include <mpi.h>

#include <type_traits>
#include <vector>

namespace meniscus {

// Returns the concatenation of all ranks' `mine`; `counts` (optional) receives each rank's length.
template <class T>
std::vector<T> allgather_vector(MPI_Comm comm, const std::vector<T>& mine, std::vector<int>* counts = nullptr) {
  static_assert(std::is_trivially_copyable<T>::value, "allgather_vector ships raw bytes");
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int bytes = static_cast<int>(mine.size() * sizeof(T));
  std::vector<int> nbytes(size), displs(size);
  MPI_Allgather(&bytes, 1, MPI_INT, nbytes.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += nbytes[r];
  }
  std::vector<T> all(total / sizeof(T));
  MPI_Allgatherv(mine.data(), bytes, MPI_BYTE, all.data(), nbytes.data(), displs.data(), MPI_BYTE, comm);
  if (counts) {
    counts->resize(size);
    for (int r = 0; r < size; ++r) (*counts)[r] = static_cast<int>(nbytes[r] / sizeof(T));
  }
  return all;
}

}  // namespace meniscus
