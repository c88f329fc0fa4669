// Particle and grid output: the HDF5 files, read back with the plain HDF5 C API, hold exactly the
// particles of every rank (counts and values, whatever the number of writer ranks), the grid file
// holds the whole particle mass, and the XDMF documents are well-formed XML whose data references
// name datasets that exist.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/error.hpp"
#include "run/simulation.hpp"
#include "run_folder.hpp"
#include "scene.hpp"

using namespace meniscus;
namespace fs = std::filesystem;

namespace {

const std::string kScene = test::kWaterAndBlockScene + "diagnostics: {every: 5}\noutput: {every: 5}\n";

std::vector<double> read_doubles(hid_t file, const std::string& name, std::vector<hsize_t>& dims) {
  hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << name;
  hid_t s = H5Dget_space(d);
  dims.assign(static_cast<size_t>(H5Sget_simple_extent_ndims(s)), 0);
  H5Sget_simple_extent_dims(s, dims.data(), nullptr);
  hsize_t n = 1;
  for (auto x : dims) n *= x;
  std::vector<double> v(n);
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(s);
  H5Dclose(d);
  return v;
}

std::vector<int64_t> read_ints(hid_t file, const std::string& name) {
  hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << name;
  hid_t s = H5Dget_space(d);
  std::vector<int64_t> v(static_cast<size_t>(H5Sget_simple_extent_npoints(s)));
  H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(s);
  H5Dclose(d);
  return v;
}

double attr_double(hid_t file, const char* name) {
  double v = -1;
  hid_t a = H5Aopen(file, name, H5P_DEFAULT);
  H5Aread(a, H5T_NATIVE_DOUBLE, &v);
  H5Aclose(a);
  return v;
}

// A minimal XML check: tags balance and nest properly (no DTD or entities needed for XDMF).
bool well_formed(const std::string& xml, std::string& why) {
  std::vector<std::string> open;
  size_t pos = 0;
  while ((pos = xml.find('<', pos)) != std::string::npos) {
    const size_t end = xml.find('>', pos);
    if (end == std::string::npos) {
      why = "unterminated tag";
      return false;
    }
    const std::string tag = xml.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (tag.empty() || tag[0] == '?' || tag[0] == '!') continue;
    const std::string name = tag.substr(tag[0] == '/' ? 1 : 0, tag.find_first_of(" /", 1) - (tag[0] == '/' ? 1 : 0));
    if (tag[0] == '/') {
      if (open.empty() || open.back() != name) {
        why = "</" + name + "> closes " + (open.empty() ? std::string("nothing") : "<" + open.back() + ">");
        return false;
      }
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(name);
    }
  }
  if (!open.empty()) why = "<" + open.back() + "> is never closed";
  return open.empty();
}

// Every "file.h5:/dataset" reference of an XDMF document names an existing dataset; returns how many.
int check_references(const std::string& dir, const std::string& xml) {
  static const std::regex ref(">([^<>:]+\\.h5):(/[^<]+)</DataItem>");
  int count = 0;
  for (std::sregex_iterator it(xml.begin(), xml.end(), ref), end; it != end; ++it) {
    const std::string file = (fs::path(dir) / (*it)[1].str()).string();
    const std::string dataset = (*it)[2].str();
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(f, 0) << file;
    if (f < 0) continue;
    EXPECT_GT(H5Lexists(f, dataset.c_str(), H5P_DEFAULT), 0) << file << ":" << dataset;
    H5Fclose(f);
    ++count;
  }
  return count;
}

}  // namespace

