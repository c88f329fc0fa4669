// Deck keys of colliders: a prescribed translation (velocity, start, end) is read into the collider,
// an omitted end never stops, and an end not after the start is an input error naming the key.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "grid/decomposition.hpp"
#include "physics/collider_deck.hpp"
#include "scene.hpp"

namespace ph = meniscus::physics;

namespace {
std::unique_ptr<meniscus::grid::Decomposition<2>> unit_box() {
  typename meniscus::grid::Decomposition<2>::Spec spec;
  spec.upper = {1.0, 1.0};
  spec.dx = 0.05;
  return std::make_unique<meniscus::grid::Decomposition<2>>(MPI_COMM_WORLD, spec);
}
const char* kGateDeck = R"(
simulation: {dimension: 2, method: mpm, end_time: 0.1}
domain: {lower: [0, 0], upper: [1, 1], cell_size: 0.05, walls: none}
materials:
  - {name: water, model: fluid, density: 1000, bulk_modulus: 2.0e5}
sources:
  - {type: box, material: water, lower: [0.1, 0.1], upper: [0.3, 0.3]}
colliders:
  - {type: box, lower: [0.4, 0], upper: [0.5, 0.3], translation: [0, 2], translation_start: 0.1, translation_end: 0.2}
  - {type: half-space, point: [0, 0.05], normal: [0, 1]}
)";
}  // namespace

TEST(Collider, DeckReadsTheTranslation) {
  auto decomp = unit_box();
  const auto d = meniscus::test::deck_from_string(kGateDeck);
  const auto set = ph::read_colliders<2>(d.deck.root(), *decomp);
  ASSERT_EQ(set.count, 2);
  EXPECT_EQ(set.items[0].translation[1], 2.0);
  EXPECT_EQ(set.items[0].move_start, 0.1);
  EXPECT_EQ(set.items[0].move_end, 0.2);
  // Defaults: no translation, and an omitted end never stops.
  EXPECT_EQ(set.items[1].translation[0], 0.0);
  EXPECT_EQ(set.items[1].translation[1], 0.0);
  EXPECT_EQ(set.items[1].move_start, 0.0);
  EXPECT_TRUE(std::isinf(set.items[1].move_end));
  EXPECT_NEAR(set.at_time(1.0).items[0].offset[1], 0.2, 1e-14);
}

TEST(Collider, DeckRejectsATranslationThatEndsBeforeItStarts) {
  auto decomp = unit_box();
  for (const char* end : {"0.1", "0.05"}) {
    const auto d = meniscus::test::deck_from_string(kGateDeck, {std::string("colliders[0].translation_end=") + end});
    try {
      ph::read_colliders<2>(d.deck.root(), *decomp);
      ADD_FAILURE() << "translation_end = " << end << " was accepted";
    } catch (const meniscus::InputError& e) {
      EXPECT_EQ(e.key(), "colliders[0].translation_end");
      EXPECT_NE(e.reason().find("later than translation_start"), std::string::npos) << e.what();
    }
  }
  // A negative start is out of range already in the deck.
  EXPECT_THROW(meniscus::test::deck_from_string(kGateDeck, {"colliders[0].translation_start=-1"}),
               meniscus::InputError);
}

// The box's wall planes pass through grid nodes exactly, computed as the methods place nodes
// (lower + i dx), so that the node on each wall plane is held on the upper faces as on the lower
// ones (a condition acts on nodes at distance <= 0). With the upper plane at upper - 2 dx, 0.28 - 0.04
// lay 3e-17 outside node 12 x 0.02 and that node was free: water drifted into the upper side wall.
TEST(Collider, BoxWallsPassThroughTheirGridNodes) {
  const char* deck = R"(
simulation: {dimension: 2, method: mpm, end_time: 0.1}
domain: {lower: [0, -0.3], upper: [0.28, 0.7], cell_size: 0.02, walls: slip}
materials:
  - {name: water, model: fluid, density: 1000, bulk_modulus: 2.0e5}
sources:
  - {type: box, material: water, lower: [0.1, 0.1], upper: [0.2, 0.2]}
)";
  for (const double dx : {0.02, 1.0 / 63, 0.1 / 3, 0.007}) {
    for (const int wall : {1, 2, 3}) {
      typename meniscus::grid::Decomposition<2>::Spec spec;
      spec.lower = {0.0, -0.3};
      spec.upper = {0.28, 0.7};
      spec.dx = dx;
      const meniscus::grid::Decomposition<2> decomp(MPI_COMM_WORLD, spec);
      const auto d = meniscus::test::deck_from_string(
          deck, {"domain.cell_size=" + std::to_string(dx), "domain.wall_cells=" + std::to_string(wall)});
      const auto set = ph::read_colliders<2>(d.deck.root(), decomp);
      ASSERT_EQ(set.count, 4);
      for (int axis = 0; axis < 2; ++axis)
        for (int side = 0; side < 2; ++side) {
          const auto& c = set.items[2 * axis + side];
          const int node = side == 0 ? wall : decomp.nodes()[axis] - 1 - wall;
          double on[2] = {0.3 * (spec.lower[0] + spec.upper[0]), 0.3 * (spec.lower[1] + spec.upper[1])};
          on[axis] = decomp.lower()[axis] + node * decomp.dx();
          EXPECT_EQ(c.distance(on), 0.0) << "dx " << dx << " wall " << wall << " axis " << axis << " side " << side;
          EXPECT_TRUE(c.holds(on));
          double outside[2] = {on[0], on[1]};
          outside[axis] += (side == 0 ? 1 : -1) * decomp.dx();
          EXPECT_FALSE(c.holds(outside));
        }
    }
  }
}
