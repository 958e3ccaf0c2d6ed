/* Strings kept once: each distinct string is copied into blocks that never move, so a pointer to it
 * stays good until the pool is freed. For text that repeats over a million lines (a counters file's
 * kernel names and reasons), held as a pointer rather than a fixed array per line. */
#ifndef KLAB_STRPOOL_H
#define KLAB_STRPOOL_H

#include <stddef.h>

typedef struct strpool strpool;

/* A new pool, or NULL when out of memory. */
strpool *strpool_new(void);

/* The pool's copy of the first n bytes of s (s holds no NUL among them), NUL-terminated: the same
   pointer for the same bytes. NULL when out of memory. */
const char *strpool_add(strpool *p, const char *s, size_t n);

void strpool_free(strpool *p);

#endif
