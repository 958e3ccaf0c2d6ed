#include "report/compare.h"

#include <stdlib.h>
#include <string.h>

#include "config/tune_cache.h"
#include "report/compare_internal.h"
#include "util/checksum.h"

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

/* What was measured (compare.h): the key two runs' rows are matched on. A --tune trial row measures one
   configuration: its configuration is part of what it measured, and the plugin's own choice is a row
   of its own beside the trial of the same configuration. */
void cmp_key_view(const klab_row *r, cmp_key *k)
{
    cmp_key_of(r->plugin, r->kcase, r->shape, r->dtype, r->profile, r->l2, r->launch, r->config, r->flags, k);
}

static int has_flag(const char *flags, const char *flag)
{
    klab_row probe; /* row_has_flag's rule (a whole ';'-separated item) on a flags text alone */
    snprintf(probe.flags, sizeof probe.flags, "%s", flags);
    return row_has_flag(&probe, flag);
}

void cmp_key_of(const char *plugin, const char *kcase, const char *shape, const char *dtype, const char *profile,
                const char *l2, const char *launch, const char *config, const char *flags, cmp_key *k)
{
    const char *f[] = {plugin, kcase, shape, dtype, profile, l2, launch, config};
    memcpy(k->f, f, sizeof f);
    k->kind = has_flag(flags, TUNE_FLAG_TRIAL) ? 1 + has_flag(flags, TUNE_FLAG_OWN) : 0;
    uint64_t h = CHECKSUM_INIT;
    for (int i = 0; i < (k->kind ? 8 : 7); i++)
        h = checksum_update(h, f[i], strlen(f[i]) + 1); /* the NUL too: "ab","c" is not "a","bc" */
    k->h = h + (uint64_t)k->kind;
}

static int key_cmp(const cmp_key *x, const cmp_key *y)
{
    for (int i = 0; i < 7; i++) {
        int c = strcmp(x->f[i], y->f[i]);
        if (c)
            return c;
    }
    if (x->kind != y->kind)
        return x->kind - y->kind;
    return x->kind ? strcmp(x->f[7], y->f[7]) : 0;
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
    const cmp_key *k;
    int side; /* 0 A, 1 B */
    int idx;
} keyed;

static int keyed_cmp(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->k->h != b->k->h)
        return a->k->h < b->k->h ? -1 : 1;
    int c = key_cmp(a->k, b->k);
    if (c)
        return c;
    if (a->side != b->side)
        return a->side - b->side;
    return a->idx - b->idx;
}

int cmp_match(const cmp_key *a, int na, const cmp_key *b, int nb, cmp_match_t *ma, cmp_match_t *mb)
{
    size_t n = (size_t)na + (size_t)nb;
    keyed *k = malloc((n ? n : 1) * sizeof *k);
    if (!k)
        return -1;
    for (int i = 0; i < na; i++)
        k[i] = (keyed){&a[i], 0, i};
    for (int j = 0; j < nb; j++)
        k[na + j] = (keyed){&b[j], 1, j};
    if (n > 1)
        qsort(k, n, sizeof *k, keyed_cmp);
    for (size_t g = 0, e; g < n; g = e) {
        cmp_match_t m = {0, 0, -1};
        for (e = g; e < n && k[e].k->h == k[g].k->h && key_cmp(k[e].k, k[g].k) == 0; e++) {
            if (k[e].side == 0)
                m.na++;
            else if (m.nb++ == 0)
                m.first_b = k[e].idx; /* the group is sorted by index within a side */
        }
        for (size_t i = g; i < e; i++)
            (k[i].side ? mb : ma)[k[i].idx] = m;
    }
    free(k);
    return 0;
}

void cmp_pair_at(const klab_row *a, const klab_row *b, const cmp_match_t *m, double t, cmp_pair *q)
{
    memset(q, 0, sizeof *q);
    q->a = a;
    q->b = m->nb ? b : NULL;
    if (m->nb == 0) {
        q->v = CMP_ONLY_A;
    } else if (m->na > 1 || m->nb > 1) {
        /* two rows of one key in one file: which measurement is which cannot be known */
        q->v = CMP_NOT_COMPARED;
        snprintf(q->why, sizeof q->why, "ambiguous: %d rows of this key in A, %d in B", m->na, m->nb);
    } else {
        cmp_judge(a, b, t, q);
        q->config_changed = strcmp(a->config, b->config) != 0;
    }
}

int cmp_rows(const klab_row *a, int na, const klab_row *b, int nb, double t, cmp_pair **out)
{
    size_t n = (size_t)na + (size_t)nb;
    cmp_key *ka = malloc(((size_t)na + 1) * sizeof *ka), *kb = malloc(((size_t)nb + 1) * sizeof *kb);
    cmp_match_t *ma = malloc(((size_t)na + 1) * sizeof *ma), *mb = malloc(((size_t)nb + 1) * sizeof *mb);
    cmp_pair *p = malloc((n + 1) * sizeof *p);
    int rc = ka && kb && ma && mb && p ? 0 : -1;
    for (int i = 0; rc == 0 && i < na; i++)
        cmp_key_view(&a[i], &ka[i]);
    for (int j = 0; rc == 0 && j < nb; j++)
        cmp_key_view(&b[j], &kb[j]);
    if (rc == 0)
        rc = cmp_match(ka, na, kb, nb, ma, mb);
    int c = 0;
    for (int i = 0; rc == 0 && i < na; i++)
        cmp_pair_at(&a[i], ma[i].first_b >= 0 ? &b[ma[i].first_b] : NULL, &ma[i], t, &p[c++]);
    for (int j = 0; rc == 0 && j < nb; j++)
        if (mb[j].na == 0) {
            memset(&p[c], 0, sizeof p[c]);
            p[c].b = &b[j];
            p[c++].v = CMP_ONLY_B;
        }
    free(ka);
    free(kb);
    free(ma);
    free(mb);
    if (rc != 0) {
        free(p);
        return -1;
    }
    *out = p;
    return c;
}
