/* `klab compare` over two run folders (compare.h): each file of the union of their CSVs read, checked,
 * matched and judged row by row, printed, and the gate's verdict. A folder's rows are kept compact (the
 * fields a verdict and its line need, about 200 bytes a row): as klab_rows, two million-row runs took
 * 4 GB and their page faults a third of the time. The two sides of a file are read at once, one on
 * a thread of its own. */
#include "report/compare.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/run_set.h"
#include "report/compare_internal.h"
#include "util/dir_list.h"
#include "util/text.h"

/* ---- a file's rows, compact ---- */

enum { F_PLUGIN, F_CASE, F_SHAPE, F_DTYPE, F_PROFILE, F_L2, F_LAUNCH, F_CONFIG, F_FLAGS, F_REASON, NF };

typedef struct crow {
    size_t at;            /* its text in the side's arena: the NF fields, each NUL-terminated */
    unsigned short off[NF]; /* each field's start, from at (the fields of a klab_row fit 1,300 bytes) */
    row_status status;
    unsigned char has_time, has_ci;
    double median, lo, hi;
    long line;
} crow;

typedef struct side {
    const char *path;
    crow *rows;
    int n, cap;
    char *text;          /* the arena */
    size_t len, text_cap;
    unsigned char has[ROW_NCOLUMNS];
    int rc;
    char err[1200];
} side;

/* What the verdicts rest on, in every row of a file: the key's columns, the status and flags, the
   median and its interval. A file without one of them would pair or judge rows on an empty cell. */
static const char *const needed[] = {"plugin", "case",   "shape", "dtype",     "profile",   "config", "l2",
                                     "launch", "status", "flags", "median_ms", "median_lo", "median_hi"};

/* 0 when the header names every column in needed[], else -1 with which one is missing in err. */
static int columns_ok(const side *s, char *err, size_t errlen)
{
    for (size_t k = 0; k < sizeof needed / sizeof needed[0]; k++)
        if (!s->has[row_column_index(needed[k])]) {
            snprintf(err, errlen, "no '%s' column: compare cannot judge its rows", needed[k]);
            return -1;
        }
    return 0;
}

static int keep(void *user, const klab_row *r, long line, char *err, size_t errlen)
{
    side *s = user;
    if (s->n == 0 && columns_ok(s, err, errlen) != 0) /* the header is read by now: before any row's checks */
        return CSV_NOT_THIS_KIND;
    /* every timed column comes with median_ms (row.c): a timed row without one lost its figure */
    const char *why = NULL;
    if (r->has_time && !(r->median_ms > 0))
        why = "a timed row whose median_ms is empty or not positive";
    else if (r->has_ci && !(r->median_lo <= r->median_ms && r->median_ms <= r->median_hi))
        why = "its median_ms lies outside its own interval [median_lo, median_hi]";
    if (why) {
        snprintf(err, errlen, "%s (median %g, interval %g-%g)", why, r->median_ms, r->median_lo, r->median_hi);
        return -1;
    }
    const char *f[NF] = {r->plugin, r->kcase, r->shape, r->dtype, r->profile, r->l2, r->launch, r->config,
                         r->flags, r->reason};
    size_t need = 0, len[NF];
    for (int i = 0; i < NF; i++)
        need += (len[i] = strlen(f[i])) + 1;
    if (s->n == s->cap || s->len + need > s->text_cap) {
        int cap = s->n == s->cap ? (s->cap ? 2 * s->cap : 1024) : s->cap;
        size_t tcap = s->len + need > s->text_cap ? 2 * (s->text_cap + need) : s->text_cap;
        crow *rows = cap != s->cap ? realloc(s->rows, (size_t)cap * sizeof *rows) : s->rows;
        char *text = rows && tcap != s->text_cap ? realloc(s->text, tcap) : s->text;
        if (rows)
            s->rows = rows, s->cap = cap;
        if (!rows || !text) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        s->text = text;
        s->text_cap = tcap;
    }
    crow *c = &s->rows[s->n++];
    c->at = s->len;
    size_t o = 0;
    for (int i = 0; i < NF; i++) {
        c->off[i] = (unsigned short)o;
        memcpy(s->text + s->len + o, f[i], len[i] + 1);
        o += len[i] + 1;
    }
    s->len += o;
    c->status = r->status;
    c->has_time = (unsigned char)r->has_time;
    c->has_ci = (unsigned char)r->has_ci;
    c->median = r->median_ms;
    c->lo = r->median_lo;
    c->hi = r->median_hi;
    c->line = line;
    return 0;
}

