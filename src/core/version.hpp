#pragma once
// The release and the source a binary was built from (run.json, checkpoints, --version). Defined in a
// source file generated at build time (cmake/MeniscusVersion.cmake).
namespace meniscus {
const char* version_string();  // project version, e.g. "0.1.0"
const char* git_commit();      // short commit, "-dirty" when tracked files differ, "unknown" outside git
}  // namespace meniscus
