#pragma once
// One parallel HDF5 file (MPI-IO driver, collective transfers) with the few operations particle
// output and checkpoints need: row blocks and boxes of 1D-4D double/int64 datasets written by
// hyperslab (every rank its own part, no gather), text, groups and attributes.
//
// Every member function is collective over the file's communicator and either succeeds on every
// rank or throws the same error on every rank (the ranks agree after each operation), so a damaged
// file never leaves some ranks waiting in a collective call. Errors name the file: a file opened
// for reading is user input (InputError, exit code 2), a file being written is a RuntimeError.
#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace meniscus::io {

class H5File {
 public:
  // Creates `path` (replacing any file of that name) for writing.
  static H5File create(MPI_Comm comm, const std::string& path);
  // Opens `path` read-only; a missing, non-HDF5 or truncated file is an InputError.
  static H5File open(MPI_Comm comm, const std::string& path);

  H5File(H5File&& other) noexcept;
  H5File& operator=(H5File&&) = delete;
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;
  // Closes without reporting (after an exception); call close() to learn whether the data reached the file.
  ~H5File();
  void close();

  const std::string& path() const { return path_; }
  MPI_Comm comm() const { return comm_; }

  // Rows of a 1D (cols = 0) or 2D (rows x cols) dataset: every rank passes its own rows, stored one
  // block after another in rank order. Returns this rank's first row in the dataset.
  long write_rows(const std::string& name, const double* data, size_t rows, size_t cols);
  long write_rows(const std::string& name, const int64_t* data, size_t rows, size_t cols);
  // Reads rows [first, first + rows) of a 1D/2D dataset; each rank chooses its own block.
  void read_rows(const std::string& name, double* data, long first, size_t rows, size_t cols);
  void read_rows(const std::string& name, int64_t* data, long first, size_t rows, size_t cols);

  // A box of a dataset of shape `global` (slowest dimension first): this rank writes the elements
  // [start, start + count) from `data` (C order). Ranks' boxes must not overlap.
  void write_box(const std::string& name, const double* data, const std::vector<hsize_t>& global,
                 const std::vector<hsize_t>& start, const std::vector<hsize_t>& count);

  // Dataset shape, slowest dimension first; empty if there is no dataset of that name.
  std::vector<hsize_t> shape(const std::string& name);
  bool exists(const std::string& name);
  void create_group(const std::string& name);

  // A text dataset (every rank passes the same text; rank 0 writes it).
  void write_text(const std::string& name, const std::string& text);
  std::string read_text(const std::string& name);

  // Attributes of the group or dataset `object` ("/" is the file); every rank passes the same value.
  void set_attr(const std::string& object, const std::string& name, double value);
  void set_attr(const std::string& object, const std::string& name, int64_t value);
  void set_attr(const std::string& object, const std::string& name, const std::string& value);
  bool has_attr(const std::string& object, const std::string& name);
  double attr_real(const std::string& object, const std::string& name);
  int64_t attr_int(const std::string& object, const std::string& name);
  std::string attr_text(const std::string& object, const std::string& name);
  std::vector<std::string> attr_names(const std::string& object);

 private:
  H5File(MPI_Comm comm, std::string path, bool reading);
  // Throws on every rank if `ok` is false on any: the first failing rank's reason, naming the file.
  void agree(bool ok, const std::string& reason) const;
  void write_typed(const std::string& name, hid_t type, const void* data, const std::vector<hsize_t>& global,
                   const std::vector<hsize_t>& start, const std::vector<hsize_t>& count);
  template <class T>
  long write_rows_impl(const std::string& name, const T* data, size_t rows, size_t cols, hid_t type);
  template <class T>
  void read_rows_impl(const std::string& name, T* data, long first, size_t rows, size_t cols, hid_t type);
  void write_attr(const std::string& object, const std::string& name, hid_t type, const void* value);
  void read_attr(const std::string& object, const std::string& name, hid_t type, void* value);

  MPI_Comm comm_;
  std::string path_;
  bool reading_ = false;
  // A file being written whose write failed: it is left open (see the destructor), never closed.
  mutable bool abandoned_ = false;
  hid_t file_ = -1;
  hid_t dxpl_ = -1;  // collective transfers
};

// The innermost message of HDF5's error stack (the most specific reason), or "" if empty.
std::string hdf5_error_text();

// For the executable: start HDF5 before MPI_Init, and end it (before MPI_Finalize) with
// finish_hdf5, which leaves it alone after a failed file close (see h5_file.cpp): so that a full
// disk during a checkpoint ends the run with its error message and exit code 1, not a segfault.
void start_hdf5_before_mpi();
void finish_hdf5();
// Records that an H5Fclose failed.
void note_failed_close();

}  // namespace meniscus::io
