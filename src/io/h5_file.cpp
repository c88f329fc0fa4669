#include "io/h5_file.hpp"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <type_traits>
#include <utility>

#include "core/error.hpp"

namespace meniscus::io {

namespace {

// HDF5 prints its whole error stack to stderr on every failed call, once per rank; our errors say
// what failed instead (hdf5_error_text picks the useful line).
void silence_hdf5() {
  static const bool done = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)done;
}

// Closes an HDF5 identifier at scope exit.
class Id {
 public:
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Id() {
    if (id_ >= 0) close_(id_);
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  operator hid_t() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

herr_t innermost(unsigned n, const H5E_error2_t* err, void* out) {
  if (n == 0 && err->desc) *static_cast<std::string*>(out) = err->desc;
  return 0;
}

std::string with_hdf5_reason(const std::string& what) {
  const std::string why = hdf5_error_text();
  return why.empty() ? what : what + ": " + why;
}

template <class T>
hid_t native_type();
template <>
hid_t native_type<double>() {
  return H5T_NATIVE_DOUBLE;
}
template <>
hid_t native_type<int64_t>() {
  return H5T_NATIVE_INT64;
}

}  // namespace

namespace {
// Set once an H5Fclose has failed (a full disk: the metadata could not be flushed). HDF5 1.10 then
// keeps the file's identifier pointing at a half-destroyed file, and touching it again, as its own
// termination does, crashes (a segfault in MPI_Finalize). From then on HDF5 is left alone.
bool g_failed_close = false;
}  // namespace

void note_failed_close() { g_failed_close = true; }

void start_hdf5_before_mpi() {
  // Initialised before MPI, HDF5 does not hang its termination on MPI_COMM_SELF (which
  // MPI_Finalize would run), and without atexit it terminates only when finish_hdf5 says so.
  H5dont_atexit();
  H5open();
}

void finish_hdf5() {
  if (!g_failed_close) H5close();
}

std::string hdf5_error_text() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &text);
  return text;
}

H5File::H5File(MPI_Comm comm, std::string path, bool reading) : comm_(comm), path_(std::move(path)), reading_(reading) {}

H5File::H5File(H5File&& o) noexcept
    : comm_(o.comm_), path_(std::move(o.path_)), reading_(o.reading_), abandoned_(o.abandoned_), file_(o.file_),
      dxpl_(o.dxpl_) {
  o.file_ = -1;
  o.dxpl_ = -1;
}

H5File::~H5File() {
  if (dxpl_ >= 0) H5Pclose(dxpl_);
  if (file_ < 0) return;
  if (abandoned_) {
    // After a failed write (a full disk), closing would flush metadata that cannot be written, and
    // the ranks of HDF5's collective flush then part ways (one leaves with the error, the others
    // wait in its barrier: a hang), or a failed close leaves a dangling identifier (a segfault at
    // exit). The file is left open instead; the caller removes it and the run ends with exit code 1.
    note_failed_close();
    return;
  }
  if (H5Fclose(file_) < 0) note_failed_close();
}

void H5File::agree(bool ok, const std::string& reason) const {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  int mine = ok ? size : rank, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_);
  if (first == size) return;
  // Every rank reports the first failing rank's reason, so rank 0 prints what actually went wrong.
  int len = rank == first ? static_cast<int>(reason.size()) : 0;
  MPI_Bcast(&len, 1, MPI_INT, first, comm_);
  std::string text = rank == first ? reason : std::string(static_cast<size_t>(len), ' ');
  MPI_Bcast(text.data(), len, MPI_CHAR, first, comm_);
  if (reading_) throw InputError(path_, "", text);
  abandoned_ = true;
  throw RuntimeError(path_ + ": " + text);
}

H5File H5File::create(MPI_Comm comm, const std::string& path) {
  silence_hdf5();
  H5File f(comm, path, false);
  Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  // Metadata is read by one rank and broadcast, and written collectively: thousands of ranks
  // reading the same small objects would otherwise hammer the file system.
  H5Pset_all_coll_metadata_ops(fapl, true);
  H5Pset_coll_metadata_write(fapl, true);
  f.file_ = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  f.agree(f.file_ >= 0, with_hdf5_reason("cannot create the file"));
  f.dxpl_ = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(f.dxpl_, H5FD_MPIO_COLLECTIVE);
  return f;
}

