#include "run/resource_plan.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"
#include "core/log.hpp"
#include "grid/balance.hpp"
#include "geometry/sources.hpp"
#include "grid/decomposition.hpp"
#include "particles/particle_sources.hpp"
#include "run/contact_angle_resolution.hpp"

namespace meniscus::run {

namespace {

// Working bytes per particle and per grid node, measured as the peak resident memory of one rank
// over three steps (GNU time's maximum RSS), differences between runs that change one count at a
// time (docs/user-guide.md, "Errors and exit codes", has the table):
// - 2D MPM, explicit (dam break, 1.3e4 -> 2.1e5 particles): 150 B per particle, 100 B per node; a
//   run of the small deck peaks at 53 MB, the fixed cost of a process.
// - 3D MPM, explicit (oscillating drop, 3.8e3 -> 5.9e4 particles, 3.6e4 -> 1.3e5 nodes): 295-315 B
//   per particle, 190 B per node.
// - 2D MPM, implicit: the assembled Hessian (a 25-node stencil of 2 x 2 blocks per node in the
//   material, GAMG's coarse levels) adds per material cell 9.2 kB (4 particles per cell) and per grid
//   node 430 B.
// - 3D MPM, implicit: term by term below (the old per-cell figure, 142 kB at 8 particles per cell on a
//   small drop, counted the stencil's surface layer and the particles' blocks as if they grew with the
//   cells, and put the 1/127 candle at 10.7 GiB where it peaks at about 6).
// - SPH (implicit surface tension): 1.4-1.7 kB per particle in 2D, 3.9-5.9 kB in 3D (neighbour
//   lists and pair weights); 17 B per cell-list node.
// The constants round these up. The estimate is meant to catch decks that are off by orders of
// magnitude, not to budget the last 20 %.
constexpr double kBytesPerParticleMpm[2] = {150, 400};    // 2D, 3D
constexpr double kBytesPerNodeMpm[2] = {100, 200};        // dof (Dim+1) x a few PETSc Vecs, ghosted
// 2D implicit: per cell holding material and per grid node (the measurements above).
constexpr double kBytesPerCellImplicit2D = 10e3;
constexpr double kBytesPerNodeImplicit2D = 500;
// 3D implicit, term by term from what the code allocates, measured on the 3D candle
// (inputs/candle-3d.yaml at dx = 1/31, 1/47, 1/63 and 1/127: docs/performance.md, "Memory of the 3D
// candle"). The step's peak is a Newton iteration, with every array below alive at once:
// - each particle's 9 x 9 block d^2 psi / dF^2 (IncrementalPotential's solid_K, allocated for every
//   particle when any material is elastic), 648 B, and a few per-particle scalars;
// - per surface sample its two 9 x 9 and 42-entry blocks (984 B) and its state (position, area
//   vector, parent, coefficients, the split's balance particles);
// - per grid node the particles reach (Footprint::nodes): the assembled Hessian's row of up to 125
//   3 x 3 blocks in PETSc's AIJ storage (12 B per entry), our copy of its values (8 B per entry) and
//   pattern, and GAMG's coarse levels;
// - per grid node of the box: Newton's vectors (DMDA global and ghosted, 3 dofs) and node arrays;
// - with heat: the heat matrix's rows on the reached nodes (up to 125 scalar entries: 9.35 M entries
//   on 71 K nodes at 1/127; values, COO slots and PETSc's copy with its COO maps) and its box-sized
//   arrays (7 accumulated fields per node, index maps). The heat solve runs after the Newton solve,
//   so its storage first counts at the second step's Newton peak, the run's steady state.
constexpr double kBytesPerParticleSolidBlock = 81 * 8;
constexpr double kContourAreaPerFace = 1.1;  // contour area of the union of spheres / cell faces
constexpr double kBytesPerSample3D = 1500;
// The four figures below were refitted to measured peaks (docs/performance.md, "Memory of the 3D candle",
// "The estimate refitted", "Counted as the run seeds"): the per-box-node ones by doubling the box with the
// same material (the 3D impact deck at 1/63: 7.78e5 -> 1.54e6 nodes, peak 654 -> 1065 MiB, 567 B per node
// in all, 200 of them the explicit figure; the 1/31 candle: 3.28e4 -> 6.45e4 nodes, 161.5 -> 188.2 MiB,
// 883 B per node, the heat solve's share 316 B), the per-particle and per-reached-node ones with the box
// terms fixed, on the candle at 1/31, 1/47, 1/63, 1/127 and the impact deck, with the particles and reached
// nodes counted as the run seeds them: the largest deviation made smallest (estimate / peak 0.93 to 1.08).
// The previous fit (12 kB per reached node) was made on counts that put the 1/47 candle at 79 K particles
// where the run seeds 69 K. The term-by-term counts above (29 kB per reached node from full 125-block rows)
// overcounted the rows at the material's surface, which hold fewer blocks.
// Refitted again when the Newton solve moved to the active nodes and the assembled values and the fused
// solver's matrix halves stopped outliving their use (each of them ~50 MB at 1/63): the impact deck at
// 1/63 doubled around the same drop now peaks 396,708 -> 603,452 KiB, 278 B per added node, 200 of them the
// explicit figure; the candle at 1/31, 1/47, 1/63 (1 rank x 1 thread, 3 steps) 138.6, 421.8, 863.9 MiB,
// the impact deck 387.4 MiB (docs/performance.md, "One matrix at a time"). The impact deck's inner solve
// stays the fused block-SSOR CG, whose only copy of the matrix beside PETSc's now lives inside each solve;
// the candle's (stiff wax) switches to GAMG, whose hierarchy stays for the run: one per-node figure no
// longer fits both, so an elastic material adds the hierarchy's share per reached node. 4 kB and the ghost
// figure below are fitted: the 1/31 candle's live runs and the 2-rank decks at or under the estimate, the
// 1-rank decks within 0.93-1.13 of it (tests/app/memory_estimate.sh; 1/47 and 1/127 sit below their peaks).
constexpr double kBytesPerParticleImplicit3D = 1100;  // beside kBytesPerParticleMpm's 400
constexpr double kBytesPerMaterialNode3D = 8e3;
constexpr double kBytesPerMaterialNodeMultigrid3D = 4e3;  // with an elastic material (GAMG's levels)
constexpr double kBytesPerNodeImplicit3D = 80;
constexpr double kBytesPerMaterialNodeHeat3D = 6000;
// On several ranks each rank assembles partial Hessian rows for the unknown nodes of its ghost layers (5
// nodes deep with surface tension) and sends them to their owners, which add them to their own rows
// (mpm::AssembledHessian::plan_ghost_rows, add_ghost_rows). The rows' Kokkos arrays are in the reached-node
// term above (a rank's reached nodes include its ghost layers); the exchange keeps, per rank and from one
// pattern build to the next, a send buffer with the values of its ghost rows and a receive buffer with the
// values of the neighbours' ghost rows that lie on its own nodes (std::vector<double>, 72 B per 3 x 3 block
// each, the receive side with a 4-byte entry index per block): blocks per row x (72 + 72 + 4) B per ghost
// row. Measured on 2 ranks (the buffers' sizes printed by the run, the candle cut through its axis): 1/31
// 11.3 MB per rank (844 ghost rows, 91 blocks each), 1/63 47.0 MB (3,204 ghost rows, 99 blocks each), 1/127
// 178 MB (11,570 ghost rows, 104 blocks each), i.e. 11.1, 13.0 and 15.0 kB per reached node of the ghost
// layers as drawn here (1,016, 3,624 and 11,898); the figure is the largest deck's. This was the
// "+12-13.6 kB per reached node" the estimate had added on several ranks unattributed (as a second copy of
// every row): at 1/31 it is all of it. 25 kB since the reached-node term above fell: that term had also
// covered, on several ranks, PETSc's off-process share of the distributed matrix and GAMG's parallel
// products (the 2-rank peak per rank is 0.6 of the 1-rank one, not 0.5), which now shows: the 1/31 candle
// peaks 142 MiB on one rank and 148.6 MiB per rank on two (docs/performance.md, "One matrix at a time").
constexpr double kBytesPerGhostRow3D = 25e3;
constexpr double kBytesPerNodeHeat3D = 320;
constexpr double kBytesPerParticleSph[2] = {2000, 6000};  // neighbour lists grow with the dimension
constexpr double kBytesPerNodeSph = 20;                   // cell list heads and counts
constexpr double kBytesPerProcess = 50.0 * (1 << 20);     // libraries, PETSc/Kokkos/MPI runtime
constexpr double kMaxOutputFiles = 1e6;                   // particle files one run may ask for
constexpr double kMaxSeededBound = 5e7;  // lattice points of a mesh, curve or shell source `check` seeds

double volume_fraction(const std::string& type, int dim) {
  // Share of a shape's bounding box that the shape fills (meshes, curves and shells are seeded instead).
  if (type == "sphere" || type == "ellipsoid") return dim == 2 ? M_PI / 4 : M_PI / 6;
  return 1.0;
}

double read_meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (in >> key >> kb) {
    if (key == "MemAvailable:") return kb * 1024.0;
    in.ignore(256, '\n');
  }
  return INFINITY;
}

// The cgroup (v2, then v1) memory limit of this process, or infinity.
double cgroup_limit() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    if (in >> text && !text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
      const double v = std::strtod(text.c_str(), nullptr);
      if (v > 0 && v < 1e18) return v;
    }
  }
  return INFINITY;
}

