// Deck validation: defaults, unit strings, every class of input error (with the key path it names),
// --set overrides, JSON and Markdown output, and the full deck of a method through run::load_deck.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/error.hpp"
#include "core/schema.hpp"
#include "methods/method.hpp"
#include "run/deck_schema.hpp"

namespace cfg = meniscus::config;
namespace fs = std::filesystem;
using meniscus::InputError;

namespace {

// A small schema with one parameter of every kind: a section, a plain list and a variant list.
std::shared_ptr<cfg::Schema> small_schema() {
  auto root = std::make_shared<cfg::Schema>("test root");

  auto box = std::make_shared<cfg::Schema>("a box");
  box->real("length", "m", "edge length").req().positive();
  box->real("pressure", "Pa", "pressure inside").def(101325.0).nonnegative();
  box->real("cfl", "1", "a number in (0, 1]").def(0.4).min(0.0, true).max(1.0);
  box->integer("count", "how many").def("3").min(1);
  box->flag("enabled", "on or off").def("true");
  box->text("label", "a name").def("plain");
  box->choice("walls", {"slip", "sticky"}, "boundary").def("slip");
  box->vector("origin", "m", "corner").def_dim("[0, 0]", "[0, 0, 0]");
  root->section("box", box, "a section");

  auto layer = std::make_shared<cfg::Schema>("a layer");
  layer->real("thickness", "m", "thickness").req().positive();
  root->list("layers", layer, "plain list");

  auto sphere = std::make_shared<cfg::Schema>("a sphere");
  sphere->text("type", "kind").req();
  sphere->real("radius", "m", "radius").req().positive();
  sphere->vector("center", "m", "centre").def_dim("[0, 0]", "[0, 0, 0]");
  auto mesh = std::make_shared<cfg::Schema>("a mesh");
  mesh->text("type", "kind").req();
  mesh->file("file", "OBJ file").req();
  root->variant_list("shapes", "type", {{"sphere", sphere}, {"mesh", mesh}}, "variant list");
  return root;
}

cfg::Deck resolve(const std::string& yaml, int dim = 2, const std::string& file = "deck.yaml") {
  static const auto schema = small_schema();
  return cfg::Deck::resolve(file, YAML::Load(yaml), *schema, dim);
}

// Runs `f`, expects an InputError naming `key` whose reason contains `word`.
void expect_input_error(const std::function<void()>& f, const std::string& key, const std::string& word) {
  try {
    f();
    ADD_FAILURE() << "no InputError thrown; expected key '" << key << "' with '" << word << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), key) << e.what();
    EXPECT_NE(e.reason().find(word), std::string::npos) << "reason '" << e.reason() << "' lacks '" << word << "'";
    EXPECT_NE(std::string(e.what()).find(e.reason()), std::string::npos) << e.what();
  }
}

void expect_resolve_error(const std::string& yaml, const std::string& key, const std::string& word, int dim = 2) {
  SCOPED_TRACE(yaml);
  expect_input_error([&] { resolve(yaml, dim); }, key, word);
}

// A scratch folder per test, removed afterwards.
class DeckFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("meniscus_deck_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

// A complete, valid 2D mpm-explicit deck; `extra` is appended (further top-level sections).
std::string mpm_deck(const std::string& domain_extra = "", const std::string& tail = "") {
  return "simulation:\n"
         "  dimension: 2\n"
         "  method: mpm\n"
         "  end_time: 0.1\n"
         "domain:\n"
         "  lower: [0, 0]\n"
         "  upper: [0.1, 0.1]\n"
         "  cell_size: \"5 mm\"\n" +
         domain_extra +
         "materials:\n"
         "  - name: water\n"
         "    model: fluid\n"
         "    density: 1000\n"
         "    bulk_modulus: \"225 kPa\"\n"
         "sources:\n"
         "  - type: box\n"
         "    material: water\n"
         "    lower: [0.01, 0.01]\n"
         "    upper: [0.05, 0.05]\n" +
         tail;
}

}  // namespace

// ---- defaults and units ---------------------------------------------------------------------------

