#include "host/sample.h"

#include <stdlib.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* An open-addressing set of indices (stored + 1, so 0 is empty), twice as large as it will hold. */
typedef struct index_set {
    size_t *slot, mask;
} index_set;

static int set_add(index_set *s, size_t v)
{
    size_t h = (v * 0x9e3779b97f4a7c15ull) & s->mask;
    while (s->slot[h]) {
        if (s->slot[h] == v + 1)
            return 0;
        h = (h + 1) & s->mask;
    }
    s->slot[h] = v + 1;
    return 1;
}

int sample_indices(uint64_t seed, uint64_t counter, size_t n, size_t k, size_t *out)
{
    if (k >= n) {
        for (size_t i = 0; i < n; i++)
            out[i] = i;
        return 0;
    }
    if (k == 0)
        return 0;
    size_t cap = 1;
    while (cap < 2 * k)
        cap <<= 1;
    index_set s = {calloc(cap, sizeof(size_t)), cap - 1};
    if (!s.slot)
        return -1;
    uint64_t x = seed ^ (counter * 0xd1b54a32d192ed03ull);
    splitmix64(&x);
    /* Floyd's algorithm: k distinct values in k draws, whatever k/n */
    size_t m = 0;
    for (size_t j = n - k; j < n; j++) {
        size_t t = (size_t)(splitmix64(&x) % ((uint64_t)j + 1));
        size_t v = set_add(&s, t) ? t : j;
        if (v == j)
            set_add(&s, j);
        out[m++] = v;
    }
    free(s.slot);
    qsort(out, k, sizeof *out, cmp_size);
    return 0;
}
