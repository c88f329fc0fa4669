#pragma once
// Shapes of 3D rigid bodies of the three-way coupling (Ruan et al. 2021 §4.3; the paper's paperclips
// of Fig. 4, push-pins of Figs. 6 and 12): a signed distance in the body frame, negative inside, and
// the mass properties (volume, centre of mass, inertia tensor) computed from it.
//
// A shape is a solid of the geometry layer (geometry::Shape<3>: sphere, box, the sampled signed
// distance of a closed triangle mesh), a union of capsules (segments swept by a wire radius: a
// paperclip is a chain of them along its centreline) or a solid of revolution about the body z axis
// (a polygon in the (r, z) half-plane turned about the axis: the paper's push-pins of Figs. 6 and 12,
// a disc with a needle; a round hull, the boat of Fig. 11 given thickness; a thin leaf). Shapes are evaluated on the host (the
// sampled lattice of a mesh lives in Kokkos' default memory space, host memory in the CPU builds). The body
// places the shape with its centre of mass at the body frame's origin (centred()).
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "geometry/shapes.hpp"

namespace meniscus::membrane {

struct BodyShape3 {
  enum class Kind { Solid, Capsules, Revolved };
  Kind kind = Kind::Solid;
  geometry::Shape<3> solid;                    // Solid: the geometry layer's signed distance
  std::vector<std::array<double, 6>> capsule;  // Capsules: segment end points (a, b)
  double wire = 0;                             // Capsules: radius swept around every segment
  // Revolved: the profile (r, z), counter-clockwise in the (r, z) plane from a point on the axis to
  // another (the axis closes the polygon and is no surface), turned about the z axis through `offset`.
  std::vector<std::array<double, 2>> profile;
  double offset[3] = {0, 0, 0};

  // Signed distance of the body-frame point y (exact for one capsule, a sphere and a box; for a
  // union of capsules the minimum, exact outside and a lower bound of the depth inside).
  double distance(const double* y) const;
  // Outward unit normal at y (the gradient of distance(); at a capsule's axis any normal).
  void normal(const double* y, double* n) const;
  // Body-frame axis-aligned box that holds the solid.
  void bounds(double* lo, double* hi) const;
  // Smallest length the shape resolves (wire radius, radius, half the smallest edge of the box or of
  // a mesh's lattice box): sets the quadrature's leaf size in mass_properties.
  double feature() const;
  // The same shape moved by t (body frame).
  BodyShape3 translated(const double* t) const;
};

// Volume and the raw moments of a region: m1 = int x dV, m2 = int x x^T dV (row major 3 x 3).
struct RegionMoments {
  double volume = 0;
  double m1[3] = {0, 0, 0};
  double m2[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
};

// Moments of the region {phi < 0} inside the box [lo, hi] by adaptive octree quadrature: a cube of
// half width h whose centre has |phi| > sqrt(3) h lies wholly on one side (phi a signed distance or
// a lower bound of one away from the surface) and is integrated exactly; others are split until h
// reaches `leaf`, where the cube counts with the fraction of it behind the plane through the
// nearest surface point (normal by central differences of phi). The error is of the order of
// (leaf / feature)^2 of the volume (curvature, edges).
RegionMoments region_moments(const std::function<double(const double*)>& phi, const double* lo, const double* hi,
                             double leaf);

struct MassProperties {
  double volume = 0;
  double centroid[3] = {0, 0, 0};
  double inertia[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};  // about the centroid, per unit density (cm^5)
};
// The shape's mass properties by region_moments with leaves of feature() / 12 and / 24, the two
// extrapolated (Richardson): relative errors below 1e-3 (capsule, box: 7e-6 to 5e-4).
MassProperties mass_properties(const BodyShape3& shape);

// Shapes. A capsule of `length` between its hemispherical caps' centres along the body x axis; a
// box of edge lengths `size`; a chain of capsules along `points` (3 per point) with wire radius r.
BodyShape3 capsule_shape(double length, double r);
BodyShape3 box_shape(const std::array<double, 3>& size);
BodyShape3 capsule_chain(const std::vector<double>& points, double r);
// A paperclip (Ruan 2021 Fig. 4) flat in the body x-y plane: the centreline of a standard clip
// (three straight pairs joined by semicircles of radii 0.5, 0.375 and 0.25 of a 3.5-long clip),
// each semicircle as 8 chords, scaled to the overall `length` and swept with wire radius r.
BodyShape3 paperclip_shape(double length, double r);
// The solid of revolution of `profile` (r, z pairs, r >= 0) about the body z axis: the polygon from
// the first point, which lies on the axis (r = 0), through the others to the last, also on the axis
// (either orientation; at least three points, a non-zero area). Its signed distance is the exact 2D
// distance to the profile in the point's (r, z) half-plane. Throws std::invalid_argument naming the
// defect.
BodyShape3 revolved_shape(const std::vector<std::array<double, 2>>& profile);
// A closed triangle mesh (geometry::load_obj) as the signed distance sampled on a lattice of
// spacing h (geometry::sdf_from_mesh, exact point-triangle distances at the lattice nodes).
BodyShape3 mesh_shape(const geometry::TriangleMesh& mesh, double h);
// Length of the paperclip centreline of paperclip_shape (its wire's length).
double paperclip_wire_length(double length);

}  // namespace meniscus::membrane