// This process's current address-space size in bytes (/proc/self/statm, first field in pages).
double virtual_size() {
  std::ifstream in("/proc/self/statm");
  double pages = 0;
  in >> pages;
  return pages * static_cast<double>(sysconf(_SC_PAGESIZE));
}

// Region of a source for the overlap test: a box, a ball (sphere), or for an ellipsoid its bounding
// box (conservative: may report an overlap of the boxes that the shapes avoid); meshes are skipped.
struct Region {
  bool known = true;  // false for meshes: their extent is known only after loading them
  bool ball = false;
  std::array<double, 3> lo{}, hi{}, c{};
  double r = 0;
};

// A box source's particles as the sampler seeds them (geometry::box_lattice_points): the lattice (origin
// and spacing), the points the run keeps (count and index range per axis, which bound the cells they
// occupy) and the range it seeds before removing those in the wall layers (what the run's balancing counts).
struct BoxLattice {
  bool known = false;
  double points = 0, seeded_points = 0, spacing = 0;
  std::array<double, 3> lower{};
  std::array<std::array<int64_t, 2>, 3> kept{}, seeded{};
  double coordinate(int d, int64_t i) const { return geometry::lattice_coordinate(lower[d], i, spacing); }
};

Region region_of(const YAML::Node& s, int dim) {
  Region g;
  const std::string type = s["type"] ? s["type"].as<std::string>() : "box";
  for (int d = 0; d < dim; ++d) {
    if (type == "box") {
      g.lo[d] = s["lower"][d].as<double>();
      g.hi[d] = s["upper"][d].as<double>();
    } else if (type == "sphere") {
      g.ball = true;
      g.c[d] = s["center"][d].as<double>();
      g.r = s["radius"].as<double>();
      g.lo[d] = g.c[d] - g.r;
      g.hi[d] = g.c[d] + g.r;
    } else if (type == "ellipsoid") {
      g.lo[d] = s["center"][d].as<double>() - s["radii"][d].as<double>();
      g.hi[d] = s["center"][d].as<double>() + s["radii"][d].as<double>();
    } else {
      g.known = false;
    }
  }
  return g;
}

// Squared distance from point c to box [lo, hi].
double box_distance2(const std::array<double, 3>& c, const Region& b, int dim) {
  double s = 0;
  for (int d = 0; d < dim; ++d) {
    const double e = std::max({b.lo[d] - c[d], 0.0, c[d] - b.hi[d]});
    s += e * e;
  }
  return s;
}

bool overlap(const Region& a, const Region& b, int dim) {
  if (!a.known || !b.known) return false;
  for (int d = 0; d < dim; ++d)
    if (!(a.lo[d] < b.hi[d] && b.lo[d] < a.hi[d])) return false;  // touching faces do not overlap
  if (a.ball && b.ball) {
    double s = 0;
    for (int d = 0; d < dim; ++d) s += (a.c[d] - b.c[d]) * (a.c[d] - b.c[d]);
    return s < (a.r + b.r) * (a.r + b.r);
  }
  if (a.ball) return box_distance2(a.c, b, dim) < a.r * a.r;
  if (b.ball) return box_distance2(b.c, a, dim) < b.r * b.r;
  return true;
}

// Particle positions of one source (particles::seed_positions_by_source).
using HostPoints = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;

// Where a deck's material sits on the grid, from its sources' shapes (boxes, spheres, ellipsoids) and
// the seeded particles of the others (meshes, shells and curves):
// the cells that hold material, the grid nodes their particles reach (a quadratic
// B-spline particle in cell i touches nodes i-1 .. i+2 on each axis), and the cell faces between
// material and the rest (the surface that surface sampling covers). On a grid of more than 2^22
// cells the shapes are drawn on cells of 2, 4, ... cell sizes and the counts scaled: an overestimate
// for features thinner than those cells.
struct Footprint {
  double cells = 0, nodes = 0, faces = 0;
  // The drawing, on cells of k cell sizes: n[d] cells per axis, per cell whether it holds material and
  // its faces towards the rest; the reached nodes on (n[d] + 1) per axis.
  long k = 1;
  std::array<long, 3> n{1, 1, 1};
  std::vector<uint8_t> cell, faces_of, reached;
};

// The part of a footprint in a block: cells [c0, c1) and nodes [n0, n1) of the fine grid per axis. A
// coarse cell or node counts with the share of its k fine ones that lies in the block.
struct FootprintShare {
  double cells = 0, faces = 0, nodes = 0;
};

