// A C++ suite: std::sort of 1,000 ints, and std::sqrt through the math library.
//
//     rho bench examples/sort_bench.cpp                      # c++ (or $CXX) on the host
//     rho bench --target mps2-an386 examples/sort_bench.cpp  # arm-none-eabi-g++, under QEMU
//
// rho compiles .cpp, .cc and .cxx files with the C++ compiler and links the suite as C++; C files
// given with them are still compiled as C. The header is the same one C suites use.
#include <rho/bench.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace {

constexpr std::size_t count = 1000;

// The same shuffled input for every iteration: a multiplicative permutation of 0..999.
void shuffle(std::array<int, count> &values)
{
    for (std::size_t i = 0; i < count; i++) {
        values[i] = static_cast<int>((i * 7919u) % count);
    }
}

void bench_sort_1000(rho_bench_t *state)
{
    static std::array<int, count> values;
    RHO_BENCH_UNIT(state, "int", count);
    RHO_BENCH_LOOP(state) {
        shuffle(values);
        std::sort(values.begin(), values.end());
        RHO_BENCH_KEEP(values[count / 2]);
    }
}

void bench_sqrt(rho_bench_t *state)
{
    volatile float x = 2.0f;
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(std::sqrt(x));
    }
}

} // namespace

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {};
    RHO_BENCH_ADD(&suite, bench_sort_1000);
    RHO_BENCH_ADD(&suite, bench_sqrt);
    return rho_bench_main(&suite, argc, argv);
}