TEST(Deck, FillsDefaults) {
  const auto d = resolve("box: {length: 1}");
  const auto box = d.root().section("box");
  EXPECT_DOUBLE_EQ(box.real("length"), 1.0);
  EXPECT_DOUBLE_EQ(box.real("pressure"), 101325.0);
  EXPECT_DOUBLE_EQ(box.real("cfl"), 0.4);
  EXPECT_EQ(box.integer("count"), 3);
  EXPECT_TRUE(box.flag("enabled"));
  EXPECT_EQ(box.text("label"), "plain");
  EXPECT_EQ(box.text("walls"), "slip");
  EXPECT_EQ(box.vector("origin"), (std::vector<double>{0, 0}));
  // Absent lists resolve to empty lists.
  EXPECT_TRUE(d.root().list("layers").empty());
  EXPECT_TRUE(d.root().list("shapes").empty());
  EXPECT_EQ(d.dimension(), 2);
  EXPECT_EQ(d.file(), "deck.yaml");
}

TEST(Deck, DefaultsFollowTheDimension) {
  const auto d = resolve("box: {length: 1}\nshapes: [{type: sphere, radius: 0.5}]", 3);
  EXPECT_EQ(d.root().section("box").vector("origin"), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(d.root().list("shapes")[0].vector("center"), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(d.root().list("shapes")[0].key_path("radius"), "shapes[0].radius");
}

TEST(Deck, KeepsGivenValues) {
  const auto d = resolve(
      "box: {length: 2, pressure: 5, cfl: 1, count: 7, enabled: false, label: x, walls: sticky, origin: [1, 2]}\n"
      "layers: [{thickness: 0.5}, {thickness: 0.25}]");
  const auto box = d.root().section("box");
  EXPECT_DOUBLE_EQ(box.real("cfl"), 1.0);  // the closed end of the range
  EXPECT_EQ(box.integer("count"), 7);
  EXPECT_FALSE(box.flag("enabled"));
  EXPECT_EQ(box.text("label"), "x");
  EXPECT_EQ(box.text("walls"), "sticky");
  EXPECT_EQ(box.vector("origin"), (std::vector<double>{1, 2}));
  ASSERT_EQ(d.root().list("layers").size(), 2u);
  EXPECT_DOUBLE_EQ(d.root().list("layers")[1].real("thickness"), 0.25);
}

TEST(Deck, ConvertsUnitStringsToSI) {
  const auto d = resolve("box: {length: \"2 mm\", pressure: \"3 kPa\", origin: [\"1 cm\", \"2 km\"]}");
  const auto box = d.root().section("box");
  EXPECT_DOUBLE_EQ(box.real("length"), 0.002);
  EXPECT_DOUBLE_EQ(box.real("pressure"), 3000.0);
  const auto o = box.vector("origin");
  EXPECT_DOUBLE_EQ(o[0], 0.01);
  EXPECT_DOUBLE_EQ(o[1], 2000.0);
  // The declared SI unit itself is accepted as well.
  EXPECT_DOUBLE_EQ(resolve("box: {length: \"0.5 m\"}").root().section("box").real("length"), 0.5);
  EXPECT_DOUBLE_EQ(resolve("box: {length: 1, pressure: \"7 MPa\"}").root().section("box").real("pressure"), 7e6);
}

// A method in CGS re-declares the core keys' units (Schema::redeclare_units): lengths read as cm, the
// shared sections of other schemas keep their SI units.
TEST(Deck, RedeclaredUnitsConvertToTheMethodsUnits) {
  const auto si = small_schema();
  cfg::Schema cgs = *si;
  cgs.redeclare_units({{"m", "cm"}});
  const auto d = cfg::Deck::resolve("deck.yaml", YAML::Load("box: {length: \"2 mm\", origin: [\"1 m\", 3]}"), cgs, 2);
  EXPECT_DOUBLE_EQ(d.root().section("box").real("length"), 0.2);
  EXPECT_DOUBLE_EQ(d.root().section("box").vector("origin")[0], 100.0);
  EXPECT_DOUBLE_EQ(d.root().section("box").vector("origin")[1], 3.0);
  EXPECT_EQ(cgs.find("box")->section->find("length")->unit, "cm");
  EXPECT_EQ(cgs.find("shapes")->variants.at("sphere")->find("radius")->unit, "cm");
  EXPECT_EQ(si->find("box")->section->find("length")->unit, "m");
  EXPECT_DOUBLE_EQ(resolve("box: {length: \"2 mm\"}").root().section("box").real("length"), 0.002);
}

// ---- error classes --------------------------------------------------------------------------------

TEST(Deck, UnknownKeySuggestsTheNearestName) {
  expect_resolve_error("box: {length: 1, lenght: 2}", "box.lenght", "unknown key");
  expect_resolve_error("box: {length: 1, lenght: 2}", "box.lenght", "did you mean 'length'");
  expect_resolve_error("bx: {length: 1}", "bx", "did you mean 'box'");
  // Far from every name: no hint, but the list of known keys.
  expect_resolve_error("box: {length: 1, zzzzzzzz: 2}", "box.zzzzzzzz", "known keys here: length, pressure");
  expect_resolve_error("box: {length: 1}\nshapes: [{type: sphere, radius: 1, radiuss: 2}]", "shapes[0].radiuss", "did you mean 'radius'");
}

TEST(Deck, WrongTypeNamesTheKey) {
  expect_resolve_error("box: {length: abc}", "box.length", "expected a number");
  expect_resolve_error("box: {length: [1, 2]}", "box.length", "got a list");
  expect_resolve_error("box: {length: 1, count: 2.5}", "box.count", "expected an integer");
  expect_resolve_error("box: {length: 1, count: many}", "box.count", "expected a number");
  expect_resolve_error("box: {length: 1, enabled: maybe}", "box.enabled", "true or false");
  expect_resolve_error("box: {length: 1, label: {a: 1}}", "box.label", "expected a string");
  expect_resolve_error("box: 5", "box", "expected a map");
  expect_resolve_error("box: {length: 1}\nlayers: {thickness: 1}", "layers", "expected a list");
  expect_resolve_error("box: {length: 1}\nlayers: [5]", "layers[0]", "expected a map");
  expect_resolve_error("box: {length: 1, origin: 3}", "box.origin", "expected a list of 2 numbers");
  expect_resolve_error("box: {length: 1, origin: [0, ~]}", "box.origin[1]", "expected a number");
}

TEST(Deck, MissingRequiredKey) {
  expect_resolve_error("box: {pressure: 1}", "box.length", "missing required key");
  expect_resolve_error("box: {}", "box.length", "missing required key");
  // A required key of a section that is absent altogether is still reported.
  expect_resolve_error("layers: []", "box.length", "missing required key");
  expect_resolve_error("box: {length: 1}\nlayers: [{}]", "layers[0].thickness", "missing required key");
  expect_resolve_error("box: {length: 1}\nshapes: [{radius: 1}]", "shapes[0]", "missing required key 'type'");
  // An explicit null counts as absent.
  expect_resolve_error("box: {length: ~}", "box.length", "missing required key");
}

TEST(Deck, OutOfRangeValues) {
  expect_resolve_error("box: {length: 0}", "box.length", "out of range");
  expect_resolve_error("box: {length: -1}", "box.length", "out of range (0, inf]");
  expect_resolve_error("box: {length: 1, cfl: 3}", "box.cfl", "out of range (0, 1]");
  expect_resolve_error("box: {length: 1, cfl: 0}", "box.cfl", "out of range");
  expect_resolve_error("box: {length: 1, pressure: \"-1 kPa\"}", "box.pressure", "value -1000 is out of range");
  expect_resolve_error("box: {length: 1, count: 0}", "box.count", "out of range");
  expect_resolve_error("box: {length: 1, count: 1e30}", "box.count", "out of range");
  EXPECT_NO_THROW(resolve("box: {length: 1, pressure: 0}"));  // closed lower end
}

TEST(Deck, NonFiniteValues) {
  for (const std::string v : {".nan", ".NaN", "nan", ".inf", "-.inf", ".Inf", "inf"}) {
    SCOPED_TRACE(v);
    expect_resolve_error("box: {length: 1, pressure: " + v + "}", "box.pressure", "not a finite number");
  }
  expect_resolve_error("box: {length: 1, origin: [0, .nan]}", "box.origin[1]", "not a finite number");
  expect_resolve_error("box: {length: 1, origin: [.inf, 0]}", "box.origin[0]", "not a finite number");
}

TEST(Deck, WrongUnit) {
  expect_resolve_error("box: {length: \"2 kg\"}", "box.length", "wrong unit 'kg'");
  expect_resolve_error("box: {length: \"2 kg\"}", "box.length", "expected m, mm, cm");
  expect_resolve_error("box: {length: 1, pressure: \"2 mm\"}", "box.pressure", "wrong unit 'mm'");
  expect_resolve_error("box: {length: 1, cfl: \"0.5 m\"}", "box.cfl", "dimensionless");
  expect_resolve_error("box: {length: 1, origin: [\"1 s\", 0]}", "box.origin[0]", "wrong unit 's'");
}

TEST(Deck, VectorOfTheWrongLength) {
  expect_resolve_error("box: {length: 1, origin: [1, 2, 3]}", "box.origin", "expected 2 components");
  expect_resolve_error("box: {length: 1, origin: [1, 2]}", "box.origin", "expected 3 components", 3);
  expect_resolve_error("box: {length: 1}\nshapes: [{type: sphere, radius: 1, center: [1]}]", "shapes[0].center",
                       "dimension is 2");
}

TEST(Deck, UnknownChoice) {
  expect_resolve_error("box: {length: 1, walls: slippery}", "box.walls", "unknown value 'slippery'");
  expect_resolve_error("box: {length: 1, walls: slippery}", "box.walls", "expected one of: slip, sticky");
}

TEST(Deck, UnknownVariant) {
  expect_resolve_error("box: {length: 1}\nshapes: [{type: sphere, radius: 1}, {type: cylinder, radius: 1}]",
                       "shapes[1].type", "unknown value 'cylinder'");
  expect_resolve_error("box: {length: 1}\nshapes: [{type: cylinder}]", "shapes[0].type", "expected one of: mesh, sphere");
  // The chosen variant's schema applies: a sphere has no `file`.
  expect_resolve_error("box: {length: 1}\nshapes: [{type: sphere, radius: 1, file: a.obj}]", "shapes[0].file",
                       "unknown key");
}

TEST_F(DeckFiles, DeckFileResolvesRelativeFiles) {
  write("part.obj", "v 0 0 0\n");
  const std::string deck = (dir_ / "scene.yaml").string();
  const auto d = cfg::Deck::resolve(deck, YAML::Load("box: {length: 1}\nshapes: [{type: mesh, file: part.obj}]"),
                                    *small_schema(), 3);
  const fs::path resolved = d.root().list("shapes")[0].text("file");
  EXPECT_TRUE(resolved.is_absolute());
  EXPECT_TRUE(fs::equivalent(resolved, dir_ / "part.obj"));
}

TEST_F(DeckFiles, MissingFile) {
  const std::string deck = (dir_ / "scene.yaml").string();
  auto schema = small_schema();
  expect_input_error(
      [&] {
        cfg::Deck::resolve(deck, YAML::Load("box: {length: 1}\nshapes: [{type: mesh, file: missing.obj}]"), *schema, 3);
      },
      "shapes[0].file", "file not found");
  // A folder is not a file, and the message says so (not "not found").
  fs::create_directories(dir_ / "folder.obj");
  expect_input_error(
      [&] {
        cfg::Deck::resolve(deck, YAML::Load("box: {length: 1}\nshapes: [{type: mesh, file: folder.obj}]"), *schema, 3);
      },
      "shapes[0].file", "is a directory, not a file");
}

// ---- --set overrides ------------------------------------------------------------------------------

TEST(Deck, OverrideNestedMapPath) {
  YAML::Node raw = YAML::Load("box: {length: 1}");
  cfg::apply_override(raw, "box.pressure=\"2 kPa\"", "deck.yaml");
  cfg::apply_override(raw, "box.length=3", "deck.yaml");
  cfg::apply_override(raw, "box.origin=[1, 2]", "deck.yaml");
  // A section that the deck leaves out is created.
  cfg::apply_override(raw, "extra.inner.value=5", "deck.yaml");
  EXPECT_EQ(raw["extra"]["inner"]["value"].as<int>(), 5);
  raw.remove("extra");
  const auto box = cfg::Deck::resolve("deck.yaml", raw, *small_schema(), 2).root().section("box");
  EXPECT_DOUBLE_EQ(box.real("pressure"), 2000.0);
  EXPECT_DOUBLE_EQ(box.real("length"), 3.0);
  EXPECT_EQ(box.vector("origin"), (std::vector<double>{1, 2}));
}

TEST(Deck, OverrideListIndex) {
  YAML::Node raw = YAML::Load("box: {length: 1}\nshapes: [{type: sphere, radius: 1}, {type: sphere, radius: 2}]");
  cfg::apply_override(raw, "shapes[1].radius=0.1", "deck.yaml");
  cfg::apply_override(raw, "shapes.0.radius=0.3", "deck.yaml");  // dotted index works too
  const auto shapes = cfg::Deck::resolve("deck.yaml", raw, *small_schema(), 2).root().list("shapes");
  EXPECT_DOUBLE_EQ(shapes[0].real("radius"), 0.3);
  EXPECT_DOUBLE_EQ(shapes[1].real("radius"), 0.1);
  // The value is YAML, so an override can also make a value invalid; resolve reports it.
  cfg::apply_override(raw, "shapes[0].radius=abc", "deck.yaml");
  expect_input_error([&] { cfg::Deck::resolve("deck.yaml", raw, *small_schema(), 2); }, "shapes[0].radius",
                     "expected a number");
}

TEST(Deck, MalformedOverrides) {
  YAML::Node raw = YAML::Load("box: {length: 1}\nshapes: [{type: sphere, radius: 1}]\nname: x");
  auto set = [&](const std::string& a) { return [&raw, a] { cfg::apply_override(raw, a, "deck.yaml"); }; };
  expect_input_error(set("box.length"), "box.length", "key.path=value");
  expect_input_error(set("=3"), "=3", "key.path=value");
  expect_input_error(set(".=3"), ".", "key.path=value");
  expect_input_error(set("[]=3"), "[]", "key.path=value");
  expect_input_error(set("box.length=[1"), "box.length", "not valid YAML");
  expect_input_error(set("shapes[3].radius=1"), "shapes[3].radius", "does not index an existing list entry");
  expect_input_error(set("shapes[99999999999999999999].radius=1"), "shapes[99999999999999999999].radius",
                     "does not index");
  expect_input_error(set("box[0]=1"), "box[0]", "does not index");
  expect_input_error(set("shapes.radius=1"), "shapes.radius", "not inside a map");
  expect_input_error(set("name.first=1"), "name.first", "not inside a map");
  // Nothing above changed the tree.
  EXPECT_EQ(raw["shapes"].size(), 1u);
  EXPECT_EQ(raw["name"].as<std::string>(), "x");
}

// ---- output ---------------------------------------------------------------------------------------

TEST(Deck, ToJson) {
  EXPECT_EQ(cfg::to_json(YAML::Load("{a: 1, b: [x, true, -2.5e-3], c: {d: \"say \\\"hi\\\"\"}, e: ~}")),
            "{\"a\":1,\"b\":[\"x\",true,-2.5e-3],\"c\":{\"d\":\"say \\\"hi\\\"\"},\"e\":null}");
  // Texts that iostreams would read as numbers but JSON does not accept stay strings; control
  // characters are escaped.
  EXPECT_EQ(cfg::to_json(YAML::Load("[\"1.\", \".5\", \"+5\", \"01\", \"nan\", \"a\\tb\\nc\", 0, -0.5]")),
            "[\"1.\",\".5\",\"+5\",\"01\",\"nan\",\"a\\u0009b\\nc\",0,-0.5]");
  // A resolved deck round-trips its numbers exactly.
  const auto d = resolve("box: {length: \"2 mm\", origin: [0.1, 3]}");
  const std::string json = cfg::to_json(d.resolved());
  EXPECT_NE(json.find("\"length\":0.002"), std::string::npos) << json;
  EXPECT_NE(json.find("\"origin\":[0.1,3]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"enabled\":true"), std::string::npos) << json;
  EXPECT_NE(json.find("\"shapes\":[]"), std::string::npos) << json;
}

TEST(Deck, MarkdownListsEveryParameter) {
  const auto schema = small_schema();
  const std::string md = cfg::to_markdown(*schema, "Test reference");
  EXPECT_EQ(md.rfind("# Test reference", 0), 0u);
  for (const std::string key : {"box.length", "box.pressure", "box.cfl", "box.count", "box.enabled", "box.label",
                                "box.walls", "box.origin", "layers[].thickness", "shapes[].type", "shapes[].radius",
                                "shapes[].center", "shapes[].file"})
    EXPECT_NE(md.find("`" + key + "`"), std::string::npos) << key;
  EXPECT_NE(md.find("**required**"), std::string::npos);
  EXPECT_NE(md.find("`slip`, `sticky`"), std::string::npos);
  EXPECT_NE(md.find("(0, 1]"), std::string::npos);
  EXPECT_NE(md.find("with `type: mesh`"), std::string::npos);
  EXPECT_NE(md.find("(3D: `[0, 0, 0]`)"), std::string::npos);
}

TEST(Deck, DescribeListsResolvedKeys) {
  const auto d = resolve("box: {length: \"2 mm\"}\nshapes: [{type: sphere, radius: 1}]");
  const std::string text = d.describe(*small_schema());
  EXPECT_NE(text.find("box.length"), std::string::npos);
  EXPECT_NE(text.find("0.002 m"), std::string::npos) << text;
  EXPECT_NE(text.find("shapes[0].radius"), std::string::npos);
}

TEST(Deck, ReferenceMarkdownCoversTheMethods) {
  const std::string md = meniscus::run::reference_markdown();
  for (const std::string key : {"mpm.cfl", "sources[].particles_per_cell", "simulation.method", "domain.cell_size",
                                "materials[].density"})
    EXPECT_NE(md.find("`" + key + "`"), std::string::npos) << key;
  EXPECT_NE(md.find("Method `mpm`"), std::string::npos);
}

// ---- whole decks through run::load_deck -----------------------------------------------------------

// Decks written before the MPM method was renamed say `mpm-explicit`: it still loads, as `mpm`.
TEST_F(DeckFiles, OldMethodNameIsAnAlias) {
  std::string text = mpm_deck();
  const auto at = text.find("method: mpm");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 11, "method: mpm-explicit");
  const auto loaded = meniscus::run::load_deck(write("alias.yaml", text), {});
  EXPECT_EQ(loaded.method, "mpm");
  EXPECT_EQ(meniscus::find_method("mpm-explicit"), meniscus::find_method("mpm"));
  const auto names = meniscus::method_names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "mpm-explicit"), 0);
}

