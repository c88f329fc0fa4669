#include "core/timers.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/log.hpp"
#include "core/mpi_gather.hpp"

namespace meniscus {

void Timers::add(const std::string& name, double seconds) {
  auto it = totals_.find(name);
  if (it == totals_.end()) {
    order_.push_back(name);
    totals_[name] = {seconds, 1};
  } else {
    it->second.first += seconds;
    it->second.second += 1;
  }
}

void Timers::register_name(const std::string& name) {
  if (totals_.count(name)) return;
  order_.push_back(name);
  totals_[name] = {0.0, 0};
}

double Timers::total(const std::string& name) const {
  auto it = totals_.find(name);
  return it == totals_.end() ? 0.0 : it->second.first;
}

std::vector<Timers::Stat> Timers::reduce(MPI_Comm comm) const {
  // Agree on the names first: rank 0's order, plus any a later rank has (gathered as one string).
  std::string mine;
  for (const auto& n : order_) mine += n + '\n';
  int size = 1;
  MPI_Comm_size(comm, &size);
  const std::vector<char> gathered = allgather_vector(comm, std::vector<char>(mine.begin(), mine.end()));
  const std::string all(gathered.begin(), gathered.end());
  std::vector<std::string> names;
  std::set<std::string> seen;
  size_t pos = 0;
  while (pos < all.size()) {
    size_t nl = all.find('\n', pos);
    std::string n = all.substr(pos, nl - pos);
    if (seen.insert(n).second) names.push_back(n);
    pos = nl + 1;
  }
  std::vector<Stat> out;
  for (const auto& n : names) {
    double t = total(n);
    double mn = 0, mx = 0, sum = 0;
    long calls = 0, my_calls = totals_.count(n) ? totals_.at(n).second : 0;
    MPI_Allreduce(&t, &mn, 1, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(&my_calls, &calls, 1, MPI_LONG, MPI_MAX, comm);
    out.push_back({n, mn, sum / size, mx, calls});
  }
  return out;
}

void Timers::print(MPI_Comm comm, double wall_s) const {
  auto stats = reduce(comm);
  log::info("%-22s %10s %10s %10s %8s %8s", "stage", "min [s]", "avg [s]", "max [s]", "% wall", "calls");
  for (const auto& s : stats) {
    log::info("%-22s %10.3f %10.3f %10.3f %7.1f%% %8ld", s.name.c_str(), s.min_s, s.avg_s, s.max_s,
              wall_s > 0 ? 100.0 * s.avg_s / wall_s : 0.0, s.calls);
  }
}

}  // namespace meniscus
