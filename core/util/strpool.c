#include "util/strpool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/checksum.h"

enum { BLOCK = 1 << 16 };

typedef struct block {
    struct block *prev;
    size_t used, cap;
    char text[];
} block;

struct strpool {
    block *last;
    const char **slot; /* open addressing; NULL is empty */
    size_t nslots, n;
};

strpool *strpool_new(void)
{
    strpool *p = calloc(1, sizeof *p);
    if (p && !(p->slot = calloc(p->nslots = 1024, sizeof *p->slot))) {
        free(p);
        return NULL;
    }
    return p;
}

static size_t slot_of(const strpool *p, const char *s, size_t n, uint64_t h)
{
    size_t i = (size_t)h & (p->nslots - 1);
    while (p->slot[i] && (strncmp(p->slot[i], s, n) != 0 || p->slot[i][n] != 0))
        i = (i + 1) & (p->nslots - 1);
    return i;
}

/* Twice the slots, every string placed again: the table is kept at most half full. 0, or -1 out of
   memory. */
static int grow(strpool *p)
{
    const char **old = p->slot;
    size_t nold = p->nslots;
    if (!(p->slot = calloc(p->nslots = 2 * nold, sizeof *p->slot))) {
        p->slot = old;
        p->nslots = nold;
        return -1;
    }
    for (size_t i = 0; i < nold; i++)
        if (old[i]) {
            size_t len = strlen(old[i]);
            p->slot[slot_of(p, old[i], len, checksum_update(CHECKSUM_INIT, old[i], len))] = old[i];
        }
    free(old);
    return 0;
}

const char *strpool_add(strpool *p, const char *s, size_t n)
{
    uint64_t h = checksum_update(CHECKSUM_INIT, s, n);
    size_t i = slot_of(p, s, n, h);
    if (p->slot[i])
        return p->slot[i];
    if ((p->n + 1) * 2 > p->nslots) {
        if (grow(p) != 0)
            return NULL;
        i = slot_of(p, s, n, h);
    }
    if (!p->last || p->last->cap - p->last->used < n + 1) {
        size_t cap = n + 1 > BLOCK ? n + 1 : BLOCK;
        block *b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->prev = p->last;
        b->used = 0;
        b->cap = cap;
        p->last = b;
    }
    char *copy = p->last->text + p->last->used;
    memcpy(copy, s, n);
    copy[n] = 0;
    p->last->used += n + 1;
    p->slot[i] = copy;
    p->n++;
    return copy;
}

void strpool_free(strpool *p)
{
    if (!p)
        return;
    for (block *b = p->last, *prev; b; b = prev) {
        prev = b->prev;
        free(b);
    }
    free(p->slot);
    free(p);
}
