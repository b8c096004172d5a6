// The comparison's kernels timed by Google Benchmark (see compare.py), with the loop shapes its
// documentation gives: the same kernels as rho_side.c.
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "kernels.h"

static uint8_t message[256];

static void crc32_64(benchmark::State &state)
{
    for (auto _ : state) {
        benchmark::DoNotOptimize(compare_crc32(message, 64));
    }
}
BENCHMARK(crc32_64);

static void crc32_256(benchmark::State &state)
{
    for (auto _ : state) {
        benchmark::DoNotOptimize(compare_crc32(message, 256));
    }
}
BENCHMARK(crc32_256);

static void malloc_free_64(benchmark::State &state)
{
    for (auto _ : state) {
        void *p = std::malloc(64);
        benchmark::DoNotOptimize(p);
        std::free(p);
    }
}
BENCHMARK(malloc_free_64);

static void xorshift_step(benchmark::State &state)
{
    uint32_t x = 2463534242u;
    for (auto _ : state) {
        x = compare_xorshift(x);
        benchmark::DoNotOptimize(x);
    }
}
BENCHMARK(xorshift_step);

int main(int argc, char **argv)
{
    compare_fill(message, sizeof message);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
