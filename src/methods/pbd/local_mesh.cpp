#include "methods/pbd/local_mesh.hpp"

namespace meniscus::pbd {

namespace {
constexpr double kPi = 3.14159265358979323846;

// Angle at vertex b of the triangle (a, b, c).
KOKKOS_INLINE_FUNCTION double corner_angle(double ax, double ay, double bx, double by, double cx, double cy) {
  const double ux = ax - bx, uy = ay - by, vx = cx - bx, vy = cy - by;
  return kmath::atan2(kmath::fabs(ux * vy - uy * vx), ux * vx + uy * vy);
}

// Angle at vertex b of the triangle (a, b, c) in 3D (points as xyz triples).
KOKKOS_INLINE_FUNCTION double corner_angle_3d(const double* a, const double* b, const double* c) {
  const double u[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]}, v[3] = {c[0] - b[0], c[1] - b[1], c[2] - b[2]};
  const double w[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  return kmath::atan2(kmath::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), u[0] * v[0] + u[1] * v[1] + u[2] * v[2]);
}
}  // namespace

KOKKOS_FUNCTION int delaunay_one_ring(int n, const double* qx, const double* qy, const int64_t* gid, int64_t gid0,
                                      int* ring, int* ring_count, const double* lifted) {
  *ring_count = 0;
  if (n < 2) return 0;
  // Sort by polar angle (ties: nearer first, then smaller id).
  int order[kMaxCandidates];
  double ang[kMaxCandidates];
  for (int k = 0; k < n; ++k) {
    ang[k] = kmath::atan2(qy[k], qx[k]);
    order[k] = k;
  }
  for (int k = 1; k < n; ++k) {
    const int v = order[k];
    int m = k - 1;
    auto before = [&](int a, int b) {  // a sorts before b
      if (ang[a] != ang[b]) return ang[a] < ang[b];
      const double ra = qx[a] * qx[a] + qy[a] * qy[a], rb = qx[b] * qx[b] + qy[b] * qy[b];
      if (ra != rb) return ra < rb;
      return gid[a] < gid[b];
    };
    while (m >= 0 && before(v, order[m])) {
      order[m + 1] = order[m];
      --m;
    }
    order[m + 1] = v;
  }
  // Cyclic doubly linked ring over sorted positions 0..n-1.
  int prev[kMaxCandidates], next[kMaxCandidates];
  bool alive[kMaxCandidates];
  for (int k = 0; k < n; ++k) {
    prev[k] = (k + n - 1) % n;
    next[k] = (k + 1) % n;
    alive[k] = true;
  }
  int size = n;
  auto X = [&](int s) { return qx[order[s]]; };
  auto Y = [&](int s) { return qy[order[s]]; };
  // Signed turn from a to b around the origin: > 0 when b is less than pi counter-clockwise of a.
  auto turn = [&](int a, int b) { return X(a) * Y(b) - Y(a) * X(b); };
  // b follows a by less than pi counter-clockwise (0 included: points on one ray, nearer first).
  auto spans_less_than_pi = [&](int a, int b) {
    const double c = turn(a, b);
    if (c != 0) return c > 0;
    return X(a) * X(b) + Y(a) * Y(b) > 0;
  };
  auto violates = [&](int u) {
    if (size <= 2) return false;
    const int p = prev[u], q = next[u];
    if (!spans_less_than_pi(p, u) || !spans_less_than_pi(u, q)) return false;  // a hull gap: one triangle only
    if (size == 3 && spans_less_than_pi(q, p)) return false;  // the last triangle around the origin
    double s;
    if (lifted) {
      // Lifted angles: flip only spokes of quadrilaterals (origin, p, u, q) that are convex in the
      // projection (p to q less than pi around the origin, u beyond the line p q), so the fan stays a
      // star; decide by the 3D corner angles, (a_p + a_q) - (a_origin + a_u), which is the same number with
      // the opposite sign when p or q asks about the other diagonal.
      if (!(turn(p, q) > 0)) return false;
      if ((X(q) - X(p)) * (Y(u) - Y(p)) - (Y(q) - Y(p)) * (X(u) - X(p)) >= 0) return false;
      const double o[3] = {0, 0, 0};
      const double* P = lifted + 3 * order[p];
      const double* Q = lifted + 3 * order[q];
      const double* U = lifted + 3 * order[u];
      s = kPi + 0.5 * (corner_angle_3d(o, P, U) + corner_angle_3d(o, Q, U) - corner_angle_3d(P, o, Q) -
                       corner_angle_3d(P, U, Q));
    } else {
      // A reflex u (inside the triangle origin, p, q) has a_p + a_q < pi, so only spokes of convex
      // quadrilaterals (origin, p, u, q) are ever flipped.
      s = corner_angle(0, 0, X(p), Y(p), X(u), Y(u)) + corner_angle(0, 0, X(q), Y(q), X(u), Y(u));
    }
    if (s > kPi + 1e-9) return true;
    if (s < kPi - 1e-9) return false;
    // Co-circular: keep the diagonal that the other three particles also keep.
    const int64_t gp = gid[order[p]], gq = gid[order[q]], gu = gid[order[u]];
    const int64_t m1 = gp < gq ? gp : gq, m2 = gid0 < gu ? gid0 : gu;
    return m1 < m2;
  };
  int stack[3 * kMaxCandidates];
  int top = 0;
  for (int k = n - 1; k >= 0; --k) stack[top++] = k;
  while (top > 0) {
    const int u = stack[--top];
    if (!alive[u] || !violates(u)) continue;
    alive[u] = false;
    const int p = prev[u], q = next[u];
    next[p] = q;
    prev[q] = p;
    --size;
    if (top + 2 <= 3 * kMaxCandidates) {
      stack[top++] = p;
      stack[top++] = q;
    }
  }
  // Start after the widest gap of pi or more, if any (open fan).
  int first = -1;
  for (int k = 0; k < n; ++k) if (alive[k]) { first = k; break; }
  if (first < 0) return 0;
  int start = first;
  bool open = false;
  double widest = -1;
  int s = first;
  do {
    const int t = next[s];
    if (size == 1 || !spans_less_than_pi(s, t)) {
      // Gap size measured by the angle from s to t counter-clockwise.
      double g = kmath::atan2(Y(t), X(t)) - kmath::atan2(Y(s), X(s));
      while (g <= 0) g += 2 * kPi;
      if (g > widest) {
        widest = g;
        start = t;
      }
      open = true;
    }
    s = t;
  } while (s != first);
  int flags = 0;
  int c = 0;
  s = start;
  do {
    if (c < kMaxRing) ring[c] = order[s];
    ++c;
    s = next[s];
  } while (s != start);
  if (c > kMaxRing) {
    flags |= kMeshOverflow;
    c = kMaxRing;
  }
  *ring_count = c;
  if (c >= 3 || (open && c >= 2)) flags |= kMeshValid;
  if (!open && c >= 3) flags |= kMeshClosed;
  return flags;
}

