#include "report/claims.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/ncu_csv.h"
#include "evidence/run_set.h"
#include "report/experiment.h"

const char *evidence_status_name(evidence_status s)
{
    switch (s) {
    case EV_SUPPORTED: return "Supported";
    case EV_CAVEATED: return "Caveated";
    case EV_REJECTED: return "Rejected";
    case EV_MEASURED: return "Measured";
    case EV_UNDECIDED: return "Undecided";
    case EV_NO_EVIDENCE: return "No evidence";
    }
    return "?";
}

static int cond_holds(const claim_cond *c, const klab_row *r)
{
    char cell[600];
    row_cell(r, c->col, cell, sizeof cell);
    if (c->nvals) {
        int any = 0;
        int flags = strcmp(row_schema[c->col].name, "flags") == 0; /* a list: one of them */
        for (int i = 0; i < c->nvals; i++)
            any |= flags ? row_has_flag(r, c->vals[i]) : strcmp(cell, c->vals[i]) == 0;
        return c->op == OP_EQ ? any : !any;
    }
    if (!cell[0])
        return 0; /* no value: not among the rows a numeric condition picks */
    double v = strtod(cell, NULL);
    switch (c->op) {
    case OP_GE: return v >= c->num;
    case OP_LE: return v <= c->num;
    case OP_GT: return v > c->num;
    case OP_LT: return v < c->num;
    default: return 0;
    }
}

/* The row of profile `vs` measured with r: the same run, plugin, case, dtype and L2 mode, preferably
   the same launch (PyTorch under a graph is "queued" beside a "batched" profile). */
static const klab_row *find_vs(const run_dir *run, const klab_row *r, const claim_rule *rule)
{
    for (int k = 0; k < rule->nvs; k++) {
        const klab_row *best = run_set_vs(run, r, rule->vs[k]); /* indexed: a scan per row was quadratic */
        if (best)
            return best;
    }
    return NULL;
}

/* ---- a metric's value and interval ---- */

typedef struct value {
    int present, interval_metric, has_interval;
    double v, lo, hi;
} value;

static value metric(int col, const klab_row *r, const klab_row *vs)
{
    value x = {0};
    const char *name = row_schema[col].name;
    int speed = strncmp(name, "speedup", 7) == 0;
    if (vs && speed) {
        x.interval_metric = strcmp(name, "speedup") == 0;
        if (!r->has_time || !vs->has_time || r->median_ms <= 0)
            return x;
        int ci = r->has_ci && vs->has_ci && r->median_lo > 0;
        double lo = ci ? vs->median_lo / r->median_hi : 0, hi = ci ? vs->median_hi / r->median_lo : 0;
        if (strcmp(name, "speedup") == 0) {
            x.present = 1;
            x.v = vs->median_ms / r->median_ms;
            x.has_interval = ci;
            x.lo = lo;
            x.hi = hi;
        } else if (ci) {
            x.present = 1;
            x.v = strcmp(name, "speedup_lo") == 0 ? lo : hi;
        }
        return x;
    }
    char cell[64];
    row_cell(r, col, cell, sizeof cell);
    if (!cell[0])
        return x;
    x.present = 1;
    x.v = strtod(cell, NULL);
    if (strcmp(name, "speedup") == 0) {
        x.interval_metric = 1;
        x.has_interval = r->has_speedup_ci;
        x.lo = r->speedup_lo;
        x.hi = r->speedup_hi;
    } else if (strcmp(name, "median_ms") == 0) {
        x.interval_metric = 1;
        x.has_interval = r->has_ci;
        x.lo = r->median_lo;
        x.hi = r->median_hi;
    } else if (!strcmp(name, "gbps") || !strcmp(name, "tflops") || !strcmp(name, "frac_limit")) {
        /* a rate is work over the median: its interval is the median's, inverted (the copy's own
           interval is not in the CSV, so frac_limit's carries the row's alone) */
        x.interval_metric = 1;
        x.has_interval = r->has_ci && r->median_lo > 0;
        if (x.has_interval) {
            x.lo = x.v * r->median_ms / r->median_hi;
            x.hi = x.v * r->median_ms / r->median_lo;
        }
    }
    return x;
}

/* One side of the metric: a row's column, or its counter (a plain number: no interval). */
static value side(int col, int ctr, const run_dir *run, const klab_row *r, const klab_row *vs)
{
    if (ctr < 0)
        return metric(col, r, vs);
    value x = {0};
    x.present = run_set_counter_value(run, r, ctr, &x.v);
    return x;
}