TEST(ParticleOutput, FilesHoldEveryRanksParticles) {
  auto d = test::deck_from_string(kScene);
  test::SharedFolder dir_folder(MPI_COMM_WORLD, "output");
  const std::string& dir = dir_folder.path();
  auto sim = test::run_for_steps(d, dir, 10);
  const auto g = test::gather_particles(MPI_COMM_WORLD, sim->method().particles());
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;

  const std::string file = dir + "/particles_000010.h5";
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0) << file;
  const size_t n = g.id.size();
  ASSERT_GT(n, 1000u);
  EXPECT_EQ(attr_double(f, "step"), 10.0);
  EXPECT_GT(attr_double(f, "time"), 0.0);
  const auto ids = read_ints(f, "/id");
  const auto mats = read_ints(f, "/material");
  const auto index = read_ints(f, "/point_index");
  ASSERT_EQ(ids.size(), n);
  ASSERT_EQ(mats.size(), n);
  ASSERT_EQ(index.size(), n);
  std::vector<hsize_t> dims;
  const auto pos = read_doubles(f, "/position", dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{n, 3}));
  const auto vel = read_doubles(f, "/velocity", dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{n, 3}));
  const auto C = read_doubles(f, "/affine_velocity", dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{n, 4}));
  const auto J = read_doubles(f, "/volume_ratio", dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{n}));
  const auto F = read_doubles(f, "/deformation_gradient", dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{n, 4}));
  H5Fclose(f);

  // Same particles, same values (the file is in writer-rank order; match by id).
  const auto row = g.row_of();
  int mismatches = 0;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(index[i], static_cast<int64_t>(i));
    auto it = row.find(ids[i]);
    ASSERT_NE(it, row.end()) << "id " << ids[i] << " is not a particle";
    const size_t p = it->second;
    bool same = mats[i] == g.material[p] && pos[3 * i + 2] == 0.0 && vel[3 * i + 2] == 0.0 &&
                J[i] == g.field.at("volume_ratio")[p];
    for (int c = 0; c < 2; ++c)
      same = same && pos[3 * i + c] == g.field.at("position")[2 * p + c] && vel[3 * i + c] == g.field.at("velocity")[2 * p + c];
    for (int c = 0; c < 4; ++c)
      same = same && C[4 * i + c] == g.field.at("affine_velocity")[4 * p + c] &&
             F[4 * i + c] == g.field.at("deformation_gradient")[4 * p + c];
    if (!same && mismatches++ < 5) ADD_FAILURE() << "particle " << ids[i] << " differs in the file";
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(ParticleOutput, XdmfDocumentsAreWellFormedAndReferenceExistingDatasets) {
  auto d = test::deck_from_string(kScene, {"output.grid=true", "output.fields=[velocity, id]"});
  test::SharedFolder dir_folder(MPI_COMM_WORLD, "xdmf");
  const std::string& dir = dir_folder.path();
  auto sim = test::run_for_steps(d, dir, 7);  // outputs at 0, 5 and the last step, 7
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  for (const std::string prefix : {"particles", "grid"}) {
    const std::string collection = test::read_text_file(dir + "/" + prefix + ".xdmf");
    std::string why;
    EXPECT_TRUE(well_formed(collection, why)) << prefix << ".xdmf: " << why;
    EXPECT_NE(collection.find("CollectionType=\"Temporal\""), std::string::npos);
    for (const char* step : {"000000", "000005", "000007"}) {
      const std::string name = prefix + "_" + step + ".xdmf";
      EXPECT_NE(collection.find("href=\"" + name + "\""), std::string::npos) << name << " not in the collection";
      const std::string doc = test::read_text_file(dir + "/" + name);
      EXPECT_TRUE(well_formed(doc, why)) << name << ": " << why;
      // particles: point_index, position, velocity, id; grid: mass, velocity
      EXPECT_EQ(check_references(dir, doc), prefix == std::string("particles") ? 4 : 2) << name;
    }
  }
  // Only the chosen fields (and the position) are written.
  hid_t f = H5Fopen((dir + "/particles_000005.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  EXPECT_GT(H5Lexists(f, "/velocity", H5P_DEFAULT), 0);
  EXPECT_EQ(H5Lexists(f, "/mass", H5P_DEFAULT), 0);
  EXPECT_EQ(H5Lexists(f, "/material", H5P_DEFAULT), 0);
  H5Fclose(f);
}

TEST(ParticleOutput, GridFileHoldsTheWholeParticleMass) {
  auto d = test::deck_from_string(kScene, {"output.grid=true"});
  test::SharedFolder dir_folder(MPI_COMM_WORLD, "grid");
  const std::string& dir = dir_folder.path();
  auto sim = test::run_for_steps(d, dir, 5);
  const auto g = test::gather_particles(MPI_COMM_WORLD, sim->method().particles());
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  double particle_mass = 0;
  for (double m : g.field.at("mass")) particle_mass += m;
  hid_t f = H5Fopen((dir + "/grid_000005.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  std::vector<hsize_t> dims;
  const auto mass = read_doubles(f, "/mass", dims);
  // 0.4 x 0.2 m at 5 mm: 81 x 41 nodes, one node in z.
  EXPECT_EQ(dims, (std::vector<hsize_t>{1, 41, 81}));
  const auto vel = read_doubles(f, "/velocity", dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{1, 41, 81, 3}));
  H5Fclose(f);
  double grid_mass = 0;
  for (double m : mass) grid_mass += m;
  // Quadratic B-splines are a partition of unity: P2G conserves mass exactly up to round-off.
  EXPECT_NEAR(grid_mass, particle_mass, 1e-12 * particle_mass);
}

TEST(ParticleOutput, UnknownFieldIsAnInputError) {
  auto d = test::deck_from_string(kScene, {"output.fields=[velocity, pressure]"});
  test::SharedFolder dir_folder(MPI_COMM_WORLD, "badfield");
  const std::string& dir = dir_folder.path();
  run::RunOptions opt;
  opt.output_dir = dir;
  try {
    run::Simulation sim(MPI_COMM_WORLD, d, opt);
    FAIL() << "no error for an unknown field";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "output.fields[1]");
    EXPECT_NE(std::string(e.what()).find("unknown particle field 'pressure'"), std::string::npos) << e.what();
  }
}
