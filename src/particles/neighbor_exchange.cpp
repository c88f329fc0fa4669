#include "particles/neighbor_exchange.hpp"

namespace meniscus::particles {

namespace {
constexpr int kCountTag = 7301;
constexpr int kDataTag = 7302;
}  // namespace

void NeighborExchange::plan(const IndexList& send, const std::vector<int>& counts) {
  send_ = send;
  send_counts_ = counts;
  const int nn = static_cast<int>(neighbors_.size());
  recv_counts_.assign(nn, 0);
  std::vector<MPI_Request> req(2 * nn);
  for (int k = 0; k < nn; ++k) {
    MPI_Irecv(&recv_counts_[k], 1, MPI_INT, neighbors_[k], kCountTag, comm_, &req[k]);
    MPI_Isend(&send_counts_[k], 1, MPI_INT, neighbors_[k], kCountTag, comm_, &req[nn + k]);
  }
  MPI_Waitall(2 * nn, req.data(), MPI_STATUSES_IGNORE);
  send_total_ = recv_total_ = 0;
  for (int k = 0; k < nn; ++k) {
    send_total_ += send_counts_[k];
    recv_total_ += recv_counts_[k];
  }
}

void NeighborExchange::ship(const std::vector<RealField>& fields, const IdField* ids, const IntField* mats,
                            const std::vector<RealField>& out_fields, IdField* out_ids, IntField* out_mats,
                            size_t offset) {
  int width = 0;
  for (const auto& f : fields) width += static_cast<int>(f.extent(1));
  if (ids) width += 1;
  if (mats) width += 1;
  const int nn = static_cast<int>(neighbors_.size());
  if (width == 0 || nn == 0) return;

  // Pack on the device, then move the buffer to the host for MPI.
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> sendbuf("send", send_total_, width);
  int col = 0;
  const IndexList send = send_;
  for (const auto& f : fields) {
    const int nc = static_cast<int>(f.extent(1));
    const int c0 = col;
    Kokkos::parallel_for(
        "exchange::pack", Kokkos::RangePolicy<>(0, send_total_), KOKKOS_LAMBDA(const int r) {
          for (int c = 0; c < nc; ++c) sendbuf(r, c0 + c) = f(send(r), c);
        });
    col += nc;
  }
  if (ids) {
    const IdField id = *ids;
    const int c0 = col++;
    Kokkos::parallel_for(
        "exchange::pack_id", Kokkos::RangePolicy<>(0, send_total_),
        KOKKOS_LAMBDA(const int r) { sendbuf(r, c0) = static_cast<double>(id(send(r))); });
  }
  if (mats) {
    const IntField m = *mats;
    const int c0 = col++;
    Kokkos::parallel_for(
        "exchange::pack_mat", Kokkos::RangePolicy<>(0, send_total_),
        KOKKOS_LAMBDA(const int r) { sendbuf(r, c0) = static_cast<double>(m(send(r))); });
  }
  auto send_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sendbuf);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> recv_h("recv", recv_total_, width);

  std::vector<MPI_Request> req;
  req.reserve(2 * nn);
  size_t so = 0, ro = 0;
  for (int k = 0; k < nn; ++k) {
    if (recv_counts_[k] > 0) {
      req.emplace_back();
      MPI_Irecv(recv_h.data() + ro * width, recv_counts_[k] * width, MPI_DOUBLE, neighbors_[k], kDataTag, comm_,
                &req.back());
    }
    if (send_counts_[k] > 0) {
      req.emplace_back();
      MPI_Isend(send_h.data() + so * width, send_counts_[k] * width, MPI_DOUBLE, neighbors_[k], kDataTag, comm_,
                &req.back());
    }
    so += send_counts_[k];
    ro += recv_counts_[k];
  }
  MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);

  auto recv = Kokkos::create_mirror_view_and_copy(MemSpace(), recv_h);
  col = 0;
  const size_t base = offset;
  for (const auto& f : out_fields) {
    const int nc = static_cast<int>(f.extent(1));
    const int c0 = col;
    Kokkos::parallel_for(
        "exchange::unpack", Kokkos::RangePolicy<>(0, recv_total_), KOKKOS_LAMBDA(const int r) {
          for (int c = 0; c < nc; ++c) f(base + r, c) = recv(r, c0 + c);
        });
    col += nc;
  }
  if (out_ids) {
    const IdField id = *out_ids;
    const int c0 = col++;
    Kokkos::parallel_for(
        "exchange::unpack_id", Kokkos::RangePolicy<>(0, recv_total_),
        KOKKOS_LAMBDA(const int r) { id(base + r) = static_cast<int64_t>(recv(r, c0)); });
  }
  if (out_mats) {
    const IntField m = *out_mats;
    const int c0 = col++;
    Kokkos::parallel_for(
        "exchange::unpack_mat", Kokkos::RangePolicy<>(0, recv_total_),
        KOKKOS_LAMBDA(const int r) { m(base + r) = static_cast<int32_t>(recv(r, c0)); });
  }
}

}  // namespace meniscus::particles
