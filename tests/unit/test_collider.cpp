// Collider boundary conditions on grid velocities, for a half-space floor and a sphere in 2D and 3D:
// nodes outside are left alone, sticky takes the collider's velocity, slip removes only an approaching
// normal component, Coulomb friction stops or shrinks the tangential part by exactly mu |v_n|, a
// moving collider acts in its own frame, a ColliderSet applies its colliders in order, and a collider
// with a prescribed translation is where its time window puts it (deck keys: test_collider_deck.cpp).
// Every expectation is a value worked out by hand; the velocities are applied inside a kernel, as the
// grid update does.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>

#include "physics/collider.hpp"

namespace g = meniscus::geometry;
namespace ph = meniscus::physics;

namespace {

constexpr double kTol = 1e-14;

template <int Dim>
using Vec = std::array<double, Dim>;

// Runs `set.apply` at node x on velocity v in a kernel and returns the new velocity. Kernels are
// launched from free functions: device lambdas may not live in a gtest TestBody.
template <int Dim>
Vec<Dim> apply_set(const ph::ColliderSet<Dim>& set, const Vec<Dim>& x, const Vec<Dim>& v) {
  Kokkos::View<double[2][Dim]> buf("collider_test_buf");
  auto h = Kokkos::create_mirror_view(buf);
  for (int d = 0; d < Dim; ++d) {
    h(0, d) = x[d];
    h(1, d) = v[d];
  }
  Kokkos::deep_copy(buf, h);
  Kokkos::parallel_for(
      "collider_test_apply", Kokkos::RangePolicy<>(0, 1), KOKKOS_LAMBDA(const int) {
        double px[Dim], pv[Dim];
        for (int d = 0; d < Dim; ++d) {
          px[d] = buf(0, d);
          pv[d] = buf(1, d);
        }
        set.apply(px, pv);
        for (int d = 0; d < Dim; ++d) buf(1, d) = pv[d];
      });
  Kokkos::deep_copy(h, buf);
  Vec<Dim> out;
  for (int d = 0; d < Dim; ++d) out[d] = h(1, d);
  return out;
}

// One collider on its own, also checking its return value (true: the node is inside) on the host.
template <int Dim>
Vec<Dim> apply_one(const ph::Collider<Dim>& c, const Vec<Dim>& x, const Vec<Dim>& v, bool expect_inside) {
  Vec<Dim> hv = v;
  EXPECT_EQ(c.apply(x.data(), hv.data()), expect_inside);
  ph::ColliderSet<Dim> set;
  set.items[0] = c;
  set.count = 1;
  const Vec<Dim> dv = apply_set<Dim>(set, x, v);
  for (int d = 0; d < Dim; ++d) EXPECT_NEAR(hv[d], dv[d], kTol) << "host and kernel differ on axis " << d;
  return dv;
}

template <int Dim>
void expect_vec(const Vec<Dim>& got, const Vec<Dim>& want, const char* what) {
  for (int d = 0; d < Dim; ++d) EXPECT_NEAR(got[d], want[d], kTol) << what << ", axis " << d;
}

// a * p + b * q
template <int Dim>
Vec<Dim> comb(double a, const Vec<Dim>& p, double b, const Vec<Dim>& q) {
  Vec<Dim> out;
  for (int d = 0; d < Dim; ++d) out[d] = a * p[d] + b * q[d];
  return out;
}
template <int Dim>
Vec<Dim> plus(const Vec<Dim>& p, const Vec<Dim>& q) { return comb<Dim>(1.0, p, 1.0, q); }

template <int Dim>
ph::Collider<Dim> make(const g::Shape<Dim>& shape, ph::BoundaryType type, double mu = 0.0, Vec<Dim> u = {}) {
  ph::Collider<Dim> c;
  c.shape = shape;
  c.type = type;
  c.friction = mu;
  for (int d = 0; d < Dim; ++d) c.velocity[d] = u[d];
  return c;
}

template <int Dim>
double norm(const Vec<Dim>& v) {
  double s = 0;
  for (double c : v) s += c * c;
  return std::sqrt(s);
}

// A scene for the generic checks: a collider shape, a node inside it with its unit outward normal n,
// unit tangent(s) t (t2 only in 3D) and a node outside.
template <int Dim>
struct Scene {
  g::Shape<Dim> shape;
  Vec<Dim> inside, outside, n, t;
};

// Floor y < 0.25 (z < 0.1 in 3D), normal +y (+z).
template <int Dim>
Scene<Dim> floor_scene() {
  Scene<Dim> s;
  Vec<Dim> p{}, up{};
  p[Dim - 1] = Dim == 2 ? 0.25 : 0.1;
  up[Dim - 1] = 1.0;
  s.shape = g::half_space<Dim>(p, up);
  s.inside = {};
  s.inside[0] = 0.3;
  s.outside = s.inside;
  s.outside[Dim - 1] = 0.5;
  s.n = up;
  s.t = {};
  if constexpr (Dim == 2) {
    s.t[0] = 1.0;
  } else {
    s.t[0] = 0.6;  // an oblique tangent, in the floor plane
    s.t[1] = -0.8;
  }
  return s;
}

// Sphere of radius 0.25 (0.3 in 3D) around 0.5; the inside node sits along (3, 4) / 5 in 2D and
// (1, 2, 2) / 3 in 3D from the centre, so the normal is that direction.
template <int Dim>
Scene<Dim> sphere_scene() {
  Scene<Dim> s;
  Vec<Dim> c;
  c.fill(0.5);
  s.shape = g::sphere<Dim>(c, Dim == 2 ? 0.25 : 0.3);
  if constexpr (Dim == 2) {
    s.n = {0.6, 0.8};
    s.t = {-0.8, 0.6};
    s.inside = {0.5 + 0.06, 0.5 + 0.08};   // 0.1 from the centre
    s.outside = {0.5 + 0.18, 0.5 + 0.24};  // 0.3 from the centre
  } else {
    s.n = {1.0 / 3, 2.0 / 3, 2.0 / 3};
    s.t = {2.0 / 3, 1.0 / 3, -2.0 / 3};
    s.inside = {0.5 + 0.05, 0.5 + 0.1, 0.5 + 0.1};   // 0.15 from the centre
    s.outside = {0.5 + 0.15, 0.5 + 0.3, 0.5 + 0.3};  // 0.45 from the centre
  }
  return s;
}

template <int Dim>
void check_outside_untouched(const Scene<Dim>& s) {
  const Vec<Dim> v = comb<Dim>(-2.0, s.n, 0.75, s.t);
  for (auto type : {ph::BoundaryType::Sticky, ph::BoundaryType::Slip, ph::BoundaryType::Friction}) {
    Vec<Dim> u{};
    u[0] = 0.4;
    const auto c = make<Dim>(s.shape, type, 0.5, u);
    const auto got = apply_one<Dim>(c, s.outside, v, false);
    for (int d = 0; d < Dim; ++d) EXPECT_EQ(got[d], v[d]) << "type " << static_cast<int>(type);
  }
}

template <int Dim>
void check_sticky(const Scene<Dim>& s) {
  const Vec<Dim> v = comb<Dim>(-2.0, s.n, 0.75, s.t);
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Sticky), s.inside, v, true), Vec<Dim>{},
                  "sticky, resting collider");
  Vec<Dim> u;
  for (int d = 0; d < Dim; ++d) u[d] = 0.25 * (d + 1) - 1.0;
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Sticky, 0.0, u), s.inside, v, true), u,
                  "sticky, moving collider");
  // Sticky ignores the direction of motion: a separating node is pinned too.
  const Vec<Dim> away = comb<Dim>(2.0, s.n, 0.75, s.t);
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Sticky, 0.0, u), s.inside, away, true), u,
                  "sticky, separating node");
}

