#pragma once
// A rank's particles as structure-of-arrays Kokkos views. Methods register the real-valued fields
// they need (name, components); ids and materials are built in. Migration, sorting, output and
// checkpoints iterate over the registered fields, so a method never writes its own packing code.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace meniscus::particles {

using MemSpace = Kokkos::DefaultExecutionSpace::memory_space;
using RealField = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>;  // particles x components
using ConstRealField = Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace>;  // read-only view of a RealField
using IdField = Kokkos::View<int64_t*, MemSpace>;
using IntField = Kokkos::View<int32_t*, MemSpace>;
using IndexList = Kokkos::View<int*, MemSpace>;

struct FieldInfo {
  std::string name;
  int components;
  bool persistent;  // written to checkpoints and carried by migration
};

class ParticleSet {
 public:
  ParticleSet();

  // Registers a field (components: 1 scalar, Dim vector, Dim*Dim matrix row-major). Returns its index.
  int add_field(const std::string& name, int components, bool persistent = true);
  int field_index(const std::string& name) const;  // -1 if absent
  RealField field(int index) const { return fields_[index]; }
  RealField field(const std::string& name) const;
  const std::vector<FieldInfo>& field_info() const { return info_; }

  IdField id() const { return id_; }
  IntField material() const { return material_; }

  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  // Changes the particle count, keeping the first min(old, new) particles.
  void resize(size_t n);
  // Keeps the particles listed in `order` (device indices), in that order. Permutes in place: views of
  // the fields, ids and materials taken before see the new rows after (sorting and removal gather).
  // Only growth beyond the capacity (reserve, resize, migration's arrivals) and adopt() give every
  // field new storage; take views after those.
  void gather(const IndexList& order, size_t n);
  void reserve(size_t n);
  // Makes an empty set hold n particles whose listed fields, ids and materials are the given views
  // (shared, not copied; each at least n rows); the other fields are allocated. Seeding hands its
  // arrays over this way so that it never holds two copies of them: that moment set the peak memory
  // of a run.
  void adopt(size_t n, const std::vector<std::pair<int, RealField>>& fields, const IdField& ids,
             const IntField& materials);
  size_t bytes() const;

 private:
  size_t size_ = 0, capacity_ = 0;
  std::vector<FieldInfo> info_;
  std::vector<RealField> fields_;
  IdField id_;
  IntField material_;
};

}  // namespace meniscus::particles
