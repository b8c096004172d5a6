// A small Google Benchmark suite for rho's `gbench:` suite kind (module.yml here): two benchmarks of a few
// milliseconds each, long enough that a 2x change stands far outside the noise of a loaded machine.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

// How many passes the checksum makes over its buffer (rho's tests double it to plant a 2x slowdown).
static const int kChecksumRounds = 16;

static std::uint32_t checksum(const std::vector<std::uint8_t> &data, int rounds)
{
    std::uint32_t a = 1, b = 0;
    for (int r = 0; r < rounds; r++) {
        for (std::uint8_t byte : data) {
            a = (a + byte) % 65521u;
            b = (b + a) % 65521u;
        }
    }
    return (b << 16) | a;
}

static void BM_checksum(benchmark::State &state)
{
    std::vector<std::uint8_t> data(64 * 1024);
    for (std::size_t i = 0; i < data.size(); i++) {
        data[i] = static_cast<std::uint8_t>(i * 31u % 251u);
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(checksum(data, kChecksumRounds));
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(data.size()) * kChecksumRounds);
}
BENCHMARK(BM_checksum)->Unit(benchmark::kMillisecond);

static void BM_sort(benchmark::State &state)
{
    std::vector<std::uint32_t> input(static_cast<std::size_t>(state.range(0)));
    std::uint32_t x = 12345;
    for (auto &value : input) {
        x = x * 1103515245u + 12345u;
        value = x;
    }
    for (auto _ : state) {
        std::vector<std::uint32_t> copy = input;
        std::sort(copy.begin(), copy.end());
        benchmark::DoNotOptimize(copy.data());
    }
    state.counters["elements"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_sort)->Arg(1 << 16)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