template <int Dim>
void check_slip(const Scene<Dim>& s) {
  const auto c = make<Dim>(s.shape, ph::BoundaryType::Slip);
  // Approaching: v_n = -2 is removed, the tangential 0.75 t kept.
  expect_vec<Dim>(apply_one<Dim>(c, s.inside, comb<Dim>(-2.0, s.n, 0.75, s.t), true), comb<Dim>(0.0, s.n, 0.75, s.t),
                  "slip, approaching");
  // Separating: untouched.
  const Vec<Dim> away = comb<Dim>(1.5, s.n, 0.75, s.t);
  expect_vec<Dim>(apply_one<Dim>(c, s.inside, away, true), away, "slip, separating");
  // Purely tangential: untouched.
  const Vec<Dim> along = comb<Dim>(0.0, s.n, -1.25, s.t);
  expect_vec<Dim>(apply_one<Dim>(c, s.inside, along, true), along, "slip, tangential");
  // Purely normal approach: stops.
  expect_vec<Dim>(apply_one<Dim>(c, s.inside, comb<Dim>(-3.0, s.n, 0.0, s.t), true), Vec<Dim>{}, "slip, head-on");
  // Slip ignores the friction coefficient.
  auto c2 = c;
  c2.friction = 10.0;
  expect_vec<Dim>(apply_one<Dim>(c2, s.inside, comb<Dim>(-2.0, s.n, 0.75, s.t), true), comb<Dim>(0.0, s.n, 0.75, s.t),
                  "slip with a friction coefficient set");
}

