#include "io/durable_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace meniscus::io {

void sync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void durable_rename(const std::string& from, const std::string& to) {
  sync_path(from);
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw RuntimeError("cannot rename " + from + " to " + to + ": " + std::strerror(errno));
  // The rename itself lives in the folder's metadata; without this a power cut can undo it.
  std::string dir = std::filesystem::path(to).parent_path().string();
  sync_path(dir.empty() ? "." : dir);
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw RuntimeError("cannot write " + tmp + ": " + std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) {
    std::remove(tmp.c_str());
    throw RuntimeError("cannot write " + tmp + " (file system full?)");
  }
  durable_rename(tmp, path);
}

void on_rank0(MPI_Comm comm, const std::function<void()>& fn) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error, file, key;
  int input_error = 0;
  if (rank == 0) {
    try {
      fn();
    } catch (const InputError& e) {
      error = e.reason();
      file = e.file();
      key = e.key();
      input_error = 1;
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  int status[2] = {error.empty() ? 0 : 1, input_error};
  MPI_Bcast(status, 2, MPI_INT, 0, comm);
  if (!status[0]) return;
  // Only rank 0 prints, so the others need not know the text.
  if (status[1]) throw InputError(file, key, rank == 0 ? error : "failed on rank 0");
  throw RuntimeError(rank == 0 ? error : "failed on rank 0");
}

}  // namespace meniscus::io
