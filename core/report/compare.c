#include "report/compare.h"

#include "evidence/counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/csv_read.h"
#include "evidence/run_set.h"
#include "util/dir_list.h"
#include "util/text.h"

const char *cmp_verdict_name(cmp_verdict v)
{
    switch (v) {
    case CMP_SAME: return "SAME";
    case CMP_FASTER: return "FASTER";
    case CMP_SLOWER: return "SLOWER";
    case CMP_UNSURE: return "UNSURE";
    case CMP_NOT_COMPARED: return "NOT-COMPARED";
    case CMP_ONLY_A: return "ONLY-IN-A";
    case CMP_ONLY_B: return "ONLY-IN-B";
    }
    return "?";
}

/* What was measured (compare.h): the key two runs' rows are matched on. */
static int same_key(const klab_row *x, const klab_row *y)
{
    return !strcmp(x->plugin, y->plugin) && !strcmp(x->kcase, y->kcase) && !strcmp(x->shape, y->shape) &&
           !strcmp(x->dtype, y->dtype) && !strcmp(x->profile, y->profile) && !strcmp(x->config, y->config) &&
           !strcmp(x->l2, y->l2) && !strcmp(x->launch, y->launch);
}

/* Why a row cannot be compared, or NULL when it is a passed, timed row with a believable figure. */
static const char *unfit(const klab_row *r, char *buf, size_t len)
{
    if (r->status != ROW_PASSED)
        snprintf(buf, len, "%s%s%s", row_status_name(r->status), r->reason[0] ? ": " : "", r->reason);
    else if (!r->has_time || !(r->median_ms > 0))
        snprintf(buf, len, "not timed%s", row_has_flag(r, "verify-only") ? " (verify-only)" : "");
    else if (row_has_flag(r, "not-verified"))
        snprintf(buf, len, "never verified (not-verified): a time of unknown work");
    else if (row_has_flag(r, "exceeds-roofline"))
        snprintf(buf, len, "faster than the datasheet allows (exceeds-roofline)");
    else
        return NULL;
    return buf;
}

void cmp_judge(const klab_row *a, const klab_row *b, double t, cmp_pair *p)
{
    memset(p, 0, sizeof *p);
    p->a = a;
    p->b = b;
    char wa[600], wb[600];
    const char *ua = unfit(a, wa, sizeof wa), *ub = unfit(b, wb, sizeof wb);
    if (ua || ub) {
        p->v = CMP_NOT_COMPARED;
        snprintf(p->why, sizeof p->why, "%s%s%s%s%s", ua ? "A " : "", ua ? ua : "", ua && ub ? "; " : "",
                 ub ? "B " : "", ub ? ub : "");
        /* a kernel that passed before and now computes wrong numbers, fails or escapes the timer is a
           regression a gate must see; a skip (another GPU, another selection) is not */
        p->regression = a->status == ROW_PASSED &&
                        (b->status == ROW_INCORRECT || b->status == ROW_FAILED || b->status == ROW_FLAGGED);
        return;
    }
    p->has_ratio = 1;
    p->ratio = b->median_ms / a->median_ms;
    if (!a->has_ci || !b->has_ci || !(a->median_lo > 0) || !(b->median_lo > 0)) {
        p->v = CMP_UNSURE;
        snprintf(p->why, sizeof p->why, "no interval in %s (under 6 samples)",
                 !a->has_ci && !b->has_ci ? "either run" : !a->has_ci ? "A" : "B");
        return;
    }
    /* The bounds pair each side's 95 % interval with the other's far end, as the speedup columns do:
       both intervals hold together with at least 90 % (docs/timing.md). */
    p->has_bounds = 1;
    p->lo = b->median_lo / a->median_hi;
    p->hi = b->median_hi / a->median_lo;
    if (p->lo > 1 + t) {
        p->v = CMP_SLOWER;
        p->regression = 1;
    } else if (p->hi < 1 - t) {
        p->v = CMP_FASTER;
    } else if (p->lo >= 1 - t && p->hi <= 1 + t) {
        p->v = CMP_SAME;
    } else {
        p->v = CMP_UNSURE;
        snprintf(p->why, sizeof p->why, "the ratio's bounds %.3f-%.3f reach past the threshold (%.3f-%.3f)%s",
                 p->lo, p->hi, 1 - t, 1 + t,
                 b->median_lo <= a->median_hi && a->median_lo <= b->median_hi ? ": the intervals overlap" : "");
    }
}

