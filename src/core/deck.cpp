#include "core/deck.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <sstream>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/units.hpp"
#include <charconv>

namespace meniscus::config {
namespace fs = std::filesystem;

namespace {
// Why a file named in a deck (or the deck itself) cannot be read, in the words of the file system;
// empty if it can. `what`: "deck file", "file".
std::string unreadable_reason(const std::string& file, const std::string& what) {
  std::error_code ec;
  const auto st = fs::status(file, ec);
  if (!fs::exists(st)) return what + " not found";
  if (fs::is_directory(st)) return "is a directory, not a " + what;
  if (!fs::is_regular_file(st)) return "not a regular file";
  std::ifstream probe(file);
  if (!probe) return std::string("cannot be read: ") + std::strerror(errno);
  return "";
}


struct Ctx {
  std::string file;
  std::string dir;
  int dim;
};

// Shortest text that reads back as the same double, so resolved decks stay exact and readable.
YAML::Node real_node(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return YAML::Node(std::string(buf, res.ptr));
}

std::string join(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string known_keys(const Schema& s) {
  std::string out;
  for (const auto& p : s.params()) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

double parse_real(const YAML::Node& n, const Param& p, const Ctx& c, const std::string& path) {
  if (!n.IsScalar())
    throw InputError(c.file, path, "expected a number, got " + std::string(n.IsSequence() ? "a list" : n.IsMap() ? "a map" : "nothing"));
  const std::string text = n.Scalar();
  std::istringstream is(text);
  double v = 0;
  if (!(is >> v)) {
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    if (lower == "nan" || lower == ".nan" || lower.find("inf") != std::string::npos)
      throw InputError(c.file, path, "value '" + text + "' is not a finite number");
    throw InputError(c.file, path, "expected a number" + (p.unit == "1" ? std::string() : " in " + p.unit) + ", got '" + text + "'");
  }
  std::string unit;
  is >> std::ws;
  std::getline(is, unit);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  if (!unit.empty()) {
    auto f = units::factor(p.unit, unit);
    if (!f) throw InputError(c.file, path, "wrong unit '" + unit + "': expected " + units::accepted(p.unit));
    v *= *f;
  }
  if (!std::isfinite(v)) throw InputError(c.file, path, "value '" + text + "' is not a finite number");
  const bool below = p.lo_open ? !(v > p.lo) : !(v >= p.lo);
  const bool above = p.hi_open ? !(v < p.hi) : !(v <= p.hi);
  if (below || above) {
    std::string r = (p.lo_open ? "(" : "[") + log::format("%g", p.lo) + ", " + log::format("%g", p.hi) + (p.hi_open ? ")" : "]");
    throw InputError(c.file, path, log::format("value %g is out of range %s", v, r.c_str()));
  }
  return v;
}

YAML::Node resolve_map(const Schema& s, const YAML::Node& in, const Ctx& c, const std::string& path);

std::string choice_list(const Param& p) {
  std::string all;
  for (const auto& ch : p.choices) all += (all.empty() ? "" : ", ") + ch;
  return all;
}

YAML::Node resolve_value(const Param& p, const YAML::Node& n, const Ctx& c, const std::string& path) {
  switch (p.kind) {
    case Kind::Real: return real_node(parse_real(n, p, c, path));
    case Kind::Integer: {
      double v = parse_real(n, p, c, path);
      if (v != std::floor(v)) throw InputError(c.file, path, "expected an integer, got '" + n.Scalar() + "'");
      // Beyond 2^53 a double no longer holds every integer, and the cast to long would overflow.
      if (std::fabs(v) > 9007199254740992.0) throw InputError(c.file, path, "integer '" + n.Scalar() + "' is out of range");
      return YAML::Node(static_cast<long>(v));
    }
    case Kind::Bool: {
      bool b = false;
      if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b))
        throw InputError(c.file, path, "expected true or false");
      return YAML::Node(b);
    }
    case Kind::String:
      if (!n.IsScalar()) throw InputError(c.file, path, "expected a string");
      return YAML::Node(n.Scalar());
    case Kind::Names: {
      if (!n.IsSequence()) throw InputError(c.file, path, "expected a list of names, e.g. [velocity, mass]");
      YAML::Node out(YAML::NodeType::Sequence);
      for (size_t i = 0; i < n.size(); ++i) {
        if (!n[i].IsScalar() || n[i].Scalar().empty())
          throw InputError(c.file, path + "[" + std::to_string(i) + "]", "expected a name");
        if (!p.choices.empty() && std::find(p.choices.begin(), p.choices.end(), n[i].Scalar()) == p.choices.end())
          throw InputError(c.file, path + "[" + std::to_string(i) + "]",
                           "unknown value '" + n[i].Scalar() + "'; expected one of: " + choice_list(p));
        out.push_back(n[i].Scalar());
      }
      out.SetStyle(YAML::EmitterStyle::Flow);
      return out;
    }
    case Kind::Choice: {
      if (!n.IsScalar()) throw InputError(c.file, path, "expected one of the choices");
      if (std::find(p.choices.begin(), p.choices.end(), n.Scalar()) == p.choices.end())
        throw InputError(c.file, path, "unknown value '" + n.Scalar() + "'; expected one of: " + choice_list(p));
      return YAML::Node(n.Scalar());
    }
    case Kind::Vector: {
      if (p.rotation && c.dim == 2) {  // a rotation in the plane: one number, about z
        if (!n.IsScalar()) throw InputError(c.file, path, "expected a number (in 2D a rotation is about z)");
        return real_node(parse_real(n, p, c, path));
      }
      if (!n.IsSequence()) throw InputError(c.file, path, log::format("expected a list of %d numbers", c.dim));
      if (static_cast<int>(n.size()) != c.dim)
        throw InputError(c.file, path, log::format("expected %d components (dimension is %d), got %zu", c.dim, c.dim, n.size()));
      YAML::Node out(YAML::NodeType::Sequence);
      for (size_t i = 0; i < n.size(); ++i) out.push_back(real_node(parse_real(n[i], p, c, path + "[" + std::to_string(i) + "]")));
      out.SetStyle(YAML::EmitterStyle::Flow);
      return out;
    }
    case Kind::File: {
      if (!n.IsScalar()) throw InputError(c.file, path, "expected a file path");
      fs::path f(n.Scalar());
      if (f.is_relative()) f = fs::path(c.dir) / f;
      const std::string why = unreadable_reason(f.string(), "file");
      if (!why.empty()) throw InputError(c.file, path, f.string() + ": " + why);
      return YAML::Node(fs::absolute(f).lexically_normal().string());
    }
    case Kind::Section: {
      if (!n.IsMap()) throw InputError(c.file, path, "expected a map of keys");
      return resolve_map(*p.section, n, c, path);
    }
    case Kind::List:
    case Kind::VariantList: {
      if (!n.IsSequence()) throw InputError(c.file, path, "expected a list");
      YAML::Node out(YAML::NodeType::Sequence);
      for (size_t i = 0; i < n.size(); ++i) {
        const std::string ip = path + "[" + std::to_string(i) + "]";
        if (!n[i].IsMap()) throw InputError(c.file, ip, "expected a map of keys");
        const Schema* item = p.section.get();
        if (p.kind == Kind::VariantList) {
          if (!n[i][p.discriminator]) throw InputError(c.file, ip, "missing required key '" + p.discriminator + "'");
          const std::string v = n[i][p.discriminator].Scalar();
          auto it = p.variants.find(v);
          if (it == p.variants.end()) {
            std::string all;
            for (const auto& kv : p.variants) all += (all.empty() ? "" : ", ") + kv.first;
            throw InputError(c.file, ip + "." + p.discriminator, "unknown value '" + v + "'; expected one of: " + all);
          }
          item = it->second.get();
        }
        out.push_back(resolve_map(*item, n[i], c, ip));
      }
      return out;
    }
  }
  return YAML::Node();
}

YAML::Node resolve_map(const Schema& s, const YAML::Node& in, const Ctx& c, const std::string& path) {
  YAML::Node out(YAML::NodeType::Map);
  if (in && in.IsMap()) {
    for (auto it = in.begin(); it != in.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (s.find(key)) continue;
      std::string hint;
      size_t best = 3;
      for (const auto& p : s.params()) {
        size_t d = edit_distance(key, p.name);
        if (d < best) { best = d; hint = p.name; }
      }
      throw InputError(c.file, join(path, key),
                       "unknown key" + (hint.empty() ? std::string() : " (did you mean '" + hint + "'?)") +
                           "; known keys here: " + known_keys(s));
    }
  }
  for (const auto& p : s.params()) {
    const std::string kp = join(path, p.name);
    YAML::Node v = (in && in.IsMap()) ? in[p.name] : YAML::Node();
    if (v && !v.IsNull()) {
      out[p.name] = resolve_value(p, v, c, kp);
    } else if (p.required) {
      throw InputError(c.file, kp, "missing required key (" + p.doc + ")");
    } else if (p.has_default) {
      const std::string& text = (c.dim == 3 && !p.default_text_3d.empty()) ? p.default_text_3d : p.default_text;
      out[p.name] = resolve_value(p, YAML::Load(text), c, kp);
    } else if (p.kind == Kind::Section) {
      out[p.name] = resolve_map(*p.section, YAML::Node(YAML::NodeType::Map), c, kp);
    } else if (p.kind == Kind::List || p.kind == Kind::VariantList) {
      out[p.name] = YAML::Node(YAML::NodeType::Sequence);
    }
  }
  return out;
}

void describe_map(std::ostringstream& os, const Schema& s, const YAML::Node& n, const std::string& prefix) {
  for (const auto& p : s.params()) {
    const YAML::Node v = n[p.name];
    if (!v) continue;
    const std::string kp = prefix + p.name;
    if (p.kind == Kind::Section) {
      describe_map(os, *p.section, v, kp + ".");
    } else if (p.kind == Kind::List || p.kind == Kind::VariantList) {
      for (size_t i = 0; i < v.size(); ++i) {
        const Schema* item = p.section.get();
        if (p.kind == Kind::VariantList) item = p.variants.at(v[i][p.discriminator].Scalar()).get();
        describe_map(os, *item, v[i], kp + "[" + std::to_string(i) + "].");
      }
    } else {
      YAML::Emitter e;
      e << YAML::Flow << v;
      std::string unit = (p.unit.empty() || p.unit == "1") ? "" : " " + p.unit;
      os << log::format("  %-40s = %s%s", kp.c_str(), e.c_str(), unit.c_str()) << "\n";
    }
  }
}

// True if `s` is a number in JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
// (YAML and iostreams also read "1.", ".5", "+5" and "01", which JSON rejects).
bool json_number(const std::string& s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

void json_of(std::ostringstream& os, const YAML::Node& n) {
  if (n.IsMap()) {
    os << "{";
    bool first = true;
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!first) os << ",";
      first = false;
      os << "\"" << it->first.Scalar() << "\":";
      json_of(os, it->second);
    }
    os << "}";
  } else if (n.IsSequence()) {
    os << "[";
    for (size_t i = 0; i < n.size(); ++i) {
      if (i) os << ",";
      json_of(os, n[i]);
    }
    os << "]";
  } else if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (json_number(s)) {
      os << s;
    } else if (s == "true" || s == "false") {
      os << s;
    } else {
      os << "\"";
      for (char ch : s) {
        if (ch == '"' || ch == '\\') os << '\\' << ch;
        else if (ch == '\n') os << "\\n";
        else if (static_cast<unsigned char>(ch) < 0x20) os << log::format("\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
        else os << ch;
      }
      os << "\"";
    }
  } else {
    os << "null";
  }
}

}  // namespace

