// The deck keys of particle output and checkpoints: the list of field names, unit strings for the
// wall-clock interval (minutes), and the errors that name the key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "run/deck_schema.hpp"

using meniscus::InputError;
namespace fs = std::filesystem;

namespace {

meniscus::run::LoadedDeck load(const std::string& tail) {
  const fs::path file = fs::temp_directory_path() / ("meniscus_output_keys_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << "simulation: {dimension: 2, method: mpm, end_time: 0.1}\n"
                         "domain: {lower: [0, 0], upper: [0.1, 0.1], cell_size: 0.005}\n"
                         "materials: [{name: water, model: fluid, density: 1000, bulk_modulus: 2.0e5}]\n"
                         "sources: [{type: box, material: water, lower: [0.01, 0.01], upper: [0.05, 0.05]}]\n"
                      << tail;
  auto d = meniscus::run::load_deck(file.string(), {});
  fs::remove(file);
  return d;
}

}  // namespace

TEST(OutputKeys, DefaultsWriteNothingAndKeepTwoCheckpoints) {
  const auto d = load("");
  const auto out = d.deck.root().section("output");
  EXPECT_EQ(out.integer("every"), 0);
  EXPECT_EQ(out.real("every_time"), 0.0);
  EXPECT_TRUE(out.names("fields").empty());
  EXPECT_FALSE(out.flag("grid"));
  const auto chk = d.deck.root().section("checkpoint");
  EXPECT_EQ(chk.integer("every"), 0);
  EXPECT_EQ(chk.real("every_minutes"), 0.0);
  EXPECT_EQ(chk.integer("keep"), 2);
}

TEST(OutputKeys, ReadsFieldNamesAndUnits) {
  const auto d = load("output: {every_time: \"20 ms\", fields: [velocity, id]}\n"
                      "checkpoint: {every_minutes: \"2 h\", keep: 3}\n");
  EXPECT_DOUBLE_EQ(d.deck.root().section("output").real("every_time"), 0.02);
  EXPECT_EQ(d.deck.root().section("output").names("fields"), (std::vector<std::string>{"velocity", "id"}));
  EXPECT_DOUBLE_EQ(d.deck.root().section("checkpoint").real("every_minutes"), 120.0);
}

TEST(OutputKeys, ErrorsNameTheKey) {
  struct Case {
    std::string tail, key, word;
  };
  const std::vector<Case> cases = {
      {"output: {fields: velocity}\n", "output.fields", "expected a list of names"},
      {"output: {fields: [velocity, {a: 1}]}\n", "output.fields[1]", "expected a name"},
      {"output: {every: -1}\n", "output.every", "out of range"},
      {"checkpoint: {keep: 0}\n", "checkpoint.keep", "out of range"},
      {"checkpoint: {every_minutes: \"5 kg\"}\n", "checkpoint.every_minutes", "wrong unit"},
  };
  for (const auto& c : cases) {
    try {
      load(c.tail);
      ADD_FAILURE() << "no error for " << c.tail;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), c.key) << e.what();
      EXPECT_NE(e.reason().find(c.word), std::string::npos) << e.what();
    }
  }
}