FootprintShare footprint_share(const Footprint& f, int dim, const std::array<long, 3>& c0, const std::array<long, 3>& c1,
                               const std::array<long, 3>& n0, const std::array<long, 3>& n1) {
  FootprintShare out;
  if (f.cell.empty()) return out;
  const double k = static_cast<double>(f.k);
  auto weights = [&](const std::array<long, 3>& lo, const std::array<long, 3>& hi, long extra) {
    std::array<std::vector<double>, 3> w;
    for (int d = 0; d < 3; ++d) {
      const long m = d < dim ? f.n[d] + extra : 1;
      w[d].assign(static_cast<size_t>(m), d < dim ? 0.0 : 1.0);
      if (d >= dim) continue;
      for (long i = 0; i < m; ++i) {
        const double a = std::max<double>(static_cast<double>(i) * k, static_cast<double>(lo[d]));
        const double b = std::min<double>(static_cast<double>(i + 1) * k, static_cast<double>(hi[d]));
        w[d][static_cast<size_t>(i)] = std::max(0.0, b - a) / k;
      }
    }
    return w;
  };
  const auto wc = weights(c0, c1, 0), wn = weights(n0, n1, 1);
  const double scale = std::pow(k, dim);
  for (long l = 0; l < (dim == 3 ? f.n[2] : 1); ++l)
    for (long j = 0; j < f.n[1]; ++j)
      for (long i = 0; i < f.n[0]; ++i) {
        const size_t q = static_cast<size_t>((l * f.n[1] + j) * f.n[0] + i);
        if (!f.cell[q]) continue;
        const double w = wc[0][static_cast<size_t>(i)] * wc[1][static_cast<size_t>(j)] * wc[2][static_cast<size_t>(l)];
        out.cells += w * scale;
        out.faces += w * f.faces_of[q] * scale / k;
      }
  const long m0 = f.n[0] + 1, m1 = f.n[1] + 1;
  for (long l = 0; l < (dim == 3 ? f.n[2] + 1 : 1); ++l)
    for (long j = 0; j < m1; ++j)
      for (long i = 0; i < m0; ++i)
        if (f.reached[static_cast<size_t>((l * m1 + j) * m0 + i)])
          out.nodes += wn[0][static_cast<size_t>(i)] * wn[1][static_cast<size_t>(j)] * wn[2][static_cast<size_t>(l)] * scale;
  return out;
}

bool inside_source(const Region& g, const double* x, int dim, bool ellipsoid) {
  if (!g.known) return false;
  if (g.ball || ellipsoid) {
    double s = 0;
    for (int d = 0; d < dim; ++d) {
      const double r = g.ball ? g.r : 0.5 * (g.hi[d] - g.lo[d]);
      const double c = g.ball ? g.c[d] : 0.5 * (g.hi[d] + g.lo[d]);
      s += (x[d] - c) * (x[d] - c) / (r * r);
    }
    return s <= 1;
  }
  for (int d = 0; d < dim; ++d)
    if (x[d] < g.lo[d] || x[d] > g.hi[d]) return false;
  return true;
}

Footprint material_footprint(const YAML::Node& sources, int dim, const std::vector<double>& lo, double dx,
                             const std::array<int, 3>& nodes, const std::vector<HostPoints>& seeded,
                             const std::vector<BoxLattice>& boxes) {
  Footprint f;
  if (!sources || !sources.IsSequence()) return f;
  std::vector<Region> regions;
  std::vector<bool> ellipsoid;
  for (const auto& s : sources) {
    regions.push_back(region_of(s, dim));
    ellipsoid.push_back(s["type"] && s["type"].as<std::string>() == "ellipsoid");
  }
  double total = 1;
  for (int d = 0; d < dim; ++d) total *= std::max(1, nodes[d] - 1);
  long k = 1;
  while (total / std::pow(static_cast<double>(k), dim) > double(1 << 22)) k *= 2;
  const double h = dx * static_cast<double>(k);
  std::array<long, 3> n{1, 1, 1};
  for (int d = 0; d < dim; ++d) n[d] = (std::max(1, nodes[d] - 1) + k - 1) / k;
  auto at = [&](long i, long j, long l) { return (l * n[1] + j) * n[0] + i; };
  std::vector<uint8_t> cell(static_cast<size_t>(n[0] * n[1] * n[2]), 0);
  for (size_t r = 0; r < regions.size(); ++r) {
    if (!regions[r].known) continue;
    if (r < boxes.size() && boxes[r].known) {
      // A box: the cells between its first and last particles, where the sampler puts them.
      if (!(boxes[r].points > 0)) continue;
      std::array<long, 3> first{0, 0, 0}, last{0, 0, 0};
      for (int d = 0; d < dim; ++d) {
        const double a = boxes[r].coordinate(d, boxes[r].kept[d][0]), b = boxes[r].coordinate(d, boxes[r].kept[d][1]);
        first[d] = std::clamp(static_cast<long>(std::floor((a - lo[d]) / h)), 0L, n[d] - 1);
        last[d] = std::clamp(static_cast<long>(std::floor((b - lo[d]) / h)), 0L, n[d] - 1);
      }
      for (long l = first[2]; l <= last[2]; ++l)
        for (long j = first[1]; j <= last[1]; ++j)
          for (long i = first[0]; i <= last[0]; ++i) cell[static_cast<size_t>(at(i, j, l))] = 1;
      continue;
    }
    // The cells of the source's bounding box. A cell holds material if one of its 2^dim quarter
    // points lies in the source (its centre alone misses the cells that a box's face halves).
    std::array<long, 3> first{0, 0, 0}, last{0, 0, 0};
    for (int d = 0; d < dim; ++d) {
      first[d] = std::max(0L, static_cast<long>(std::floor((regions[r].lo[d] - lo[d]) / h)));
      last[d] = std::min(n[d] - 1, static_cast<long>(std::floor((regions[r].hi[d] - lo[d]) / h)));
    }
    for (long l = first[2]; l <= last[2]; ++l)
      for (long j = first[1]; j <= last[1]; ++j)
        for (long i = first[0]; i <= last[0]; ++i) {
          uint8_t& c = cell[static_cast<size_t>(at(i, j, l))];
          const long idx[3] = {i, j, l};
          for (int corner = 0; corner < (1 << dim) && !c; ++corner) {
            double x[3] = {0, 0, 0};
            for (int d = 0; d < dim; ++d)
              x[d] = lo[d] + (static_cast<double>(idx[d]) + ((corner >> d) & 1 ? 0.75 : 0.25)) * h;
            if (inside_source(regions[r], x, dim, ellipsoid[r])) c = 1;
          }
        }
  }
  // Sources seeded in plan_resources (meshes, curves, shells): the cells their particles lie in.
  for (const auto& x : seeded)
    for (size_t q = 0; q < x.extent(0); ++q) {
      long idx[3] = {0, 0, 0};
      for (int d = 0; d < dim; ++d)
        idx[d] = std::clamp(static_cast<long>(std::floor((x(q, d) - lo[d]) / h)), 0L, n[d] - 1);
      cell[static_cast<size_t>(at(idx[0], idx[1], idx[2]))] = 1;
    }
  f.faces_of.assign(cell.size(), 0);
  const double scale = std::pow(static_cast<double>(k), dim);
  for (long l = 0; l < n[2]; ++l)
    for (long j = 0; j < n[1]; ++j)
      for (long i = 0; i < n[0]; ++i) {
        if (!cell[static_cast<size_t>(at(i, j, l))]) continue;
        f.cells += scale;
        const long idx[3] = {i, j, l};
        for (int d = 0; d < dim; ++d)
          for (int side = -1; side <= 1; side += 2) {
            long m[3] = {idx[0], idx[1], idx[2]};
            m[d] += side;
            if (m[d] < 0 || m[d] >= n[d] || !cell[static_cast<size_t>(at(m[0], m[1], m[2]))]) {
              f.faces += scale / static_cast<double>(k);
              ++f.faces_of[static_cast<size_t>(at(i, j, l))];
            }
          }
      }
  // Nodes reached: the cells dilated axis by axis (node j from cells j-2 .. j+1; one coarse cell
  // each side when coarsened).
  std::array<long, 3> m = n;
  std::vector<uint8_t> cur = cell;
  for (int d = 0; d < dim; ++d) {
    std::array<long, 3> out = m;
    out[d] = m[d] + 1;
    std::vector<uint8_t> next(static_cast<size_t>(out[0] * out[1] * out[2]), 0);
    const long lo_off = k == 1 ? -2 : -1, hi_off = k == 1 ? 1 : 0;
    for (long l = 0; l < out[2]; ++l)
      for (long j = 0; j < out[1]; ++j)
        for (long i = 0; i < out[0]; ++i) {
          long q[3] = {i, j, l};
          const long c0 = q[d];
          uint8_t v = 0;
          for (long o = lo_off; o <= hi_off && !v; ++o) {
            q[d] = c0 + o;
            if (q[d] >= 0 && q[d] < m[d]) v = cur[static_cast<size_t>((q[2] * m[1] + q[1]) * m[0] + q[0])];
          }
          next[static_cast<size_t>((l * out[1] + j) * out[0] + i)] = v;
        }
    cur.swap(next);
    m = out;
  }
  for (uint8_t v : cur) f.nodes += v;
  f.nodes *= scale;
  f.k = k;
  f.n = n;
  f.cell = std::move(cell);
  f.reached = std::move(cur);
  return f;
}

