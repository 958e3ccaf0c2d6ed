/* A 64-bit checksum of raw bytes (FNV-1a): how the host sees that a run changed its inputs. */
#ifndef KLAB_CHECKSUM_H
#define KLAB_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#define CHECKSUM_INIT UINT64_C(0xcbf29ce484222325)

/* Continue `h` over `n` bytes; start with CHECKSUM_INIT. */
uint64_t checksum_update(uint64_t h, const void *data, size_t n);

#endif