static int count_key(const klab_row *rows, int n, const klab_row *r, int *first)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        if (same_key(&rows[i], r) && c++ == 0 && first)
            *first = i;
    return c;
}

int cmp_rows(const klab_row *a, int na, const klab_row *b, int nb, double t, cmp_pair **out)
{
    cmp_pair *p = malloc((size_t)(na + nb + 1) * sizeof *p);
    if (!p)
        return -1;
    int n = 0;
    for (int i = 0; i < na; i++) {
        int j = -1, ca = count_key(a, na, &a[i], NULL), cb = count_key(b, nb, &a[i], &j);
        cmp_pair *q = &p[n++];
        if (cb == 0) {
            memset(q, 0, sizeof *q);
            q->a = &a[i];
            q->v = CMP_ONLY_A;
        } else if (ca > 1 || cb > 1) {
            /* two rows of one key in one file: which measurement is which cannot be known */
            memset(q, 0, sizeof *q);
            q->a = &a[i];
            q->b = &b[j];
            q->v = CMP_NOT_COMPARED;
            snprintf(q->why, sizeof q->why, "ambiguous: %d rows of this key in A, %d in B", ca, cb);
        } else {
            cmp_judge(&a[i], &b[j], t, q);
        }
    }
    for (int j = 0; j < nb; j++)
        if (count_key(a, na, &b[j], NULL) == 0) {
            cmp_pair *q = &p[n++];
            memset(q, 0, sizeof *q);
            q->b = &b[j];
            q->v = CMP_ONLY_B;
        }
    *out = p;
    return n;
}

/* ---- two run folders ---- */

/* The GPU's name from a run folder's meta.ini ([device] name), or "". */
static void run_gpu(const char *dir, char *buf, size_t len)
{
    run_dir r;
    memset(&r, 0, sizeof r);
    run_set_read_meta(&r, dir);
    snprintf(buf, len, "%s", r.gpu);
}

static void interval_text(const klab_row *r, char *buf, size_t len)
{
    if (!r || !r->has_time || !(r->median_ms > 0))
        snprintf(buf, len, "-");
    else if (r->has_ci)
        snprintf(buf, len, "%.2f [%.2f-%.2f]", r->median_ms * 1e3, r->median_lo * 1e3, r->median_hi * 1e3);
    else
        snprintf(buf, len, "%.2f", r->median_ms * 1e3);
}

static void print_pair(FILE *fp, const cmp_pair *p)
{
    const klab_row *r = p->a ? p->a : p->b;
    char profile[400], mode[32], ia[64], ib[64], ratio[64];
    snprintf(profile, sizeof profile, "%s%s%s", r->profile, r->config[0] ? " " : "", r->config);
    int m = row_column_index("l2");
    row_term(r, m, mode, sizeof mode);
    interval_text(p->a, ia, sizeof ia);
    interval_text(p->b, ib, sizeof ib);
    if (p->has_bounds)
        snprintf(ratio, sizeof ratio, "%.3f [%.3f-%.3f]", p->ratio, p->lo, p->hi);
    else if (p->has_ratio)
        snprintf(ratio, sizeof ratio, "%.3f", p->ratio);
    else
        snprintf(ratio, sizeof ratio, "-");
    text_printf(fp, "%-16s %-5s %-22s %-7s %22s %22s %21s  %s%s\n", r->kcase, r->dtype, profile, mode, ia, ib,
                ratio, cmp_verdict_name(p->v), p->regression && p->v != CMP_SLOWER ? " (regression)" : "");
    if (p->why[0])
        text_printf(fp, "%18s%s\n", "", p->why);
}

