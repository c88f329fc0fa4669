#include "core/units.hpp"

#include <map>
#include <utility>
#include <vector>

namespace meniscus::units {
namespace {
using Table = std::map<std::string, std::vector<std::pair<std::string, double>>>;
const Table& table() {
  static const Table t = {
      {"m", {{"mm", 1e-3}, {"cm", 1e-2}, {"km", 1e3}, {"um", 1e-6}}},
      {"cm", {{"m", 1e2}, {"mm", 1e-1}, {"um", 1e-4}}},  // CGS methods (membrane)
      {"cm/s", {{"m/s", 1e2}, {"mm/s", 1e-1}}},
      {"s", {{"ms", 1e-3}, {"us", 1e-6}, {"min", 60.0}, {"h", 3600.0}}},
      {"min", {{"s", 1.0 / 60.0}, {"h", 60.0}}},
      {"kg", {{"g", 1e-3}}},
      {"Pa", {{"kPa", 1e3}, {"MPa", 1e6}, {"GPa", 1e9}}},
      {"kg/m^3", {{"g/cm^3", 1e3}, {"g/L", 1.0}}},
      {"Pa*s", {{"mPa*s", 1e-3}, {"cP", 1e-3}}},
      {"N/m", {{"mN/m", 1e-3}}},
      {"m/s", {{"mm/s", 1e-3}, {"cm/s", 1e-2}, {"km/h", 1.0 / 3.6}}},
      {"m/s^2", {}},
      {"1/s", {{"Hz", 1.0}}},
      {"K", {}},
      {"GiB", {{"MiB", 1.0 / 1024}, {"TiB", 1024.0}}},
      {"deg", {{"rad", 180.0 / 3.14159265358979323846}}},
  };
  return t;
}
}  // namespace

std::optional<double> factor(const std::string& declared, const std::string& given) {
  if (given == declared) return 1.0;
  auto it = table().find(declared);
  if (it == table().end()) return std::nullopt;
  for (const auto& [name, f] : it->second)
    if (name == given) return f;
  return std::nullopt;
}

std::string accepted(const std::string& declared) {
  if (declared == "1" || declared.empty()) return "a bare number (dimensionless)";
  std::string s = declared;
  auto it = table().find(declared);
  if (it != table().end())
    for (const auto& a : it->second) s += ", " + a.first;
  return s;
}

}  // namespace meniscus::units
