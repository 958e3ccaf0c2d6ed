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
    char config[256]; /* the tuning configuration used, free text; empty when none */
    char l2[8];       /* "cold" (L2 flushed by a read before each sample) or "hot" */
    char launch[8];   /* "stream", "batched", "queued" or "steps" (timing.h) */
    int batch;        /* runs per sample: 1 for plain launches; 0 = not timed */
    uint64_t footprint_bytes; /* bytes the rotated inputs and outputs of a batched sample occupy; 0 = not batched */
    row_status status;
    char reason[512];
    char flags[128];  /* ';'-separated: launch-bound, exceeds-roofline, few-samples */

    int has_time;
    int reps, discarded;
    double median_ms;
    int has_ci;                 /* the median's 95 % interval exists (n >= 6) */
    double median_lo, median_hi;
    double p95_ms, p99_ms, min_ms, max_ms, mean_ms;
    double noise;               /* stddev / mean, descriptive */
    double precision;           /* the interval's achieved relative half-width: (hi - lo) / (2 median) */
    double bytes, flops;
    double gbps, tflops;

    int has_limit;
    char limit[24];      /* what frac_limit is against: "copy" (klab's copy at the same bytes) or "tensor-peak" */
    double limit_gbps;   /* klab's copy at the same bytes, in the same rounds */
    double frac_limit;

    int has_speedup;
    double speedup;      /* baseline median / this median */
    int has_speedup_ci;  /* 95 % jointly: interval_ratio, each median at 97.5 % */
    double speedup_lo, speedup_hi;

    double sm_mhz;           /* median SM clock over the accepted samples; 0 = unknown */
    double launch_floor_ms;  /* empty-launch time, given on rows under 10 us; 0 = not given */

    int has_err;
    double rel_l2_err, max_abs_err, tol;
    uint64_t verified_elems; /* elements compared per verified run, outputs summed; 0 = all */
    uint64_t seed;
    char samples_file[256];  /* the per-row raw samples, relative to the run folder; empty when none */

    int has_gpu;             /* the row was measured on (or failed on) a GPU the worker named */
    int gpu_index;           /* the CUDA ordinal the worker used (as CUDA_VISIBLE_DEVICES numbers them) */
    char gpu_name[128];
    char gpu_uuid[48];       /* "GPU-xxxxxxxx-...": the same card whatever the numbering */
} klab_row;

const char *row_status_name(row_status s);

/* 1 when `flag` is one of row->flags (a whole ';'-separated item, not a substring). */
int row_has_flag(const klab_row *r, const char *flag);

/* The flag of every row of a --quick run (its worker's and the parent's own failed rows): a smoke
   pass whose times are no evidence (stopping.h). */
#define ROW_FLAG_QUICK "quick"

/* Appends `flag` to row->flags unless already there. */
void row_add_flag(klab_row *r, const char *flag);

/* Sets status and reason (printf-style); a later reason replaces an earlier one. */
void row_fail(klab_row *r, row_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Names the GPU the row belongs to. */
void row_set_gpu(klab_row *r, int ordinal, const char *name, const char *uuid);

/* Appends a copy of r to a growing array; 0, or -1 when out of memory (the array is kept). */
int row_push(klab_row **rows, int *n, int *cap, const klab_row *r);

/* ---- the CSV schema: the one description of the columns ----
 *
 * Each column names its klab_row field, how that field is written (and read back, the same way),
 * when it has a value at all, and whether and how the terminal table shows it. The CSV writer, the
 * CSV reader (`klab report`) and the terminal table all go through it; nothing else knows a column by
 * its position. Schema 2 added median_lo/hi, p99_ms, precision, speedup_lo/hi, batch,
 * footprint_bytes, config, verified_elems and samples_file; schema 3 gpu, gpu_name and gpu_uuid
 * (several GPUs write one run folder: --devices, klab merge). */
#define ROW_SCHEMA 3
#define ROW_NCOLUMNS 48

typedef enum row_kind {
    COL_TEXT,   /* a char array */
    COL_STATUS, /* row_status, by name */
    COL_INT,    /* int */
    COL_NUM,    /* double, a measurement: %.6g */
    COL_COUNT,  /* double holding a whole count (bytes, flops): exact */
    COL_U64,    /* uint64_t */
    COL_SCHEMA  /* the constant ROW_SCHEMA; no field */
} row_kind;

/* When a cell has a value: every flag named is set (reading a non-empty cell sets them), and the
   POSITIVE/BYTES/FLOPS value is > 0. Otherwise the cell is empty, never a made-up 0. */
enum {
    NEED_TIME = 1u << 0,       /* has_time */
    NEED_CI = 1u << 1,         /* has_ci */
    NEED_LIMIT = 1u << 2,      /* has_limit */
    NEED_SPEEDUP = 1u << 3,    /* has_speedup */
    NEED_SPEEDUP_CI = 1u << 4, /* has_speedup_ci */
    NEED_ERR = 1u << 5,        /* has_err */
    NEED_POSITIVE = 1u << 6,   /* the column's own value */
    NEED_BYTES = 1u << 7,      /* the row's bytes */
    NEED_FLOPS = 1u << 8,      /* the row's flops */
    NEED_GPU = 1u << 9,        /* has_gpu */
};

/* How the terminal shows a cell ("-" where the CSV cell is empty). */
typedef enum row_show {
    SHOW_NO = 0,
    SHOW_TEXT,   /* as in the CSV */
    SHOW_US,     /* ms as us, %.2f */
    SHOW_PCT,    /* a fraction as %.1f%% */
    SHOW_PCT2,   /* a fraction as %.2f%% */
    SHOW_WHOLE,  /* %.0f */
    SHOW_X,      /* %.2fx */
    SHOW_XRANGE, /* this column and the next, "%.2f-%.2fx": an interval */
    SHOW_MODE,   /* l2, and "+g" for graph launches */
    SHOW_STATUS, /* status and flags: the free-width last column */
    SHOW_NOTE    /* a line under the row: the reason, or the launch floor of a launch-bound row */
} row_show;

typedef struct row_column {
    const char *name;   /* the CSV header */
    row_kind kind;
    unsigned need;      /* NEED_* */
    size_t off, size;   /* the klab_row field */
    row_show show;      /* the terminal table */
    const char *head;   /* its header there */
    int width;          /* > 0 right-aligned, < 0 left-aligned */
} row_column;

extern const row_column row_schema[ROW_NCOLUMNS];

/* The column named `name`, or -1. */
int row_column_index(const char *name);

/* The CSV text of column `i` for a row (empty where not applicable, or i out of range). */
void row_cell(const klab_row *r, int i, char *buf, size_t len);

/* Reads the CSV text of column `i` back into the row: the inverse of row_cell (to %.6g for
   measurements). An empty cell leaves the row as it is. Returns 0, or -1 with the reason in why when
   the text is not what the column holds (a text longer than its field, a status klab does not write,
   a number that is not one): the row is then not to be used. */
int row_parse(klab_row *r, int i, const char *text, char *why, size_t whylen);

/* row_parse of a text whose length the caller knows (a CSV reader's cells: len bytes, then a NUL),
   without measuring it again: a million-row run has fifty million cells. */
int row_parse_len(klab_row *r, int i, const char *text, size_t len, char *why, size_t whylen);

/* The terminal text of column `i` ("-" for no value; "" for columns the terminal does not show). */
void row_term(const klab_row *r, int i, char *buf, size_t len);

#endif