template <int Dim>
void check_friction(const Scene<Dim>& s) {
  // v_n = -2, |v_t| = 0.75.
  const Vec<Dim> v = comb<Dim>(-2.0, s.n, 0.75, s.t);
  // mu |v_n| = 1 >= 0.75: static friction, the node stops.
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Friction, 0.5), s.inside, v, true), Vec<Dim>{},
                  "friction, sticking");
  // mu |v_n| = 0.75 == |v_t|: the boundary case still sticks.
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Friction, 0.375), s.inside, v, true), Vec<Dim>{},
                  "friction, at the cone");
  // mu |v_n| = 0.5 < 0.75: slides with |v_t| = 0.75 - 0.5 = 0.25, same direction, no normal part.
  const auto slid = apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Friction, 0.25), s.inside, v, true);
  expect_vec<Dim>(slid, comb<Dim>(0.0, s.n, 0.25, s.t), "friction, sliding");
  EXPECT_NEAR(norm<Dim>(slid), 0.75 - 0.25 * 2.0, kTol);
  // mu = 0 is slip.
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Friction, 0.0), s.inside, v, true),
                  comb<Dim>(0.0, s.n, 0.75, s.t), "friction, mu = 0");
  // A separating node feels no friction, however large mu is.
  const Vec<Dim> away = comb<Dim>(0.5, s.n, 0.75, s.t);
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Friction, 100.0), s.inside, away, true), away,
                  "friction, separating");
}

// The collider moves with u: every rule applies to v - u, and u is added back.
template <int Dim>
void check_moving(const Scene<Dim>& s) {
  Vec<Dim> u;
  for (int d = 0; d < Dim; ++d) u[d] = 0.5 - 0.25 * d;
  // Approaching in the collider's frame (relative v_n = -2): slip keeps u + 0.75 t.
  const Vec<Dim> v = plus<Dim>(u, comb<Dim>(-2.0, s.n, 0.75, s.t));
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Slip, 0.0, u), s.inside, v, true),
                  plus<Dim>(u, comb<Dim>(0.0, s.n, 0.75, s.t)), "moving slip");
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Friction, 0.25, u), s.inside, v, true),
                  plus<Dim>(u, comb<Dim>(0.0, s.n, 0.25, s.t)), "moving friction, sliding");
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Friction, 0.5, u), s.inside, v, true), u,
                  "moving friction, sticking");

  // A collider moving along its normal at 3 m/s: a node at rest approaches it (relative v_n = -3)
  // and is pushed to the collider's normal speed while keeping its tangential motion.
  const Vec<Dim> push = comb<Dim>(3.0, s.n, 0.0, s.t);
  const Vec<Dim> rest_slide = comb<Dim>(0.0, s.n, 0.75, s.t);
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Slip, 0.0, push), s.inside, rest_slide, true),
                  comb<Dim>(3.0, s.n, 0.75, s.t), "slip, collider advancing");
  // A collider receding at 3 m/s: a node moving towards it at 2 m/s separates in its frame and is
  // left alone.
  const Vec<Dim> recede = comb<Dim>(-3.0, s.n, 0.0, s.t);
  const Vec<Dim> follow = comb<Dim>(-2.0, s.n, 0.75, s.t);
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Friction, 100.0, recede), s.inside, follow, true),
                  follow, "friction, collider receding");
  // Tangential motion of the collider drags a node through friction: the node at rest slides
  // -0.75 t relative to a collider moving at 0.75 t; with mu |v_n| = 0.5 the relative slide shrinks to
  // -0.25 t, i.e. the node ends at 0.5 t.
  const Vec<Dim> belt = comb<Dim>(0.0, s.n, 0.75, s.t);
  const Vec<Dim> pressing = comb<Dim>(-2.0, s.n, 0.0, s.t);
  expect_vec<Dim>(apply_one<Dim>(make<Dim>(s.shape, ph::BoundaryType::Friction, 0.25, belt), s.inside, pressing, true),
                  comb<Dim>(0.0, s.n, 0.5, s.t), "friction, conveyor");
}

}  // namespace

