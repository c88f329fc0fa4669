#include "io/points_frame.hpp"

#include <cstdint>

#include "io/durable_file.hpp"

namespace meniscus::io {

void write_frame_header(H5File& f, const FrameHeader& h) {
  f.set_attr("/", "meniscus_format", h.format);
  f.set_attr("/", "format_version", int64_t{1});
  f.set_attr("/", "method", h.method);
  f.set_attr("/", "dimension", int64_t{h.dimension});
  f.set_attr("/", "step", int64_t{h.step});
  f.set_attr("/", "time", h.time);
  f.set_attr("/", h.count_key, int64_t{h.count});
}

void publish_points_frame(MPI_Comm comm, Series& series, const std::string& h5_name, const FrameHeader& h,
                          const std::vector<xdmf::Array>& arrays) {
  on_rank0(comm, [&] {
    write_file_atomically(series.path(series.xdmf_name(h.step)),
                          xdmf::points_document(h5_name, h.time, h.count, "/position", "/point_index", arrays));
  });
  series.add(h.step);
}

}  // namespace meniscus::io
