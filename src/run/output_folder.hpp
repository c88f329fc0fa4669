#pragma once
// The output folder belongs to one run. A second `run --output DIR` into a folder that already holds
// a run would overwrite its diagnostics.csv and run.json but leave its checkpoints and particle files,
// and a later `--restart latest DIR` would resume the old run: one folder, two histories. The app
// therefore refuses such a folder unless --overwrite (its Meniscus files are removed first) or
// --restart (the run continues, diagnostics and XDMF series truncated after the restart step).
#include <string>

namespace meniscus::run {

// The files of an earlier run in `dir` (run.json, diagnostics.csv, checkpoints/, particle and grid
// files), as a short list for a message; "" if there are none (a missing or empty folder, or one
// holding only other files, such as the deck).
std::string earlier_run_files(const std::string& dir);

// Removes what earlier_run_files finds (and nothing else). Not collective: call on one rank.
void clear_run_outputs(const std::string& dir);

}  // namespace meniscus::run