static void read_side(side *s)
{
    s->rc = csv_read_each_row(s->path, keep, s, s->has, s->err, sizeof s->err);
    char why[200];
    if (s->rc == 0 && columns_ok(s, why, sizeof why) != 0) { /* a file of no rows */
        snprintf(s->err, sizeof s->err, "%s: %s", s->path, why);
        s->rc = -1;
    }
}

static void *read_side_thread(void *arg)
{
    read_side(arg);
    return NULL;
}

static void side_free(side *s)
{
    free(s->rows);
    free(s->text);
}

static const char *field(const side *s, const crow *c, int f)
{
    return s->text + c->at + c->off[f];
}

/* The row, as cmp_judge and the printed line read it: the fields they read set, each text copied whole
   (it fit its field when the reader took it). Not the whole 2 KB zeroed: two rows a pair, a million
   pairs. */
static void expand(const side *s, const crow *c, klab_row *r)
{
    char *to[NF] = {r->plugin, r->kcase, r->shape, r->dtype, r->profile, r->l2, r->launch, r->config, r->flags,
                    r->reason};
    for (int i = 0; i < NF; i++) {
        size_t end = i + 1 < NF ? c->off[i + 1] : c->off[i] + strlen(field(s, c, i)) + 1;
        memcpy(to[i], field(s, c, i), end - c->off[i]);
    }
    r->status = c->status;
    r->has_time = c->has_time;
    r->has_ci = c->has_ci;
    r->median_ms = c->median;
    r->median_lo = c->lo;
    r->median_hi = c->hi;
}

