#pragma once
// Parameter declarations. Each component declares its parameters once (name, kind, unit, default,
// range, doc); the same declaration validates decks, fills defaults, applies --set, prints
// `meniscus check` and generates docs/input-reference.md.
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace meniscus::config {

class Schema;
using SchemaPtr = std::shared_ptr<const Schema>;

enum class Kind { Real, Integer, Bool, String, Choice, Vector, File, Section, List, VariantList, Names };

struct Param {
  std::string name;
  Kind kind = Kind::Real;
  std::string unit = "1";
  std::string doc;
  bool required = false;
  bool has_default = false;
  std::string default_text;                     // YAML text, e.g. "0.4", "[0, 1]", "slip"
  std::string default_text_3d;                  // vectors whose default differs in 3D
  // Vector of a rotation (an angular velocity): one number in 2D (about z), three components in 3D.
  bool rotation = false;
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;
  std::vector<std::string> choices;             // Choice
  SchemaPtr section;                            // Section / List item
  std::string discriminator;                    // VariantList: key that picks the item schema
  std::map<std::string, SchemaPtr> variants;    // VariantList

  // Builder verbs.
  Param& def(const std::string& yaml_text) { has_default = true; default_text = yaml_text; return *this; }
  Param& def(double v);
  Param& def_dim(const std::string& text_2d, const std::string& text_3d) {
    has_default = true; default_text = text_2d; default_text_3d = text_3d; return *this;
  }
  Param& min(double v, bool open = false) { lo = v; lo_open = open; return *this; }
  Param& max(double v, bool open = false) { hi = v; hi_open = open; return *this; }
  Param& positive() { return min(0.0, true); }
  Param& nonnegative() { return min(0.0); }
  Param& req() { required = true; return *this; }
  std::string kind_name() const;
};

class Schema {
 public:
  explicit Schema(std::string doc = "") : doc_(std::move(doc)) {}

  Param& real(const std::string& name, const std::string& unit, const std::string& doc);
  Param& integer(const std::string& name, const std::string& doc);
  Param& flag(const std::string& name, const std::string& doc);
  Param& text(const std::string& name, const std::string& doc);
  // A list of names, e.g. [velocity, mass]. With `choices`, every name must be one of them (checked
  // with the deck); without, what the names may be is checked by whoever reads it.
  Param& names(const std::string& name, const std::string& doc, std::vector<std::string> choices = {});
  Param& choice(const std::string& name, std::vector<std::string> choices, const std::string& doc);
  // A vector with one entry per space dimension of the deck.
  Param& vector(const std::string& name, const std::string& unit, const std::string& doc);
  // A rotation-like vector (Param::rotation): a number in 2D, one entry per axis in 3D.
  Param& rotation_vector(const std::string& name, const std::string& unit, const std::string& doc);
  // A path to an existing file, relative to the deck's folder.
  Param& file(const std::string& name, const std::string& doc);
  Param& section(const std::string& name, SchemaPtr s, const std::string& doc);
  Param& list(const std::string& name, SchemaPtr item, const std::string& doc);
  Param& variant_list(const std::string& name, const std::string& discriminator,
                      std::map<std::string, SchemaPtr> variants, const std::string& doc);

  // Adds every parameter of `other` (used to compose the root schema from components).
  void merge(const Schema& other);
  // Re-declares every parameter whose unit is a key of `to` in the unit it maps to, here and in every
  // section (sections are copied, since other schemas may share them). A method that works in another
  // unit system than the core sections (the membrane method, in CGS as Ruan et al. 2021) calls it on the
  // composed schema, so that `domain.cell_size: 2 mm` reads as 0.2 of its cm and `check` prints cm.
  void redeclare_units(const std::map<std::string, std::string>& to);

  const std::vector<Param>& params() const { return params_; }
  const Param* find(const std::string& name) const;
  const std::string& doc() const { return doc_; }

 private:
  Param& add(Param p);
  std::string doc_;
  std::vector<Param> params_;
};

// Markdown reference of a schema (the body of docs/input-reference.md).
std::string to_markdown(const Schema& root, const std::string& title, bool preamble = true);

}  // namespace meniscus::config
