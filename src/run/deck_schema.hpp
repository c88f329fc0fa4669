#pragma once
// The root deck schema: the driver's own sections plus whatever the chosen method declares.
#include <string>

#include "core/deck.hpp"
#include "core/schema.hpp"

namespace meniscus::run {

// Sections every deck has, whatever the method (simulation, domain, output, diagnostics, progress, petsc).
void declare_core_sections(config::Schema& root, const std::string& method_names);

// Reads `file` with --set overrides, finds the dimension and method, and validates the whole deck
// against the core sections plus the method's. Throws InputError.
struct LoadedDeck {
  config::Deck deck;
  config::Schema schema;
  std::string method;
};
LoadedDeck load_deck(const std::string& file, const std::vector<std::string>& overrides);

// docs/input-reference.md: every method's sections.
std::string reference_markdown();

}  // namespace meniscus::run