// The blocks of grid nodes [lo, hi) per axis that `ranks` ranks will own, as the run makes them:
// grid::balanced_layout on per-axis histograms of the footprint's particles (a cell's particles counted
// at both of its nodes) when `balanced`, else on empty histograms (the even split). Empty when the grid
// cannot be split (the caller reports that) or the deck draws no footprint.
// The particles the run seeds, where they are known point by point (boxes from their lattices, meshes,
// curves and shells from their seeded positions; empty when a sphere or an ellipsoid is among the sources):
// what particles::balanced_decomposition counts, before the particles in the walls are removed.
struct SeededSources {
  bool exact = false;
  const std::vector<BoxLattice>* boxes = nullptr;
  const std::vector<HostPoints>* points = nullptr;
  const std::vector<bool>* sampled = nullptr;
  std::vector<double> lower;
  double dx = 1;
};

// particles::node_histograms on the seeded sources: per axis, each particle counts at its nearest node plane.
template <int Dim>
void seeded_histograms(const SeededSources& src, std::array<std::vector<long>, Dim>& hist) {
  auto plane = [&](int d, double x) {
    const long i = static_cast<long>(std::floor((x - src.lower[d]) / src.dx + 0.5));
    return static_cast<size_t>(std::clamp(i, 0L, static_cast<long>(hist[d].size()) - 1));
  };
  for (size_t s = 0; s < src.boxes->size(); ++s) {
    if ((*src.sampled)[s]) {
      const auto& x = (*src.points)[s];
      for (size_t q = 0; q < x.extent(0); ++q)
        for (int d = 0; d < Dim; ++d) ++hist[d][plane(d, x(q, d))];
      continue;
    }
    const BoxLattice& b = (*src.boxes)[s];
    if (!(b.seeded_points > 0)) continue;
    for (int d = 0; d < Dim; ++d) {
      long other = 1;  // the points on the other axes
      for (int e = 0; e < Dim; ++e)
        if (e != d) other *= static_cast<long>(b.seeded[e][1] - b.seeded[e][0] + 1);
      for (int64_t i = b.seeded[d][0]; i <= b.seeded[d][1]; ++i) hist[d][plane(d, b.coordinate(d, i))] += other;
    }
  }
}

template <int Dim>
std::vector<std::array<std::array<long, 2>, 3>> rank_blocks_of(const Footprint& f, const std::array<int, 3>& nodes,
                                                                int ranks, int min_nodes,
                                                                const std::array<int, Dim>& requested, bool balanced,
                                                                const SeededSources& seeded) {
  std::vector<std::array<std::array<long, 2>, 3>> out;
  std::array<std::vector<long>, Dim> hist;
  for (int d = 0; d < Dim; ++d) hist[d].assign(static_cast<size_t>(nodes[d]), 0);
  if (balanced && seeded.exact) {
    seeded_histograms<Dim>(seeded, hist);
  } else if (balanced && !f.cell.empty()) {
    long other = 1;
    for (int d = 0; d < Dim - 1; ++d) other *= f.k;
    for (long l = 0; l < (Dim == 3 ? f.n[2] : 1); ++l)
      for (long j = 0; j < f.n[1]; ++j)
        for (long i = 0; i < f.n[0]; ++i) {
          if (!f.cell[static_cast<size_t>((l * f.n[1] + j) * f.n[0] + i)]) continue;
          const long idx[3] = {i, j, l};
          for (int d = 0; d < Dim; ++d)
            for (long c = idx[d] * f.k; c < std::min<long>((idx[d] + 1) * f.k, nodes[d] - 1); ++c) {
              hist[d][static_cast<size_t>(c)] += other;
              hist[d][static_cast<size_t>(c + 1)] += other;
            }
        }
  }
  std::array<int, Dim> procs{};
  std::array<std::vector<int>, Dim> ranges;
  if (!grid::balanced_layout<Dim>(hist, ranks, min_nodes, requested, procs, ranges).empty()) return out;
  std::array<int, 3> count{1, 1, 1};
  for (int d = 0; d < Dim; ++d) count[d] = static_cast<int>(ranges[d].size());
  for (int c = 0; c < count[2]; ++c)
    for (int b = 0; b < count[1]; ++b)
      for (int a = 0; a < count[0]; ++a) {
        const int at[3] = {a, b, c};
        std::array<std::array<long, 2>, 3> block{};
        for (int d = 0; d < 3; ++d) {
          long first = 0;
          for (int e = 0; d < Dim && e < at[d]; ++e) first += ranges[d][static_cast<size_t>(e)];
          block[d] = {first, d < Dim ? first + ranges[d][static_cast<size_t>(at[d])] : 1};
        }
        out.push_back(block);
      }
  return out;
}

