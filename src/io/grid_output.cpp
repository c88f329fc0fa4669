#include "io/grid_output.hpp"

#include "io/durable_file.hpp"
#include "io/h5_file.hpp"
#include "io/xdmf.hpp"

namespace meniscus::io {

GridOutput::GridOutput(MPI_Comm comm, const std::string& dir) : comm_(comm), series_(comm, dir, "grid") {}

bool GridOutput::write(Method& method, long step, double time) {
  GridSnapshot g;
  if (!method.grid_snapshot(g)) return false;
  const std::string name = series_.h5_name(step);
  H5File f = H5File::create(comm_, series_.path(name));
  // HDF5 and XDMF order dimensions slowest first: z, y, x.
  const std::vector<hsize_t> global{static_cast<hsize_t>(g.nodes[2]), static_cast<hsize_t>(g.nodes[1]),
                                    static_cast<hsize_t>(g.nodes[0])};
  const std::vector<hsize_t> start{static_cast<hsize_t>(g.owned_lo[2]), static_cast<hsize_t>(g.owned_lo[1]),
                                   static_cast<hsize_t>(g.owned_lo[0])};
  const std::vector<hsize_t> count{static_cast<hsize_t>(g.owned_n[2]), static_cast<hsize_t>(g.owned_n[1]),
                                   static_cast<hsize_t>(g.owned_n[0])};
  std::vector<xdmf::Array> arrays;
  for (const auto& field : g.fields) {
    auto gdims = global, gstart = start, gcount = count;
    std::vector<long> dims{g.nodes[2], g.nodes[1], g.nodes[0]};
    if (field.components > 1) {
      gdims.push_back(field.components);
      gstart.push_back(0);
      gcount.push_back(field.components);
      dims.push_back(field.components);
    }
    f.write_box(field.name, field.values.data(), gdims, gstart, gcount);
    arrays.push_back({field.name, xdmf::attribute_type(field.components), dims, false, "/" + field.name});
  }
  f.set_attr("/", "meniscus_format", std::string("grid"));
  f.set_attr("/", "format_version", int64_t{1});
  f.set_attr("/", "step", int64_t{step});
  f.set_attr("/", "time", time);
  f.set_attr("/", "spacing", g.dx);
  for (int d = 0; d < 3; ++d) f.set_attr("/", std::string("origin_") + "xyz"[d], g.lower[d]);
  f.close();

  const long nodes[3] = {g.nodes[2], g.nodes[1], g.nodes[0]};
  const double origin[3] = {g.lower[2], g.lower[1], g.lower[0]};
  const double spacing[3] = {g.dx, g.dx, g.dx};
  on_rank0(comm_, [&] {
    write_file_atomically(series_.path(series_.xdmf_name(step)),
                          xdmf::grid_document(name, time, nodes, origin, spacing, arrays));
  });
  series_.add(step);
  return true;
}

}  // namespace meniscus::io
