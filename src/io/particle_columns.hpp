#pragma once
// Moves particle fields between the device views of a ParticleSet and host arrays for HDF5, one
// field at a time (the extra memory is one field). Reshaping happens on the device in a kernel:
// padding 2D vectors to 3 columns for ParaView, widening materials to int64, numbering points.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "particles/particle_set.hpp"

namespace meniscus::io {

using HostRows = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using HostInts = Kokkos::View<int64_t*, Kokkos::HostSpace>;

// Rows [0, n) of `field` with `columns` >= its components; the extra columns are 0.
HostRows rows_to_host(const particles::RealField& field, size_t n, int columns);
HostInts ids_to_host(const particles::IdField& ids, size_t n);
HostInts materials_to_host(const particles::IntField& materials, size_t n);
// first, first + 1, ..., first + n - 1: the point numbers of an XDMF Polyvertex topology.
HostInts numbering(size_t n, int64_t first);

// The inverse copies into rows [0, host rows) of the (already sized) particle views.
void rows_to_device(const HostRows& host, const particles::RealField& field);
void ids_to_device(const HostInts& host, const particles::IdField& ids);
void materials_to_device(const HostInts& host, const particles::IntField& materials);

}  // namespace meniscus::io