void build_local_meshes(const MeshInputs& in, LocalMeshes& out) {
  out.ring = Kokkos::View<int**, Kokkos::LayoutRight>("pbd_ring", in.owned, kMaxRing);
  out.count = Kokkos::View<int*>("pbd_ring_count", in.owned);
  out.flags = Kokkos::View<int*>("pbd_ring_flags", in.owned);
  auto x = in.x, nrm = in.normal;
  auto off = in.offset, idx = in.index;
  auto label = in.label, iso = in.isolated, has = in.has_normal;
  auto ids = in.ids;
  auto ring = out.ring;
  auto count = out.count;
  auto flags = out.flags;
  const double h = in.support, far2 = in.far_cut * in.far_cut;
  const bool lifted = in.lifted_angles;
  const double cos45 = 0.70710678118654752;
  Kokkos::parallel_for(
      "pbd::local_meshes", Kokkos::RangePolicy<>(0, in.owned), KOKKOS_LAMBDA(const int i) {
        count(i) = 0;
        flags(i) = 0;
        if (!label(i) || iso(i) || !has(i)) return;
        const double n[3] = {nrm(i, 0), nrm(i, 1), nrm(i, 2)};
        // Tangent frame: a = e_x unless nearly parallel to n.
        double a[3] = {1, 0, 0};
        if (n[1] * n[1] + n[2] * n[2] < 1e-10) {
          a[0] = 0;
          a[1] = 1;
        }
        double t1[3], t2[3];
        kmath::cross(a, n, t1);
        kmath::normalize<3>(t1);
        kmath::cross(n, t1, t2);
        double qx[kMaxCandidates], qy[kMaxCandidates], d3[3 * kMaxCandidates];
        int64_t gid[kMaxCandidates];
        int row[kMaxCandidates];
        int m = 0;
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          if (!label(j) || iso(j)) continue;
          double d[3], r2 = 0;
          for (int c = 0; c < 3; ++c) {
            d[c] = x(j, c) - x(i, c);
            r2 += d[c] * d[c];
          }
          if (has(j)) {  // film filter (sec. 4.3): opposite layers of a membrane do not mesh together
            double nn = 0, side = 0;
            for (int c = 0; c < 3; ++c) {
              nn += n[c] * nrm(j, c);
              side += (n[c] - nrm(j, c)) * (-d[c]);
            }
            if (nn < cos45 && (side > 0 || r2 >= far2)) continue;
          }
          const double px = d[0] * t1[0] + d[1] * t1[1] + d[2] * t1[2];
          const double py = d[0] * t2[0] + d[1] * t2[1] + d[2] * t2[2];
          if (px * px + py * py < 1e-12 * h * h) continue;  // coincident in projection
          if (m < kMaxCandidates) {
            qx[m] = px;
            qy[m] = py;
            for (int c = 0; c < 3; ++c) d3[3 * m + c] = d[c];
            gid[m] = ids(j);
            row[m] = j;
            ++m;
          }
        }
        int local[kMaxRing], c = 0;
        const int f = delaunay_one_ring(m, qx, qy, gid, ids(i), local, &c, lifted ? d3 : nullptr);
        for (int k = 0; k < c; ++k) ring(i, k) = row[local[k]];
        count(i) = c;
        flags(i) = f;
      });
}

}  // namespace meniscus::pbd