TEST(Collider, OutsideNodeIsUntouched) {
  check_outside_untouched<2>(floor_scene<2>());
  check_outside_untouched<2>(sphere_scene<2>());
  check_outside_untouched<3>(floor_scene<3>());
  check_outside_untouched<3>(sphere_scene<3>());
}

TEST(Collider, StickyTakesTheColliderVelocity) {
  check_sticky<2>(floor_scene<2>());
  check_sticky<2>(sphere_scene<2>());
  check_sticky<3>(floor_scene<3>());
  check_sticky<3>(sphere_scene<3>());
}

TEST(Collider, SlipRemovesOnlyApproachingNormalVelocity) {
  check_slip<2>(floor_scene<2>());
  check_slip<2>(sphere_scene<2>());
  check_slip<3>(floor_scene<3>());
  check_slip<3>(sphere_scene<3>());
}

TEST(Collider, CoulombFrictionSticksOrShrinksTangentialByMuVn) {
  check_friction<2>(floor_scene<2>());
  check_friction<2>(sphere_scene<2>());
  check_friction<3>(floor_scene<3>());
  check_friction<3>(sphere_scene<3>());
}

TEST(Collider, CoulombFrictionHandWorkedNumbers) {
  // Floor y < 0.25 in 2D: v = (0.75, -2), mu = 0.25 -> v_t = 0.75 - 0.25 * 2 = 0.25.
  const auto floor2 = g::half_space<2>({0.0, 0.25}, {0.0, 1.0});
  expect_vec<2>(apply_one<2>(make<2>(floor2, ph::BoundaryType::Friction, 0.25), {0.3, 0.0}, {0.75, -2.0}, true),
                {0.25, 0.0}, "2D floor");
  // Floor z < 0.1 in 3D: v = (0.3, -0.4, -2), |v_t| = 0.5, mu = 0.1 -> |v_t| = 0.3 along (0.6, -0.8).
  const auto floor3 = g::half_space<3>({0.0, 0.0, 0.1}, {0.0, 0.0, 1.0});
  expect_vec<3>(
      apply_one<3>(make<3>(floor3, ph::BoundaryType::Friction, 0.1), {0.2, 0.2, 0.05}, {0.3, -0.4, -2.0}, true),
      {0.18, -0.24, 0.0}, "3D floor");
  // ... and mu = 0.25 puts it exactly on the cone: it stops.
  expect_vec<3>(
      apply_one<3>(make<3>(floor3, ph::BoundaryType::Friction, 0.25), {0.2, 0.2, 0.05}, {0.3, -0.4, -2.0}, true),
      {0.0, 0.0, 0.0}, "3D floor, on the cone");
  // Disc of radius 0.25 at (0.5, 0.5), node at (0.56, 0.58): n = (0.6, 0.8), t = (-0.8, 0.6).
  // v = -n + 2 t = (-2.2, 0.4); mu = 0.5 -> v = 1.5 t = (-1.2, 0.9); slip -> 2 t = (-1.6, 1.2).
  const auto disc = g::sphere<2>({0.5, 0.5}, 0.25);
  expect_vec<2>(apply_one<2>(make<2>(disc, ph::BoundaryType::Friction, 0.5), {0.56, 0.58}, {-2.2, 0.4}, true),
                {-1.2, 0.9}, "disc, friction");
  expect_vec<2>(apply_one<2>(make<2>(disc, ph::BoundaryType::Slip), {0.56, 0.58}, {-2.2, 0.4}, true), {-1.6, 1.2},
                "disc, slip");
  // Ball of radius 0.3 at 0.5, node along n = (1, 2, 2) / 3; tangents t1 = (2, 1, -2) / 3 and
  // t2 = (-2, 2, -1) / 3. v = -3 n + 1.5 t1 + 2 t2, |v_t| = 2.5; mu = 0.25 shrinks it by 0.75 to 1.75,
  // i.e. the tangential part is scaled by 0.7: v = 1.05 t1 + 1.4 t2 = (-0.233.., 1.283.., -1.166..).
  const auto ball = g::sphere<3>({0.5, 0.5, 0.5}, 0.3);
  const Vec<3> n{1.0 / 3, 2.0 / 3, 2.0 / 3}, t1{2.0 / 3, 1.0 / 3, -2.0 / 3}, t2{-2.0 / 3, 2.0 / 3, -1.0 / 3};
  Vec<3> v, want;
  for (int d = 0; d < 3; ++d) {
    v[d] = -3.0 * n[d] + 1.5 * t1[d] + 2.0 * t2[d];
    want[d] = 1.05 * t1[d] + 1.4 * t2[d];
  }
  const Vec<3> node{0.55, 0.6, 0.6};
  const auto got = apply_one<3>(make<3>(ball, ph::BoundaryType::Friction, 0.25), node, v, true);
  expect_vec<3>(got, want, "ball, friction");
  expect_vec<3>(got, {-0.7 / 3, 3.85 / 3, -3.5 / 3}, "ball, friction (components)");
  EXPECT_NEAR(norm<3>(got), 2.5 - 0.25 * 3.0, kTol);
  // mu = 1: mu |v_n| = 3 >= 2.5, the node stops.
  expect_vec<3>(apply_one<3>(make<3>(ball, ph::BoundaryType::Friction, 1.0), node, v, true), {0.0, 0.0, 0.0},
                "ball, sticking");
}

