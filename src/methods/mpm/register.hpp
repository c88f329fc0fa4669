#pragma once
namespace meniscus::mpm {
// Registers the MPM methods (mpm-explicit) with the method registry.
void register_methods();
}  // namespace meniscus::mpm
