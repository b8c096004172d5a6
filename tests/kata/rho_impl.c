/* The one translation unit of the kata's rho suite that compiles rho/bench.h's implementation. The define
 * comes first: the implementation sets POSIX feature macros, which only work before any system header. */
#define RHO_BENCH_IMPLEMENTATION
#include <rho/bench.h>
