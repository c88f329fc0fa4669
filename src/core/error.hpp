#pragma once
// Errors the user can act on. InputError names the deck file, the key path and the reason; the app
// prints it once and exits with code 2 on every rank (no MPI_Abort, no hang).
#include <stdexcept>
#include <string>

namespace meniscus {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string key, std::string reason)
      : std::runtime_error(compose(file, key, reason)),
        file_(std::move(file)), key_(std::move(key)), reason_(std::move(reason)) {}
  const std::string& file() const { return file_; }
  const std::string& key() const { return key_; }
  const std::string& reason() const { return reason_; }

 private:
  static std::string compose(const std::string& f, const std::string& k, const std::string& r) {
    std::string s = f.empty() ? std::string("input") : f;
    if (!k.empty()) s += ": " + k;
    return s + ": " + r;
  }
  std::string file_, key_, reason_;
};

// A failure of the simulation itself (NaN, lost particles, solver breakdown).
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace meniscus
