#pragma once
namespace meniscus::membrane {
// Registers the liquid-membrane method (membrane-ruan2021) with the method registry.
void register_methods();
}  // namespace meniscus::membrane
