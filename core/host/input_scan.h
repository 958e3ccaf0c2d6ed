/* What the host computes from an input's bytes before the reference: its checksum, its values
 * widened to double for verify(), and their sum of squares, in one pass on the worker's pool.
 *
 * Chunks of INPUT_SCAN_CHUNK elements, fixed by the tensor alone, so every figure is the same at any
 * thread count: the checksum is one FNV hash a chunk (checksum_update from CHECKSUM_INIT), the chunk
 * hashes then hashed in chunk order into the running checksum; the sum of squares is one partial a
 * chunk (a serial loop), the partials added in chunk order. Both differ in their bits from one pass
 * over the whole tensor, and need not match it: the checksum is compared only with itself (a run that
 * changed its inputs), and the inputs' RMS only sets how small a reference may be. Neither reaches a
 * row. A changed word always changes its chunk's hash (each FNV step is a bijection of the running
 * hash), and a changed chunk hash the checksum. */
#ifndef KLAB_INPUT_SCAN_H
#define KLAB_INPUT_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#define INPUT_SCAN_CHUNK 65536

/* Continues checksum *h (from CHECKSUM_INIT) over `count` elements of dtype d at raw (h NULL: no
   checksum); when `wide` is given, widens them into it and adds their squares to *sumsq. 0, or -1
   when out of host memory for the chunks' partials (nothing changed then). */
int input_scan(klab_dtype d, const void *raw, size_t count, uint64_t *h, double *wide, double *sumsq);

#endif
