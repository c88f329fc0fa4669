#include "geometry/shell.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace meniscus::geometry {

ShellSamples sample_shell(const ShellSpec& s) {
  if (!(s.spacing > 0)) throw std::invalid_argument("the shell's spacing must be positive");
  if (s.layers < 1) throw std::invalid_argument("a shell needs at least one layer");
  if (s.rho0 < 0 || s.rho1 < 0) throw std::invalid_argument("the profile's distances from the axis must be >= 0");
  const double h = s.spacing;
  const double dr = s.rho1 - s.rho0, dz = s.z1 - s.z0;
  const double len = std::hypot(dr, dz);
  // Unit normal of the profile in the (rho, z) plane; a single ring (len = 0) stacks its layers radially.
  const double nr = len > 0 ? dz / len : 1.0, nz = len > 0 ? -dr / len : 0.0;
  const int rows = len > 0 ? std::max(1, static_cast<int>(std::lround(len / h))) + 1 : 1;
  ShellSamples out;
  out.rows = rows;
  for (int row = 0; row < rows; ++row) {
    const double f = rows > 1 ? static_cast<double>(row) / (rows - 1) : 0.0;
    const double rho = s.rho0 + f * dr, z = s.z0 + f * dz;
    const bool shifted = ((row & 1) != 0) != s.shift_first_row;
    for (int k = 0; k < s.layers; ++k) {
      const double o = (k - 0.5 * (s.layers - 1)) * h;
      const double rk = rho + o * nr, zk = z + o * nz;
      if (rk < 0.25 * h) {  // on the axis: one point (a layer of a disc's centre)
        out.x.push_back({s.center[0], s.center[1], s.center[2] + zk});
        out.layer.push_back(k);
        continue;
      }
      const int n = std::max(1, static_cast<int>(std::lround(2 * M_PI * rk / h)));
      for (int a = 0; a < n; ++a) {
        const double th = 2 * M_PI * (a + (shifted ? 0.5 : 0.0)) / n;
        out.x.push_back({s.center[0] + rk * std::cos(th), s.center[1] + rk * std::sin(th), s.center[2] + zk});
        out.layer.push_back(k);
      }
    }
  }
  return out;
}

}  // namespace meniscus::geometry
