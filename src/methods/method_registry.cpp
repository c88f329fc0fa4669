#include <map>

#include "methods/membrane/register.hpp"
#include "methods/method.hpp"
#include "methods/mpm/register.hpp"
#include "methods/mpm_multiphase/register.hpp"
#include "methods/pbd/register.hpp"
#include "methods/sph/register.hpp"

namespace meniscus {
namespace {
std::map<std::string, MethodInfo>& registry() {
  static std::map<std::string, MethodInfo> r;
  return r;
}
std::map<std::string, std::string>& alias_table() {
  static std::map<std::string, std::string> a;
  return a;
}
}  // namespace

void register_method(MethodInfo info) {
  for (const auto& alias : info.aliases) alias_table()[alias] = info.name;
  registry()[info.name] = std::move(info);
}

const MethodInfo* find_method(const std::string& name) {
  auto alias = alias_table().find(name);
  auto it = registry().find(alias == alias_table().end() ? name : alias->second);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<std::string> method_names() {
  std::vector<std::string> out;
  for (const auto& kv : registry()) out.push_back(kv.first);
  return out;
}

void register_builtin_methods() {
  static bool done = false;
  if (done) return;
  done = true;
  mpm::register_methods();
  mpm_multiphase::register_methods();
  sph::register_methods();
  membrane::register_methods();
  pbd::register_methods();
}

}  // namespace meniscus
