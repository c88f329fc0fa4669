// Rank independence of Jeske et al. 2023, Algorithm 1: the implicit cohesion + adhesion + viscosity solve gives the same velocities on
// any number of ranks. The operator cloud (~2000 particles, two phases, adhesion to a plane) is split
// into x slabs; ghost rows are every other rank's particle within the support of an owned one, and
// refresh_ghosts replays an all-gather of the owned rows (a stand-in for the halo plan, which the SPH
// method supplies). Each rank also solves the whole cloud alone as the reference.
#include <gtest/gtest.h>

#include <map>

#include "../unit/test_sph_implicit_cloud.hpp"

using namespace sph_implicit_test;
using meniscus::sph::BoundarySamples;
using meniscus::sph::ImplicitCohesionViscosity;

namespace {
constexpr double kD = 0.02, kH = 2 * kD, kRho0 = 1000;

struct Case {
  Cloud<3> cloud;              // rows: owned then ghosts
  std::vector<int> gid;        // global index of every row
  std::vector<double> warm;    // owned x 3
  std::vector<double> plane;   // boundary volume per row (owned rows used)
};

// The global problem, identical on every rank.
Case global_case() {
  Case g;
  g.cloud = make_cloud<3>(lattice<3>({13, 13, 12}, kD, 0.1, 3), kRho0, kD * kD * kD, kH);
  const int n = g.cloud.size();
  g.cloud.v = random_velocities<3>(n, 1.0, 103);
  for (int i = 0; i < n; ++i) {
    g.gid.push_back(i);
    g.cloud.phase[i] = (i % 7 == 0) ? 1 : 0;
    for (int a = 0; a < 3; ++a) g.warm.push_back(0.3 * g.cloud.v[i][a] - 0.1);
    const double z = g.cloud.x[i][2] + 0.6 * kD;
    g.plane.push_back(z < kH ? 4 * kD * kD * kD * (1 - z / kH) : 0.0);
  }
  return g;
}

// This rank's part: owned = slab along `axis` (reversed order of ranks if `reverse`), ghosts =
// foreign particles within the support of an owned one.
Case local_case(const Case& g, int rank, int size, int axis = 0, bool reverse = false) {
  double lo = 1e300, hi = -1e300;
  for (const auto& x : g.cloud.x) {
    lo = std::min(lo, x[axis]);
    hi = std::max(hi, x[axis]);
  }
  auto owner = [&](const Point<3>& x) {
    const int slab = std::min(size - 1, int((x[axis] - lo) / (hi - lo + 1e-12) * size));
    return reverse ? size - 1 - slab : slab;
  };
  Case l;
  std::vector<int> owned, ghosts;
  for (int i = 0; i < g.cloud.size(); ++i)
    if (owner(g.cloud.x[i]) == rank) owned.push_back(i);
  for (int i = 0; i < g.cloud.size(); ++i) {
    if (owner(g.cloud.x[i]) == rank) continue;
    for (int o : owned)
      if (dist<3>(g.cloud.x[i], g.cloud.x[o]) < kH) {
        ghosts.push_back(i);
        break;
      }
  }
  auto add = [&](int i) {
    l.cloud.x.push_back(g.cloud.x[i]);
    l.cloud.v.push_back(g.cloud.v[i]);
    l.cloud.mass.push_back(g.cloud.mass[i]);
    l.cloud.density.push_back(g.cloud.density[i]);  // densities from the whole cloud: ghost rows current
    l.cloud.phase.push_back(g.cloud.phase[i]);
    l.gid.push_back(i);
    l.plane.push_back(g.plane[i]);
  };
  for (int i : owned) {
    add(i);
    for (int a = 0; a < 3; ++a) l.warm.push_back(g.warm[3 * i + a]);
  }
  for (int i : ghosts) add(i);
  l.cloud.owned = int(owned.size());
  return l;
}

// Ghost refresh by all-gather of the owned rows (collective over comm).
struct AllGatherRefresh {
  MPI_Comm comm;
  int owned;
  std::vector<int> counts, displs;  // in rows
  std::vector<int> source_row;      // per ghost row: its row in the gathered buffer

