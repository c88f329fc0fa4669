#pragma once
// How finely an MPM deck resolves the contact angle it asks for. A drop of volume V resting on a wall
// with Young's angle theta is a spherical cap (a circular segment in 2D): flat at small angles, with a
// small footprint at large ones. Measured on 2D drops of R = 0.15 m spreading from 107.5 deg to 20 deg
// (docs/theory-mpm-surface-tension.md): a cap 2.4 cells high stops 10 deg short of its angle, 3.2
// cells high within 3 deg; in 3D a 20 deg cap 1.3 cells high stops at 36 deg and a 160 deg cap with
// one cell of contact radius spreads to 144 deg, where 2.6 cells hold 2D drops within 5 deg.
// `meniscus check` and `run` print one warning per drop and wetting collider that fall short.
#include <string>
#include <vector>

#include "core/deck.hpp"

namespace meniscus::run {

// Cells a sessile cap needs across its height, and across its contact radius (large angles).
constexpr double kMinCapHeightCells = 3.0;
constexpr double kMinContactRadiusCells = 2.0;

struct SessileCap {
  double height = 0;          // wall to apex
  double contact_radius = 0;  // half the contact width (2D)
};

// The cap of a drop of `volume` (2D: area) with contact angle theta (radians, 0 < theta < pi).
SessileCap sessile_cap(double volume, double theta, int dim);

// One warning per (sphere or ellipsoid source, wetting collider) whose cap at the collider's contact
// angle is under-resolved on the deck's grid. Empty for decks without MPM surface tension.
std::vector<std::string> contact_angle_resolution_warnings(const config::Section& root, int dim);

}  // namespace meniscus::run
