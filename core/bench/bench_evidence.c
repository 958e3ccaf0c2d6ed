/* libklab_bench's statistics and CSV rows for Python tools that time on their own (the decode step of
 * tools/klab/decode.py) or read samples (tools/klab/probes.py): core/stats/ computes every figure and
 * core/evidence/ writes every row, so a Python row has klab's columns, schema, number formats and
 * statistics, and no rule of them is written twice. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/klab_bench_internal.h"
#include "evidence/csv_sink.h"
#include "evidence/row.h"
#include "stats/interval.h"
#include "stats/stats.h"
#include "worker/results.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* An ascending copy (free it), or NULL when n is 0 or out of memory (said). */
static double *sorted(const double *x, size_t n)
{
    double *s = n ? malloc(n * sizeof *s) : NULL;
    if (!s) {
        kb_fail(n ? "out of memory" : "no samples");
        return NULL;
    }
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return s;
}

char *kb_stats(const double *samples, size_t n)
{
    stats st;
    if (n == 0 || stats_compute(samples, n, &st) != 0) {
        kb_fail(n ? "out of memory" : "kb_stats: no samples");
        return NULL;
    }
    json_out j;
    if (kb_json_open(&j) != 0)
        return NULL;
    json_object(&j, NULL);
    json_int(&j, "n", (long long)st.n);
    json_num(&j, "median", st.median);
    if (st.has_ci) {
        json_num(&j, "median_lo", st.median_lo);
        json_num(&j, "median_hi", st.median_hi);
        json_num(&j, "precision", st.precision);
    }
    json_num(&j, "p95", st.p95);
    json_num(&j, "p99", st.p99);
    json_num(&j, "min", st.min);
    json_num(&j, "max", st.max);
    json_num(&j, "mean", st.mean);
    json_num(&j, "noise", st.noise);
    json_end(&j);
    return kb_json_close(&j);
}

double kb_quantile(const double *samples, size_t n, double q)
{
    double *s = sorted(samples, n);
    if (!s)
        return NAN;
    double v = stats_quantile_sorted(s, n, q);
    free(s);
    return v;
}

int kb_median_interval(const double *samples, size_t n, double conf, double *lo, double *hi)
{
    double *s = sorted(samples, n);
    if (!s)
        return -1;
    int rc = interval_median(s, n, conf, lo, hi);
    free(s);
    if (rc != 0)
        kb_fail("kb_median_interval: %zu samples are too few for a %g interval", n, conf);
    return rc;
}

int kb_ratio_interval(const double *num, size_t nn, const double *den, size_t nd, double *lo, double *hi)
{
    if (stats_ratio_interval(num, nn, den, nd, lo, hi) != 0) {
        kb_fail("kb_ratio_interval: too few samples (%zu and %zu) or an interval reaching zero", nn, nd);
        return -1;
    }
    return 0;
}

/* ---- CSV rows ---- */

struct kb_csv {
    csv_sink sink;
};

int kb_json_open(json_out *j)
{
    if (json_open(j) == 0)
        return 0;
    kb_fail("out of memory");
    return -1;
}

char *kb_json_close(json_out *j)
{
    char *text = json_close(j);
    if (!text)
        kb_fail("out of memory");
    return text;
}

int kb_row_schema(void)
{
    return ROW_SCHEMA;
}

char *kb_row_columns(void)
{
    json_out j;
    if (kb_json_open(&j) != 0)
        return NULL;
    json_array(&j, NULL);
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        json_str(&j, NULL, row_schema[i].name);
    json_end(&j);
    return kb_json_close(&j);
}

kb_csv *kb_csv_open(const char *path)
{
    kb_csv *c = kb_calloc(sizeof *c);
    char err[1200];
    if (!c)
        return NULL;
    if (csv_sink_open(&c->sink, path, err, sizeof err) != 0) {
        kb_fail("%s", err);
        free(c);
        return NULL;
    }
    return c;
}

/* The columns results_fill_stats writes: a caller gives samples, never these. */
static int from_samples(const char *name)
{
    static const char *const cols[] = {"reps", "median_ms", "median_lo", "median_hi", "p95_ms", "p99_ms",
                                       "min_ms", "max_ms", "mean_ms", "noise", "precision", "gbps", "tflops"};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        if (strcmp(cols[i], name) == 0)
            return 1;
    return 0;
}

/* value is a whole cell of column i: text that fits its field, a status by name, a number read to its
   end. Returns 0, or -1 (said). */
static int cell_ok(int i, const char *value)
{
    const row_column *c = &row_schema[i];
    char *end = NULL;
    switch (c->kind) {
    case COL_TEXT:
        if (strlen(value) >= c->size) {
            kb_fail("kb_csv_row: column '%s' holds %zu characters at most", c->name, c->size - 1);
            return -1;
        }
        return 0;
    case COL_STATUS:
        for (int k = ROW_PASSED; k <= ROW_REFUSED; k++)
            if (strcmp(value, row_status_name((row_status)k)) == 0)
                return 0;
        kb_fail("kb_csv_row: '%s' is not a row status", value);
        return -1;
    case COL_INT:
    case COL_U64: (void)strtoll(value, &end, 10); break;
    case COL_NUM:
    case COL_COUNT: (void)strtod(value, &end); break;
    case COL_SCHEMA: kb_fail("kb_csv_row: the schema column is klab's"); return -1;
    }
    if (!*value || *end) {
        kb_fail("kb_csv_row: column '%s': '%s' is not a number", c->name, value);
        return -1;
    }
    return 0;
}

int kb_csv_row(kb_csv *c, const char *const *columns, const char *const *values, int n, const double *samples,
               size_t nsamples)
{
    klab_row r;
    memset(&r, 0, sizeof r);
    for (int k = 0; k < n; k++) {
        int i = row_column_index(columns[k]);
        if (i < 0) {
            kb_fail("kb_csv_row: no column '%s' in klab's CSV (schema %d)", columns[k], ROW_SCHEMA);
            return -1;
        }
        if (from_samples(columns[k])) {
            kb_fail("kb_csv_row: column '%s' is computed from the samples", columns[k]);
            return -1;
        }
        if (values[k][0] && cell_ok(i, values[k]) != 0)
            return -1;
        char why[200];
        if (row_parse(&r, i, values[k], why, sizeof why) != 0) {
            kb_fail("kb_csv_row: column '%s': %s", columns[k], why);
            return -1;
        }
    }
    if (nsamples && results_fill_stats(&r, samples, nsamples) != 0) {
        kb_fail("out of memory");
        return -1;
    }
    if (csv_sink_row(&c->sink, &r) != 0) {
        kb_fail("kb_csv_row: %s: cannot write", c->sink.partial);
        return -1;
    }
    return 0;
}

int kb_csv_close(kb_csv *c, int keep)
{
    char err[1200];
    int rc = 0;
    if (!keep) {
        csv_sink_discard(&c->sink);
    } else if (csv_sink_commit(&c->sink, err, sizeof err) != 0) {
        kb_fail("%s", err);
        rc = -1;
    }
    free(c);
    return rc;
}
