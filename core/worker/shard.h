/* --shard K/N: the K-th of N deterministic slices of the selected units. A unit's slice depends only
 * on its plugin's name and its index among that plugin's selected units (INI order), so every machine
 * given the same INI and selection cuts the same slices: their union is the unsharded list, and no
 * unit is in two. --devices gives each GPU's worker one slice the same way. */
#ifndef KLAB_SHARD_H
#define KLAB_SHARD_H

#include <stddef.h>

#define SHARD_MAX 4096

/* "K/N" with 0 <= K < N <= SHARD_MAX. Returns 0, or -1 with one sentence in err. */
int shard_parse(const char *text, int *k, int *n, char *err, size_t errlen);

/* The slice (0..n-1) of the index-th selected unit of `plugin`. Consecutive units go to consecutive
   slices, so each slice of a plugin's units differs in size by at most one; the start is the plugin
   name's hash, so plugins with a single unit do not all land in slice 0. */
int shard_of(const char *plugin, int index, int n);

#endif
