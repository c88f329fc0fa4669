// Shell sources (geometry/shell.hpp): the two-layer film of a catenoid scene and a flat film on a ring,
// checked against the counts and radii that follow from the spacing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "geometry/shell.hpp"

namespace g = meniscus::geometry;

TEST(GeometryShell, CylinderFilmHasTwoLayersAtRadiusPlusMinusHalfASpacing) {
  // Rings of radius R = 0.5 at spacing h = 0.05 (particle radius 0.025), rows from z = -0.15 to 0.15.
  g::ShellSpec s;
  s.center = {0.1, -0.2, 0.3};
  s.rho0 = s.rho1 = 0.5;
  s.z0 = -0.15;
  s.z1 = 0.15;
  s.spacing = 0.05;
  const auto out = g::sample_shell(s);
  EXPECT_EQ(out.rows, 7);
  // Per row: round(2 pi 0.475 / 0.05) = 60 inner, round(2 pi 0.525 / 0.05) = 66 outer.
  ASSERT_EQ(out.x.size(), 7u * (60 + 66));
  double zmin = 1e9, zmax = -1e9;
  for (size_t k = 0; k < out.x.size(); ++k) {
    const double rho = std::hypot(out.x[k][0] - 0.1, out.x[k][1] + 0.2);
    EXPECT_NEAR(rho, out.layer[k] == 0 ? 0.475 : 0.525, 1e-12);
    zmin = std::min(zmin, out.x[k][2] - 0.3);
    zmax = std::max(zmax, out.x[k][2] - 0.3);
  }
  EXPECT_NEAR(zmin, -0.15, 1e-12);
  EXPECT_NEAR(zmax, 0.15, 1e-12);
  // Nearest neighbour within a layer: the arc spacing 2 pi rho / n, about h.
  const double arc = 2 * M_PI * 0.475 / 60;
  EXPECT_NEAR(arc, 0.05, 0.002);
  // Alternate rows are staggered by half an arc: row 1's first point sits at angle pi / 60.
  EXPECT_NEAR(std::atan2(out.x[126][1] + 0.2, out.x[126][0] - 0.1), M_PI / 60, 1e-12);
  EXPECT_NEAR(std::atan2(out.x[0][1] + 0.2, out.x[0][0] - 0.1), 0.0, 1e-12);
  s.shift_first_row = true;
  const auto shifted = g::sample_shell(s);
  EXPECT_NEAR(std::atan2(shifted.x[0][1] + 0.2, shifted.x[0][0] - 0.1), M_PI / 60, 1e-12);
}

TEST(GeometryShell, DiscFilmCoversItsAreaAtOneParticlePerSpacingSquared) {
  // A flat disc of radius 0.5, two layers at z = -+ h/2: each layer holds about pi R^2 / h^2 points
  // (the rings' points are spaced h around and h apart radially, so each stands for about h^2).
  g::ShellSpec s;
  s.rho0 = 0;
  s.rho1 = 0.5;
  s.spacing = 0.05;
  const auto out = g::sample_shell(s);
  EXPECT_EQ(out.rows, 11);
  long per_layer[2] = {0, 0};
  for (size_t k = 0; k < out.x.size(); ++k) {
    ++per_layer[out.layer[k]];
    EXPECT_NEAR(std::fabs(out.x[k][2]), 0.025, 1e-12);
    EXPECT_LE(std::hypot(out.x[k][0], out.x[k][1]), 0.5 + 1e-12);
  }
  EXPECT_EQ(per_layer[0], per_layer[1]);
  // Area of the disc grown by half a spacing (each ring of points stands for a band h wide).
  const double expected = M_PI * 0.525 * 0.525 / (0.05 * 0.05);
  EXPECT_NEAR(per_layer[0], expected, 0.03 * expected);
  // One point on the axis per layer.
  long on_axis = 0;
  for (const auto& x : out.x) on_axis += std::hypot(x[0], x[1]) < 1e-12 ? 1 : 0;
  EXPECT_EQ(on_axis, 2);
}

TEST(GeometryShell, RejectsBadInput) {
  g::ShellSpec s;
  s.rho0 = s.rho1 = 1;
  s.z1 = 1;
  EXPECT_THROW(g::sample_shell(s), std::invalid_argument);  // spacing 0
  s.spacing = 0.1;
  s.layers = 0;
  EXPECT_THROW(g::sample_shell(s), std::invalid_argument);
  s.layers = 1;
  s.rho0 = -1;
  EXPECT_THROW(g::sample_shell(s), std::invalid_argument);
  s.rho0 = 1;
  EXPECT_EQ(g::sample_shell(s).x.size(), 11u * static_cast<size_t>(std::lround(2 * M_PI / 0.1)));
}