/* 1 when ncu measured the row's kernels; else 0 and why not. */
static int counters_measured(const run_dir *run, const klab_row *r, char *why, size_t len)
{
    const run_counters *c = run_set_counters(run, r);
    if (!c)
        snprintf(why, len, "not profiled: the run has no counters file (klab --with-profiling)");
    else if (!c->present)
        snprintf(why, len, "not profiled: no line of the run's counters file names this row");
    else if (strcmp(c->status, ncu_status_name(NCU_MEASURED)) != 0)
        snprintf(why, len, "no counters: ncu %s%s%.150s", c->status, c->reason[0] ? ": " : "", c->reason);
    else
        return 1;
    return 0;
}

static int holds(claim_op op, double v, double t)
{
    return op == OP_GE ? v >= t : op == OP_LE ? v <= t : op == OP_GT ? v > t : v < t;
}

static const char *op_text(claim_op op)
{
    static const char *const s[] = {">=", "<=", ">", "<", "=", "!="};
    return s[op];
}

static const char *negated(claim_op op)
{
    static const char *const s[] = {"<", ">", "<=", ">=", "!=", "="};
    return s[op];
}

/* The margin of a value not met, in words: how far it sits from the number, against it. */
static void margin(char *buf, size_t len, claim_op op, double v, double t)
{
    buf[0] = 0;
    if (t == 0)
        return;
    double pct = 100 * fabs(v - t) / fabs(t);
    snprintf(buf, len, pct < 10 ? " (%.1f %% %s)" : " (%.0f %% %s)", pct, op == OP_GE || op == OP_GT ? "below" : "above");
}

/* Open, with why and what it lacks. */
static void open_because(claim_instance *in, claim_gap gap)
{
    in->verdict = VERDICT_OPEN;
    in->gap = gap;
}

static void judge(const claim_rule *rule, const run_dir *run, const klab_row *r, const klab_row *vs,
                  claim_instance *in)
{
    char mname[160];
    claim_metric_name(rule, mname, sizeof mname);
    if (vs && rule->nvs)
        snprintf(mname + strlen(mname), sizeof mname - strlen(mname), " vs %s", vs->profile);
    open_because(in, GAP_NONE);
    /* a quick run trades the samples a claim needs for speed: first, whatever else the row says */
    if (row_has_flag(r, "quick") || (vs && row_has_flag(vs, "quick"))) {
        snprintf(in->why, sizeof in->why, "quick run%s%.60s%s", row_has_flag(r, "quick") ? "" : " (its ",
                 row_has_flag(r, "quick") ? "" : vs->profile, row_has_flag(r, "quick") ? "" : " row)");
        open_because(in, GAP_QUICK);
        return;
    }
    if (r->status != ROW_PASSED) {
        snprintf(in->why, sizeof in->why, "%s%s%.150s", row_status_name(r->status), r->reason[0] ? ": " : "", r->reason);
        open_because(in, GAP_ROW);
        return;
    }
    if (claim_uses_counters(rule) && !counters_measured(run, r, in->why, sizeof in->why)) {
        const run_counters *c = run_set_counters(run, r);
        open_because(in, c && c->present ? GAP_NCU : GAP_PROFILING);
        return;
    }
    if (rule->nvs && !vs) {
        snprintf(in->why, sizeof in->why, "no %s row beside it in this run", rule->vs[0]);
        open_because(in, GAP_PAIR); /* claims_eval tells PyTorch's from klab's */
        return;
    }
    if (vs && vs->status != ROW_PASSED) {
        snprintf(in->why, sizeof in->why, "its %.60s row is %s", vs->profile, row_status_name(vs->status));
        open_because(in, GAP_ROW);
        return;
    }
    /* a counter is one profiled launch, not the timed samples: time and their count matter only to
       the row's own columns */
    int timed = rule->num_col >= 0 || rule->den_col >= 0;
    if (timed && (!r->has_time || (vs && !vs->has_time))) {
        snprintf(in->why, sizeof in->why, "not timed%s", row_has_flag(r, "verify-only") ? " (verify-only)" : "");
        open_because(in, GAP_UNTIMED);
        return;
    }
    if (timed && (row_has_flag(r, "few-samples") || (vs && row_has_flag(vs, "few-samples")))) {
        snprintf(in->why, sizeof in->why, "few samples: too noisy to decide");
        open_because(in, GAP_SAMPLES);
        return;
    }
    int ratio = rule->den_col >= 0 || rule->den_ctr >= 0;
    value a = side(rule->num_col, rule->num_ctr, run, r, vs), b = {0};
    if (ratio)
        b = side(rule->den_col, rule->den_ctr, run, r, vs);
    if (!a.present || (ratio && (!b.present || b.v == 0))) {
        /* an empty speedup is the usual case: the CSV has one only beside the baseline profile's row */
        int speed = !vs && rule->num_col >= 0 && strncmp(row_schema[rule->num_col].name, "speedup", 7) == 0;
        snprintf(in->why, sizeof in->why, "no value of %s%s", mname,
                 speed ? ": no baseline row beside it in its run (a tune trial, or the baseline not selected)" : "");
        open_because(in, GAP_VALUE);
        return;
    }
    double v = a.v, lo = a.lo, hi = a.hi;
    int interval_metric = a.interval_metric, has_interval = a.has_interval;
    if (ratio) {
        v = a.v / b.v;
        interval_metric = a.interval_metric && b.interval_metric;
        has_interval = interval_metric && a.has_interval && b.has_interval && b.lo > 0;
        if (has_interval) {
            lo = a.lo / b.hi;
            hi = a.hi / b.lo;
        }
    }
    in->has_value = 1;
    in->value = v;
    char by[40];
    margin(by, sizeof by, rule->op, v, rule->threshold);
    if (interval_metric && !has_interval) {
        snprintf(in->why, sizeof in->why, "%s %.4g has no interval (under 6 samples): too noisy to decide", mname, v);
        open_because(in, GAP_SAMPLES);
        return;
    }
    if (!interval_metric) {
        in->verdict = holds(rule->op, v, rule->threshold) ? VERDICT_MET : VERDICT_FAILED;
        if (in->verdict == VERDICT_FAILED)
            snprintf(in->why, sizeof in->why, "%s %.4g %s %.4g%s", mname, v, negated(rule->op), rule->threshold, by);
        return;
    }
    in->has_interval = 1;
    in->lo = lo;
    in->hi = hi;
    int all = holds(rule->op, lo, rule->threshold) && holds(rule->op, hi, rule->threshold);
    int none = !holds(rule->op, lo, rule->threshold) && !holds(rule->op, hi, rule->threshold);
    in->verdict = all ? VERDICT_MET : none ? VERDICT_FAILED : VERDICT_OPEN;
    if (none)
        snprintf(in->why, sizeof in->why, "%s %.4g [%.4g, %.4g] %s %.4g%s", mname, v, lo, hi, negated(rule->op),
                 rule->threshold, by);
    else if (!all) {
        snprintf(in->why, sizeof in->why, "%s %.4g: its interval [%.4g, %.4g] straddles %s %.4g: too noisy to decide",
                 mname, v, lo, hi, op_text(rule->op), rule->threshold);
        in->gap = GAP_SAMPLES;
    }
}