/* One file name of the union: its rows in A and B (either may be absent), judged and printed. */
static int cmp_file(FILE *fp, const char *a, const char *b, const char *name, int in_a, int in_b, double t,
                    cmp_totals *tot, char *err, size_t errlen)
{
    klab_row *ra = NULL, *rb = NULL;
    int na = 0, nb = 0, rc = -1;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", a, name);
    if (in_a && (na = csv_read_rows(path, &ra, err, errlen)) < 0)
        goto out;
    snprintf(path, sizeof path, "%s/%s", b, name);
    if (in_b && (nb = csv_read_rows(path, &rb, err, errlen)) < 0)
        goto out;
    cmp_pair *p = NULL;
    int n = cmp_rows(ra, na, rb, nb, t, &p);
    if (n < 0) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    text_printf(fp, "\n%s%s\n", name, !in_a ? " (only in B)" : !in_b ? " (only in A)" : "");
    fprintf(fp, "%-16s %-5s %-22s %-7s %22s %22s %21s  %s\n", "case", "dtype", "profile", "mode", "A us [95 %]",
            "B us [95 %]", "B/A [bounds]", "verdict");
    for (int i = 0; i < n; i++) {
        print_pair(fp, &p[i]);
        tot->n[p[i].v]++;
        tot->regressions += p[i].regression;
    }
    tot->files++;
    free(p);
    rc = 0;
out:
    free(ra);
    free(rb);
    return rc;
}

int cmp_runs(FILE *fp, const char *a, const char *b, double t, cmp_totals *tot, char *err, size_t errlen)
{
    memset(tot, 0, sizeof *tot);
    /* the complete CSV files of each folder (not .csv.partial), sorted by name */
    char **fa = NULL, **fb = NULL;
    int na = dir_list(a, ".csv", &fa), nb = na < 0 ? -1 : dir_list(b, ".csv", &fb), rc = 0;
    /* rows only: a --with-profiling run's <plugin>.counters.csv is ncu's, matched to no row */
    if (na > 0)
        na = counters_drop(fa, na);
    if (nb > 0)
        nb = counters_drop(fb, nb);
    if (na < 0 || nb < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", na < 0 ? a : b, strerror(errno));
        rc = -1;
    } else if (na + nb == 0) {
        snprintf(err, errlen, "no CSV file in %s or %s", a, b);
        rc = -1;
    }
    if (rc == 0) {
        char ga[256], gb[256];
        run_gpu(a, ga, sizeof ga);
        run_gpu(b, gb, sizeof gb);
        text_printf(fp, "A: %s%s%s%s\nB: %s%s%s%s\nratio = B's median / A's median; threshold %.3g %%\n", a,
                    ga[0] ? " (" : "", ga, ga[0] ? ")" : "", b, gb[0] ? " (" : "", gb, gb[0] ? ")" : "", t * 100);
        if (ga[0] && gb[0] && strcmp(ga, gb))
            fprintf(fp, "note: two GPUs; the intervals cover one run's sampling noise, not another board\n");
    }
    /* the union of names, merged in order */
    for (int i = 0, j = 0; rc == 0 && (i < na || j < nb);) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(fa[i], fb[j]);
        const char *name = c <= 0 ? fa[i] : fb[j];
        rc = cmp_file(fp, a, b, name, c <= 0, c >= 0, t, tot, err, errlen);
        i += c <= 0;
        j += c >= 0;
    }
    dir_list_free(fa, na > 0 ? na : 0);
    dir_list_free(fb, nb > 0 ? nb : 0);
    if (rc == 0)
        fprintf(fp, "\n%d SAME, %d FASTER, %d SLOWER, %d UNSURE, %d not compared, %d only in A, %d only in B: "
                    "%d regression%s\n",
                tot->n[CMP_SAME], tot->n[CMP_FASTER], tot->n[CMP_SLOWER], tot->n[CMP_UNSURE],
                tot->n[CMP_NOT_COMPARED], tot->n[CMP_ONLY_A], tot->n[CMP_ONLY_B], tot->regressions,
                tot->regressions == 1 ? "" : "s");
    return rc;
}
