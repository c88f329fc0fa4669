// The receding contact line of the 2D membrane (methods/membrane/receding_contact.hpp; our addition to
// Ruan et al. 2021, whose contact lines stay pinned): the contact angle through the liquid at a line's
// end against constructed geometry on a disc and a box, both ways round, and the release of chain ends
// whose angle lies below the receding angle, one vertex per end, with the paper's rule 3 after it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "methods/membrane/receding_contact.hpp"

namespace mm = meniscus::membrane;

namespace {
constexpr double kDeg = M_PI / 180;

// A unit disc at the origin, or a 2 x 1 box.
mm::Disc unit_disc() {
  mm::Disc d;
  d.radius = 1;
  return d;
}
mm::Disc box() {
  mm::Disc d;
  d.set_box(2, 1);
  return d;
}
}  // namespace

// At the disc's lowest point (0, -1) the wetted surface runs toward k; the liquid lies below (the
// outward normal). A membrane leaving at angle theta through the liquid points along s turned by
// theta toward the normal.
TEST(MembraneReceding, AngleThroughTheLiquidOnADiscAndABoxBothWaysRound) {
  for (const mm::Disc& body : {unit_disc(), box()}) {
    const double yb = body.is_box() ? -0.5 : -1.0;  // the bottom point's height
    const double xi[2] = {0, yb};
    for (const double side : {-1.0, 1.0}) {  // the wetted surface to the left (k at x < 0) or to the right
      const double xk[2] = {side * 0.1, body.is_box() ? yb : -std::sqrt(1 - 0.01)};
      for (const double theta : {10.0, 45.0, 90.0, 135.0, 179.0, 200.0}) {
        // s = (side, 0); turned by theta toward n = (0, -1).
        const double t[2] = {side * std::cos(theta * kDeg), -std::sin(theta * kDeg)};
        const double xj[2] = {xi[0] + 0.1 * t[0], xi[1] + 0.1 * t[1]};
        EXPECT_NEAR(mm::contact_angle_through_liquid(body, xi, xk, xj), theta * kDeg, 1e-6)
            << (body.is_box() ? "box" : "disc") << ", wetted side " << side << ", theta " << theta;
      }
    }
  }
  // On the disc's side at (1, 0), wetted below (k at angle -5 deg), liquid outside: a membrane
  // straight out along +x leaves at 90 deg, one rising along the tangent at 180 deg.
  const mm::Disc d = unit_disc();
  const double xi[2] = {1, 0}, xk[2] = {std::cos(-5 * kDeg), std::sin(-5 * kDeg)};
  const double out[2] = {1.1, 0}, up[2] = {1, 0.1}, down_along_liquid[2] = {1.07, -0.07};
  EXPECT_NEAR(mm::contact_angle_through_liquid(d, xi, xk, out), 90 * kDeg, 1e-9);
  EXPECT_NEAR(mm::contact_angle_through_liquid(d, xi, xk, up), 180 * kDeg, 1e-9);
  EXPECT_NEAR(mm::contact_angle_through_liquid(d, xi, xk, down_along_liquid), 45 * kDeg, 1e-9);
}