H5File H5File::open(MPI_Comm comm, const std::string& path) {
  silence_hdf5();
  H5File f(comm, path, true);
  std::error_code ec;
  f.agree(std::filesystem::exists(path, ec), "file not found");
  f.agree(!std::filesystem::is_directory(path, ec), "is a directory, not a file (to resume the newest checkpoint "
                                                     "in a run folder: --restart latest DIR)");
  f.agree(std::filesystem::is_regular_file(path, ec), "not a regular file");
  f.agree(H5Fis_hdf5(path.c_str()) > 0, "not an HDF5 file");
  Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  H5Pset_all_coll_metadata_ops(fapl, true);
  f.file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
  // A file cut short (a copy or a write that never finished) fails here: HDF5 compares the
  // stored end of file with the real size ("truncated file: eof = ...").
  f.agree(f.file_ >= 0, with_hdf5_reason("cannot open it as HDF5 (damaged or cut short)"));
  f.dxpl_ = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(f.dxpl_, H5FD_MPIO_COLLECTIVE);
  return f;
}

void H5File::close() {
  if (dxpl_ >= 0) H5Pclose(dxpl_);
  dxpl_ = -1;
  if (file_ < 0) return;
  const herr_t rc = H5Fclose(file_);
  if (rc < 0) note_failed_close();
  file_ = -1;
  agree(rc >= 0, with_hdf5_reason("closing the file failed (file system full?)"));
}

bool H5File::exists(const std::string& name) {
  // H5Lexists fails on a missing intermediate group, so walk the path one link at a time.
  std::string path;
  size_t pos = 0;
  bool found = true;
  while (found && pos < name.size()) {
    size_t next = name.find('/', pos);
    if (next == std::string::npos) next = name.size();
    if (next > pos) {
      path += "/" + name.substr(pos, next - pos);
      found = H5Lexists(file_, path.c_str(), H5P_DEFAULT) > 0;
    }
    pos = next + 1;
  }
  return found;
}

void H5File::create_group(const std::string& name) {
  Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl, 1);
  Id g(H5Gcreate2(file_, name.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  agree(g.ok(), with_hdf5_reason("cannot create group " + name));
}

std::vector<hsize_t> H5File::shape(const std::string& name) {
  if (!exists(name)) return {};
  Id d(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  agree(d.ok(), "'" + name + "' is not a dataset");
  Id space(H5Dget_space(d), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space);
  agree(rank >= 0, with_hdf5_reason("cannot read the shape of " + name));
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  return dims;
}

void H5File::write_box(const std::string& name, const double* data, const std::vector<hsize_t>& global,
                       const std::vector<hsize_t>& start, const std::vector<hsize_t>& count) {
  write_typed(name, H5T_NATIVE_DOUBLE, data, global, start, count);
}

void H5File::write_typed(const std::string& name, hid_t type, const void* data, const std::vector<hsize_t>& global,
                         const std::vector<hsize_t>& start, const std::vector<hsize_t>& count) {
  const int rank = static_cast<int>(global.size());
  Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl, 1);
  Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  // Every element is written below; filling the dataset first would write it twice.
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  Id fspace(H5Screate_simple(rank, global.data(), nullptr), H5Sclose);
  Id d(H5Dcreate2(file_, name.c_str(), type, fspace, lcpl, dcpl, H5P_DEFAULT), H5Dclose);
  agree(d.ok(), with_hdf5_reason("cannot create dataset " + name));
  // An empty dataset (every particle gone) has no storage: HDF5 never allocates it, and a write, even
  // selecting nothing, would address HADDR_UNDEF ("addr overflow"). Its shape says all there is.
  const hsize_t elements = std::accumulate(global.begin(), global.end(), hsize_t(1), std::multiplies<hsize_t>());
  if (elements == 0) return;
  const hsize_t n = std::accumulate(count.begin(), count.end(), hsize_t(1), std::multiplies<hsize_t>());
  std::vector<hsize_t> mdims(count);
  for (auto& m : mdims) m = std::max<hsize_t>(m, 1);
  Id mspace(H5Screate_simple(rank, mdims.data(), nullptr), H5Sclose);
  if (n == 0) {
    // A rank without data still takes part in the collective write, selecting nothing.
    H5Sselect_none(mspace);
    H5Sselect_none(fspace);
  } else {
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
  }
  const int64_t dummy = 0;
  const herr_t rc = H5Dwrite(d, type, mspace, fspace, dxpl_, n ? data : &dummy);
  agree(rc >= 0, with_hdf5_reason("cannot write dataset " + name + " (file system full?)"));
}

template <class T>
long H5File::write_rows_impl(const std::string& name, const T* data, size_t rows, size_t cols, hid_t type) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  long mine = static_cast<long>(rows), first = 0, total = 0;
  MPI_Exscan(&mine, &first, 1, MPI_LONG, MPI_SUM, comm_);
  if (rank == 0) first = 0;  // MPI_Exscan leaves rank 0's result undefined
  MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, comm_);
  std::vector<hsize_t> global{static_cast<hsize_t>(total)}, start{static_cast<hsize_t>(first)}, count{rows};
  if (cols > 0) {
    global.push_back(cols);
    start.push_back(0);
    count.push_back(cols);
  }
  write_typed(name, type, data, global, start, count);
  return first;
}

