#pragma once
namespace meniscus::sph {
// Registers the SPH methods (sph-jeske2023) with the method registry.
void register_methods();
}  // namespace meniscus::sph