TEST_F(DeckFiles, LoadDeckResolvesAValidDeck) {
  const std::string file = write("ok.yaml", mpm_deck());
  const auto loaded = meniscus::run::load_deck(file, {});
  EXPECT_EQ(loaded.method, "mpm");
  EXPECT_EQ(loaded.deck.dimension(), 2);
  EXPECT_EQ(loaded.deck.file(), file);
  const auto root = loaded.deck.root();
  EXPECT_DOUBLE_EQ(root.section("domain").real("cell_size"), 0.005);
  EXPECT_DOUBLE_EQ(root.section("mpm").real("cfl"), 0.4);
  EXPECT_EQ(root.section("mpm").vector("gravity"), (std::vector<double>{0, -9.81}));
  EXPECT_DOUBLE_EQ(root.list("materials")[0].real("bulk_modulus"), 225000.0);
  EXPECT_EQ(root.list("sources")[0].integer("particles_per_cell"), 4);
  EXPECT_NE(loaded.deck.describe(loaded.schema).find("mpm.cfl"), std::string::npos);
}

TEST_F(DeckFiles, LoadDeckAppliesOverrides) {
  const std::string file = write("ok.yaml", mpm_deck());
  const auto loaded = meniscus::run::load_deck(
      file, {"mpm.cfl=0.25", "sources[0].particles_per_cell=9", "simulation.dimension=3", "domain.lower=[0, 0, 0]",
             "domain.upper=[0.1, 0.1, 0.1]", "sources[0].lower=[0.01, 0.01, 0.01]", "sources[0].upper=[0.05, 0.05, 0.05]"});
  EXPECT_EQ(loaded.deck.dimension(), 3);
  EXPECT_DOUBLE_EQ(loaded.deck.root().section("mpm").real("cfl"), 0.25);
  EXPECT_EQ(loaded.deck.root().list("sources")[0].integer("particles_per_cell"), 9);
  EXPECT_EQ(loaded.deck.root().section("mpm").vector("gravity"), (std::vector<double>{0, -9.81, 0}));
}