std::vector<std::array<std::array<long, 2>, 3>> rank_blocks(const Footprint& f, int dim, const std::array<int, 3>& nodes,
                                                             int ranks, int min_nodes, const config::Section& domain,
                                                             bool balanced, const SeededSources& seeded) {
  const auto fixed = domain.vector("ranks");
  if (dim == 2)
    return rank_blocks_of<2>(f, nodes, ranks, min_nodes, {static_cast<int>(fixed[0]), static_cast<int>(fixed[1])},
                             balanced, seeded);
  return rank_blocks_of<3>(f, nodes, ranks, min_nodes,
                           {static_cast<int>(fixed[0]), static_cast<int>(fixed[1]), static_cast<int>(fixed[2])}, balanced,
                           seeded);
}

// mpm-multiphase removes, at start-up, the fluid particles seeded inside a solid or inside a fluid
// marked `displaces` (Yan et al. 2018 place a ball in a pool seeded as a full box); for such a pair
// the overlap is the intended way to compose the scene. Returns the displacing material's name, or "".
std::string multiphase_displacer(const YAML::Node& raw, const YAML::Node& a, const YAML::Node& b) {
  const YAML::Node mp = raw["mpm_multiphase"];
  if (!raw["materials"] || !raw["materials"].IsSequence()) return "";
  if (mp && mp["keep_fluid_inside_solids"] && mp["keep_fluid_inside_solids"].as<bool>()) return "";
  auto find = [&](const YAML::Node& src) -> YAML::Node {
    if (!src["material"]) return YAML::Node();
    const std::string name = src["material"].as<std::string>();
    for (const auto& m : raw["materials"])
      if (m["name"] && m["name"].as<std::string>() == name) return m;
    return YAML::Node();
  };
  auto displaces = [](const YAML::Node& m) {
    return m && m["model"] && (m["model"].as<std::string>() != "fluid" || (m["displaces"] && m["displaces"].as<bool>()));
  };
  auto plain_fluid = [&](const YAML::Node& m) { return m && m["model"] && m["model"].as<std::string>() == "fluid" && !displaces(m); };
  const YAML::Node ma = find(a), mb = find(b);
  if (displaces(ma) && plain_fluid(mb)) return ma["name"].as<std::string>();
  if (displaces(mb) && plain_fluid(ma)) return mb["name"].as<std::string>();
  return "";
}

// Sources are seeded independently, so where two overlap both lattices fill the space and the
// density there doubles (a common slip when composing scenes, rarely intended).
std::vector<std::string> overlapping_sources(const YAML::Node& raw, const std::string& method, int dim) {
  std::vector<std::string> out;
  const YAML::Node sources = raw["sources"];
  if (!sources || !sources.IsSequence()) return out;
  std::vector<Region> regions;
  for (const auto& s : sources) regions.push_back(region_of(s, dim));
  for (size_t i = 0; i < regions.size(); ++i)
    for (size_t j = i + 1; j < regions.size(); ++j)
      if (overlap(regions[i], regions[j], dim) &&
          (method != "mpm-multiphase" || multiphase_displacer(raw, sources[i], sources[j]).empty()))
        out.push_back(log::format("sources[%zu] and sources[%zu] overlap: both are filled with particles where they "
                                  "meet, so the mass there adds up (shrink one of them if that is not intended)",
                                  i, j));
  return out;
}

// Particle files: end_time / output.every_time of them, or max_steps / output.every (a file at most
// once a step, so max_steps bounds both). Each holds the positions and, unless output.fields names
// fewer, every persistent field with ids and materials.
void plan_output(ResourcePlan& p, const config::Section& root, int dim, bool sph, long max_steps, double end_time) {
  const auto sim = root.section("simulation");
  const auto out = root.section("output");
  if (max_steps < 0) max_steps = sim.integer("max_steps");
  if (end_time < 0) end_time = sim.real("end_time");
  const long every = out.integer("every");
  const double every_time = out.real("every_time");
  const double by_time = every_time > 0 ? std::floor(end_time / every_time) + 1 : 0;
  const double by_step = every > 0 && max_steps > 0 ? std::floor(static_cast<double>(max_steps) / every) + 1 : 0;
  double files = by_time + by_step;  // either key triggers a file
  if (max_steps > 0) files = std::min(files, static_cast<double>(max_steps) + 1);
  p.output_files = files;
  const auto fields = out.names("fields");
  const double reals = sph ? 2.0 * dim + 2 : 2.0 * dim + dim * dim + 3;  // position, velocity, ... per method
  const double per_particle = fields.empty() ? 8 * reals + 16 : 8 * dim * (1.0 + fields.size());
  p.output_bytes = files * p.particles * per_particle;
  // A file per step for a million steps is no output setting anyone means: most likely every_time
  // was given in the wrong unit. (output.every with max_steps is bounded by the step count, which
  // the user chose.)
  if (by_time > kMaxOutputFiles && files > kMaxOutputFiles)
    p.output = log::format("output.every_time = %g s asks for %.3g particle files before simulation.end_time = %g s "
                           "(more than %.0f; every file is written at most once a step); give a larger interval, "
                           "or output.every for a file every N steps",
                           every_time, by_time, end_time, kMaxOutputFiles);
}

}  // namespace

