#include "io/particle_output.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "io/h5_file.hpp"
#include "io/particle_columns.hpp"
#include "io/points_frame.hpp"
#include "io/xdmf.hpp"

namespace meniscus::io {

ParticleOutput::ParticleOutput(MPI_Comm comm, Method& method, const std::string& method_name,
                               const std::vector<std::string>& fields, const std::string& dir,
                               const std::string& deck_file)
    : comm_(comm), method_name_(method_name), series_(comm, dir, "particles") {
  const auto& info = method.particles().field_info();
  const std::string position = info[method.position_field()].name;
  std::vector<std::string> available;
  for (const auto& f : info) available.push_back(f.name);
  available.push_back("id");
  available.push_back("material");
  if (fields.empty()) {
    for (const auto& f : info)
      if (f.persistent && f.name != position) fields_.push_back(f.name);
    fields_.push_back("id");
    fields_.push_back("material");
    return;
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& name = fields[i];
    if (std::find(available.begin(), available.end(), name) == available.end()) {
      std::string all;
      for (const auto& a : available) all += (all.empty() ? "" : ", ") + a;
      throw InputError(deck_file, "output.fields[" + std::to_string(i) + "]",
                       "unknown particle field '" + name + "'; available: " + all);
    }
    // The position is always written (it is the geometry); listing it or a name twice is harmless.
    if (name != position && std::find(fields_.begin(), fields_.end(), name) == fields_.end()) fields_.push_back(name);
  }
}

void ParticleOutput::write(Method& method, long step, double time) {
  auto& set = method.particles();
  const size_t n = set.size();
  const int dim = method.dimension();
  const std::string name = series_.h5_name(step);
  H5File f = H5File::create(comm_, series_.path(name));

  const HostRows pos = rows_to_host(set.field(method.position_field()), n, 3);
  const long first = f.write_rows("position", pos.data(), n, 3);
  const HostInts index = numbering(n, first);
  f.write_rows("point_index", index.data(), n, 0);
  long total = static_cast<long>(n);
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG, MPI_SUM, comm_);

  std::vector<xdmf::Array> arrays;
  for (const auto& field : fields_) {
    if (field == "id" || field == "material") {
      const HostInts v = field == "id" ? ids_to_host(set.id(), n) : materials_to_host(set.material(), n);
      f.write_rows(field, v.data(), n, 0);
      arrays.push_back({field, "Scalar", {total}, true, "/" + field});
      continue;
    }
    const int components = set.field_info()[set.field_index(field)].components;
    // ParaView's vectors have three components: 2D vectors get z = 0.
    const int columns = components == dim ? 3 : components;
    const HostRows v = rows_to_host(set.field(field), n, columns);
    f.write_rows(field, v.data(), n, columns == 1 ? 0 : columns);
    arrays.push_back({field, xdmf::attribute_type(columns),
                      columns == 1 ? std::vector<long>{total} : std::vector<long>{total, columns}, false, "/" + field});
  }
  const FrameHeader header{"particles", method_name_, dim, step, time, "particle_count", total};
  write_frame_header(f, header);
  f.close();
  publish_points_frame(comm_, series_, name, header, arrays);
}

}  // namespace meniscus::io
