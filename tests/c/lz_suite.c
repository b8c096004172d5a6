/* A body of real, branchy code, thousands of mixed instructions an iteration (on RV32IMAC mostly
 * compressed ones): a small LZ77 match finder and a CRC-32 over 1 kB of generated text, with a
 * few of the halfwords a board's counted build once took for its markers (0x46c9, `c.li a3, 18` on
 * RISC-V, `mov r9, r9` on Thumb) in it. The count the plugin makes of it is compared with a count
 * made from QEMU's own trace of the same run (crates/rho-cli/tests/boards.rs). */
#include <rho/bench.h>
#include <stdint.h>

#define TEXT_BYTES 1024
#define WINDOW 64

static uint8_t text[TEXT_BYTES];
static uint32_t sink;

static void make_text(void)
{
    uint32_t state = 12345;
    int i;
    for (i = 0; i < TEXT_BYTES; i++) {
        state = state * 1103515245u + 12345u;
        /* a small alphabet, so that matches are found */
        text[i] = (uint8_t)('a' + (state >> 16) % 6);
    }
}

/* The longest match for position `at` in the `WINDOW` bytes before it. */
static int longest_match(const uint8_t *data, int at, int length, int *distance)
{
    int best = 0, start = at > WINDOW ? at - WINDOW : 0, from;
    for (from = start; from < at; from++) {
        int n = 0;
        while (at + n < length && data[from + n] == data[at + n] && n < 32) {
            n++;
        }
        if (n > best) {
            best = n;
            *distance = at - from;
        }
    }
    return best;
}

static uint32_t crc32(const uint8_t *data, int length)
{
    uint32_t crc = 0xFFFFFFFFu;
    int i, bit;
    for (i = 0; i < length; i++) {
        crc ^= data[i];
        for (bit = 0; bit < 8; bit++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

static uint32_t compress_once(int length)
{
    uint32_t tokens = 0;
    int at = 0, distance = 0;
    while (at < length) {
        int n = longest_match(text, at, length, &distance);
        if (n >= 3) {
            tokens += (uint32_t)(n * 31 + distance);
            at += n;
        } else {
            tokens += text[at];
            at++;
        }
    }
    return tokens ^ crc32(text, length);
}

static void bench_lz_160(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        sink += compress_once(160);
#if defined(__riscv)
        __asm__ __volatile__(".2byte 0x46c9\n\t.2byte 0x46c9" ::: "a3", "memory");
#else
        __asm__ __volatile__(".inst.n 0x46c9\n\t.inst.n 0x46c9" ::: "memory");
#endif
    }
}

static void bench_crc_256(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        sink += crc32(text, 256);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    make_text();
    RHO_BENCH_ADD(&suite, bench_lz_160);
    RHO_BENCH_ADD(&suite, bench_crc_256);
    return rho_bench_main(&suite, argc, argv);
}
