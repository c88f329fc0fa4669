// Ownership of the DMDA decomposition: every point has exactly one owner, the owner map used in
// kernels agrees with the host one, and impossible rank counts are input errors.
#include <gtest/gtest.h>

#include <random>

#include "core/error.hpp"
#include "grid/decomposition.hpp"

using meniscus::grid::Decomposition;

namespace {
template <int Dim>
Decomposition<Dim>* make(MPI_Comm comm, double dx) {
  typename Decomposition<Dim>::Spec s;
  for (int d = 0; d < Dim; ++d) {
    s.lower[d] = -0.5 + 0.1 * d;
    s.upper[d] = s.lower[d] + 1.0 + 0.25 * d;
  }
  s.dx = dx;
  return new Decomposition<Dim>(comm, s);
}

template <int Dim>
void check_ownership() {
  std::unique_ptr<Decomposition<Dim>> dec(make<Dim>(MPI_COMM_WORLD, 0.05));
  const int size = dec->size();
  long owned = dec->owned_node_count(), total = 0;
  MPI_Allreduce(&owned, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long expect = 1;
  for (int d = 0; d < Dim; ++d) expect *= dec->nodes()[d];
  EXPECT_EQ(total, expect) << "nodes are owned exactly once";

  // Random points, identical on every rank: the owner from region() and owner_of() agree, and the
  // device owner map gives the same answer.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.7, 1.9);
  const int n = 2000;
  Kokkos::View<double**> pts("pts", n, Dim);
  auto h = Kokkos::create_mirror_view(pts);
  for (int p = 0; p < n; ++p)
    for (int d = 0; d < Dim; ++d) h(p, d) = u(rng);
  Kokkos::deep_copy(pts, h);
  Kokkos::View<int*> dev_owner("owner", n);
  const auto map = dec->owner_map();
  Kokkos::parallel_for(
      n, KOKKOS_LAMBDA(const int p) {
        double x[Dim];
        for (int d = 0; d < Dim; ++d) x[d] = pts(p, d);
        dev_owner(p) = map.owner(x);
      });
  auto dev_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dev_owner);
  for (int p = 0; p < n; ++p) {
    double x[Dim];
    for (int d = 0; d < Dim; ++d) x[d] = h(p, d);
    const int o = dec->owner_of(x);
    EXPECT_EQ(o, dev_h(p));
    int inside = 0;
    for (int r = 0; r < size; ++r) {
      double lo[Dim], hi[Dim];
      dec->region(r, lo, hi);
      bool in = true;
      for (int d = 0; d < Dim; ++d) in = in && x[d] >= lo[d] && x[d] < hi[d];
      if (in) {
        ++inside;
        EXPECT_EQ(r, o);
      }
    }
    EXPECT_EQ(inside, 1);
  }
}
}  // namespace

TEST(Decomposition, OwnershipIsUnique2D) { check_ownership<2>(); }
TEST(Decomposition, OwnershipIsUnique3D) { check_ownership<3>(); }

TEST(Decomposition, TooManyRanksIsAnInputError) {
  std::array<int, 2> procs{};
  EXPECT_FALSE(Decomposition<2>::choose_procs({5, 5}, 9, 3, procs).empty());
  procs = {};
  EXPECT_TRUE(Decomposition<2>::choose_procs({100, 10}, 4, 3, procs).empty());
  EXPECT_EQ(procs[0], 4) << "the long axis is cut";
  EXPECT_EQ(procs[1], 1);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size >= 2) {
    // 4 cells = 5 nodes per axis: 2 ranks need 3 nodes each on the cut axis, which 5 nodes cannot give.
    typename Decomposition<2>::Spec s;
    s.lower = {0, 0};
    s.upper = {1, 1};
    s.dx = 0.25;
    s.deck_file = "deck.yaml";
    try {
      Decomposition<2> d(MPI_COMM_WORLD, s);
      ADD_FAILURE() << "expected an InputError";
    } catch (const meniscus::InputError& e) {
      EXPECT_EQ(e.key(), "domain.cell_size");
      EXPECT_NE(e.reason().find("ranks"), std::string::npos);
    }
  }
}
