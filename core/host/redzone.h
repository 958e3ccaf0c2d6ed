/* Red zones: the guard bytes the host puts before and after every tensor, and the judgement of a
 * guard read back after a run. Pure C over host bytes, so it is tested without a GPU; host_services.c
 * does the allocating, uploading and reading back. */
#ifndef KLAB_REDZONE_H
#define KLAB_REDZONE_H

#include <stddef.h>

/* Guard bytes on each side of a tensor: a multiple of 256, so the tensor keeps cudaMalloc's
   alignment. */
#define REDZONE_BYTES 4096

/* The known pattern: byte i of a guard. Not one repeated byte, so a kernel that spills a constant
   (zeros, all ones, a fill value) past a tensor changes it. */
void redzone_pattern(unsigned char *guard, size_t n);

/* How many of the n bytes differ from the pattern. */
size_t redzone_changed(const unsigned char *guard, size_t n);

/* Judges the two guards of one tensor read back after a run. 0: both intact. 1: changed, with the
   sentence in msg, e.g. "output 'y': 48 bytes past its end were written" (`copy` > 0 adds
   " (copy 3)" after the name: a replica made for batched timing). */
int redzone_check(const unsigned char *before, const unsigned char *after, size_t n, const char *role,
                  const char *name, int copy, char *msg, size_t msglen);

#endif
