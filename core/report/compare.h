/* `klab compare RUN-A RUN-B`: the rows of two runs matched by what they measured, each pair judged from
 * both medians' 95 % intervals, so a kernel change can be gated in a script. nvbench's
 * scripts/nvbench_compare.py is the anchor (files of the same name in two folders, SAME / FAST / SLOW);
 * there the verdict rests on each run's relative stddev, here on the medians' intervals, the same
 * evidence klab's speedups rest on. docs/compare.md states the rules and the exit status.
 *
 * Matching: the CSV files of the same name in both folders (rmsnorm.csv with rmsnorm.csv, PyTorch's
 * rmsnorm.torch.csv with its own), and within them the rows whose key is equal. The key is what was
 * measured (row.h): plugin, case, shape, dtype, profile, l2 and launch. The tuning configuration is not
 * part of it: a tuned row whose chosen configuration moved is the same measurement with another
 * answer, paired and shown as CONFIG-CHANGED; unpaired it would vanish into "only in A" and "only in
 * B" and the gate would pass on nothing. Only --tune's trial rows, each of which measures one
 * configuration, are keyed by it too. run_id, seed and batch (N follows each run's launch floor) are
 * not part of it.
 *
 * The gate fails (exit 1) on a regression, on a row in one run only (unless allow_missing) and on a
 * changed configuration (unless allow_config_change); a file it cannot trust is an error (exit 2):
 * a column the verdict needs missing, a median outside its own interval, anything the reader refuses
 * (csv_read.h), each named by file and line. */
#ifndef KLAB_COMPARE_H
#define KLAB_COMPARE_H

#include <stdio.h>

#include "evidence/row.h"
#include "util/json_out.h"

#define CMP_DEFAULT_THRESHOLD 0.05
#define CMP_JSON_SCHEMA "klab.compare/1"

typedef enum cmp_verdict {
    CMP_SAME,         /* every ratio both intervals allow is within the threshold */
    CMP_FASTER,       /* B's interval lies below A's by more than the threshold */
    CMP_SLOWER,       /* B's interval lies above A's by more than the threshold: a regression */
    CMP_UNSURE,       /* neither: the intervals straddle the threshold, or a row has no interval */
    CMP_NOT_COMPARED, /* a side is not a passed, verified, timed row (flagged, incorrect, failed,
                         skipped, not-verified, untimed, an impossible figure) or its key is
                         ambiguous: why says which */
    CMP_ONLY_A,       /* no row of this key in B */
    CMP_ONLY_B,       /* no row of this key in A */
} cmp_verdict;

const char *cmp_verdict_name(cmp_verdict v);

typedef struct cmp_pair {
    const klab_row *a, *b; /* NULL on the side the key is missing from */
    cmp_verdict v;
    int has_ratio;         /* both sides timed */
    double ratio;          /* B's median / A's median: > 1 is slower */
    int has_bounds;        /* both sides have an interval */
    double lo, hi;         /* B's median_lo / A's median_hi .. B's median_hi / A's median_lo */
    int regression;        /* SLOWER, or passed in A and incorrect, failed or flagged in B */
    int config_changed;    /* both sides there, with another tuning configuration (CONFIG-CHANGED) */
    char why[300];         /* for UNSURE and NOT_COMPARED; "" otherwise */
} cmp_pair;

/* Judges one matched pair (both rows non-NULL) with threshold t (0.05: 5 %). */
void cmp_judge(const klab_row *a, const klab_row *b, double t, cmp_pair *p);

/* Matches two files' rows by key and judges each pair: rows of A in A's order, then rows only in B.
   *out is malloc'd (free it); returns the count, or -1 when out of memory. O(n log n): the keys are
   sorted, not searched row by row. */
int cmp_rows(const klab_row *a, int na, const klab_row *b, int nb, double t, cmp_pair **out);

typedef struct cmp_opts {
    double threshold;        /* 0.05: 5 % */
    int allow_missing;       /* rows in one run only do not fail the gate */
    int allow_config_change; /* a changed tuning configuration does not fail the gate */
    json_out *json;          /* non-NULL: the pairs, totals and gate go into it (klab.compare/1, compare_json.c)
                                inside the object the caller opened, and nothing is printed */
} cmp_opts;

typedef struct cmp_totals {
    int n[CMP_ONLY_B + 1]; /* pairs per verdict */
    int regressions;
    int config_changed;
    int files;
    int gate_failed;       /* regressions, or missing rows or changed configurations the options refuse */
} cmp_totals;

/* Compares run folders a and b (their *.csv files, matched by name), printing each file's pairs, a
   summary and the gate's verdict to fp (o->json: writing them there instead). Returns 0 with *tot filled, or -1 with the reason in err: a
   folder or CSV that cannot be read or trusted (file:line), or no CSV file in either. */
int cmp_runs(FILE *fp, const char *a, const char *b, const cmp_opts *o, cmp_totals *tot, char *err,
             size_t errlen);

#endif
