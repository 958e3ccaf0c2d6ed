/* One result: a (case, dtype, profile) measured in one mode. Plain data, so it crosses the pipe from
 * worker to parent as bytes, and one CSV row is written from it. Failed and skipped rows carry their
 * status and reason with the numbers left empty (never a made-up 0 or NaN). */
#ifndef KLAB_ROW_H
#define KLAB_ROW_H

#include <stddef.h>
#include <stdint.h>

typedef enum row_status {
    ROW_PASSED = 0, /* verified, then timed */
    ROW_INCORRECT,  /* ran, but wrong numbers (also: inputs modified, a timed repetition wrong) */
    ROW_FAILED,     /* errored: hook error, CUDA error, crash, timeout */
    ROW_FLAGGED,    /* verified, but its timing cannot be trusted: see reason */
    ROW_SKIPPED,    /* not run here: unsupported dtype, device too old, refused plugin */
    ROW_REFUSED     /* the case is unfit to judge (reference nearly zero) */
} row_status;

typedef struct klab_row {
    char run_id[64];
    char plugin[64];
    char kcase[64];
    char shape[64];
    char dtype[8];
    char profile[64];
    char l2[8];       /* "cold" (L2 flushed by a read before each sample) or "hot" */
    char launch[8];   /* "stream" or "graph" */
    row_status status;
    char reason[512];
    char flags[128];  /* ';'-separated: launch-bound, exceeds-roofline, few-samples */

    int has_time;
    int reps, discarded;
    double median_ms, p95_ms, min_ms, max_ms, mean_ms, noise;
    double bytes, flops;
    double gbps, tflops;

    int has_limit;
    char limit[24];      /* what frac_limit is against: "copy" (klab's copy at the same bytes) or "tensor-peak" */
    double limit_gbps;   /* klab's copy at the same bytes, in the same rounds */
    double frac_limit;

    int has_speedup;
    double speedup;      /* baseline median / this median */

    double sm_mhz;           /* median SM clock over the accepted samples; 0 = unknown */
    double launch_floor_ms;  /* empty-launch time, given on rows under 10 us; 0 = not given */

    int has_err;
    double rel_l2_err, max_abs_err, tol;
    uint64_t seed;
    char config[128];
    long long verified_elems;
} klab_row;

const char *row_status_name(row_status s);

/* Appends `flag` to row->flags unless already there. */
void row_add_flag(klab_row *r, const char *flag);

/* Sets status and reason (printf-style); a later reason replaces an earlier one. */
void row_fail(klab_row *r, row_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Appends a copy of r to a growing array; 0, or -1 when out of memory (the array is kept). */
int row_push(klab_row **rows, int *n, int *cap, const klab_row *r);

/* The CSV columns, in order, and the text of column `i` for a row (empty where not applicable). */
#define ROW_NCOLUMNS 34
extern const char *const row_columns[ROW_NCOLUMNS];
void row_cell(const klab_row *r, int i, char *buf, size_t len);

#endif
