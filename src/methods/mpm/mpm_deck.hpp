#pragma once
// Deck sections of the MPM methods: `mpm` (time stepping, transfers) and `materials`.
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "physics/material.hpp"

namespace meniscus::mpm {

void declare_mpm_sections(config::Schema& root);

struct MaterialTable {
  std::vector<std::string> names;
  std::vector<physics::Material> materials;
};
MaterialTable read_materials(const config::Section& root);

}  // namespace meniscus::mpm
