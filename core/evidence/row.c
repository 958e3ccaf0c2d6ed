#include "evidence/row.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/decimal.h"
#include "util/fixed.h"

const char *row_status_name(row_status s)
{
    switch (s) {
    case ROW_PASSED: return "passed";
    case ROW_INCORRECT: return "incorrect";
    case ROW_FAILED: return "failed";
    case ROW_FLAGGED: return "flagged";
    case ROW_SKIPPED: return "skipped";
    case ROW_REFUSED: return "refused";
    default: return "?";
    }
}

int row_has_flag(const klab_row *r, const char *flag)
{
    size_t fl = strlen(flag);
    for (const char *p = r->flags; (p = strstr(p, flag)) != NULL; p += fl)
        if ((p == r->flags || p[-1] == ';') && (p[fl] == 0 || p[fl] == ';'))
            return 1;
    return 0;
}

void row_add_flag(klab_row *r, const char *flag)
{
    if (row_has_flag(r, flag))
        return;
    size_t n = strlen(r->flags);
    snprintf(r->flags + n, sizeof r->flags - n, "%s%s", n ? ";" : "", flag);
}

void row_fail(klab_row *r, row_status s, const char *fmt, ...)
{
    r->status = s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
}

void row_set_gpu(klab_row *r, int ordinal, const char *name, const char *uuid)
{
    r->has_gpu = 1;
    r->gpu_index = ordinal;
    snprintf(r->gpu_name, sizeof r->gpu_name, "%s", name);
    snprintf(r->gpu_uuid, sizeof r->gpu_uuid, "%s", uuid);
}

int row_push(klab_row **rows, int *n, int *cap, const klab_row *r)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 64;
        klab_row *p = realloc(*rows, (size_t)c * sizeof *p);
        if (!p)
            return -1;
        *rows = p;
        *cap = c;
    }
    (*rows)[(*n)++] = *r;
    return 0;
}

/* The schema (row.h says what each part means). Adding a column is one line here, one field in
   klab_row, and the README's table; the writer, reader and terminal follow. */
#define FIELD(f) offsetof(klab_row, f), sizeof(((klab_row *)0)->f)
#define NO_FIELD 0, 0

