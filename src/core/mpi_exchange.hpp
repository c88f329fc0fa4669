#pragma once
// Point-to-point exchange of whole buffers with a fixed list of ranks, for trivially copyable element
// types: send[k] goes to to[k], recv[k] comes from from[k]. Every message is posted at once, so the
// lists may name the same ranks in any order without deadlock; a rank pair must appear on both sides
// (an empty buffer is still sent). Used where a sum must not depend on message arrival: the caller
// receives each rank's contribution into its own buffer and adds the buffers in an order it chooses
// (GridField::sum_overlaps, the assembled MPM Hessian's ghost rows).
#include <mpi.h>

#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace meniscus {

// recv[k] must already have the size from[k] sends.
template <class T>
void exchange_buffers(MPI_Comm comm, const std::vector<int>& to, const std::vector<std::vector<T>>& send,
                      const std::vector<int>& from, std::vector<std::vector<T>>& recv, int tag) {
  static_assert(std::is_trivially_copyable<T>::value, "exchange_buffers ships raw bytes");
  if (send.size() != to.size() || recv.size() != from.size())
    throw std::logic_error("exchange_buffers: one buffer per rank");
  auto bytes = [](size_t n) {
    if (n * sizeof(T) > static_cast<size_t>(std::numeric_limits<int>::max()))
      throw std::runtime_error("exchange_buffers: a message of more than 2 GiB (MPI counts are int)");
    return static_cast<int>(n * sizeof(T));
  };
  std::vector<MPI_Request> requests(to.size() + from.size());
  for (size_t k = 0; k < from.size(); ++k)
    MPI_Irecv(recv[k].data(), bytes(recv[k].size()), MPI_BYTE, from[k], tag, comm,
              &requests[k]);
  for (size_t k = 0; k < to.size(); ++k)
    MPI_Isend(send[k].data(), bytes(send[k].size()), MPI_BYTE, to[k], tag, comm,
              &requests[from.size() + k]);
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

// As above for receivers that do not know the sizes: the lengths travel first (tag and tag + 1).
template <class T>
void exchange_buffers_sized(MPI_Comm comm, const std::vector<int>& to, const std::vector<std::vector<T>>& send,
                            const std::vector<int>& from, std::vector<std::vector<T>>& recv, int tag) {
  std::vector<std::vector<long>> lengths(to.size()), incoming(from.size(), std::vector<long>(1));
  for (size_t k = 0; k < to.size(); ++k) lengths[k].assign(1, static_cast<long>(send[k].size()));
  exchange_buffers(comm, to, lengths, from, incoming, tag);
  recv.assign(from.size(), {});
  for (size_t k = 0; k < from.size(); ++k) recv[k].resize(static_cast<size_t>(incoming[k][0]));
  exchange_buffers(comm, to, send, from, recv, tag + 1);
}

}  // namespace meniscus
