#pragma once
namespace meniscus::mpm {
// Registers the MPM method (`mpm`, alias `mpm-explicit`) with the method registry.
void register_methods();
}  // namespace meniscus::mpm
