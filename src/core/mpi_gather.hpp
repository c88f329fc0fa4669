#pragma once
// Gathers every rank's vector on every rank (rank order), and sends one vector to each rank
// (all-to-all), for trivially copyable element types. Used by reductions over names (timers), by
// tests that compare global particle sets and by the membrane's distributed velocity block.
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

// Sends out[r] to rank r (out has one vector per rank) and returns what every rank sent to this one,
// concatenated in source-rank order (each source's vector in its own order). Collective.
template <class T>
std::vector<T> alltoall_vectors(MPI_Comm comm, const std::vector<std::vector<T>>& out) {
  static_assert(std::is_trivially_copyable<T>::value, "alltoall_vectors ships raw bytes");
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<int> send_counts(size), recv_counts(size), send_displs(size, 0), recv_displs(size, 0);
  std::vector<T> flat;
  for (int r = 0; r < size; ++r) {
    send_counts[r] = static_cast<int>(out[r].size() * sizeof(T));
    flat.insert(flat.end(), out[r].begin(), out[r].end());
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) {
    send_displs[r] = send_displs[r - 1] + send_counts[r - 1];
    recv_displs[r] = recv_displs[r - 1] + recv_counts[r - 1];
  }
  std::vector<T> in((recv_displs[size - 1] + recv_counts[size - 1]) / sizeof(T));
  MPI_Alltoallv(flat.data(), send_counts.data(), send_displs.data(), MPI_BYTE, in.data(), recv_counts.data(),
                recv_displs.data(), MPI_BYTE, comm);
  return in;
}

}  // namespace meniscus
