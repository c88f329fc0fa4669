#pragma once
namespace meniscus::pbd {
// Registers the position-based method (pbd-xing2022) with the method registry.
void register_methods();
}  // namespace meniscus::pbd
