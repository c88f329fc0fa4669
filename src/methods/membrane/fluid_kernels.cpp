#include "methods/membrane/fluid_kernels.hpp"

#include <mpi.h>

namespace meniscus::membrane {

namespace {
template <int Dim>
void refresh(MacGridT<Dim>& grid) {
  grid.field().global_to_local();
}
}  // namespace

void classify_cells(MacGrid& grid, const Polyline& m, const std::vector<Disc>& bodies) {
  const MacGeometry g = grid.geometry();
  Kokkos::View<Disc*, MemSpace> discs("membrane_bodies", bodies.size());
  {
    auto h = Kokkos::create_mirror_view(discs);
    for (size_t b = 0; b < bodies.size(); ++b) h(b) = bodies[b];
    Kokkos::deep_copy(discs, h);
  }
  const long nb = static_cast<long>(bodies.size());
  auto x = m.x;
  auto seg = m.seg;
  const long ns = m.segments();
  auto owned = grid.field().acquire_owned();
  const double shift = 1e-7 * g.dx;  // keeps the ray off lattice-aligned vertices
  Kokkos::parallel_for(
      "membrane_classify_cells", g.owned.size(), KOKKOS_LAMBDA(const long n) {
        int ij[2];
        g.owned.node(n, ij);
        if (ij[0] >= g.cells[0] || ij[1] >= g.cells[1]) {
          owned(n, kCell) = kSolid;
          owned(n, kPhi) = 0;
          return;
        }
        double c[2];
        g.cell_centre(ij[0], ij[1], c);
        const double px = c[0] + shift;
        int crossings = 0;
        double best = 1e300;
        for (long e = 0; e < ns; ++e) {
          const int a = seg(e, 0), b = seg(e, 1);
          const double ax = x(a, 0), ay = x(a, 1), bx = x(b, 0), by = x(b, 1);
          if ((ax <= px) != (bx <= px)) {
            const double t = (px - ax) / (bx - ax);
            if (ay + t * (by - ay) > c[1]) ++crossings;
          }
          const double ex = bx - ax, ey = by - ay, ll = ex * ex + ey * ey;
          double t = ll > 0 ? ((c[0] - ax) * ex + (c[1] - ay) * ey) / ll : 0.0;
          t = t < 0 ? 0 : (t > 1 ? 1 : t);
          const double qx = ax + t * ex - c[0], qy = ay + t * ey - c[1];
          const double dist = kmath::sqrt(qx * qx + qy * qy);
          if (dist < best) best = dist;
        }
        const bool fluid = crossings % 2 == 1;
        bool solid = false;
        for (long b = 0; b < nb; ++b) solid = solid || discs(b).phi(c) < 0;
        owned(n, kCell) = solid ? kSolid : (fluid ? kFluid : kAir);
        owned(n, kPhi) = fluid ? -best : best;
      });
  grid.field().release_owned(owned);
  refresh(grid);
}

void apply_gravity(MacGrid& grid, const double gvec[2], double dt) {
  const MacGeometry g = grid.geometry();
  auto owned = grid.field().acquire_owned();
  auto local = grid.field().acquire_local(false);
  const double dux = gvec[0] * dt, duy = gvec[1] * dt;
  Kokkos::parallel_for(
      "membrane_gravity", g.owned.size(), KOKKOS_LAMBDA(const long n) {
        int ij[2];
        g.owned.node(n, ij);
        for (int d = 0; d < 2; ++d) {
          const int t = g.face_type(local, d, ij[0], ij[1]);
          if (t == kNoFace || t == kWall) continue;
          owned(n, kU + d) += d == 0 ? dux : duy;
        }
      });
  grid.field().release_local(local);
  grid.field().release_owned(owned);
  refresh(grid);
}

namespace {

// Extrapolation of extrapolate_velocities for either dimension (MacDofs names the dofs).
template <int Dim>
void extrapolate_faces(MacGridT<Dim>& grid, int layers) {
  const MacGeometryT<Dim> g = grid.geometry();
  constexpr int du = MacDofs<Dim>::u, ddag = MacDofs<Dim>::udag, dvalid = MacDofs<Dim>::valid;
  {
    auto owned = grid.field().acquire_owned();
    auto local = grid.field().acquire_local(false);
    Kokkos::parallel_for(
        "membrane_extrapolation_seed", g.owned.size(), KOKKOS_LAMBDA(const long n) {
          int c[Dim];
          g.owned.node(n, c);
          for (int d = 0; d < Dim; ++d) {
            const int t = g.face_type(local, d, c);
            bool valid = t == kAllFluid || t == kFluidAir || t == kFluidRigid || t == kWall;
            // A wall face seeds the extension (with its zero normal velocity) only where liquid
            // touches the wall; beside an air cell the wall is no boundary of the liquid, and a
            // seed of 0 there halved the velocity extended into the gap between a drop and the
            // wall, so a drop approaching a wall slowed down (2D and 3D alike).
            if (t == kWall) {
              int inner[Dim];  // the cell inside the wall: c, or c - e_d at the upper wall
              for (int e = 0; e < Dim; ++e) inner[e] = c[e] - (e == d && c[d] == g.cells[d] ? 1 : 0);
              valid = g.cell_type(local, inner) == kFluid;
            }
            owned(n, dvalid + d) = valid ? 1.0 : 0.0;
            if (!valid || t == kWall) {
              owned(n, du + d) = 0;
              owned(n, ddag + d) = 0;
            }
          }
        });
    grid.field().release_local(local);
    grid.field().release_owned(owned);
    refresh(grid);
  }
  for (int layer = 0; layer < layers; ++layer) {
    auto owned = grid.field().acquire_owned();
    auto local = grid.field().acquire_local(false);
    Kokkos::parallel_for(
        "membrane_extrapolation_layer", g.owned.size(), KOKKOS_LAMBDA(const long n) {
          int c[Dim];
          g.owned.node(n, c);
          for (int d = 0; d < Dim; ++d) {
            if (owned(n, dvalid + d) > 0 || g.face_type(local, d, c) == kNoFace) continue;
            double su = 0, sud = 0;
            int count = 0;
            // The 2 Dim face neighbours along the axes, in the order -x, +x, -y, +y (, -z, +z).
            for (int q = 0; q < 2 * Dim; ++q) {
              int nb[Dim];
              for (int e = 0; e < Dim; ++e) nb[e] = c[e] + (e == q / 2 ? (q % 2 == 0 ? -1 : 1) : 0);
              if (!g.in_ghost(nb)) continue;
              if (g.face_type(local, d, nb) == kNoFace) continue;
              const long l = g.local(nb);
              if (local(l, dvalid + d) > 0) {
                su += local(l, du + d);
                sud += local(l, ddag + d);
                ++count;
              }
            }
            if (count > 0) {
              owned(n, du + d) = su / count;
              owned(n, ddag + d) = sud / count;
              owned(n, dvalid + d) = 1.0;
            }
          }
        });
    grid.field().release_local(local);
    grid.field().release_owned(owned);
    refresh(grid);
  }
}

// Semi-Lagrangian advection of advect_velocities for either dimension.
template <int Dim>
void advect_faces(MacGridT<Dim>& grid, double dt) {
  const MacGeometryT<Dim> g = grid.geometry();
  constexpr int du = MacDofs<Dim>::u, ddag = MacDofs<Dim>::udag;
  auto owned = grid.field().acquire_owned();
  auto local = grid.field().acquire_local(false);
  Kokkos::parallel_for(
      "membrane_semi_lagrangian", g.owned.size(), KOKKOS_LAMBDA(const long n) {
        int c[Dim];
        g.owned.node(n, c);
        for (int d = 0; d < Dim; ++d) {
          const int t = g.face_type(local, d, c);
          if (t == kNoFace) continue;
          if (t == kWall) {
            owned(n, du + d) = 0;
            continue;
          }
          double x[Dim], mid[Dim], back[Dim];
          g.face_centre(d, c, x);
          for (int e = 0; e < Dim; ++e) mid[e] = x[e] - 0.5 * dt * g.sample(local, e, ddag + e, x);
          for (int e = 0; e < Dim; ++e) back[e] = x[e] - dt * g.sample(local, e, ddag + e, mid);
          owned(n, du + d) = g.sample(local, d, du + d, back);
        }
      });
  grid.field().release_local(local);
  grid.field().release_owned(owned);
  refresh(grid);
}

}  // namespace

void extrapolate_velocities(MacGrid& grid, int layers) { extrapolate_faces<2>(grid, layers); }
void extrapolate_velocities(MacGrid3& grid, int layers) { extrapolate_faces<3>(grid, layers); }
void advect_velocities(MacGrid& grid, double dt) { advect_faces<2>(grid, dt); }
void advect_velocities(MacGrid3& grid, double dt) { advect_faces<3>(grid, dt); }

template <int Dim>
void scale_face_velocities(MacGridT<Dim>& grid, double factor) {
  auto owned = grid.field().acquire_owned();
  const long count = static_cast<long>(owned.extent(0));
  constexpr int u = MacDofs<Dim>::u;
  Kokkos::parallel_for(
      "membrane_scale_faces", count, KOKKOS_LAMBDA(const long n) {
        for (int d = 0; d < Dim; ++d) owned(n, u + d) *= factor;
      });
  grid.field().release_owned(owned);
  grid.field().global_to_local();
}
template void scale_face_velocities<2>(MacGrid& grid, double factor);
template void scale_face_velocities<3>(MacGrid3& grid, double factor);

double max_face_speed(MacGrid& grid) {
  const MacGeometry g = grid.geometry();
  auto local = grid.field().acquire_local(false);
  double vmax = 0;
  Kokkos::parallel_reduce(
      "membrane_max_speed", g.owned.size(),
      KOKKOS_LAMBDA(const long n, double& acc) {
        int ij[2];
        g.owned.node(n, ij);
        const long l = g.local(ij[0], ij[1]);
        for (int d = 0; d < 2; ++d) {
          const int t = g.face_type(local, d, ij[0], ij[1]);
          if (t != kAllFluid && t != kFluidAir && t != kFluidRigid) continue;
          const double u = kmath::fabs(local(l, kU + d));
          if (u > acc) acc = u;
        }
      },
      Kokkos::Max<double>(vmax));
  grid.field().release_local(local);
  double global = 0;
  MPI_Allreduce(&vmax, &global, 1, MPI_DOUBLE, MPI_MAX, grid.comm());
  return global;
}

}  // namespace meniscus::membrane
