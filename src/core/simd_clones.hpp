#pragma once
#include <Kokkos_Macros.hpp>
// MENISCUS_SIMD_CLONES before a plain (non-inline, non-lambda) function: with GCC on x86-64
// the function is also built for AVX2 and the variant is picked once at start-up by the CPU's
// features (function multiversioning); elsewhere it is the plain function. Meant for short branch-free
// loops that the compiler vectorises (four doubles per instruction with AVX2, two with the x86-64
// baseline's SSE2). AVX2 does not include FMA, so no multiply-add is contracted and every variant
// rounds exactly as the scalar loop: results do not depend on the machine.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__CUDACC__)
#define MENISCUS_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
// Elsewhere a plain host-and-device function: the SPH density calls it from inside a Kokkos kernel,
// which a CUDA or HIP build compiles for the device.
#define MENISCUS_SIMD_CLONES KOKKOS_FUNCTION
#endif
