#include <map>

#include "methods/method.hpp"
#include "methods/mpm/register.hpp"
#include "methods/pbd/register.hpp"
#include "methods/sph/register.hpp"

namespace meniscus {
namespace {
std::map<std::string, MethodInfo>& registry() {
  static std::map<std::string, MethodInfo> r;
  return r;
}
}  // namespace

void register_method(MethodInfo info) { registry()[info.name] = std::move(info); }

const MethodInfo* find_method(const std::string& name) {
  auto it = registry().find(name);
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
  sph::register_methods();
  pbd::register_methods();
}

}  // namespace meniscus
