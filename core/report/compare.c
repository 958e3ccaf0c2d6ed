#include "report/compare.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/tune_cache.h"
#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/run_set.h"
#include "util/checksum.h"
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

/* What was measured (compare.h): the key two runs' rows are matched on, as text fields in order. A
   --tune trial row measures one configuration: its configuration is part of what it measured, and the
   plugin's own choice is a row of its own beside the trial of the same configuration. `kind` is 0 for
   a row that is no trial, else 1 + own-choice (key_kind), worked out once per row, not per comparison. */
static int key_kind(const klab_row *r)
{
    return row_has_flag(r, TUNE_FLAG_TRIAL) ? 1 + row_has_flag(r, TUNE_FLAG_OWN) : 0;
}

static int key_cmp(const klab_row *x, int kx, const klab_row *y, int ky)
{
    int c;
    if ((c = strcmp(x->plugin, y->plugin)) || (c = strcmp(x->kcase, y->kcase)) || (c = strcmp(x->shape, y->shape)) ||
        (c = strcmp(x->dtype, y->dtype)) || (c = strcmp(x->profile, y->profile)) || (c = strcmp(x->l2, y->l2)) ||
        (c = strcmp(x->launch, y->launch)))
        return c;
    if (kx != ky)
        return kx - ky;
    return kx ? strcmp(x->config, y->config) : 0;
}

