#pragma once
// Per-stage wall-clock timers. A stage is opened with a scoped guard; totals are reduced over ranks
// (min/avg/max) only when reported, so timing costs nothing collective during the run.
#include <mpi.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace meniscus {

class Timers {
 public:
  struct Stat {
    std::string name;
    double min_s = 0, avg_s = 0, max_s = 0;
    long calls = 0;
  };

  class Scope {
   public:
    Scope(Timers& t, const char* name) : t_(t), name_(name), start_(std::chrono::steady_clock::now()) {}
    ~Scope() {
      t_.add(name_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Timers& t_;
    const char* name_;
    std::chrono::steady_clock::time_point start_;
  };

  Scope scope(const char* name) { return Scope(*this, name); }
  void add(const std::string& name, double seconds);
  double total(const std::string& name) const;
  // Collective: every rank must call it with the same timer names registered (missing ones count 0).
  std::vector<Stat> reduce(MPI_Comm comm) const;
  // Collective; rank 0 prints a table.
  void print(MPI_Comm comm, double wall_s) const;

 private:
  std::map<std::string, std::pair<double, long>> totals_;
  std::vector<std::string> order_;
};

}  // namespace meniscus