template <class T>
void H5File::read_rows_impl(const std::string& name, T* data, long first, size_t rows, size_t cols, hid_t type) {
  const bool found = exists(name);
  agree(found, "no dataset '" + name + "'");
  Id d(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  agree(d.ok(), "'" + name + "' is not a dataset");
  Id ftype(H5Dget_type(d), H5Tclose);
  // HDF5 would convert integers to doubles and back silently; a field of the wrong kind is a
  // foreign or damaged file.
  const H5T_class_t want = std::is_same<T, double>::value ? H5T_FLOAT : H5T_INTEGER;
  agree(H5Tget_class(ftype) == want,
        "dataset '" + name + "' holds " + (want == H5T_FLOAT ? "non-floating-point" : "non-integer") + " data");
  Id fspace(H5Dget_space(d), H5Sclose);
  const int ndims = H5Sget_simple_extent_ndims(fspace);
  std::vector<hsize_t> dims(static_cast<size_t>(std::max(ndims, 0)));
  if (ndims > 0) H5Sget_simple_extent_dims(fspace, dims.data(), nullptr);
  const size_t want_dims = cols > 0 ? 2 : 1;
  bool shape_ok = dims.size() == want_dims && (cols == 0 || dims[1] == cols);
  agree(shape_ok, "dataset '" + name + "' has shape [" +
                      [&] {
                        std::string s;
                        for (size_t i = 0; i < dims.size(); ++i) s += (i ? " x " : "") + std::to_string(dims[i]);
                        return s;
                      }() +
                      "], expected " + (cols > 0 ? "N x " + std::to_string(cols) : std::string("N")));
  agree(first >= 0 && static_cast<hsize_t>(first) + rows <= dims[0],
        "dataset '" + name + "' has " + std::to_string(dims[0]) + " rows, fewer than the particle counts say");
  // An empty dataset has no storage to read (see write_typed); every rank knows its shape.
  if (dims[0] == 0) return;
  std::vector<hsize_t> start{static_cast<hsize_t>(first)}, count{rows};
  if (cols > 0) {
    start.push_back(0);
    count.push_back(cols);
  }
  std::vector<hsize_t> mdims(count);
  for (auto& m : mdims) m = std::max<hsize_t>(m, 1);
  Id mspace(H5Screate_simple(static_cast<int>(mdims.size()), mdims.data(), nullptr), H5Sclose);
  if (rows == 0) {
    H5Sselect_none(mspace);
    H5Sselect_none(fspace);
  } else {
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
  }
  T dummy{};
  const herr_t rc = H5Dread(d, type, mspace, fspace, dxpl_, rows == 0 ? &dummy : data);
  agree(rc >= 0, with_hdf5_reason("cannot read dataset " + name));
}

long H5File::write_rows(const std::string& name, const double* data, size_t rows, size_t cols) {
  return write_rows_impl(name, data, rows, cols, native_type<double>());
}
long H5File::write_rows(const std::string& name, const int64_t* data, size_t rows, size_t cols) {
  return write_rows_impl(name, data, rows, cols, native_type<int64_t>());
}
void H5File::read_rows(const std::string& name, double* data, long first, size_t rows, size_t cols) {
  read_rows_impl(name, data, first, rows, cols, native_type<double>());
}
void H5File::read_rows(const std::string& name, int64_t* data, long first, size_t rows, size_t cols) {
  read_rows_impl(name, data, first, rows, cols, native_type<int64_t>());
}

void H5File::write_text(const std::string& name, const std::string& text) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, std::max<size_t>(text.size(), 1));
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl, 1);
  Id d(H5Dcreate2(file_, name.c_str(), type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  agree(d.ok(), with_hdf5_reason("cannot create dataset " + name));
  Id mspace(H5Screate(H5S_SCALAR), H5Sclose);
  Id fspace(H5Screate(H5S_SCALAR), H5Sclose);
  if (rank != 0) {
    H5Sselect_none(mspace);
    H5Sselect_none(fspace);
  }
  std::string padded = text.empty() ? std::string(1, '\0') : text;
  const herr_t rc = H5Dwrite(d, type, mspace, fspace, dxpl_, padded.data());
  agree(rc >= 0, with_hdf5_reason("cannot write dataset " + name + " (file system full?)"));
}

std::string H5File::read_text(const std::string& name) {
  agree(exists(name), "no dataset '" + name + "'");
  Id d(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  agree(d.ok(), "'" + name + "' is not a dataset");
  Id ftype(H5Dget_type(d), H5Tclose);
  const bool fixed_string = H5Tget_class(ftype) == H5T_STRING && H5Tis_variable_str(ftype) == 0;
  agree(fixed_string, "dataset '" + name + "' is not a fixed-length string");
  const size_t size = H5Tget_size(ftype);
  std::string text(size, '\0');
  Id mtype(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mtype, size);
  const herr_t rc = H5Dread(d, mtype, H5S_ALL, H5S_ALL, dxpl_, text.data());
  agree(rc >= 0, with_hdf5_reason("cannot read dataset " + name));
  text.resize(std::find(text.begin(), text.end(), '\0') - text.begin());
  return text;
}

void H5File::write_attr(const std::string& object, const std::string& name, hid_t type, const void* value) {
  if (H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) > 0)
    H5Adelete_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT);
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Id a(H5Acreate_by_name(file_, object.c_str(), name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
       H5Aclose);
  agree(a.ok(), with_hdf5_reason("cannot create attribute " + object + "@" + name));
  const herr_t rc = H5Awrite(a, type, value);
  agree(rc >= 0, with_hdf5_reason("cannot write attribute " + object + "@" + name));
}

void H5File::set_attr(const std::string& object, const std::string& name, double value) {
  write_attr(object, name, H5T_NATIVE_DOUBLE, &value);
}
void H5File::set_attr(const std::string& object, const std::string& name, int64_t value) {
  write_attr(object, name, H5T_NATIVE_INT64, &value);
}
void H5File::set_attr(const std::string& object, const std::string& name, const std::string& value) {
  Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, std::max<size_t>(value.size(), 1));
  std::string padded = value.empty() ? std::string(1, '\0') : value;
  write_attr(object, name, type, padded.data());
}