static uint64_t key_hash(const klab_row *r, int kind)
{
    const char *f[] = {r->plugin, r->kcase, r->shape, r->dtype, r->profile, r->l2, r->launch, r->config};
    uint64_t h = CHECKSUM_INIT;
    for (int i = 0; i < (kind ? 8 : 7); i++)
        h = checksum_update(h, f[i], strlen(f[i]) + 1); /* the NUL too: "ab","c" is not "a","bc" */
    return h + (uint64_t)kind;
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

/* ---- matching: both sides' keys sorted, then walked together ---- */

typedef struct keyed {
    uint64_t h;
    const klab_row *r;
    int kind; /* key_kind */
    int side; /* 0 A, 1 B */
    int idx;
} keyed;

static int keyed_cmp(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    int c = key_cmp(a->r, a->kind, b->r, b->kind);
    if (c)
        return c;
    if (a->side != b->side)
        return a->side - b->side;
    return a->idx - b->idx;
}

/* For every row, its key's rows on each side: count and the first (lowest index). */
typedef struct match {
    int na, nb;     /* rows of this key in A, in B */
    int first_b;    /* the first of them in B, or -1 */
} match;

static void pair_only(cmp_pair *q, const klab_row *a, const klab_row *b)
{
    memset(q, 0, sizeof *q);
    q->a = a;
    q->b = b;
    q->v = a ? CMP_ONLY_A : CMP_ONLY_B;
}

int cmp_rows(const klab_row *a, int na, const klab_row *b, int nb, double t, cmp_pair **out)
{
    size_t n = (size_t)na + (size_t)nb;
    keyed *k = malloc((n ? n : 1) * sizeof *k);
    match *ma = malloc(((size_t)na + 1) * sizeof *ma), *mb = malloc(((size_t)nb + 1) * sizeof *mb);
    cmp_pair *p = malloc((n + 1) * sizeof *p);
    if (!k || !ma || !mb || !p) {
        free(k), free(ma), free(mb), free(p);
        return -1;
    }
    for (int i = 0; i < na; i++) {
        int kind = key_kind(&a[i]);
        k[i] = (keyed){key_hash(&a[i], kind), &a[i], kind, 0, i};
    }
    for (int j = 0; j < nb; j++) {
        int kind = key_kind(&b[j]);
        k[na + j] = (keyed){key_hash(&b[j], kind), &b[j], kind, 1, j};
    }
    if (n > 1)
        qsort(k, n, sizeof *k, keyed_cmp);
    for (size_t g = 0, e; g < n; g = e) {
        match m = {0, 0, -1};
        for (e = g; e < n && k[e].h == k[g].h && key_cmp(k[e].r, k[e].kind, k[g].r, k[g].kind) == 0; e++) {
            if (k[e].side == 0)
                m.na++;
            else if (m.nb++ == 0)
                m.first_b = k[e].idx; /* the group is sorted by index within a side */
        }
        for (size_t i = g; i < e; i++)
            (k[i].side ? mb : ma)[k[i].idx] = m;
    }
    free(k);
    int c = 0;
    for (int i = 0; i < na; i++) {
        cmp_pair *q = &p[c++];
        const match *m = &ma[i];
        if (m->nb == 0) {
            pair_only(q, &a[i], NULL);
        } else if (m->na > 1 || m->nb > 1) {
            /* two rows of one key in one file: which measurement is which cannot be known */
            memset(q, 0, sizeof *q);
            q->a = &a[i];
            q->b = &b[m->first_b];
            q->v = CMP_NOT_COMPARED;
            snprintf(q->why, sizeof q->why, "ambiguous: %d rows of this key in A, %d in B", m->na, m->nb);
        } else {
            cmp_judge(&a[i], &b[m->first_b], t, q);
            q->config_changed = strcmp(a[i].config, b[m->first_b].config) != 0;
        }
    }
    for (int j = 0; j < nb; j++)
        if (mb[j].na == 0)
            pair_only(&p[c++], NULL, &b[j]);
    free(ma);
    free(mb);
    *out = p;
    return c;
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
    /* text from the CSV goes through text_printf's escaping; a line whose text is all plain (nearly
       every one) is formatted as it is, which a million rows notice */
    int plain = r->kcase[text_plain_length(r->kcase)] == 0 && r->dtype[text_plain_length(r->dtype)] == 0 &&
                profile[text_plain_length(profile)] == 0 && mode[text_plain_length(mode)] == 0;
    (plain ? fprintf : text_printf)(fp, "%-16s %-5s %-22s %-7s %22s %22s %21s  %s%s%s\n", r->kcase, r->dtype, profile,
                                    mode, ia, ib, ratio, cmp_verdict_name(p->v),
                                    p->config_changed ? " CONFIG-CHANGED" : "",
                                    p->regression && p->v != CMP_SLOWER ? " (regression)" : "");
    if (p->why[0])
        text_printf(fp, "%18s%s\n", "", p->why);
    if (p->config_changed)
        text_printf(fp, "%18sconfig: A %s, B %s\n", "", p->a->config[0] ? p->a->config : "(none)",
                    p->b->config[0] ? p->b->config : "(none)");
}

/* What the verdicts rest on, in every row of a file: the key's columns, the status and flags, the
   median and its interval. A file without one of them would pair or judge rows on an empty cell. */
static const char *const needed[] = {"plugin", "case",   "shape", "dtype",     "profile",   "config", "l2",
                                     "launch", "status", "flags", "median_ms", "median_lo", "median_hi"};

/* The run's file, read and checked: 0, or -1 with "file[:line]: why". */
static int read_checked(const char *path, csv_table *t, char *err, size_t errlen)
{
    if (csv_read_table(path, t, err, errlen) != 0)
        return -1;
    for (size_t k = 0; k < sizeof needed / sizeof needed[0]; k++)
        if (!t->has[row_column_index(needed[k])]) {
            snprintf(err, errlen, "%s: no '%s' column: compare cannot judge its rows", path, needed[k]);
            csv_table_free(t);
            return -1;
        }
    for (int i = 0; i < t->n; i++) {
        const klab_row *r = &t->rows[i];
        const char *why = NULL;
        /* every timed column comes with median_ms (row.c): a timed row without one lost its figure */
        if (r->has_time && !(r->median_ms > 0))
            why = "a timed row whose median_ms is empty or not positive";
        else if (r->has_ci && !(r->median_lo <= r->median_ms && r->median_ms <= r->median_hi))
            why = "its median_ms lies outside its own interval [median_lo, median_hi]";
        if (why) {
            snprintf(err, errlen, "%s:%ld: %s (median %g, interval %g-%g)", path, t->line[i], why, r->median_ms,
                     r->median_lo, r->median_hi);
            csv_table_free(t);
            return -1;
        }
    }
    return 0;
}

/* One file name of the union: its rows in A and B (either may be absent), judged and printed. */
static int cmp_file(FILE *fp, const char *a, const char *b, const char *name, int in_a, int in_b, double t,
                    cmp_totals *tot, char *err, size_t errlen)
{
    csv_table ta, tb;
    memset(&ta, 0, sizeof ta);
    memset(&tb, 0, sizeof tb);
    int rc = -1;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", a, name);
    if (in_a && read_checked(path, &ta, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/%s", b, name);
    if (in_b && read_checked(path, &tb, err, errlen) != 0)
        goto out;
    cmp_pair *p = NULL;
    int n = cmp_rows(ta.rows, ta.n, tb.rows, tb.n, t, &p);
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
        tot->config_changed += p[i].config_changed;
    }
    tot->files++;
    free(p);
    rc = 0;
out:
    csv_table_free(&ta);
    csv_table_free(&tb);
    return rc;
}

/* The gate's line: what fails it, or that it passes. */
static void gate(FILE *fp, const cmp_opts *o, cmp_totals *tot)
{
    int missing = tot->n[CMP_ONLY_A] + tot->n[CMP_ONLY_B];
    int bad_missing = missing && !o->allow_missing, bad_config = tot->config_changed && !o->allow_config_change;
    tot->gate_failed = tot->regressions || bad_missing || bad_config;
    if (!tot->gate_failed) {
        fprintf(fp, "gate: passed%s%s\n", missing ? " (rows in one run only allowed)" : "",
                tot->config_changed ? " (changed configurations allowed)" : "");
        return;
    }
    fprintf(fp, "gate: FAILED:");
    const char *sep = " ";
    if (tot->regressions) {
        fprintf(fp, "%s%d regression%s", sep, tot->regressions, tot->regressions == 1 ? "" : "s");
        sep = "; ";
    }
    if (bad_missing) {
        /* a row that vanished from B is a kernel that stopped running: the gate must not pass on it */
        fprintf(fp, "%s%d row%s in one run only (--allow-missing accepts them)", sep, missing, missing == 1 ? "" : "s");
        sep = "; ";
    }
    if (bad_config)
        fprintf(fp, "%s%d row%s whose tuning configuration changed (--allow-config-change accepts them)", sep,
                tot->config_changed, tot->config_changed == 1 ? "" : "s");
    fprintf(fp, "\n");
}

int cmp_runs(FILE *fp, const char *a, const char *b, const cmp_opts *o, cmp_totals *tot, char *err, size_t errlen)
{
    memset(tot, 0, sizeof *tot);
    double t = o->threshold;
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
    if (rc == 0) {
        fprintf(fp, "\n%d SAME, %d FASTER, %d SLOWER, %d UNSURE, %d not compared, %d only in A, %d only in B, "
                    "%d config changed: %d regression%s\n",
                tot->n[CMP_SAME], tot->n[CMP_FASTER], tot->n[CMP_SLOWER], tot->n[CMP_UNSURE],
                tot->n[CMP_NOT_COMPARED], tot->n[CMP_ONLY_A], tot->n[CMP_ONLY_B], tot->config_changed,
                tot->regressions, tot->regressions == 1 ? "" : "s");
        gate(fp, o, tot);
    }
    return rc;
}