  AllGatherRefresh(MPI_Comm c, const Case& l) : comm(c), owned(l.cloud.owned) {
    int size;
    MPI_Comm_size(comm, &size);
    counts.resize(size);
    displs.resize(size);
    MPI_Allgather(&owned, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    std::vector<int> all_ids(displs.back() + counts.back());
    std::vector<int> mine(l.gid.begin(), l.gid.begin() + owned);
    MPI_Allgatherv(mine.data(), owned, MPI_INT, all_ids.data(), counts.data(), displs.data(), MPI_INT, comm);
    std::map<int, int> where;
    for (size_t k = 0; k < all_ids.size(); ++k) where[all_ids[k]] = int(k);
    for (size_t r = owned; r < l.gid.size(); ++r) source_row.push_back(where.at(l.gid[r]));
  }

  void operator()(Kokkos::View<double**> v) const {
    const int comps = int(v.extent(1));
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    std::vector<double> send(size_t(owned) * comps), recv(size_t(displs.back() + counts.back()) * comps);
    for (int i = 0; i < owned; ++i)
      for (int a = 0; a < comps; ++a) send[size_t(i) * comps + a] = h(i, a);
    std::vector<int> c(counts.size()), d(counts.size());
    for (size_t r = 0; r < counts.size(); ++r) {
      c[r] = counts[r] * comps;
      d[r] = displs[r] * comps;
    }
    MPI_Allgatherv(send.data(), owned * comps, MPI_DOUBLE, recv.data(), c.data(), d.data(), MPI_DOUBLE, comm);
    for (size_t k = 0; k < source_row.size(); ++k)
      for (int a = 0; a < comps; ++a) h(owned + k, a) = recv[size_t(source_row[k]) * comps + a];
    Kokkos::deep_copy(v, h);
  }
};

BoundarySamples plane_samples(const Case& l) {
  const int n = l.cloud.owned;
  BoundarySamples bs;
  bs.x = Kokkos::View<double**>("bx", n, 3);
  bs.v = Kokkos::View<double**>("bv", n, 3);
  bs.volume = Kokkos::View<double*>("bV", n);
  bs.sigma = Kokkos::View<double*>("bs", n);
  auto hx = Kokkos::create_mirror_view(bs.x);
  auto hv = Kokkos::create_mirror_view(bs.v);
  auto hV = Kokkos::create_mirror_view(bs.volume);
  auto hs = Kokkos::create_mirror_view(bs.sigma);
  for (int i = 0; i < n; ++i) {
    hx(i, 0) = l.cloud.x[i][0];
    hx(i, 1) = l.cloud.x[i][1];
    hx(i, 2) = -0.6 * kD;
    hv(i, 0) = 0.2;
    hv(i, 1) = 0;
    hv(i, 2) = -0.05;
    hV(i) = l.plane[i];
    hs(i) = 6000;
  }
  Kokkos::deep_copy(bs.x, hx);
  Kokkos::deep_copy(bs.v, hv);
  Kokkos::deep_copy(bs.volume, hV);
  Kokkos::deep_copy(bs.sigma, hs);
  return bs;
}

struct Result {
  std::vector<double> v, dv;  // owned x 3
  meniscus::sph::ImplicitSolveStats stats;
};

Result run(MPI_Comm comm, const Case& l, double rtol, bool delta = false) {
  std::function<void(Kokkos::View<double**>)> refresh = [](Kokkos::View<double**>) {};
  int size;
  MPI_Comm_size(comm, &size);
  if (size > 1) refresh = AllGatherRefresh(comm, l);
  auto nb = neighborhood(l.cloud, kH, refresh);
  auto vw = upload(l.cloud);
  vw.warm = to_device(l.warm, l.cloud.owned, 3);
  auto p = operator_cloud_params();
  p.rtol = rtol;
  p.boundary_viscosity = 5;
  p.solve_for_delta = delta;
  ImplicitCohesionViscosity<3> solver(comm);
  Result r;
  r.stats = solver.solve(nb, p, vw.v, vw.mass, vw.density, vw.phase, plane_samples(l), vw.warm);
  r.v = to_host(vw.v);
  r.v.resize(size_t(l.cloud.owned) * 3);
  r.dv = to_host(vw.warm);
  return r;
}
}  // namespace

TEST(SphImplicitRanks, SolutionIndependentOfRankCount) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Case g = global_case();
  const Case l = local_case(g, rank, size);
  long owned = l.cloud.owned, total_owned = 0;
  MPI_Allreduce(&owned, &total_owned, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  ASSERT_EQ(total_owned, long(g.cloud.size()));

  for (int variant = 0; variant < 3; ++variant) {  // tight, paper tolerance, delta form
    const double rtol = variant == 0 ? 1e-12 : 1e-3;
    const bool delta = variant == 2;
    const Result ref = run(MPI_COMM_SELF, g, rtol, delta);
    const Result dist = run(MPI_COMM_WORLD, l, rtol, delta);
    EXPECT_TRUE(ref.stats.converged);
    EXPECT_TRUE(dist.stats.converged);
    EXPECT_EQ(dist.stats.pairs, ref.stats.pairs);
    EXPECT_EQ(dist.stats.clamped_pairs, ref.stats.clamped_pairs);
    // Same Krylov iterates up to round-off: the same iteration count at the paper's tolerance.
    EXPECT_EQ(dist.stats.iterations, ref.stats.iterations) << "rtol " << rtol;
    double s[3] = {0, 0, 0};  // |v - v_ref|^2, |v_ref|^2, |dv - dv_ref|^2
    for (int i = 0; i < l.cloud.owned; ++i)
      for (int a = 0; a < 3; ++a) {
        const double vr = ref.v[3 * l.gid[i] + a], dr = ref.dv[3 * l.gid[i] + a];
        s[0] += (dist.v[3 * i + a] - vr) * (dist.v[3 * i + a] - vr);
        s[1] += vr * vr;
        s[2] += (dist.dv[3 * i + a] - dr) * (dist.dv[3 * i + a] - dr);
      }
    MPI_Allreduce(MPI_IN_PLACE, s, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_LE(std::sqrt(s[0] / s[1]), 1e-10) << size << " ranks, variant " << variant;
    EXPECT_LE(std::sqrt(s[2] / s[1]), 1e-10) << size << " ranks, variant " << variant;
  }
}

// Warm start across migration (U15 for the solver's part): after a distributed step the particles
// change owners (slabs along y, ranks reversed) carrying warm_dv by particle id, as the SPH method's
// persistent dv field does. The next warm-started solve equals the single-rank one, and the carried
// guess saves iterations.
TEST(SphImplicitRanks, WarmStartFollowsParticlesToNewOwners) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Case g = global_case();
  std::fill(g.warm.begin(), g.warm.end(), 0.0);
  const double rtol = 1e-6;

  // Step 1 on x slabs; gather dv by particle id (what migration of a persistent field achieves).
  const Case l1 = local_case(g, rank, size, 0, false);
  const Result d1 = run(MPI_COMM_WORLD, l1, rtol);
  std::vector<double> dv_by_id(3 * g.cloud.size(), 0.0), v_by_id(3 * g.cloud.size(), 0.0);
  for (int i = 0; i < l1.cloud.owned; ++i)
    for (int a = 0; a < 3; ++a) {
      dv_by_id[3 * l1.gid[i] + a] = d1.dv[3 * i + a];
      v_by_id[3 * l1.gid[i] + a] = d1.v[3 * i + a];
    }
  MPI_Allreduce(MPI_IN_PLACE, dv_by_id.data(), int(dv_by_id.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, v_by_id.data(), int(v_by_id.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const Result s1 = run(MPI_COMM_SELF, g, rtol);
  double step1_diff = 0, step1_norm = 0;
  for (size_t k = 0; k < s1.dv.size(); ++k) {
    step1_diff += (s1.dv[k] - dv_by_id[k]) * (s1.dv[k] - dv_by_id[k]);
    step1_norm += s1.dv[k] * s1.dv[k];
  }
  EXPECT_LE(std::sqrt(step1_diff / step1_norm), 1e-8);

  // Step 2: the same positions, v* = step-1 result (the next step's prediction without other forces),
  // warm_dv carried to the new owners.
  Case g2 = g;
  for (int i = 0; i < g2.cloud.size(); ++i)
    for (int a = 0; a < 3; ++a) {
      g2.cloud.v[i][a] = v_by_id[3 * i + a];
      g2.warm[3 * i + a] = dv_by_id[3 * i + a];
    }
  const Case l2 = local_case(g2, rank, size, 1, true);
  const Result warm = run(MPI_COMM_WORLD, l2, rtol);
  const Result ref = run(MPI_COMM_SELF, g2, rtol);
  Case cold_case = l2;
  std::fill(cold_case.warm.begin(), cold_case.warm.end(), 0.0);
  const Result cold = run(MPI_COMM_WORLD, cold_case, rtol);
  EXPECT_TRUE(warm.stats.converged);
  EXPECT_EQ(warm.stats.iterations, ref.stats.iterations);
  EXPECT_LT(warm.stats.iterations, cold.stats.iterations);
  double s[2] = {0, 0};
  for (int i = 0; i < l2.cloud.owned; ++i)
    for (int a = 0; a < 3; ++a) {
      const double vr = ref.v[3 * l2.gid[i] + a];
      s[0] += (warm.v[3 * i + a] - vr) * (warm.v[3 * i + a] - vr);
      s[1] += vr * vr;
    }
  MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_LE(std::sqrt(s[0] / s[1]), 1e-10);
  if (rank == 0) RecordProperty("iterations_warm_cold", std::to_string(warm.stats.iterations) + "/" +
                                                          std::to_string(cold.stats.iterations));
}
