/*
 * A suite against a real library: mbedtls (Debian: libmbedtls-dev), SHA-256 over 64 bytes and
 * over 1 KiB, and one AES-128 block.
 *
 *     rho bench --ldflags -lmbedcrypto examples/mbedtls/bench/mbed_bench.c
 *
 * The library goes in --ldflags, after the sources: given in --cflags it would come before them,
 * where the linker drops a library nothing has needed yet. The same suite as a module.yml suite
 * with `ldflags:`, and as a CMake target, is in this directory (README.md).
 *
 * SHA-256 compresses 64-byte blocks: 64 bytes of message take 2 (the data, then the padding and
 * length), 1 KiB takes 17, so the 1 KiB hash costs about 8.5 times the 64-byte one.
 */
#include <rho/bench.h>

#include <mbedtls/aes.h>
#include <mbedtls/sha256.h>
#include <mbedtls/version.h>

#include <stdint.h>

/* mbedtls 3 renamed mbedtls_sha256_ret to mbedtls_sha256 (2.x's mbedtls_sha256 is deprecated). */
#if MBEDTLS_VERSION_MAJOR >= 3
#define SHA256(input, len, output) mbedtls_sha256((input), (len), (output), 0)
#else
#define SHA256(input, len, output) mbedtls_sha256_ret((input), (len), (output), 0)
#endif

static uint8_t message[1024];

static void fill(void)
{
    size_t i;
    for (i = 0; i < sizeof message; i++) {
        message[i] = (uint8_t)(i * 31u + 7u);
    }
}

static void bench_sha256_64(rho_bench_t *state)
{
    uint8_t digest[32];
    RHO_BENCH_UNIT(state, "byte", 64);
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(SHA256(message, 64, digest));
        RHO_BENCH_KEEP(digest[0]);
    }
}

static void bench_sha256_1k(rho_bench_t *state)
{
    uint8_t digest[32];
    RHO_BENCH_UNIT(state, "byte", 1024);
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(SHA256(message, sizeof message, digest));
        RHO_BENCH_KEEP(digest[0]);
    }
}

static void bench_aes128_block(rho_bench_t *state)
{
    static const uint8_t key[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                    0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};
    mbedtls_aes_context aes;
    uint8_t block[16];
    mbedtls_aes_init(&aes);
    if (mbedtls_aes_setkey_enc(&aes, key, 128) != 0) {
        mbedtls_aes_free(&aes);
        return;
    }
    RHO_BENCH_UNIT(state, "byte", 16);
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(mbedtls_aes_crypt_ecb(&aes, MBEDTLS_AES_ENCRYPT, message, block));
        RHO_BENCH_KEEP(block[0]);
    }
    mbedtls_aes_free(&aes);
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    fill();
    RHO_BENCH_ADD(&suite, bench_sha256_64);
    RHO_BENCH_ADD(&suite, bench_sha256_1k);
    RHO_BENCH_ADD(&suite, bench_aes128_block);
    return rho_bench_main(&suite, argc, argv);
}
