/*
 * The example project's second suite: two C files built together (this one and ../src/ring.c),
 * the way a project benchmarks its own code. module.yml lists it as
 * `- [bench/ring_bench.c, src/ring.c]`.
 */
#include <rho/bench.h>

#include <stdint.h>

#include "../src/ring.h"

#define RING_BYTES 256
#define CHUNK_BYTES 32

static uint8_t storage[RING_BYTES];
static uint8_t chunk[CHUNK_BYTES];

/* One 32-byte write and one 32-byte read per iteration, wrapping around the ring. */
static void bench_ring_write_read_32(rho_bench_t *state)
{
    ring_t ring;
    uint8_t out[CHUNK_BYTES];
    (void)ring_init(&ring, storage, RING_BYTES);
    RHO_BENCH_UNIT(state, "byte", CHUNK_BYTES);
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(ring_write(&ring, chunk, CHUNK_BYTES));
        RHO_BENCH_KEEP(ring_read(&ring, out, CHUNK_BYTES));
    }
    RHO_BENCH_KEEP(out[0]);
}

/* Filling the ring from empty to full, then draining it: the worst case a producer sees. */
static void bench_ring_fill_drain(rho_bench_t *state)
{
    ring_t ring;
    uint8_t out[CHUNK_BYTES];
    (void)ring_init(&ring, storage, RING_BYTES);
    RHO_BENCH_UNIT(state, "byte", RING_BYTES);
    RHO_BENCH_LOOP(state) {
        while (ring_write(&ring, chunk, CHUNK_BYTES) == CHUNK_BYTES) {
        }
        while (ring_read(&ring, out, CHUNK_BYTES) == CHUNK_BYTES) {
        }
    }
    RHO_BENCH_KEEP(out[0]);
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    unsigned i;
    for (i = 0; i < CHUNK_BYTES; i++) {
        chunk[i] = (uint8_t)(i * 7u);
    }
    RHO_BENCH_ADD(&suite, bench_ring_write_read_32);
    RHO_BENCH_ADD(&suite, bench_ring_fill_drain);
    return rho_bench_main(&suite, argc, argv);
}
