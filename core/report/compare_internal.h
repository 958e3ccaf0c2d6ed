/* What compare.c (the verdicts and the matching) gives compare_runs.c (two run folders), and nobody
 * else needs: a row's key as text fields, and the match of two sides' keys. The folders' rows are kept
 * in a compact form there, not as klab_rows, so the matching works on keys, whatever holds the text. */
#ifndef KLAB_COMPARE_INTERNAL_H
#define KLAB_COMPARE_INTERNAL_H

#include <stdint.h>

#include "report/compare.h"

/* A row's key (compare.h): plugin, case, shape, dtype, profile, l2, launch, and for --tune's trial
   rows (kind 1, or 2 for the plugin's own choice; 0 for any other row) the configuration. */
typedef struct cmp_key {
    const char *f[8]; /* the fields above, config last; pointers into the row's text */
    int kind;
    uint64_t h;       /* their hash */
} cmp_key;

void cmp_key_view(const klab_row *r, cmp_key *k);
void cmp_key_of(const char *plugin, const char *kcase, const char *shape, const char *dtype, const char *profile,
                const char *l2, const char *launch, const char *config, const char *flags, cmp_key *k);

/* A row's key's rows on each side: how many, and the first (lowest index) in B, or -1. */
typedef struct cmp_match_t {
    int na, nb;
    int first_b;
} cmp_match_t;

/* Matches A's keys with B's by sorting both (O(n log n)): ma[i] for a[i], mb[j] for b[j]. 0, or -1
   when out of memory. */
int cmp_match(const cmp_key *a, int na, const cmp_key *b, int nb, cmp_match_t *ma, cmp_match_t *mb);

/* The pair of A's row a: judged against b (its key's first row in B), or ONLY-IN-A, or ambiguous. */
void cmp_pair_at(const klab_row *a, const klab_row *b, const cmp_match_t *m, double t, cmp_pair *q);

/* --json's parts (compare_json.c): the runs and the threshold, then each pair of file `name` in the
   array "rows", then the totals and the gate. */
void cmp_json_head(json_out *j, const char *a, const char *ga, const char *b, const char *gb, double t);
void cmp_json_pair(json_out *j, const char *name, const cmp_pair *p);
void cmp_json_tail(json_out *j, const cmp_opts *o, const cmp_totals *tot);

#endif
