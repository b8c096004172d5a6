#include "ring.h"

int ring_init(ring_t *ring, uint8_t *storage, size_t capacity)
{
    if (capacity == 0 || (capacity & (capacity - 1)) != 0) {
        return -1;
    }
    ring->bytes = storage;
    ring->capacity = capacity;
    ring->head = 0;
    ring->tail = 0;
    return 0;
}

size_t ring_used(const ring_t *ring)
{
    return ring->head - ring->tail;
}

size_t ring_write(ring_t *ring, const uint8_t *data, size_t len)
{
    size_t room = ring->capacity - ring_used(ring);
    size_t i;
    if (len > room) {
        len = room;
    }
    for (i = 0; i < len; i++) {
        ring->bytes[(ring->head + i) & (ring->capacity - 1)] = data[i];
    }
    ring->head += len;
    return len;
}

size_t ring_read(ring_t *ring, uint8_t *out, size_t len)
{
    size_t used = ring_used(ring);
    size_t i;
    if (len > used) {
        len = used;
    }
    for (i = 0; i < len; i++) {
        out[i] = ring->bytes[(ring->tail + i) & (ring->capacity - 1)];
    }
    ring->tail += len;
    return len;
}