/* 1 when a line of a counters file names the instance's row (its counters measured or refused). */
static int profiled(const run_set *runs, const claim_instance *in)
{
    const run_counters *c = run_set_counters(&runs->runs[in->run], in->row);
    return c && c->present;
}

int claims_torch_profile(const run_set *runs, const char *profile)
{
    for (int ri = 0; ri < runs->n; ri++) {
        const klab_row *first = run_set_profile_first(&runs->runs[ri], profile);
        if (first)
            return row_has_flag(first, "external");
    }
    return strncmp(profile, "torch", 5) == 0 || strncmp(profile, "F.", 2) == 0;
}

static int same_subject(const klab_row *a, const klab_row *b)
{
    return !strcmp(a->plugin, b->plugin) && !strcmp(a->kcase, b->kcase) && !strcmp(a->dtype, b->dtype) &&
           !strcmp(a->profile, b->profile);
}

/* Why a claim picked no row: no row of the plugin at all; or the rows it would pick are PyTorch's
   (its profile condition names only PyTorch profiles) and none is there; or else none meets it. */
static claim_gap none_gap(const row_scope *scope, const claim_rule *rule, const run_set *runs)
{
    if (!scope->plugin_rows)
        return GAP_PLUGIN;
    for (int c = 0; c < rule->nconds; c++) {
        const claim_cond *cd = &rule->conds[c];
        if (cd->op != OP_EQ || !cd->nvals || strcmp(row_schema[cd->col].name, "profile") != 0)
            continue;
        int torch = 1;
        for (int v = 0; v < cd->nvals; v++)
            torch &= claims_torch_profile(runs, cd->vals[v]);
        if (torch)
            return GAP_TORCH;
    }
    return GAP_ROWS;
}

