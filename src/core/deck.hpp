#pragma once
// An input deck: the user's YAML, --set overrides applied, validated against a Schema, defaults
// filled in and every quantity converted to SI. Section gives typed read access by key.
#include <yaml-cpp/yaml.h>

#include <array>
#include <string>
#include <vector>

#include "core/schema.hpp"

namespace meniscus::config {

class Section {
 public:
  Section() = default;
  Section(YAML::Node node, std::string path, std::string file) : node_(node), path_(std::move(path)), file_(std::move(file)) {}

  double real(const std::string& key) const;
  long integer(const std::string& key) const;
  bool flag(const std::string& key) const;
  std::string text(const std::string& key) const;
  std::vector<double> vector(const std::string& key) const;
  std::vector<std::string> names(const std::string& key) const;
  Section section(const std::string& key) const;
  std::vector<Section> list(const std::string& key) const;
  bool has(const std::string& key) const;

  // Full key path of `key` in this section ("sources[1].lower"), for error messages.
  std::string key_path(const std::string& key) const;
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  const YAML::Node& node() const { return node_; }

 private:
  YAML::Node get(const std::string& key) const;
  YAML::Node node_;
  std::string path_, file_;
};

class Deck {
 public:
  // Reads `file`, applies overrides ("a.b[0].c=value", value parsed as YAML) and validates against
  // the schema that `make_schema` returns for the deck's dimension and method.
  // Throws InputError naming the file, key path and reason.
  static YAML::Node read_raw(const std::string& file, const std::vector<std::string>& overrides);
  static Deck resolve(const std::string& file, const YAML::Node& raw, const Schema& schema, int dim);

  Section root() const { return Section(resolved_, "", file_); }
  const YAML::Node& resolved() const { return resolved_; }
  const std::string& file() const { return file_; }
  int dimension() const { return dim_; }
  // Human-readable listing of every resolved key with unit and doc.
  std::string describe(const Schema& schema) const;

 private:
  YAML::Node resolved_;
  std::string file_;
  int dim_ = 2;
};

// Applies one "--set key.path=value" to a raw YAML tree (throws InputError on a malformed path).
void apply_override(YAML::Node& root, const std::string& assignment, const std::string& file);

// JSON text of a YAML tree (for run.json).
std::string to_json(const YAML::Node& node);

}  // namespace meniscus::config
