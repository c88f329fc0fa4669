#include "core/schema.hpp"

#include <sstream>
#include <stdexcept>

#include "core/log.hpp"

namespace meniscus::config {

Param& Param::def(double v) { return def(log::format("%.17g", v)); }

std::string Param::kind_name() const {
  switch (kind) {
    case Kind::Real: return "real";
    case Kind::Integer: return "integer";
    case Kind::Bool: return "bool";
    case Kind::String: return "string";
    case Kind::Choice: return "choice";
    case Kind::Vector: return rotation ? "real (3D: vector)" : "vector";
    case Kind::File: return "file";
    case Kind::Section: return "section";
    case Kind::List: return "list";
    case Kind::VariantList: return "list";
    case Kind::Names: return "list of names";
  }
  return "?";
}

Param& Schema::add(Param p) {
  for (const auto& q : params_)
    if (q.name == p.name) throw std::logic_error("parameter declared twice: " + p.name);
  params_.push_back(std::move(p));
  return params_.back();
}

Param& Schema::real(const std::string& name, const std::string& unit, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::Real; p.unit = unit; p.doc = doc;
  return add(std::move(p));
}
Param& Schema::integer(const std::string& name, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::Integer; p.doc = doc;
  return add(std::move(p));
}
Param& Schema::flag(const std::string& name, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::Bool; p.doc = doc; p.unit = "";
  return add(std::move(p));
}
Param& Schema::text(const std::string& name, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::String; p.doc = doc; p.unit = "";
  return add(std::move(p));
}
Param& Schema::names(const std::string& name, const std::string& doc, std::vector<std::string> choices) {
  Param p; p.name = name; p.kind = Kind::Names; p.doc = doc; p.unit = ""; p.choices = std::move(choices);
  return add(std::move(p));
}
Param& Schema::choice(const std::string& name, std::vector<std::string> choices, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::Choice; p.doc = doc; p.unit = ""; p.choices = std::move(choices);
  return add(std::move(p));
}
Param& Schema::vector(const std::string& name, const std::string& unit, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::Vector; p.unit = unit; p.doc = doc;
  return add(std::move(p));
}
Param& Schema::rotation_vector(const std::string& name, const std::string& unit, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::Vector; p.unit = unit; p.doc = doc; p.rotation = true;
  return add(std::move(p));
}
Param& Schema::file(const std::string& name, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::File; p.doc = doc; p.unit = "";
  return add(std::move(p));
}
Param& Schema::section(const std::string& name, SchemaPtr s, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::Section; p.section = std::move(s); p.doc = doc; p.unit = "";
  return add(std::move(p));
}
Param& Schema::list(const std::string& name, SchemaPtr item, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::List; p.section = std::move(item); p.doc = doc; p.unit = "";
  return add(std::move(p));
}
Param& Schema::variant_list(const std::string& name, const std::string& discriminator,
                            std::map<std::string, SchemaPtr> variants, const std::string& doc) {
  Param p; p.name = name; p.kind = Kind::VariantList; p.discriminator = discriminator;
  p.variants = std::move(variants); p.doc = doc; p.unit = "";
  return add(std::move(p));
}

void Schema::merge(const Schema& other) {
  for (const auto& p : other.params()) add(p);
}

void Schema::redeclare_units(const std::map<std::string, std::string>& to) {
  for (auto& p : params_) {
    if (const auto it = to.find(p.unit); it != to.end()) p.unit = it->second;
    if (p.section) {
      auto copy = std::make_shared<Schema>(*p.section);
      copy->redeclare_units(to);
      p.section = copy;
    }
    for (auto& [name, variant] : p.variants) {
      auto copy = std::make_shared<Schema>(*variant);
      copy->redeclare_units(to);
      variant = copy;
    }
  }
}

const Param* Schema::find(const std::string& name) const {
  for (const auto& p : params_)
    if (p.name == name) return &p;
  return nullptr;
}

namespace {
std::string range_text(const Param& p) {
  const bool has_lo = p.lo > -std::numeric_limits<double>::infinity();
  const bool has_hi = p.hi < std::numeric_limits<double>::infinity();
  if (!has_lo && !has_hi) return "";
  std::string s;
  s += has_lo ? (p.lo_open ? "(" : "[") + log::format("%g", p.lo) : "(-inf";
  s += ", ";
  s += has_hi ? log::format("%g", p.hi) + (p.hi_open ? ")" : "]") : "inf)";
  return s;
}

void emit(std::ostringstream& os, const Schema& s, const std::string& prefix) {
  bool header = false;
  for (const auto& p : s.params()) {
    if (p.kind == Kind::Section || p.kind == Kind::List || p.kind == Kind::VariantList) continue;
    if (!header) {
      os << "| key | type | unit | default | range / choices | description |\n";
      os << "|---|---|---|---|---|---|\n";
      header = true;
    }
    std::string def = p.required ? "**required**" : (p.has_default ? "`" + p.default_text + "`" : "—");
    if (!p.default_text_3d.empty()) def += " (3D: `" + p.default_text_3d + "`)";
    std::string range = range_text(p);
    if (p.kind == Kind::Choice || p.kind == Kind::Names) {
      for (size_t i = 0; i < p.choices.size(); ++i) range += (i ? ", " : "") + ("`" + p.choices[i] + "`");
    }
    os << "| `" << prefix << p.name << "` | " << p.kind_name() << " | " << (p.unit.empty() ? "" : p.unit)
       << " | " << def << " | " << range << " | " << p.doc << " |\n";
  }
  if (header) os << "\n";
  for (const auto& p : s.params()) {
    if (p.kind == Kind::Section) {
      os << "### `" << prefix << p.name << "`\n\n" << p.doc << "\n\n";
      emit(os, *p.section, prefix + p.name + ".");
    } else if (p.kind == Kind::List) {
      os << "### `" << prefix << p.name << "[]`\n\n" << p.doc << "\n\n";
      emit(os, *p.section, prefix + p.name + "[].");
    } else if (p.kind == Kind::VariantList) {
      os << "### `" << prefix << p.name << "[]`\n\n" << p.doc << " Each entry picks its kind with `"
         << p.discriminator << "`.\n\n";
      for (const auto& [name, v] : p.variants) {
        os << "#### `" << prefix << p.name << "[]` with `" << p.discriminator << ": " << name << "`\n\n";
        if (!v->doc().empty()) os << v->doc() << "\n\n";
        emit(os, *v, prefix + p.name + "[].");
      }
    }
  }
}
}  // namespace

std::string to_markdown(const Schema& root, const std::string& title, bool preamble) {
  std::ostringstream os;
  os << "# " << title << "\n\n";
  if (preamble)
    os << "Generated by `meniscus reference` from the parameter declarations in the source; do not edit.\n"
        "Values are SI. A real may also be written as a string with a unit, e.g. `\"2 mm\"` for a length;\n"
        "the accepted spellings per unit are listed by `meniscus check` errors.\n\n";
  emit(os, root, "");
  return os.str();
}

}  // namespace meniscus::config