TEST(Collider, MovingColliderActsInItsOwnFrame) {
  check_moving<2>(floor_scene<2>());
  check_moving<2>(sphere_scene<2>());
  check_moving<3>(floor_scene<3>());
  check_moving<3>(sphere_scene<3>());
  // By hand: a floor rising at 3 m/s, a node moving up at 1 m/s and sideways at 0.75: relative
  // v_n = -2, slip gives (0.75, 3). The same floor sinking at 3 m/s leaves a falling node alone.
  const auto floor2 = g::half_space<2>({0.0, 0.25}, {0.0, 1.0});
  expect_vec<2>(apply_one<2>(make<2>(floor2, ph::BoundaryType::Slip, 0.0, {0.0, 3.0}), {0.3, 0.0}, {0.75, 1.0}, true),
                {0.75, 3.0}, "rising floor");
  expect_vec<2>(
      apply_one<2>(make<2>(floor2, ph::BoundaryType::Slip, 0.0, {0.0, -3.0}), {0.3, 0.0}, {0.75, -2.0}, true),
      {0.75, -2.0}, "sinking floor");
  // A floor sliding at 0.5 m/s: v = (1.25, -2) is (0.75, -2) relative; mu = 0.25 -> (0.25, 0) relative,
  // (0.75, 0) absolute.
  expect_vec<2>(
      apply_one<2>(make<2>(floor2, ph::BoundaryType::Friction, 0.25, {0.5, 0.0}), {0.3, 0.0}, {1.25, -2.0}, true),
      {0.75, 0.0}, "sliding floor");
}