TEST_F(DeckFiles, LoadDeckErrors) {
  struct Case {
    std::string name, text, key, word;
    std::vector<std::string> sets;
  };
  const std::vector<Case> cases = {
      {"unknown_key", mpm_deck("", "mpm:\n  cfll: 0.3\n"), "mpm.cfll", "did you mean 'cfl'", {}},
      {"unknown_section", mpm_deck("", "outptu:\n  directory: x\n"), "outptu", "did you mean 'output'", {}},
      {"wrong_type", mpm_deck(), "domain.cell_size", "expected a number", {"domain.cell_size=small"}},
      {"map_for_list", mpm_deck(), "sources", "expected a list", {"sources={type: box}"}},
      {"out_of_range", mpm_deck(), "mpm.cfl", "out of range", {"mpm.cfl=3"}},
      {"nan", mpm_deck(), "domain.cell_size", "not a finite number", {"domain.cell_size=.nan"}},
      {"wrong_unit", mpm_deck(), "domain.cell_size", "wrong unit", {"domain.cell_size=\"2 kg\""}},
      {"vector_length", mpm_deck(), "domain.upper", "expected 2 components", {"domain.upper=[1, 1, 1]"}},
      {"unknown_choice", mpm_deck("  walls: bouncy\n"), "domain.walls", "unknown value 'bouncy'", {}},
      {"unknown_name_in_list", mpm_deck(), "domain.periodic[1]", "unknown value 'w'", {"domain.periodic=[x, w]"}},
      {"unknown_variant", mpm_deck(), "sources[0].type", "unknown value 'cylinder'", {"sources[0].type=cylinder"}},
      {"unknown_material_model", mpm_deck(), "materials[0].model", "unknown value 'gel'", {"materials[0].model=gel"}},
      {"unknown_method", mpm_deck(), "simulation.method", "unknown method 'sph'", {"simulation.method=sph"}},
      {"bad_dimension", mpm_deck(), "simulation.dimension", "out of range", {"simulation.dimension=4"}},
      {"no_simulation", "domain: {}\n", "simulation", "missing required section", {}},
      {"missing_cell_size", "simulation: {dimension: 2, method: mpm, end_time: 1}\n"
                            "domain: {lower: [0, 0], upper: [1, 1]}\n",
       "domain.cell_size", "missing required key", {}},
      {"missing_end_time", "simulation: {dimension: 2, method: mpm}\n", "simulation.end_time",
       "missing required key", {}},
      {"missing_mesh", mpm_deck(), "sources[0].file", "file not found",
       {"simulation.dimension=3", "domain.lower=[0, 0, 0]", "domain.upper=[1, 1, 1]",
        "sources[0]={type: mesh, material: water, file: missing.obj}"}},
      {"bad_set", mpm_deck(), "mpm.cfl", "key.path=value", {"mpm.cfl"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file = write(c.name + ".yaml", c.text);
    try {
      meniscus::run::load_deck(file, c.sets);
      ADD_FAILURE() << c.name << ": no InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), file);
      EXPECT_EQ(e.key(), c.key) << e.what();
      EXPECT_NE(e.reason().find(c.word), std::string::npos) << e.what();
      // The message the app prints names file, key and reason.
      EXPECT_EQ(std::string(e.what()), file + ": " + c.key + ": " + e.reason());
    }
  }
}

TEST_F(DeckFiles, LoadDeckFileErrors) {
  const std::string missing = (dir_ / "nope.yaml").string();
  expect_input_error([&] { meniscus::run::load_deck(missing, {}); }, "", "deck file not found");
  const std::string bad_yaml = write("bad.yaml", "simulation:\n  dimension: [2\n  method: x\n");
  expect_input_error([&] { meniscus::run::load_deck(bad_yaml, {}); }, "", "not valid YAML");
  const std::string scalar = write("scalar.yaml", "just text\n");
  expect_input_error([&] { meniscus::run::load_deck(scalar, {}); }, "", "must be a map");
  const std::string empty = write("empty.yaml", "");
  expect_input_error([&] { meniscus::run::load_deck(empty, {}); }, "", "must be a map");
}
