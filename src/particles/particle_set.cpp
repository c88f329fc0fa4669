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
  // One eighth of headroom: migration adds a few particles most steps, so growth must be geometric,
  // but every byte of slack is held by every field for the rest of the run (half, before, was 78
  // bytes per particle of an explicit fluid).
  const size_t cap = std::max(n, capacity_ + capacity_ / 8);
  for (size_t i = 0; i < fields_.size(); ++i) Kokkos::resize(fields_[i], cap, info_[i].components);
  Kokkos::resize(id_, cap);
  Kokkos::resize(material_, cap);
  capacity_ = cap;
}

void ParticleSet::resize(size_t n) {
  reserve(n);
  size_ = n;
}

void ParticleSet::adopt(size_t n, const std::vector<std::pair<int, RealField>>& fields, const IdField& ids,
                        const IntField& materials) {
  if (size_ != 0 || capacity_ != 0) throw std::logic_error("ParticleSet::adopt on a set that already holds particles");
  if (ids.extent(0) < n || materials.extent(0) < n) throw std::logic_error("ParticleSet::adopt: ids or materials too short");
  for (const auto& [index, view] : fields)
    if (index < 0 || index >= static_cast<int>(fields_.size()) || view.extent(0) < n ||
        view.extent(1) != static_cast<size_t>(info_[index].components))
      throw std::logic_error("ParticleSet::adopt: a view does not match its field");
  for (size_t f = 0; f < fields_.size(); ++f) {
    bool given = false;
    for (const auto& [index, view] : fields)
      if (index == static_cast<int>(f)) {
        fields_[f] = view;
        given = true;
      }
    if (!given) fields_[f] = RealField(info_[f].name, n, info_[f].components);
  }
  id_ = ids;
  material_ = materials;
  capacity_ = n;  // every view has at least n rows
  size_ = n;
}

void ParticleSet::gather(const IndexList& order, size_t n) {
  // Permutes in place through one column of scratch, so sorting costs 8 bytes per particle of extra
  // memory instead of a whole field (72 bytes for a 3D affine matrix): the sort runs every few steps
  // and its temporary set the peak resident memory of an explicit run.
  if (n > capacity_) throw std::logic_error("particle gather beyond the set's capacity");
  Kokkos::View<double*> column(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gather_column"), n);
  for (size_t f = 0; f < fields_.size(); ++f) {
    RealField field = fields_[f];
    for (int c = 0; c < info_[f].components; ++c) {
      Kokkos::parallel_for(
          "particles::gather", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) { column(p) = field(order(p), c); });
      Kokkos::parallel_for(
          "particles::gather_back", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) { field(p, c) = column(p); });
    }
  }
  // Ids and materials go through the same column (8 bytes per particle) rather than fresh arrays.
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<int64_t*, MemSpace, Unmanaged> id_column(reinterpret_cast<int64_t*>(column.data()), n);
  Kokkos::View<int32_t*, MemSpace, Unmanaged> mat_column(reinterpret_cast<int32_t*>(column.data()), n);
  IdField id = id_;
  IntField mat = material_;
  Kokkos::parallel_for(
      "particles::gather_ids", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) { id_column(p) = id(order(p)); });
  Kokkos::parallel_for(
      "particles::gather_ids_back", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) { id(p) = id_column(p); });
  Kokkos::parallel_for(
      "particles::gather_materials", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) { mat_column(p) = mat(order(p)); });
  Kokkos::parallel_for(
      "particles::gather_materials_back", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) { mat(p) = mat_column(p); });
  size_ = n;
}

size_t ParticleSet::bytes() const {
  size_t per = sizeof(int64_t) + sizeof(int32_t);
  for (const auto& i : info_) per += sizeof(double) * i.components;
  return per * capacity_;
}

}  // namespace meniscus::particles
