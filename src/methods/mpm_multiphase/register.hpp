#pragma once
namespace meniscus::mpm_multiphase {
// Registers the multiphase MPM of Yan et al. 2018 (`mpm-multiphase`) with the method registry.
void register_methods();
}  // namespace meniscus::mpm_multiphase
