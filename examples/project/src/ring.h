/* A fixed-capacity ring buffer of bytes: the code under test of the example project's second
 * suite (bench/ring_bench.c). No allocation; the caller owns the storage. */
#ifndef RING_H
#define RING_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *bytes;
    size_t capacity; /* a power of two */
    size_t head;     /* next write, counts up without wrapping */
    size_t tail;     /* next read */
} ring_t;

/* `capacity` must be a power of two; returns -1 otherwise. */
int ring_init(ring_t *ring, uint8_t *storage, size_t capacity);
/* Copies up to `len` bytes in; returns how many fitted. */
size_t ring_write(ring_t *ring, const uint8_t *data, size_t len);
/* Copies up to `len` bytes out; returns how many there were. */
size_t ring_read(ring_t *ring, uint8_t *out, size_t len);
size_t ring_used(const ring_t *ring);

#endif