bool H5File::has_attr(const std::string& object, const std::string& name) {
  if (!exists(object)) return false;
  return H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
}

void H5File::read_attr(const std::string& object, const std::string& name, hid_t type, void* value) {
  agree(has_attr(object, name), "no attribute '" + name + "' on " + object);
  Id a(H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  Id ftype(H5Aget_type(a), H5Tclose);
  const H5T_class_t c = H5Tget_class(ftype);
  const bool numeric = c == H5T_INTEGER || (c == H5T_FLOAT && H5Tget_class(type) == H5T_FLOAT);
  agree(numeric, "attribute '" + name + "' on " + object + " is not a number of the expected kind");
  const herr_t rc = H5Aread(a, type, value);
  agree(rc >= 0, with_hdf5_reason("cannot read attribute " + object + "@" + name));
}

double H5File::attr_real(const std::string& object, const std::string& name) {
  double v = 0;
  read_attr(object, name, H5T_NATIVE_DOUBLE, &v);
  return v;
}

int64_t H5File::attr_int(const std::string& object, const std::string& name) {
  int64_t v = 0;
  read_attr(object, name, H5T_NATIVE_INT64, &v);
  return v;
}

std::string H5File::attr_text(const std::string& object, const std::string& name) {
  agree(has_attr(object, name), "no attribute '" + name + "' on " + object);
  Id a(H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  Id ftype(H5Aget_type(a), H5Tclose);
  agree(H5Tget_class(ftype) == H5T_STRING, "attribute '" + name + "' on " + object + " is not text");
  std::string text;
  herr_t rc = 0;
  if (H5Tis_variable_str(ftype) > 0) {
    // Variable-length strings (what h5py writes by default), so foreign files read cleanly too.
    Id mtype(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mtype, H5T_VARIABLE);
    char* buf = nullptr;
    rc = H5Aread(a, mtype, &buf);
    if (rc >= 0 && buf) {
      text = buf;
      H5free_memory(buf);
    }
  } else {
    const size_t size = H5Tget_size(ftype);
    text.assign(size, '\0');
    Id mtype(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mtype, size);
    rc = H5Aread(a, mtype, text.data());
    text.resize(std::find(text.begin(), text.end(), '\0') - text.begin());
  }
  agree(rc >= 0, with_hdf5_reason("cannot read attribute " + object + "@" + name));
  return text;
}

namespace {
herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->push_back(name);
  return 0;
}
}  // namespace

std::vector<std::string> H5File::attr_names(const std::string& object) {
  agree(exists(object), "no group or dataset '" + object + "'");
  Id o(H5Oopen(file_, object.c_str(), H5P_DEFAULT), H5Oclose);
  agree(o.ok(), with_hdf5_reason("cannot open " + object));
  std::vector<std::string> names;
  hsize_t idx = 0;
  const herr_t rc = H5Aiterate2(o, H5_INDEX_CRT_ORDER, H5_ITER_NATIVE, &idx, collect_name, &names);
  if (rc < 0) {
    names.clear();
    idx = 0;
    // Creation order is tracked only when the file asked for it; names in alphabetical order then.
    H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_name, &names);
  }
  return names;
}

}  // namespace meniscus::io