const row_column row_schema[] = {
    /* what was measured */
    {"run_id", COL_TEXT, 0, FIELD(run_id), SHOW_NO, NULL, 0},
    {"plugin", COL_TEXT, 0, FIELD(plugin), SHOW_NO, NULL, 0},
    {"case", COL_TEXT, 0, FIELD(kcase), SHOW_TEXT, "case", -16},
    {"shape", COL_TEXT, 0, FIELD(shape), SHOW_NO, NULL, 0},
    {"dtype", COL_TEXT, 0, FIELD(dtype), SHOW_TEXT, "dtype", -5},
    {"profile", COL_TEXT, 0, FIELD(profile), SHOW_TEXT, "profile", -14},
    {"config", COL_TEXT, 0, FIELD(config), SHOW_NO, NULL, 0},
    {"l2", COL_TEXT, 0, FIELD(l2), SHOW_MODE, "mode", -6},
    {"launch", COL_TEXT, 0, FIELD(launch), SHOW_NO, NULL, 0},
    {"batch", COL_INT, NEED_TIME | NEED_POSITIVE, FIELD(batch), SHOW_NO, NULL, 0},
    {"footprint_bytes", COL_U64, NEED_POSITIVE, FIELD(footprint_bytes), SHOW_NO, NULL, 0},
    /* the outcome */
    {"status", COL_STATUS, 0, FIELD(status), SHOW_STATUS, "status", 0},
    {"reason", COL_TEXT, 0, FIELD(reason), SHOW_NOTE, NULL, 0},
    {"flags", COL_TEXT, 0, FIELD(flags), SHOW_NO, NULL, 0},
    /* the accepted samples */
    {"reps", COL_INT, NEED_TIME, FIELD(reps), SHOW_NO, NULL, 0},
    {"discarded", COL_INT, NEED_TIME, FIELD(discarded), SHOW_NO, NULL, 0},
    {"median_ms", COL_NUM, NEED_TIME, FIELD(median_ms), SHOW_US, "median us", 10},
    {"median_lo", COL_NUM, NEED_TIME | NEED_CI, FIELD(median_lo), SHOW_NO, NULL, 0},
    {"median_hi", COL_NUM, NEED_TIME | NEED_CI, FIELD(median_hi), SHOW_NO, NULL, 0},
    {"p95_ms", COL_NUM, NEED_TIME, FIELD(p95_ms), SHOW_US, "p95 us", 10},
    {"p99_ms", COL_NUM, NEED_TIME, FIELD(p99_ms), SHOW_NO, NULL, 0},
    {"min_ms", COL_NUM, NEED_TIME, FIELD(min_ms), SHOW_NO, NULL, 0},
    {"max_ms", COL_NUM, NEED_TIME, FIELD(max_ms), SHOW_NO, NULL, 0},
    {"mean_ms", COL_NUM, NEED_TIME, FIELD(mean_ms), SHOW_NO, NULL, 0},
    {"noise", COL_NUM, NEED_TIME, FIELD(noise), SHOW_NO, NULL, 0},
    {"precision", COL_NUM, NEED_TIME | NEED_CI, FIELD(precision), SHOW_PCT2, "median+-", 8},
    /* the work, and the rate */
    {"bytes", COL_COUNT, NEED_POSITIVE, FIELD(bytes), SHOW_NO, NULL, 0},
    {"flops", COL_COUNT, NEED_POSITIVE, FIELD(flops), SHOW_NO, NULL, 0},
    {"gbps", COL_NUM, NEED_TIME | NEED_BYTES, FIELD(gbps), SHOW_WHOLE, "GB/s", 9},
    {"tflops", COL_NUM, NEED_TIME | NEED_FLOPS, FIELD(tflops), SHOW_NO, NULL, 0},
    {"limit", COL_TEXT, NEED_TIME | NEED_LIMIT, FIELD(limit), SHOW_NO, NULL, 0},
    {"limit_gbps", COL_NUM, NEED_TIME | NEED_LIMIT | NEED_POSITIVE, FIELD(limit_gbps), SHOW_NO, NULL, 0},
    {"frac_limit", COL_NUM, NEED_TIME | NEED_LIMIT, FIELD(frac_limit), SHOW_PCT, "limit", 7},
    {"speedup", COL_NUM, NEED_TIME | NEED_SPEEDUP, FIELD(speedup), SHOW_X, "vs base", 8},
    {"speedup_lo", COL_NUM, NEED_TIME | NEED_SPEEDUP_CI, FIELD(speedup_lo), SHOW_XRANGE, "95% interval", 12},
    {"speedup_hi", COL_NUM, NEED_TIME | NEED_SPEEDUP_CI, FIELD(speedup_hi), SHOW_NO, NULL, 0},
    {"sm_mhz", COL_NUM, NEED_TIME | NEED_POSITIVE, FIELD(sm_mhz), SHOW_NO, NULL, 0},
    {"launch_floor_ms", COL_NUM, NEED_TIME | NEED_POSITIVE, FIELD(launch_floor_ms), SHOW_NO, NULL, 0},
    /* the verification */
    {"rel_l2_err", COL_NUM, NEED_ERR, FIELD(rel_l2_err), SHOW_NO, NULL, 0},
    {"max_abs_err", COL_NUM, NEED_ERR, FIELD(max_abs_err), SHOW_NO, NULL, 0},
    {"tolerance", COL_NUM, NEED_ERR, FIELD(tol), SHOW_NO, NULL, 0},
    {"verified_elems", COL_U64, NEED_POSITIVE, FIELD(verified_elems), SHOW_NO, NULL, 0},
    {"seed", COL_U64, NEED_POSITIVE, FIELD(seed), SHOW_NO, NULL, 0},
    {"schema", COL_SCHEMA, 0, NO_FIELD, SHOW_NO, NULL, 0},
    {"samples_file", COL_TEXT, 0, FIELD(samples_file), SHOW_NO, NULL, 0},
    /* where: one run folder can hold several GPUs' rows */
    {"gpu", COL_INT, NEED_GPU, FIELD(gpu_index), SHOW_NO, NULL, 0},
    {"gpu_name", COL_TEXT, NEED_GPU, FIELD(gpu_name), SHOW_NO, NULL, 0},
    {"gpu_uuid", COL_TEXT, NEED_GPU, FIELD(gpu_uuid), SHOW_NO, NULL, 0},
};

_Static_assert(sizeof row_schema / sizeof row_schema[0] == ROW_NCOLUMNS, "ROW_NCOLUMNS is the schema's length");

