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

  // Records once, when it closes. pause()/resume() leave out a nested stage that has its own timer,
  // so that the stages of a step add up to the step instead of counting the nested one twice.
  class Scope {
   public:
    Scope(Timers& t, const char* name) : t_(t), name_(name) {
      t_.register_name(name_);  // stages are listed in the order they open
      start_ = std::chrono::steady_clock::now();
    }
    ~Scope() {
      pause();
      t_.add(name_, elapsed_s_);
    }
    void pause() {
      if (!running_) return;
      elapsed_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      running_ = false;
    }
    void resume() {
      if (running_) return;
      start_ = std::chrono::steady_clock::now();
      running_ = true;
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Timers& t_;
    const char* name_;
    std::chrono::steady_clock::time_point start_;
    double elapsed_s_ = 0;
    bool running_ = true;
  };

  Scope scope(const char* name) { return Scope(*this, name); }
  void add(const std::string& name, double seconds);
  void register_name(const std::string& name);
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