void apply_override(YAML::Node& root, const std::string& assignment, const std::string& file) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(file, assignment, "--set expects key.path=value");
  const std::string path = assignment.substr(0, eq);
  YAML::Node value;
  if (assignment.find_first_not_of(" \t", eq + 1) == std::string::npos)
    throw InputError(file, assignment.substr(0, eq), "--set with an empty value (give key.path=value)");
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw InputError(file, path, "--set value is not valid YAML: " + std::string(e.what()));
  }
  // Split "a.b[2].c" into tokens; an integer token indexes a list.
  std::vector<std::string> tokens;
  std::string cur;
  for (char ch : path) {
    if (ch == '.' || ch == '[' || ch == ']') {
      if (!cur.empty()) tokens.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) tokens.push_back(cur);
  if (tokens.empty()) throw InputError(file, path, "--set expects key.path=value");
  auto is_index = [](const std::string& t) {
    return !t.empty() && std::all_of(t.begin(), t.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; });
  };
  // The list entry that `t` indexes in `parent`, or an InputError (also for indices too long for stoul).
  auto index_of = [&](const YAML::Node& parent, const std::string& t) {
    if (!parent.IsSequence() || t.size() > 9 || std::stoul(t) >= parent.size())
      throw InputError(file, path, "--set: '" + t + "' does not index an existing list entry");
    return std::stoul(t);
  };
  std::vector<YAML::Node> chain{root};
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    YAML::Node parent = chain.back();
    const std::string& t = tokens[i];
    if (is_index(t)) {
      chain.push_back(parent[index_of(parent, t)]);
    } else {
      if (parent.IsSequence() || parent.IsScalar()) throw InputError(file, path, "--set: '" + t + "' is not inside a map");
      if (!parent[t]) parent[t] = YAML::Node(YAML::NodeType::Map);
      chain.push_back(parent[t]);
    }
  }
  YAML::Node parent = chain.back();
  const std::string& last = tokens.back();
  if (is_index(last)) {
    parent[index_of(parent, last)] = value;
  } else {
    if (parent.IsSequence() || parent.IsScalar()) throw InputError(file, path, "--set: '" + last + "' is not inside a map");
    parent[last] = value;
  }
}