TEST(Collider, SetAppliesCollidersInOrder) {
  // A slip floor y < 0.25 and a sticky disc moving at u = (0.5, -1) that overlaps it.
  const auto floor = make<2>(g::half_space<2>({0.0, 0.25}, {0.0, 1.0}), ph::BoundaryType::Slip);
  const auto disc = make<2>(g::sphere<2>({0.5, 0.25}, 0.2), ph::BoundaryType::Sticky, 0.0, {0.5, -1.0});
  const Vec<2> both{0.5, 0.2}, floor_only{0.9, 0.1}, disc_only{0.5, 0.4}, neither{0.9, 0.6};
  const Vec<2> v{0.75, -2.0};

  ph::ColliderSet<2> floor_first;
  floor_first.items[0] = floor;
  floor_first.items[1] = disc;
  floor_first.count = 2;
  ph::ColliderSet<2> disc_first;
  disc_first.items[0] = disc;
  disc_first.items[1] = floor;
  disc_first.count = 2;

  // Inside both: the later collider has the last word. Floor then disc: pinned to u. Disc then floor:
  // u = (0.5, -1) approaches the floor, slip removes its normal part.
  expect_vec<2>(apply_set<2>(floor_first, both, v), {0.5, -1.0}, "floor, then disc");
  expect_vec<2>(apply_set<2>(disc_first, both, v), {0.5, 0.0}, "disc, then floor");
  // Inside one: only that one acts, whatever the order.
  for (const auto* set : {&floor_first, &disc_first}) {
    expect_vec<2>(apply_set<2>(*set, floor_only, v), {0.75, 0.0}, "floor only");
    expect_vec<2>(apply_set<2>(*set, disc_only, v), {0.5, -1.0}, "disc only");
    expect_vec<2>(apply_set<2>(*set, neither, v), v, "neither");
  }

  // Only the first `count` items act: a sticky box in slot 1 is ignored while count = 1.
  ph::ColliderSet<2> partial;
  partial.items[0] = floor;
  partial.items[1] = make<2>(g::box<2>({0.0, 0.0}, {1.0, 1.0}), ph::BoundaryType::Sticky, 0.0, {9.0, 9.0});
  partial.count = 1;
  expect_vec<2>(apply_set<2>(partial, neither, v), v, "slot beyond count");
  expect_vec<2>(apply_set<2>(partial, floor_only, v), {0.75, 0.0}, "slot beyond count, floor");
  ph::ColliderSet<2> empty;
  expect_vec<2>(apply_set<2>(empty, both, v), v, "empty set");

  // 3D: the six slip faces of a box [0, 1]^3 two cells (0.1) thick, as the deck builds its walls. A
  // corner node moving into all three walls loses every component; a node near one face only its
  // normal component.
  ph::ColliderSet<3> walls;
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) {
      Vec<3> p{}, nrm{};
      p[d] = side == 0 ? 0.1 : 0.9;
      nrm[d] = side == 0 ? 1.0 : -1.0;
      walls.items[walls.count++] = make<3>(g::half_space<3>(p, nrm), ph::BoundaryType::Slip);
    }
  expect_vec<3>(apply_set<3>(walls, {0.05, 0.05, 0.95}, {-1.0, -2.0, 3.0}), {0.0, 0.0, 0.0}, "corner");
  expect_vec<3>(apply_set<3>(walls, {0.05, 0.05, 0.95}, {1.0, -2.0, -3.0}), {1.0, 0.0, -3.0}, "corner, partly leaving");
  expect_vec<3>(apply_set<3>(walls, {0.5, 0.95, 0.5}, {-1.0, 2.0, 3.0}), {-1.0, 0.0, 3.0}, "one face");
  expect_vec<3>(apply_set<3>(walls, {0.5, 0.5, 0.5}, {-1.0, 2.0, 3.0}), {-1.0, 2.0, 3.0}, "interior");
}