int claims_eval_in(const exp_experiment *e, int k, const run_set *runs, const row_scope *scope, claim_result *out)
{
    memset(out, 0, sizeof *out);
    const claim_rule *rule = &e->claims[k].rule;
    int cap = 0;
    for (int si = 0; si < scope->n; si++) {
        int ri = scope->at[si].run;
        const run_dir *run = &runs->runs[ri];
        const klab_row *r = scope->at[si].row;
        int ok = 1;
        for (int c = 0; ok && c < rule->nconds; c++)
            ok = cond_holds(&rule->conds[c], r);
        for (int v = 0; ok && v < rule->nvs; v++)
            ok = strcmp(r->profile, rule->vs[v]) != 0; /* a row is not compared with itself */
        if (!ok)
            continue;
        if (out->n == cap) {
            cap = cap ? 2 * cap : 32;
            claim_instance *p = realloc(out->inst, (size_t)cap * sizeof *p);
            if (!p) {
                claim_result_free(out);
                return -1;
            }
            out->inst = p;
        }
        claim_instance *in = &out->inst[out->n++];
        memset(in, 0, sizeof *in);
        in->run = ri;
        in->row = r;
        in->vs_row = rule->nvs ? find_vs(run, r, rule) : NULL;
        judge(rule, run, r, in->vs_row, in);
        if (in->gap == GAP_PAIR && claims_torch_profile(runs, rule->vs[0]))
            in->gap = GAP_TORCH;
    }
    /* A row whose run has no `vs` row is missing evidence only where no other run measured that case,
       dtype and profile beside one: a plugin's own run and its PyTorch run both hold `fused`. Likewise
       a row nobody profiled, where another run profiled the same case, dtype and profile: the timed
       runs and the profiled run both hold `fused`, and the profiled one decides. A quick row (never
       deciding) does not stand in for either; and where a full row of its case, dtype and profile is
       there, the quick row is set aside (kept after the counted ones, to be shown) rather than counted
       open, so a quick run beside a full one cannot turn a Supported claim Caveated. */
    int kept = 0, n = out->n;
    claim_instance *aside = n ? malloc((size_t)n * sizeof *aside) : NULL;
    if (n && !aside) {
        claim_result_free(out);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        claim_instance *in = &out->inst[i];
        int quick = in->gap == GAP_QUICK;
        int unpaired = rule->nvs && !in->vs_row, unprofiled = claim_uses_counters(rule) && !profiled(runs, in);
        int elsewhere = 0;
        for (int j = 0; j < n && !elsewhere && (quick || unpaired || unprofiled); j++) {
            const claim_instance *o = &out->inst[j];
            if (o->gap == GAP_QUICK || !same_subject(o->row, in->row))
                continue;
            elsewhere = quick || (unpaired && o->vs_row) || (unprofiled && profiled(runs, o));
        }
        if (elsewhere) {
            if (quick)
                aside[out->aside++] = *in;
            continue;
        }
        out->inst[kept++] = *in;
        out->met += in->verdict == VERDICT_MET;
        out->failed += in->verdict == VERDICT_FAILED;
        out->open += in->verdict == VERDICT_OPEN;
    }
    for (int i = 0; i < out->aside; i++)
        out->inst[kept + i] = aside[i];
    free(aside);
    out->n = kept;
    out->status = claims_status(out->n, out->met, out->failed, out->open);
    if (out->n == 0)
        out->none_gap = none_gap(scope, rule, runs);
    return 0;
}

int claims_eval(const exp_experiment *e, int k, const run_set *runs, claim_result *out)
{
    scope_spans sp;
    row_scope scope;
    if (scope_spans_find(runs, &sp) != 0)
        return -1;
    int rc = scope_find(e, runs, &sp, &scope) == 0 ? claims_eval_in(e, k, runs, &scope, out) : -1;
    scope_free(&scope);
    scope_spans_free(&sp);
    return rc;
}

void claim_result_free(claim_result *c)
{
    free(c->inst);
    memset(c, 0, sizeof *c);
}

evidence_status claims_status(int n, int met, int failed, int open)
{
    (void)open;
    if (n == 0)
        return EV_NO_EVIDENCE;
    if (met == n)
        return EV_SUPPORTED;
    if (met > 0)
        return EV_CAVEATED;
    return failed > 0 ? EV_REJECTED : EV_UNDECIDED;
}

evidence_status claims_combine(const claim_result *const *claims, int nclaims, int rows)
{
    if (nclaims == 0)
        return rows > 0 ? EV_MEASURED : EV_NO_EVIDENCE;
    int supported = 0, met = 0, failed = 0, n = 0;
    for (int i = 0; i < nclaims; i++) {
        supported += claims[i]->status == EV_SUPPORTED;
        met += claims[i]->met;
        failed += claims[i]->failed;
        n += claims[i]->n;
    }
    if (supported == nclaims)
        return EV_SUPPORTED;
    if (n == 0)
        return EV_NO_EVIDENCE;
    if (met == 0)
        return failed > 0 ? EV_REJECTED : EV_UNDECIDED;
    return EV_CAVEATED;
}
