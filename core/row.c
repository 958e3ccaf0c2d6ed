#include "row.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void row_add_flag(klab_row *r, const char *flag)
{
    size_t fl = strlen(flag);
    for (const char *p = r->flags; (p = strstr(p, flag)) != NULL; p += fl)
        if ((p == r->flags || p[-1] == ';') && (p[fl] == 0 || p[fl] == ';'))
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

const char *const row_columns[ROW_NCOLUMNS] = {
    "run_id", "plugin", "case", "shape", "dtype", "profile", "l2", "launch", "status", "reason",
    "flags", "reps", "discarded", "median_ms", "p95_ms", "min_ms", "max_ms", "mean_ms", "noise",
    "bytes", "flops", "gbps", "tflops", "limit", "limit_gbps", "frac_limit", "speedup", "sm_mhz",
    "launch_floor_ms", "rel_l2_err", "max_abs_err", "tolerance", "seed", "schema",
};

/* %.6g keeps a microsecond kernel's 0.0123456 ms and a 1.5 ms one alike readable and exact enough. */
static void num(char *buf, size_t len, int valid, double v)
{
    if (valid)
        snprintf(buf, len, "%.6g", v);
    else
        buf[0] = 0;
}

void row_cell(const klab_row *r, int i, char *buf, size_t len)
{
    int t = r->has_time;
    buf[0] = 0;
    switch (i) {
    case 0: snprintf(buf, len, "%s", r->run_id); break;
    case 1: snprintf(buf, len, "%s", r->plugin); break;
    case 2: snprintf(buf, len, "%s", r->kcase); break;
    case 3: snprintf(buf, len, "%s", r->shape); break;
    case 4: snprintf(buf, len, "%s", r->dtype); break;
    case 5: snprintf(buf, len, "%s", r->profile); break;
    case 6: snprintf(buf, len, "%s", r->l2); break;
    case 7: snprintf(buf, len, "%s", r->launch); break;
    case 8: snprintf(buf, len, "%s", row_status_name(r->status)); break;
    case 9: snprintf(buf, len, "%s", r->reason); break;
    case 10: snprintf(buf, len, "%s", r->flags); break;
    case 11: if (t) snprintf(buf, len, "%d", r->reps); break;
    case 12: if (t) snprintf(buf, len, "%d", r->discarded); break;
    case 13: num(buf, len, t, r->median_ms); break;
    case 14: num(buf, len, t, r->p95_ms); break;
    case 15: num(buf, len, t, r->min_ms); break;
    case 16: num(buf, len, t, r->max_ms); break;
    case 17: num(buf, len, t, r->mean_ms); break;
    case 18: num(buf, len, t, r->noise); break;
    case 19: if (r->bytes > 0) snprintf(buf, len, "%.0f", r->bytes); break; /* exact: counts, not measurements */
    case 20: if (r->flops > 0) snprintf(buf, len, "%.0f", r->flops); break;
    case 21: num(buf, len, t && r->bytes > 0, r->gbps); break;
    case 22: num(buf, len, t && r->flops > 0, r->tflops); break;
    case 23: if (t && r->has_limit) snprintf(buf, len, "%s", r->limit); break;
    case 24: num(buf, len, t && r->has_limit && r->limit_gbps > 0, r->limit_gbps); break;
    case 25: num(buf, len, t && r->has_limit, r->frac_limit); break;
    case 26: num(buf, len, t && r->has_speedup, r->speedup); break;
    case 27: num(buf, len, t && r->sm_mhz > 0, r->sm_mhz); break;
    case 28: num(buf, len, t && r->launch_floor_ms > 0, r->launch_floor_ms); break;
    case 29: num(buf, len, r->has_err, r->rel_l2_err); break;
    case 30: num(buf, len, r->has_err, r->max_abs_err); break;
    case 31: num(buf, len, r->has_err, r->tol); break;
    case 32: if (r->seed) snprintf(buf, len, "%" PRIu64, r->seed); break;
    case 33: snprintf(buf, len, "1"); break;
    default: break;
    }
}
