#pragma once
// Inflow emitters shared by the particle methods (SPH of Jeske et al. 2023: water bell, fluid chain;
// position-based surface tension of Xing et al. 2022: the dripping faucet): a disc that releases a
// layer of particles on a square lattice of spacing d every d / |u| seconds, moving with u (normal to
// the disc). Layer k leaves the disc at t_k = start + k d / |u| and has travelled |u| (t - t_k) when it
// is created. Every rank enumerates the same layers in the same order and keeps the points it owns;
// ids continue from a counter in that global order, so they do not depend on the rank count.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "grid/decomposition.hpp"

namespace meniscus::particles {

struct DiscEmitter {
  std::array<double, 3> center{}, velocity{};
  double radius = 0, start_time = 0, end_time = 0;  // end_time 0: forever
  int material = 0;
};

// The keys of one emitter (centre, velocity, radius, material, start_time, end_time), for a method's
// `emitters` list.
std::shared_ptr<config::Schema> disc_emitter_schema();

// Reads a method section's `emitters` list; materials are looked up in `material_names`.
std::vector<DiscEmitter> read_disc_emitters(const config::Section& method, int dim,
                                            const std::vector<std::string>& material_names);

// Host-side points of new layers, owned by this rank (Dim values per point in x and v).
struct EmittedPoints {
  std::vector<double> x, v;
  std::vector<int64_t> id;
  std::vector<int> material;
  size_t size() const { return id.size(); }
};

// Appends the layers of every emitter due by time t (layers[e] counts the layers emitter e has released
// so far and is advanced; next_id is the next free particle id, advanced for every point on any rank).
template <int Dim>
void emit_disc_layers(const std::vector<DiscEmitter>& emitters, double spacing, double t, std::vector<long>& layers,
                      int64_t& next_id, const grid::Decomposition<Dim>& decomp, int rank, EmittedPoints& out);

// Particles per layer of one emitter (the lattice points of its disc).
int disc_layer_size(const DiscEmitter& emitter, double spacing, int dim);

}  // namespace meniscus::particles