/* The has_* flag behind each NEED_ bit that is one. */
static const struct {
    unsigned bit;
    size_t off;
} need_flag[] = {
    {NEED_TIME, offsetof(klab_row, has_time)},
    {NEED_CI, offsetof(klab_row, has_ci)},
    {NEED_LIMIT, offsetof(klab_row, has_limit)},
    {NEED_SPEEDUP, offsetof(klab_row, has_speedup)},
    {NEED_SPEEDUP_CI, offsetof(klab_row, has_speedup_ci)},
    {NEED_ERR, offsetof(klab_row, has_err)},
    {NEED_GPU, offsetof(klab_row, has_gpu)},
};

int row_column_index(const char *name)
{
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        if (strcmp(row_schema[i].name, name) == 0)
            return i;
    return -1;
}

static const void *field(const klab_row *r, const row_column *c)
{
    return (const char *)r + c->off;
}

static double value(const klab_row *r, const row_column *c)
{
    const void *p = field(r, c);
    switch (c->kind) {
    case COL_INT: return *(const int *)p;
    case COL_NUM:
    case COL_COUNT: return *(const double *)p;
    case COL_U64: return (double)*(const uint64_t *)p;
    default: return 0;
    }
}

static int present(const klab_row *r, const row_column *c)
{
    for (size_t k = 0; k < sizeof need_flag / sizeof need_flag[0]; k++)
        if ((c->need & need_flag[k].bit) && !*(const int *)((const char *)r + need_flag[k].off))
            return 0;
    if ((c->need & NEED_POSITIVE) && !(value(r, c) > 0))
        return 0;
    if ((c->need & NEED_BYTES) && !(r->bytes > 0))
        return 0;
    if ((c->need & NEED_FLOPS) && !(r->flops > 0))
        return 0;
    return 1;
}

void row_cell(const klab_row *r, int i, char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
    if (i < 0 || i >= ROW_NCOLUMNS || !len)
        return;
    const row_column *c = &row_schema[i];
    if (!present(r, c))
        return;
    const void *p = field(r, c);
    switch (c->kind) {
    case COL_TEXT: snprintf(buf, len, "%s", (const char *)p); break;
    case COL_STATUS: snprintf(buf, len, "%s", row_status_name(*(const row_status *)p)); break;
    case COL_INT: snprintf(buf, len, "%d", *(const int *)p); break;
    /* %.6g keeps a microsecond kernel's 0.0123456 ms and a 1.5 ms one alike readable and exact enough */
    case COL_NUM: snprintf(buf, len, "%.6g", *(const double *)p); break;
    case COL_COUNT: snprintf(buf, len, "%.0f", *(const double *)p); break; /* counts, not measurements */
    case COL_U64: snprintf(buf, len, "%" PRIu64, *(const uint64_t *)p); break;
    case COL_SCHEMA: snprintf(buf, len, "%d", ROW_SCHEMA); break;
    }
}

int row_parse(klab_row *r, int i, const char *s, char *why, size_t whylen)
{
    return row_parse_len(r, i, s, strlen(s), why, whylen);
}