// A pool surface draped over the underside of a unit disc: free vertices 0-1 on the left, contact
// vertices 2-6 on the disc's lower arc (-135 ... -45 deg), free vertices 7-8 on the right. The left
// free membrane leaves vertex 2 at 60 deg through the liquid and the right one leaves vertex 6 at
// 150 deg.
TEST(MembraneReceding, ReleasesChainEndsBelowTheRecedingAngleOneVertexAtATime) {
  const std::vector<mm::Disc> bodies = {unit_disc()};
  std::vector<double> xy;
  auto on_disc = [](double deg) { return std::vector<double>{std::cos(deg * kDeg), std::sin(deg * kDeg)}; };
  const std::vector<double> arc = {-135, -112.5, -90, -67.5, -45};
  // Vertex 2 at -135 deg: the tangent toward vertex 3 points down-right (s = (cos -45, sin -45)); the
  // normal (liquid side) points down-left; the left membrane leaves at 60 deg from s toward n.
  auto leave = [&](const std::vector<double>& from, const double* s, const double* n, double deg, double len) {
    const double c = std::cos(deg * kDeg), sn = std::sin(deg * kDeg);
    return std::vector<double>{from[0] + len * (c * s[0] + sn * n[0]), from[1] + len * (c * s[1] + sn * n[1])};
  };
  const auto p2 = on_disc(-135), p6 = on_disc(-45);
  const double s2[2] = {std::cos(-45 * kDeg), std::sin(-45 * kDeg)}, n2[2] = {p2[0], p2[1]};
  // At -45 deg the tangent toward vertex 5 (down the arc to the left) is (-cos 45, -sin 45).
  const double s6[2] = {-std::cos(45 * kDeg), -std::sin(45 * kDeg)}, n6[2] = {p6[0], p6[1]};
  const auto q1 = leave(p2, s2, n2, 60, 0.2), q0 = leave(p2, s2, n2, 60, 0.4);
  const auto q7 = leave(p6, s6, n6, 150, 0.2), q8 = leave(p6, s6, n6, 150, 0.4);
  for (const auto& p : {q0, q1}) xy.insert(xy.end(), p.begin(), p.end());
  for (double a : arc) {
    const auto p = on_disc(a);
    xy.insert(xy.end(), p.begin(), p.end());
  }
  for (const auto& p : {q7, q8}) xy.insert(xy.end(), p.begin(), p.end());
  std::vector<int> edges;
  for (int i = 0; i < 8; ++i) edges.insert(edges.end(), {i, i + 1});
  const std::vector<int> wetted = {-1, -1, 0, 0, 0, 0, 0, -1, -1};
  EXPECT_NEAR(mm::contact_angle_through_liquid(bodies[0], &xy[4], &xy[6], &xy[2]), 60 * kDeg, 1e-9);
  EXPECT_NEAR(mm::contact_angle_through_liquid(bodies[0], &xy[12], &xy[10], &xy[14]), 150 * kDeg, 1e-9);

  std::vector<int> c = wetted;
  EXPECT_EQ(mm::release_receding_ends(bodies, xy, edges, 50 * kDeg, c), 0);  // both ends above: pinned
  EXPECT_EQ(c, wetted);
  c = wetted;
  EXPECT_EQ(mm::release_receding_ends(bodies, xy, edges, 90 * kDeg, c), 1);  // the 60 deg end only
  EXPECT_EQ(c, (std::vector<int>{-1, -1, -1, 0, 0, 0, 0, -1, -1}));
  c = wetted;
  EXPECT_EQ(mm::release_receding_ends(bodies, xy, edges, 170 * kDeg, c), 2);  // one vertex at each end
  EXPECT_EQ(c, (std::vector<int>{-1, -1, -1, 0, 0, 0, -1, -1, -1}));
  // A chain of two whose ends both recede: both go; a chain of two with one end receding loses the
  // other too (rule 3: no contact neighbour left).
  const std::vector<int> two = {-1, -1, 0, 0, -1, -1, -1, -1, -1};
  c = two;
  EXPECT_EQ(mm::release_receding_ends(bodies, xy, edges, 90 * kDeg, c), 2);
  EXPECT_EQ(c, (std::vector<int>(9, -1)));
}

// 3D: a vertex at the lowest point (0, 0, -1) of a unit sphere on the edge of a contact region that
// lies toward -x (two contact neighbours on the sphere), with two free neighbours whose mean direction
// leaves at theta through the liquid (below the sphere) and which stand symmetric in y. The vertex goes
// when theta is below the receding angle; a vertex past `owned` is not judged.
TEST(MembraneReceding, ReleasesTheEdgeOfAContactRegionOnASphere) {
  meniscus::membrane::RigidBody3 sphere;
  sphere.radius = 1;
  const std::vector<mm::RigidBody3> bodies = {sphere};
  for (const double theta : {40.0, 100.0, 160.0}) {
    const double a = 0.15;  // polar step of the contact neighbours
    std::vector<double> x = {0, 0, -1};
    for (const double y : {-0.1, 0.1}) {  // contact neighbours on the sphere toward -x
      const double px = -std::sin(a), pz = -std::cos(a);
      const double len = std::sqrt(px * px + y * y + pz * pz);
      x.insert(x.end(), {px / len, y / len, pz / len});
    }
    for (const double y : {-0.05, 0.05})  // free neighbours: t = cos(theta) s + sin(theta) n, s = -x, n = -z
      x.insert(x.end(), {-0.1 * std::cos(theta * kDeg), y, -1 - 0.1 * std::sin(theta * kDeg)});
    const std::vector<int> edges = {0, 1, 0, 2, 0, 3, 0, 4, 1, 2, 3, 4};
    const std::vector<int> contact = {0, 0, 0, -1, -1};
    for (const double receding : {90.0, 150.0}) {
      const auto out = mm::receding_vertices(bodies, x, edges, 5, receding * kDeg, contact);
      EXPECT_EQ(out, theta < receding ? std::vector<int>{0} : std::vector<int>{}) << "theta " << theta << ", receding "
                                                                                    << receding;
      EXPECT_TRUE(mm::receding_vertices(bodies, x, edges, 0, receding * kDeg, contact).empty());
    }
  }
}
