#pragma once
// Every view of a run in the file that a KSP's view option names (-<prefix>ksp_view ascii:FILE).
//
// Why: PETSc (3.18) opens the viewer of -<prefix>ksp_view ascii:FILE (and of the other view
// options) in KSPSetFromOptions, in write mode, as a viewer of its own (not shared with other opens
// of FILE), and closes it when the KSP lets it go (KSPReset, KSPDestroy, the next
// KSPSetFromOptions). A KSP configured again every time step, or a KSP created per step, therefore
// truncated FILE each step: it held the last step's views only, and nothing when the last step
// needed no linear solve. Measured on inputs/mpm-candle-2d-ci.yaml, 3 steps: 3 of 9 views in FILE;
// inputs/mpm-heat-robin-disc-2d-ci.yaml (no solve in the last step): an empty FILE.
#include <petscviewer.h>

#include <string>

namespace meniscus::solvers {

// Empties the files named by -<prefix>ksp_view, -<prefix>ksp_view_pre,
// -<prefix>ksp_converged_reason, ... (`ascii:FILE[:FORMAT]`) and rewrites those options to
// `ascii:FILE:FORMAT:append`, so that PETSc's later opens append. Options already in append mode
// (also those rewritten by an earlier call) are left as they are: call it before every
// KSPSetFromOptions of the prefix. Collective on comm.
void append_ksp_view_files(MPI_Comm comm, const std::string& prefix);

}  // namespace meniscus::solvers