int row_parse_len(klab_row *r, int i, const char *s, size_t len, char *why, size_t whylen)
{
    if (i < 0 || i >= ROW_NCOLUMNS || !*s)
        return 0;
    const row_column *c = &row_schema[i];
    void *p = (char *)r + c->off;
    switch (c->kind) {
    case COL_TEXT:
        /* cut to fit, a longer text would read as another one: a case "n4096x8192-long" as "n4096" */
        if (len >= c->size) {
            snprintf(why, whylen, "column '%s': %zu bytes, more than its %zu", c->name, len, c->size - 1);
            return -1;
        }
        memcpy(p, s, len + 1);
        break;
    case COL_STATUS: {
        int k = ROW_PASSED;
        while (k <= ROW_REFUSED && strcmp(s, row_status_name((row_status)k)) != 0)
            k++;
        if (k > ROW_REFUSED) {
            snprintf(why, whylen, "column '%s': '%.40s' is no status klab writes", c->name, s);
            return -1;
        }
        *(row_status *)p = (row_status)k;
        break;
    }
    case COL_INT: {
        errno = 0;
        long long v = decimal_is_whole(s, 1) ? strtoll(s, NULL, 10) : 0;
        if (!decimal_is_whole(s, 1) || errno || v < INT_MIN || v > INT_MAX) {
            snprintf(why, whylen, "column '%s': '%.40s' is not a whole number", c->name, s);
            return -1;
        }
        *(int *)p = (int)v;
        break;
    }
    case COL_NUM:
    case COL_COUNT: {
        char *end = (char *)"";
        double v;
        if (decimal_read(s, &v) != 0)
            v = strtod(s, &end);
        else
            end = (char *)s + len;
        if (end == s || *end || isspace((unsigned char)*s)) {
            snprintf(why, whylen, "column '%s': '%.40s' is not a number", c->name, s);
            return -1;
        }
        /* klab writes no NaN or infinity: one would pass every comparison a judge makes with it */
        if (!isfinite(v)) {
            snprintf(why, whylen, "column '%s': '%.40s' is not a finite number", c->name, s);
            return -1;
        }
        *(double *)p = v;
        break;
    }
    case COL_U64: {
        errno = 0;
        unsigned long long v = decimal_is_whole(s, 0) ? strtoull(s, NULL, 10) : 0;
        if (!decimal_is_whole(s, 0) || errno) {
            snprintf(why, whylen, "column '%s': '%.40s' is not a whole number", c->name, s);
            return -1;
        }
        *(uint64_t *)p = v;
        break;
    }
    case COL_SCHEMA:
        return 0; /* nothing to keep: the reader goes by the header's names */
    }
    for (size_t k = 0; k < sizeof need_flag / sizeof need_flag[0]; k++)
        if (c->need & need_flag[k].bit)
            *(int *)((char *)r + need_flag[k].off) = 1;
    return 0;
}

void row_term(const klab_row *r, int i, char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
    if (i < 0 || i >= ROW_NCOLUMNS || !len || row_schema[i].show == SHOW_NO)
        return;
    const row_column *c = &row_schema[i];
    switch (c->show) {
    case SHOW_MODE:
        /* cold/hot, then b(atched), q(ueued) or s(teps) when not one run per sample */
        snprintf(buf, len, "%s%s%.1s", r->l2, strcmp(r->launch, "stream") && r->launch[0] ? "+" : "",
                 strcmp(r->launch, "stream") ? r->launch : "");
        return;
    case SHOW_STATUS:
        snprintf(buf, len, "%s%s%s", row_status_name(r->status), r->flags[0] ? " " : "", r->flags);
        return;
    case SHOW_NOTE:
        if (r->reason[0])
            snprintf(buf, len, "%s", r->reason);
        else if (r->has_time && r->launch_floor_ms > 0)
            snprintf(buf, len, "under 10 us: the empty launch alone takes %.2f us (try --batched)",
                     r->launch_floor_ms * 1e3);
        return;
    default: break;
    }
    if (!present(r, c)) {
        snprintf(buf, len, "-");
        return;
    }
    double v = value(r, c);
    if (len >= 2 * FIXED_MAX + 4) { /* a table of a million rows: fixed_text, not printf, byte for byte */
        int n;
        switch (c->show) {
        case SHOW_US: fixed_text(buf, v * 1e3, 2); return;
        case SHOW_PCT: strcpy(buf + fixed_text(buf, 100 * v, 1), "%"); return;
        case SHOW_PCT2: strcpy(buf + fixed_text(buf, 100 * v, 2), "%"); return;
        case SHOW_WHOLE: fixed_text(buf, v, 0); return;
        case SHOW_X: strcpy(buf + fixed_text(buf, v, 2), "x"); return;
        case SHOW_XRANGE:
            if (i + 1 < ROW_NCOLUMNS) {
                n = fixed_text(buf, v, 2);
                buf[n++] = '-';
                strcpy(buf + n + fixed_text(buf + n, value(r, &row_schema[i + 1]), 2), "x");
            }
            return;
        default: break;
        }
    }
    switch (c->show) {
    case SHOW_US: snprintf(buf, len, "%.2f", v * 1e3); break;
    case SHOW_PCT: snprintf(buf, len, "%.1f%%", 100 * v); break;
    case SHOW_PCT2: snprintf(buf, len, "%.2f%%", 100 * v); break;
    case SHOW_WHOLE: snprintf(buf, len, "%.0f", v); break;
    case SHOW_X: snprintf(buf, len, "%.2fx", v); break;
    case SHOW_XRANGE:
        if (i + 1 < ROW_NCOLUMNS)
            snprintf(buf, len, "%.2f-%.2fx", v, value(r, &row_schema[i + 1]));
        break;
    default: row_cell(r, i, buf, len); break;
    }
}