static int keys_of(const side *s, cmp_key **keys)
{
    *keys = malloc(((size_t)s->n + 1) * sizeof **keys);
    if (!*keys)
        return -1;
    for (int i = 0; i < s->n; i++) {
        const crow *c = &s->rows[i];
        cmp_key_of(field(s, c, F_PLUGIN), field(s, c, F_CASE), field(s, c, F_SHAPE), field(s, c, F_DTYPE),
                   field(s, c, F_PROFILE), field(s, c, F_L2), field(s, c, F_LAUNCH), field(s, c, F_CONFIG),
                   field(s, c, F_FLAGS), &(*keys)[i]);
    }
    return 0;
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

static void tally(FILE *fp, const cmp_opts *o, const char *name, const cmp_pair *p, cmp_totals *tot)
{
    if (o->json)
        cmp_json_pair(o->json, name, p);
    else
        print_pair(fp, p);
    tot->n[p->v]++;
    tot->regressions += p->regression;
    tot->config_changed += p->config_changed;
}

/* One file name of the union: its rows in A and B (either may be absent), judged and printed. */
static int cmp_file(FILE *fp, const char *a, const char *b, const char *name, int in_a, int in_b, const cmp_opts *o,
                    cmp_totals *tot, char *err, size_t errlen)
{
    double t = o->threshold;
    char pa[4400], pb[4400];
    snprintf(pa, sizeof pa, "%s/%s", a, name);
    snprintf(pb, sizeof pb, "%s/%s", b, name);
    side sa = {0}, sb = {0};
    sa.path = pa;
    sb.path = pb;
    /* B on a thread of its own while this one reads A: reading is most of a comparison's time */
    pthread_t th;
    int threaded = in_a && in_b && pthread_create(&th, NULL, read_side_thread, &sb) == 0;
    if (in_a)
        read_side(&sa);
    if (threaded)
        pthread_join(th, NULL);
    else if (in_b)
        read_side(&sb);
    int rc = -1;
    cmp_key *ka = NULL, *kb = NULL;
    cmp_match_t *ma = NULL, *mb = NULL;
    klab_row *pair = NULL;
    if (sa.rc || sb.rc) {
        snprintf(err, errlen, "%s", sa.rc ? sa.err : sb.err);
        goto out;
    }
    ma = malloc(((size_t)sa.n + 1) * sizeof *ma);
    mb = malloc(((size_t)sb.n + 1) * sizeof *mb);
    pair = calloc(2, sizeof *pair); /* the fields expand() does not set stay zero */
    if (!ma || !mb || !pair || keys_of(&sa, &ka) != 0 || keys_of(&sb, &kb) != 0 ||
        cmp_match(ka, sa.n, kb, sb.n, ma, mb) != 0) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    if (!o->json) {
        text_printf(fp, "\n%s%s\n", name, !in_a ? " (only in B)" : !in_b ? " (only in A)" : "");
        fprintf(fp, "%-16s %-5s %-22s %-7s %22s %22s %21s  %s\n", "case", "dtype", "profile", "mode", "A us [95 %]",
                "B us [95 %]", "B/A [bounds]", "verdict");
    }
    cmp_pair q;
    for (int i = 0; i < sa.n; i++) { /* one pair at a time, as klab_rows again */
        expand(&sa, &sa.rows[i], &pair[0]);
        if (ma[i].first_b >= 0)
            expand(&sb, &sb.rows[ma[i].first_b], &pair[1]);
        cmp_pair_at(&pair[0], &pair[1], &ma[i], t, &q);
        tally(fp, o, name, &q, tot);
    }
    for (int j = 0; j < sb.n; j++)
        if (mb[j].na == 0) {
            expand(&sb, &sb.rows[j], &pair[1]);
            memset(&q, 0, sizeof q);
            q.b = &pair[1];
            q.v = CMP_ONLY_B;
            tally(fp, o, name, &q, tot);
        }
    tot->files++;
    rc = 0;
out:
    free(pair);
    free(ka);
    free(kb);
    free(ma);
    free(mb);
    side_free(&sa);
    side_free(&sb);
    return rc;
}

/* The gate's line: what fails it, or that it passes. */
static void gate(FILE *fp, const cmp_opts *o, cmp_totals *tot)
{
    int missing = tot->n[CMP_ONLY_A] + tot->n[CMP_ONLY_B];
    int bad_missing = missing && !o->allow_missing, bad_config = tot->config_changed && !o->allow_config_change;
    tot->gate_failed = tot->regressions || bad_missing || bad_config;
    if (o->json) {
        cmp_json_tail(o->json, o, tot);
        return;
    }
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
        if (o->json)
            cmp_json_head(o->json, a, ga, b, gb, t);
        else
            text_printf(fp, "A: %s%s%s%s\nB: %s%s%s%s\nratio = B's median / A's median; threshold %.3g %%\n", a,
                        ga[0] ? " (" : "", ga, ga[0] ? ")" : "", b, gb[0] ? " (" : "", gb, gb[0] ? ")" : "", t * 100);
        if (!o->json && ga[0] && gb[0] && strcmp(ga, gb))
            fprintf(fp, "note: two GPUs; the intervals cover one run's sampling noise, not another board\n");
    }
    /* the union of names, merged in order */
    for (int i = 0, j = 0; rc == 0 && (i < na || j < nb);) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(fa[i], fb[j]);
        const char *name = c <= 0 ? fa[i] : fb[j];
        rc = cmp_file(fp, a, b, name, c <= 0, c >= 0, o, tot, err, errlen);
        i += c <= 0;
        j += c >= 0;
    }
    dir_list_free(fa, na > 0 ? na : 0);
    dir_list_free(fb, nb > 0 ? nb : 0);
    if (rc == 0 && !o->json)
        fprintf(fp, "\n%d SAME, %d FASTER, %d SLOWER, %d UNSURE, %d not compared, %d only in A, %d only in B, "
                    "%d config changed: %d regression%s\n",
                tot->n[CMP_SAME], tot->n[CMP_FASTER], tot->n[CMP_SLOWER], tot->n[CMP_UNSURE],
                tot->n[CMP_NOT_COMPARED], tot->n[CMP_ONLY_A], tot->n[CMP_ONLY_B], tot->config_changed,
                tot->regressions, tot->regressions == 1 ? "" : "s");
    if (rc == 0)
        gate(fp, o, tot);
    return rc;
}
