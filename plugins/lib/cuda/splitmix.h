/* splitmix64: the plugins' host-side seeded draws (rope positions, decode length schedules), one
 * definition so the same seed gives the same sequence in every plugin. */
#ifndef KLAB_CUDA_SPLITMIX_H
#define KLAB_CUDA_SPLITMIX_H

#include <stdint.h>

static inline uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
