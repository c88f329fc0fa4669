#include "particles/redistribute.hpp"

#include <climits>
#include <vector>

#include "core/error.hpp"

namespace meniscus::particles {

namespace {

// Counts and displacements of one all-to-all of `width` values per particle.
struct Plan {
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
};

Plan scaled(const std::vector<long>& send, const std::vector<long>& recv, int width) {
  const size_t size = send.size();
  Plan p{std::vector<int>(size), std::vector<int>(size), std::vector<int>(size), std::vector<int>(size)};
  long s = 0, r = 0;
  for (size_t i = 0; i < size; ++i) {
    p.send_counts[i] = static_cast<int>(send[i] * width);
    p.recv_counts[i] = static_cast<int>(recv[i] * width);
    p.send_displs[i] = static_cast<int>(s);
    p.recv_displs[i] = static_cast<int>(r);
    s += send[i] * width;
    r += recv[i] * width;
  }
  return p;
}

// Packs the rows order(0..n) of `src` (device) into a host buffer grouped by destination.
template <class T>
Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> pack(const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>& src,
                                                               const IndexList& order, size_t n) {
  const int nc = static_cast<int>(src.extent(1));
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redistribute_pack"),
                                                        n, nc);
  Kokkos::parallel_for(
      "redistribute::pack", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int k) {
        for (int c = 0; c < nc; ++c) buf(k, c) = src(order(k), c);
      });
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buf);
}

template <class T>
Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> exchange(
    const Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>& out, const std::vector<long>& send,
    const std::vector<long>& recv, long nrecv, MPI_Datatype type, MPI_Comm comm) {
  const int width = static_cast<int>(out.extent(1));
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> in("redistribute_in", nrecv, width);
  const Plan p = scaled(send, recv, width);
  MPI_Alltoallv(out.data(), p.send_counts.data(), p.send_displs.data(), type, in.data(), p.recv_counts.data(),
                p.recv_displs.data(), type, comm);
  return in;
}

}  // namespace

void redistribute(ParticleSet& set, const IndexList& dest, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const size_t n = set.size();

  // Group particles by destination (a stable counting sort on the host: two integer passes, like
  // the cell sort), so that each rank's particles are one contiguous block of the send buffers.
  auto dest_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dest);
  std::vector<long> send(size, 0), recv(size, 0);
  for (size_t p = 0; p < n; ++p) send[dest_h(p)]++;
  MPI_Alltoall(send.data(), 1, MPI_LONG, recv.data(), 1, MPI_LONG, comm);
  std::vector<long> start(size + 1, 0);
  for (int r = 0; r < size; ++r) start[r + 1] = start[r] + send[r];
  long nrecv = 0;
  for (int r = 0; r < size; ++r) nrecv += recv[r];
  // MPI counts are int: the widest field (9 doubles in 3D) bounds the particles per message.
  int too_many = (start[size] * 9 > INT_MAX || nrecv * 9 > INT_MAX) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &too_many, 1, MPI_INT, MPI_MAX, comm);
  if (too_many) throw RuntimeError("redistributing particles: more than 2^31 values on one rank; use more ranks");
  IndexList order("redistribute_order", n);
  {
    auto order_h = Kokkos::create_mirror_view(order);
    std::vector<long> fill(start.begin(), start.end() - 1);
    for (size_t p = 0; p < n; ++p) order_h(fill[dest_h(p)]++) = static_cast<int>(p);
    Kokkos::deep_copy(order, order_h);
  }

  // Exchange every persistent field, then ids and materials (as one-column 2D views).
  using HostReal = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  std::vector<int> moved;
  std::vector<HostReal> incoming;
  for (size_t f = 0; f < set.field_info().size(); ++f) {
    if (!set.field_info()[f].persistent) continue;
    moved.push_back(static_cast<int>(f));
    incoming.push_back(exchange(pack(set.field(static_cast<int>(f)), order, n), send, recv, nrecv, MPI_DOUBLE, comm));
  }
  using Ids2 = Kokkos::View<int64_t**, Kokkos::LayoutRight, MemSpace>;
  using Mats2 = Kokkos::View<int32_t**, Kokkos::LayoutRight, MemSpace>;
  Ids2 ids2(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redistribute_ids"), n, 1);
  Mats2 mats2(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redistribute_mats"), n, 1);
  {
    const IdField ids = set.id();
    const IntField mats = set.material();
    Kokkos::parallel_for(
        "redistribute::ids", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
          ids2(p, 0) = ids(p);
          mats2(p, 0) = mats(p);
        });
  }
  auto ids_in = exchange(pack(ids2, order, n), send, recv, nrecv, MPI_INT64_T, comm);
  auto mats_in = exchange(pack(mats2, order, n), send, recv, nrecv, MPI_INT32_T, comm);

  // Unpack into the resized set.
  set.resize(static_cast<size_t>(nrecv));
  for (size_t k = 0; k < moved.size(); ++k) {
    const RealField dst = set.field(moved[k]);
    auto src = Kokkos::create_mirror_view_and_copy(MemSpace(), incoming[k]);
    const int nc = static_cast<int>(src.extent(1));
    Kokkos::parallel_for(
        "redistribute::unpack", Kokkos::RangePolicy<>(0, nrecv), KOKKOS_LAMBDA(const int p) {
          for (int c = 0; c < nc; ++c) dst(p, c) = src(p, c);
        });
  }
  auto ids_d = Kokkos::create_mirror_view_and_copy(MemSpace(), ids_in);
  auto mats_d = Kokkos::create_mirror_view_and_copy(MemSpace(), mats_in);
  const IdField ids = set.id();
  const IntField mats = set.material();
  Kokkos::parallel_for(
      "redistribute::unpack_ids", Kokkos::RangePolicy<>(0, nrecv), KOKKOS_LAMBDA(const int p) {
        ids(p) = ids_d(p, 0);
        mats(p) = mats_d(p, 0);
      });
}

template <int Dim>
void send_to_owners(ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field) {
  const size_t n = set.size();
  const auto owners = decomp.owner_map();
  const RealField x = set.field(position_field);
  IndexList dest("owner_rank", n);
  Kokkos::parallel_for(
      "redistribute::owners", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        owners.wrap(xp);  // periodic axes: the owner of the image inside the box
        for (int d = 0; d < Dim; ++d) x(p, d) = xp[d];
        dest(p) = owners.owner(xp);
      });
  redistribute(set, dest, decomp.comm());
}

template void send_to_owners<2>(ParticleSet&, const grid::Decomposition<2>&, int);
template void send_to_owners<3>(ParticleSet&, const grid::Decomposition<3>&, int);

}  // namespace meniscus::particles
