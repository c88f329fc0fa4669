#include "particles/particle_set.hpp"

#include <stdexcept>

namespace meniscus::particles {

ParticleSet::ParticleSet() : id_("id", 0), material_("material", 0) {}

int ParticleSet::add_field(const std::string& name, int components, bool persistent) {
  if (field_index(name) >= 0) throw std::logic_error("particle field registered twice: " + name);
  info_.push_back({name, components, persistent});
  fields_.emplace_back(name, capacity_, components);
  return static_cast<int>(fields_.size()) - 1;
}

int ParticleSet::field_index(const std::string& name) const {
  for (size_t i = 0; i < info_.size(); ++i)
    if (info_[i].name == name) return static_cast<int>(i);
  return -1;
}

RealField ParticleSet::field(const std::string& name) const {
  const int i = field_index(name);
  if (i < 0) throw std::logic_error("no particle field named " + name);
  return fields_[i];
}

void ParticleSet::reserve(size_t n) {
  if (n <= capacity_) return;
  const size_t cap = std::max(n, capacity_ + capacity_ / 2);
  for (size_t i = 0; i < fields_.size(); ++i) Kokkos::resize(fields_[i], cap, info_[i].components);
  Kokkos::resize(id_, cap);
  Kokkos::resize(material_, cap);
  capacity_ = cap;
}

void ParticleSet::resize(size_t n) {
  reserve(n);
  size_ = n;
}

void ParticleSet::gather(const IndexList& order, size_t n) {
  // Gathers into fresh views and swaps, one field at a time, so the peak extra memory is one field.
  const size_t cap = std::max(n, size_t(1));
  for (size_t f = 0; f < fields_.size(); ++f) {
    RealField src = fields_[f];
    RealField dst(Kokkos::view_alloc(Kokkos::WithoutInitializing, info_[f].name), cap, info_[f].components);
    const int nc = info_[f].components;
    Kokkos::parallel_for(
        "particles::gather", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
          const int s = order(p);
          for (int c = 0; c < nc; ++c) dst(p, c) = src(s, c);
        });
    fields_[f] = dst;
  }
  IdField id(Kokkos::view_alloc(Kokkos::WithoutInitializing, "id"), cap);
  IntField mat(Kokkos::view_alloc(Kokkos::WithoutInitializing, "material"), cap);
  IdField id_src = id_;
  IntField mat_src = material_;
  Kokkos::parallel_for(
      "particles::gather_ids", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        id(p) = id_src(order(p));
        mat(p) = mat_src(order(p));
      });
  id_ = id;
  material_ = mat;
  capacity_ = cap;
  size_ = n;
}

size_t ParticleSet::bytes() const {
  size_t per = sizeof(int64_t) + sizeof(int32_t);
  for (const auto& i : info_) per += sizeof(double) * i.components;
  return per * capacity_;
}

}  // namespace meniscus::particles