namespace {

// yaml-cpp keeps every entry of a map with a repeated key and lookups return the first, so a second
// `cfl:` further down a section would be ignored without a word; an empty value (`cfl:`) reads as
// null, which would silently mean the default. Both are refused, naming the lines.
void check_keys_and_values(const YAML::Node& n, const std::string& file, const std::string& path) {
  auto line = [](const YAML::Node& x) { return x.Mark().line + 1; };
  if (n.IsMap()) {
    std::vector<std::pair<std::string, int>> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
      const std::string kp = join(path, key);
      for (const auto& [k, l] : seen)
        if (k == key)
          throw InputError(file, kp, log::format("duplicate key: given on line %d and again on line %d (keep one)", l,
                                                 line(it->first)));
      seen.emplace_back(key, line(it->first));
      if (it->second.IsNull())
        throw InputError(file, kp, log::format("empty value on line %d (give a value, or delete the line to use "
                                               "the default)", line(it->first)));
      check_keys_and_values(it->second, file, kp);
    }
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string kp = path + "[" + std::to_string(i) + "]";
      if (n[i].IsNull()) throw InputError(file, kp, log::format("empty list entry on line %d", line(n[i])));
      check_keys_and_values(n[i], file, kp);
    }
  }
}

}  // namespace

YAML::Node Deck::read_raw(const std::string& file, const std::vector<std::string>& overrides) {
  const std::string why = unreadable_reason(file, "deck file");
  if (!why.empty()) throw InputError(file, "", why);
  YAML::Node raw;
  try {
    raw = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    throw InputError(file, "", log::format("not valid YAML (line %d, column %d): %s", e.mark.line + 1,
                                           e.mark.column + 1, e.msg.c_str()));
  }
  if (!raw.IsMap()) throw InputError(file, "", "the deck must be a map of sections");
  check_keys_and_values(raw, file, "");
  for (const auto& o : overrides) apply_override(raw, o, file);
  return raw;
}

