/* The harness's implementation, compiled once per program (rho/bench.h is stb-style: exactly
 * one translation unit defines RHO_BENCH_IMPLEMENTATION). The Makefile links it with the suite,
 * so a suite's own files must not define it. */
#define RHO_BENCH_IMPLEMENTATION
#include <rho/bench.h>