ResourcePlan plan_resources(const LoadedDeck& deck, int ranks, long max_steps, double end_time) {
  ResourcePlan p;
  p.ranks = std::max(1, ranks);
  const auto root = deck.deck.root();
  const int dim = deck.deck.dimension();
  const auto domain = root.section("domain");
  const auto lo = domain.vector("lower"), hi = domain.vector("upper");
  const double dx = domain.real("cell_size");
  const YAML::Node& raw = deck.deck.resolved();
  const bool sph = raw["sph"] && raw["sph"]["particle_radius"];

  std::array<int, 3> nodes{1, 1, 1};
  double node_count = 1;
  for (int d = 0; d < dim; ++d) {
    const double cells = std::round((hi[d] - lo[d]) / dx);
    node_count *= cells + 1;
    if (cells + 1 > INT_MAX) {
      p.overflow = log::format("%.3g cells along axis %d do not fit a 32-bit index", cells, d);
    } else {
      nodes[d] = static_cast<int>(cells) + 1;
    }
  }
  p.grid_nodes = node_count;
  // PETSc numbers the unknowns of the grid with 32-bit integers (PetscInt in Debian's build).
  const double unknowns = node_count * (sph ? 1 : dim + 1);
  if (p.overflow.empty() && unknowns > INT_MAX)
    p.overflow = log::format("%.3g grid unknowns exceed PETSc's 32-bit index limit (2^31 - 1)", unknowns);

  // Particles: each source's lattice (spacing 2 r for SPH, cell_size / particles_per_cell^(1/dim)
  // for MPM) over its bounding box, clipped to the domain, times the share of the box it fills. Meshes,
  // curves and shells have no closed form here: they are seeded as the run will seed them
  // (particles::seed_positions_by_source, on the whole box) and their particles counted, unless their
  // bound (the lattice over the box of a curve's control points grown by its half-width, over the domain
  // for a mesh; a shell's rows x points x layers) exceeds kMaxSeededBound: that bound then stands.
  // Boxes are counted exactly, point by point as the sampler keeps them (geometry::box_lattice_points,
  // with the sampler's spacing geometry::lattice_spacing): a face off the particle lattice keeps its
  // last layer only where that layer lies inside the box. The MPM methods then remove the particles in
  // the box's wall layers (physics::remove_particles_inside_colliders; half-spaces wall_cells cells deep
  // at the faces of the grid's box, physics::read_colliders): those are not counted either. Particles
  // that other colliders of the deck remove are (the estimate stays above the run there).
  std::array<double, 3> keep_lo{-INFINITY, -INFINITY, -INFINITY}, keep_hi{INFINITY, INFINITY, INFINITY};
  if (!sph && deck.method.rfind("mpm", 0) == 0 && domain.text("walls") != "none") {
    const double t = static_cast<double>(domain.integer("wall_cells")) * dx;
    for (int d = 0; d < dim; ++d) {
      keep_lo[d] = lo[d] + t;
      keep_hi[d] = lo[d] + std::max(1.0, std::round((hi[d] - lo[d]) / dx)) * dx - t;
    }
  }
  const YAML::Node sources = raw["sources"];
  const std::vector<config::Section> source_sections =
      sources && sources.IsSequence() ? root.list("sources") : std::vector<config::Section>();
  std::vector<double> bound;
  std::vector<bool> sampled;
  std::vector<BoxLattice> boxes;
  if (sources && sources.IsSequence()) {
    for (const auto& s : sources) {
      const std::string type = s["type"] ? s["type"].as<std::string>() : "box";
      const long ppc = source_sections[bound.size()].integer("particles_per_cell");
      double spacing = dx;
      try {
        spacing = geometry::lattice_spacing(dx, static_cast<int>(ppc), dim);
      } catch (const std::invalid_argument&) {  // the run refuses such a deck; estimate it anyway
        spacing = sph ? 2 * raw["sph"]["particle_radius"].as<double>()
                      : dx / std::pow(std::max(1.0, static_cast<double>(ppc)), 1.0 / dim);
      }
      double count = volume_fraction(type, dim);
      BoxLattice lattice;
      if (type == "box") {
        std::array<double, 3> a{}, b{};
        bool empty = false;
        for (int d = 0; d < dim; ++d) {
          a[d] = std::max(s["lower"][d].as<double>(), lo[d]);
          b[d] = std::min(s["upper"][d].as<double>(), hi[d]);
          empty = empty || !(b[d] > a[d]);
        }
        lattice.known = true;
        lattice.lower = a;
        lattice.spacing = spacing;
        if (!empty && p.overflow.empty()) {
          try {
            constexpr double inf = INFINITY;
            if (dim == 2) {
              std::array<std::array<int64_t, 2>, 2> kept{}, all{};
              lattice.points = static_cast<double>(geometry::box_lattice_points<2>(
                  {a[0], a[1]}, {b[0], b[1]}, spacing, {keep_lo[0], keep_lo[1]}, {keep_hi[0], keep_hi[1]}, &kept));
              lattice.seeded_points = static_cast<double>(
                  geometry::box_lattice_points<2>({a[0], a[1]}, {b[0], b[1]}, spacing, {-inf, -inf}, {inf, inf}, &all));
              for (int d = 0; d < 2; ++d) {
                lattice.kept[d] = kept[d];
                lattice.seeded[d] = all[d];
              }
            } else {
              lattice.points = static_cast<double>(
                  geometry::box_lattice_points<3>(a, b, spacing, keep_lo, keep_hi, &lattice.kept));
              lattice.seeded_points = static_cast<double>(
                  geometry::box_lattice_points<3>(a, b, spacing, {-inf, -inf, -inf}, {inf, inf, inf}, &lattice.seeded));
            }
          } catch (const std::invalid_argument&) {  // a lattice too large to index: the bound below stands
            lattice.known = false;
          }
        }
      }
      boxes.push_back(lattice);
      for (int d = 0; d < dim; ++d) {
        double a = lo[d], b = hi[d];
        if (type == "box") {
          a = s["lower"][d].as<double>();
          b = s["upper"][d].as<double>();
        } else if (type == "sphere") {
          a = s["center"][d].as<double>() - s["radius"].as<double>();
          b = s["center"][d].as<double>() + s["radius"].as<double>();
        } else if (type == "ellipsoid") {
          a = s["center"][d].as<double>() - s["radii"][d].as<double>();
          b = s["center"][d].as<double>() + s["radii"][d].as<double>();
        } else if (type == "curve") {  // a Bezier curve lies in the hull of its control points
          const double half = 0.5 * (s["thickness"] ? s["thickness"].as<double>() : 0.0) + spacing;
          a = INFINITY;
          b = -INFINITY;
          for (const char* key : {"start", "control_1", "control_2", "end"}) {
            a = std::min(a, s[key][d].as<double>() - half);
            b = std::max(b, s[key][d].as<double>() + half);
          }
        }
        a = std::max(a, lo[d]);
        b = std::min(b, hi[d]);
        count *= std::max(0.0, std::ceil((b - a) / spacing - 1e-9));
      }
      if (type == "shell" && dim == 3) {  // about rows x points per row x layers (geometry/shell.hpp)
        const double r0 = s["radius_start"].as<double>(), r1 = s["radius_end"].as<double>();
        const double len = std::hypot(r1 - r0, s["z_end"].as<double>() - s["z_start"].as<double>());
        const double rows = len > 0 ? std::max(1.0, std::round(len / spacing)) + 1 : 1;
        const double layers = s["layers"] ? s["layers"].as<double>() : 2;
        count = layers * rows * std::max(1.0, M_PI * (r0 + r1) / spacing);
      }
      if (lattice.known) count = lattice.points;
      bound.push_back(count);
      sampled.push_back(type != "box" && type != "sphere" && type != "ellipsoid" && p.overflow.empty() &&
                        count <= kMaxSeededBound);
    }
  }
  std::vector<HostPoints> seeded;
  if (std::find(sampled.begin(), sampled.end(), true) != sampled.end()) {
    if (!Kokkos::is_initialized())
      throw std::logic_error("plan_resources: seeding mesh, curve and shell sources needs Kokkos");
    std::vector<std::string> names;
    if (raw["materials"] && raw["materials"].IsSequence())
      for (const auto& m : raw["materials"])
        if (m["name"]) names.push_back(m["name"].as<std::string>());
    if (dim == 2) {
      seeded = particles::seed_positions_by_source<2>(root, names, sampled);
    } else {
      seeded = particles::seed_positions_by_source<3>(root, names, sampled);
    }
  }
  double material_cells = 0;
  auto kept = [&](const HostPoints& x) {  // seeded points outside the wall layers
    double n = 0;
    for (size_t q = 0; q < x.extent(0); ++q) {
      bool in = true;
      for (int d = 0; d < dim; ++d) in = in && !(x(q, d) < keep_lo[d]) && !(x(q, d) > keep_hi[d]);
      n += in ? 1 : 0;
    }
    return n;
  };
  for (size_t si = 0; si < bound.size(); ++si) {
    const double count = sampled[si] ? kept(seeded[si]) : bound[si];
    p.particles += count;
    const double ppc = static_cast<double>(source_sections[si].integer("particles_per_cell"));
    material_cells += sph ? 0.0 : count / std::max(1.0, ppc);
  }
  p.warnings = overlapping_sources(raw, deck.method, dim);
  if (deck.method == "mpm" || deck.method == "mpm-explicit")
    for (auto& w : contact_angle_resolution_warnings(root, dim)) p.warnings.push_back(std::move(w));
  const int di = dim == 3 ? 1 : 0;
  const YAML::Node mpm = raw["mpm"];
  const bool implicit = mpm && mpm["integrator"] && mpm["integrator"].as<std::string>() == "implicit";
  const YAML::Node st = mpm ? mpm["surface_tension"] : YAML::Node();
  const bool tension = st && st["enabled"] && st["enabled"].as<bool>();
  const YAML::Node heat = mpm ? mpm["heat"] : YAML::Node();
  const bool heat_on = heat && heat["enabled"] && heat["enabled"].as<bool>();
  bool solid = false;  // any elastic material: every particle then holds its 9 x 9 block
  if (raw["materials"] && raw["materials"].IsSequence())
    for (const auto& m : raw["materials"])
      if (m["model"] && m["model"].as<std::string>() != "fluid") solid = true;
  // Where the material sits (MPM): the whole job's counts, and each rank's share below.
  const Footprint f = sph ? Footprint() : material_footprint(sources, dim, lo, dx, nodes, seeded, boxes);
  if (implicit && dim == 3) {
    p.material_nodes = f.nodes;
    if (tension) {
      const double per_dx = st["samples_per_dx"] ? st["samples_per_dx"].as<double>() : 4.0;
      p.surface_samples = f.faces * per_dx * per_dx * kContourAreaPerFace;
    }
  }
  // What one process holds (see the constants): its particles (and the halo particles it copies from its
  // neighbours), its surface samples, its cells of material, the reached nodes and the nodes of its block of
  // the grid with the ghost layers around it, and on several ranks the assembled Hessian's exchange buffers
  // for the reached nodes of its ghost layers (kBytesPerGhostRow3D). The implicit 3D step's peak is a Newton
  // iteration.
  auto bytes_of = [&](double particles, double halo, double samples, double cells, double reached, double box,
                      double ghost_reached) {
    double b = (particles + halo) * (sph ? kBytesPerParticleSph[di] : kBytesPerParticleMpm[di]) +
               box * (sph ? kBytesPerNodeSph : kBytesPerNodeMpm[di]);
    if (implicit && dim == 3) {
      b += particles * (kBytesPerParticleImplicit3D + (solid ? kBytesPerParticleSolidBlock : 0.0)) +
           samples * kBytesPerSample3D +
           reached * (kBytesPerMaterialNode3D + (solid ? kBytesPerMaterialNodeMultigrid3D : 0.0)) +
           box * kBytesPerNodeImplicit3D +
           ghost_reached * kBytesPerGhostRow3D;
      if (heat_on) b += reached * kBytesPerMaterialNodeHeat3D + box * kBytesPerNodeHeat3D;
    } else if (implicit) {
      b += cells * kBytesPerCellImplicit2D + box * kBytesPerNodeImplicit2D;
    }
    return b + kBytesPerProcess;
  };
  const double whole = bytes_of(p.particles, 0, p.surface_samples, material_cells, f.nodes, node_count, 0);
  p.bytes_total = whole;
  p.bytes_per_rank = whole;
  if (p.ranks > 1) {
    // SPH: an even share each. MPM: the blocks the run will make (grid::balanced_layout on the particles'
    // planes, or the even split), each with its ghost layers (the stencil width: 5 nodes with surface
    // tension, 2 without) and, with surface tension, the halo of particles that resampling copies from
    // the neighbours ((0.867 + 3) cells, surface_resampling.hpp).
    std::vector<std::array<std::array<long, 2>, 3>> blocks;
    SeededSources known;
    known.exact = !boxes.empty();
    for (size_t si = 0; si < boxes.size(); ++si) known.exact = known.exact && (boxes[si].known || sampled[si]);
    known.boxes = &boxes;
    known.points = &seeded;
    known.sampled = &sampled;
    known.lower = lo;
    known.dx = dx;
    if (!sph) blocks = rank_blocks(f, dim, nodes, p.ranks, (tension ? 5 : 2) + 1, domain,
                                   domain.text("balance") == "particles", known);
    if (blocks.empty()) {
      p.bytes_per_rank = (whole - kBytesPerProcess) / p.ranks + kBytesPerProcess;
      p.bytes_total = p.bytes_per_rank * p.ranks;
    } else {
      const long ghost = tension ? 5 : 2, halo = tension ? 4 : 0;
      p.bytes_total = 0;
      p.bytes_per_rank = 0;
      for (const auto& b : blocks) {
        std::array<long, 3> c0{0, 0, 0}, c1{1, 1, 1}, h0 = c0, h1 = c1, g0 = c0, g1{1, 1, 1};
        double box = 1;
        for (int d = 0; d < dim; ++d) {
          const long cells = nodes[d] - 1;
          c0[d] = b[d][0] == 0 ? 0 : b[d][0];
          c1[d] = b[d][1] == nodes[d] ? cells : b[d][1];
          h0[d] = std::max(0L, c0[d] - halo);
          h1[d] = std::min(cells, c1[d] + halo);
          g0[d] = std::max(0L, b[d][0] - ghost);
          g1[d] = std::min<long>(nodes[d], b[d][1] + ghost);
          box *= static_cast<double>(g1[d] - g0[d]);
        }
        const FootprintShare own = footprint_share(f, dim, c0, c1, g0, g1);
        std::array<long, 3> n0{0, 0, 0}, n1{1, 1, 1};  // the block's own nodes, without the ghost layers
        for (int d = 0; d < dim; ++d) {
          n0[d] = b[d][0];
          n1[d] = b[d][1];
        }
        const double owned_reached = footprint_share(f, dim, c0, c1, n0, n1).nodes;
        const FootprintShare wide = footprint_share(f, dim, h0, h1, g0, g1);
        const double share = f.cells > 0 ? own.cells / f.cells : 1.0 / p.ranks;
        const double halo_share = f.cells > 0 ? (wide.cells - own.cells) / f.cells : 0.0;
        const double face_share = f.faces > 0 ? own.faces / f.faces : 1.0 / p.ranks;
        const double bytes = bytes_of(p.particles * share, p.particles * halo_share, p.surface_samples * face_share,
                                      material_cells * share, own.nodes, box, own.nodes - owned_reached);
        p.bytes_total += bytes;
        p.bytes_per_rank = std::max(p.bytes_per_rank, bytes);
      }
    }
  }
  if (p.overflow.empty() && p.particles / p.ranks > INT_MAX)
    p.overflow = log::format("%.3g particles per rank exceed the 32-bit loop index limit", p.particles / p.ranks);

  // The process grid the run will ask for (see grid::Decomposition): MPM needs blocks of at least
  // stencil width + 1 nodes (2, or 5 with surface tension), SPH of 2.
  if (p.overflow.empty()) {
    int width = 1;
    if (raw["mpm"]) {
      const YAML::Node st = raw["mpm"]["surface_tension"];
      width = (st && st["enabled"] && st["enabled"].as<bool>()) ? 5 : 2;
    }
    const auto fixed = domain.vector("ranks");
    long prod = 1;
    bool all_fixed = true;
    for (int d = 0; d < dim; ++d) {
      if (fixed[d] > 0) prod *= static_cast<long>(fixed[d]);
      else all_fixed = false;
    }
    if (all_fixed && prod != p.ranks) {
      p.decomposition = log::format("the process grid domain.ranks has %ld blocks but the job has %d ranks", prod,
                                    p.ranks);
      p.decomposition_key = "domain.ranks";
    } else if (dim == 2) {
      std::array<int, 2> n{nodes[0], nodes[1]}, procs{static_cast<int>(fixed[0]), static_cast<int>(fixed[1])};
      p.decomposition = grid::Decomposition<2>::choose_procs(n, p.ranks, width + 1, procs);
    } else {
      std::array<int, 3> n{nodes[0], nodes[1], nodes[2]};
      std::array<int, 3> procs{static_cast<int>(fixed[0]), static_cast<int>(fixed[1]), static_cast<int>(fixed[2])};
      p.decomposition = grid::Decomposition<3>::choose_procs(n, p.ranks, width + 1, procs);
    }
  }
  plan_output(p, root, dim, sph, max_steps, end_time);
  return p;
}

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  while (b >= 1024 && i < 5) {
    b /= 1024;
    ++i;
  }
  return log::format("%.3g %s", b, unit[i]);
}