Deck Deck::resolve(const std::string& file, const YAML::Node& raw, const Schema& schema, int dim) {
  Ctx c{file, fs::path(file).parent_path().string(), dim};
  if (c.dir.empty()) c.dir = ".";
  Deck d;
  d.file_ = file;
  d.dim_ = dim;
  d.resolved_ = resolve_map(schema, raw, c, "");
  return d;
}

std::string Deck::describe(const Schema& schema) const {
  std::ostringstream os;
  describe_map(os, schema, resolved_, "");
  return os.str();
}

std::string to_json(const YAML::Node& node) {
  std::ostringstream os;
  json_of(os, node);
  return os.str();
}

YAML::Node Section::get(const std::string& key) const {
  YAML::Node v = node_[key];
  if (!v) throw InputError(file_, key_path(key), "missing key (internal: not declared in the schema?)");
  return v;
}
std::string Section::key_path(const std::string& key) const { return join(path_, key); }
double Section::real(const std::string& key) const { return get(key).as<double>(); }
long Section::integer(const std::string& key) const { return get(key).as<long>(); }
bool Section::flag(const std::string& key) const { return get(key).as<bool>(); }
std::string Section::text(const std::string& key) const { return get(key).as<std::string>(); }
std::vector<double> Section::vector(const std::string& key) const { return get(key).as<std::vector<double>>(); }
std::vector<std::string> Section::names(const std::string& key) const {
  return get(key).as<std::vector<std::string>>();
}
bool Section::has(const std::string& key) const { return node_[key] && !node_[key].IsNull(); }
Section Section::section(const std::string& key) const { return Section(get(key), key_path(key), file_); }
std::vector<Section> Section::list(const std::string& key) const {
  YAML::Node l = get(key);
  std::vector<Section> out;
  for (size_t i = 0; i < l.size(); ++i) out.emplace_back(l[i], key_path(key) + "[" + std::to_string(i) + "]", file_);
  return out;
}

}  // namespace meniscus::config