// A gate: the box [0.4, 0.5] x [0, 0.3] lifted at 2 m/s for 0.1 <= t < 0.2, so it ends 0.2 higher.
// A node at x = 0.42 lies 0.02 behind the gate's upstream face (normal -x).
TEST(Collider, TranslationMovesTheShapeInItsTimeWindow) {
  auto gate = make<2>(g::box<2>({0.4, 0.0}, {0.5, 0.3}), ph::BoundaryType::Slip);
  gate.translation[1] = 2.0;
  gate.move_start = 0.1;
  gate.move_end = 0.2;
  ph::ColliderSet<2> set;
  set.items[set.count++] = gate;
  auto sticky = gate;
  sticky.type = ph::BoundaryType::Sticky;
  ph::ColliderSet<2> sticky_set;
  sticky_set.items[sticky_set.count++] = sticky;
  const Vec<2> v{1.0, 0.3};

  // Before the window: at rest where the deck put it. Slip stops the flow into the gate.
  const auto before = set.at_time(0.05);
  EXPECT_FALSE(before.items[0].moving);
  expect_vec<2>(apply_set<2>(before, {0.42, 0.1}, v), {0.0, 0.3}, "gate closed");
  expect_vec<2>(apply_set<2>(before, {0.42, 0.35}, v), v, "above the closed gate");
  expect_vec<2>(apply_set<2>(sticky_set.at_time(0.05), {0.42, 0.1}, v), {0.0, 0.0}, "sticky gate at rest");

  // Halfway (t = 0.15): lifted by 0.1 and moving. The node at y = 0.05 is now under the gate; the one
  // at y = 0.2 is inside. A frictionless gate sliding past the fluid does not drag it: only the
  // normal part goes. A sticky gate takes the node with it at 2 m/s.
  const auto half = set.at_time(0.15);
  EXPECT_TRUE(half.items[0].moving);
  EXPECT_NEAR(half.items[0].offset[1], 0.1, kTol);
  EXPECT_NEAR(half.items[0].distance(std::array<double, 2>{0.42, 0.05}.data()), 0.05, kTol);
  expect_vec<2>(apply_set<2>(half, {0.42, 0.05}, v), v, "under the rising gate");
  expect_vec<2>(apply_set<2>(half, {0.42, 0.2}, v), {0.0, 0.3}, "slip on the rising gate");
  expect_vec<2>(apply_set<2>(sticky_set.at_time(0.15), {0.42, 0.2}, v), {0.0, 2.0}, "sticky, rising gate");

  // After the window: resting 0.2 higher.
  const auto after = set.at_time(0.5);
  EXPECT_FALSE(after.items[0].moving);
  EXPECT_NEAR(after.items[0].offset[1], 0.2, kTol);
  expect_vec<2>(apply_set<2>(after, {0.42, 0.15}, v), v, "under the open gate");
  expect_vec<2>(apply_set<2>(sticky_set.at_time(0.5), {0.42, 0.25}, v), {0.0, 0.0}, "sticky, open gate");
  // The stored collider itself never moves: at_time returns placed copies.
  EXPECT_EQ(set.items[0].offset[1], 0.0);

  // No end: a paddle pushing along +x at 0.5 m/s from t = 0.1 keeps going; the wall velocity adds to
  // a surface velocity, here sticky (0, 0.25) -> (0.5, 0.25).
  auto paddle = make<2>(g::half_space<2>({0.1, 0.0}, {1.0, 0.0}), ph::BoundaryType::Sticky, 0.0, {0.0, 0.25});
  paddle.translation[0] = 0.5;
  paddle.move_start = 0.1;
  ph::ColliderSet<2> p;
  p.items[p.count++] = paddle;
  const auto late = p.at_time(2.1);
  EXPECT_TRUE(late.items[0].moving);
  EXPECT_NEAR(late.items[0].offset[0], 1.0, kTol);
  expect_vec<2>(apply_set<2>(late, {1.05, 0.3}, {-1.0, 0.0}), {0.5, 0.25}, "paddle face");
  expect_vec<2>(apply_set<2>(late, {1.15, 0.3}, {-1.0, 0.0}), {-1.0, 0.0}, "ahead of the paddle");
}