std::string describe(const ResourcePlan& p) {
  std::string files = "no particle files";
  if (p.output_files > 0)
    files = log::format("%.3g particle files of about %s (%s in all)", p.output_files,
                        human_bytes(p.output_bytes / p.output_files).c_str(), human_bytes(p.output_bytes).c_str());
  else if (p.output.empty())
    files = "particle files every output.every steps (no step limit: no total)";
  std::string solve;
  if (p.material_nodes > 0)
    solve = log::format(" (%.3g of them reached by the material", p.material_nodes) +
            (p.surface_samples > 0 ? log::format(", %.3g surface samples)", p.surface_samples) : std::string(")"));
  const std::string memory =
      p.ranks == 1 ? log::format("about %s in all", human_bytes(p.bytes_total).c_str())
                   : log::format("about %s summed over the ranks", human_bytes(p.bytes_total).c_str());
  return log::format("estimate for %d rank%s: %.3g particles at the start, %.3g grid nodes%s, %s, %s per rank%s; "
                     "output: %s",
                     p.ranks, p.ranks == 1 ? "" : "s", p.particles, p.grid_nodes, solve.c_str(), memory.c_str(),
                     human_bytes(p.bytes_per_rank).c_str(), p.ranks == 1 ? "" : " (the largest rank)", files.c_str());
}

double rank_memory_limit(MPI_Comm comm, const LoadedDeck& deck, std::string& source) {
  MPI_Comm node;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local = 1;
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  double limit = INFINITY;
  source = "";
  auto consider = [&](double v, const std::string& what) {
    if (v < limit) {
      limit = v;
      source = what;
    }
  };
  const double max_memory = deck.deck.root().section("run").real("max_memory");
  if (max_memory > 0) consider(max_memory * 1024.0 * 1024.0 * 1024.0, "run.max_memory");
  const double node_bytes = std::min(read_meminfo_available(), cgroup_limit());
  consider(node_bytes / local, log::format("the node's available memory (%s) shared by %d rank%s",
                                           human_bytes(node_bytes).c_str(), local, local == 1 ? "" : "s"));
  struct rlimit rl {};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    // The limit counts address space, which the libraries and thread stacks already use far beyond
    // their resident memory: what is left of it, plus the process cost the estimate includes.
    consider(static_cast<double>(rl.rlim_cur) - virtual_size() + kBytesPerProcess,
             log::format("the address-space limit (ulimit -v %s)", human_bytes(static_cast<double>(rl.rlim_cur)).c_str()));
  }
  // Every rank must reach the same verdict: the smallest limit of any rank decides.
  struct {
    double value;
    int rank;
  } mine{limit, rank}, least{};
  MPI_Allreduce(&mine, &least, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
  int len = rank == least.rank ? static_cast<int>(source.size()) : 0;
  MPI_Bcast(&len, 1, MPI_INT, least.rank, comm);
  source.resize(static_cast<size_t>(len));
  MPI_Bcast(source.data(), len, MPI_CHAR, least.rank, comm);
  return least.value;
}

void refuse_what_cannot_fit(MPI_Comm comm, const LoadedDeck& deck, const ResourcePlan& p) {
  const std::string& file = deck.deck.file();
  if (!p.overflow.empty()) throw InputError(file, "domain.cell_size", p.overflow + "; use a coarser grid or fewer particles");
  if (!p.decomposition.empty()) throw InputError(file, p.decomposition_key, p.decomposition);
  if (!p.output.empty()) throw InputError(file, "output.every_time", p.output);
  std::string source;
  const double limit = rank_memory_limit(comm, deck, source);
  if (!(p.bytes_per_rank > limit)) return;
  const std::string why =
      log::format("the run needs about %s per rank (%.3g particles, %.3g grid nodes on %d rank%s) but "
          "may use %s (%s); coarsen domain.cell_size or the sources' particles_per_cell, or "
                                 "spread the run over more nodes",
                                 human_bytes(p.bytes_per_rank).c_str(), p.particles, p.grid_nodes, p.ranks,
                                 p.ranks == 1 ? "" : "s", human_bytes(limit).c_str(), source.c_str());
  // MENISCUS_MEMORY_CHECK=warn runs such a deck anyway (where the estimate is known to be too
  // pessimistic, or to see where the allocation fails): it then ends with "out of memory", exit 1.
  const char* check = std::getenv("MENISCUS_MEMORY_CHECK");
  if (check && std::string(check) == "warn") {
    log::warn("%s: domain.cell_size: %s (running anyway: MENISCUS_MEMORY_CHECK=warn)", file.c_str(), why.c_str());
    return;
  }
  throw InputError(file, "domain.cell_size", why);
}

}  // namespace meniscus::run
