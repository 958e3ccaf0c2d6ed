#include "worker/results.h"

#include <stdio.h>

#include "stats/stats.h"

int results_fill_stats(klab_row *r, const double *samples, size_t n)
{
    stats st;
    if (stats_compute(samples, n, &st) != 0 || st.n == 0)
        return -1;
    r->has_time = 1;
    r->reps = (int)st.n;
    r->median_ms = st.median;
    r->has_ci = st.has_ci;
    r->median_lo = st.median_lo;
    r->median_hi = st.median_hi;
    r->precision = st.precision;
    r->p95_ms = st.p95;
    r->p99_ms = st.p99;
    r->min_ms = st.min;
    r->max_ms = st.max;
    r->mean_ms = st.mean;
    r->noise = st.noise;
    r->gbps = r->bytes / st.median / 1e6;
    r->tflops = r->flops / st.median / 1e9;
    return 0;
}

void results_fill_timing(klab_row *r, const subject *s, const roofline *roof, double launch_floor_ms,
                         const timing_opts *o)
{
    if (results_fill_stats(r, s->samples, s->n) != 0) {
        r->status = ROW_FLAGGED;
        if (s->discarded)
            snprintf(r->reason, sizeof r->reason,
                     "no accepted sample: all %d ran below %.0f%% of the peak SM clock (throttled)",
                     s->discarded, 100 * o->throttle);
        else
            snprintf(r->reason, sizeof r->reason, "no accepted sample within the budget of %.0f ms",
                     o->stop.budget_ms);
        return;
    }
    r->discarded = s->discarded;
    r->sm_mhz = s->clock_mhz;
    char note[256] = "";
    double footprint = 0;
    timing_row_mode(s, o, r->l2, sizeof r->l2, r->launch, sizeof r->launch, &r->batch, &footprint, note,
                    sizeof note);
    r->footprint_bytes = (uint64_t)footprint;
    if (note[0]) {
        row_add_flag(r, "not-rotated"); /* what a claim checks; the reason says why (docs/timing.md) */
        snprintf(r->reason, sizeof r->reason, "%s", note);
    }
    if (s->few_samples) /* decided once, where the rounds stop it (rounds.c) */
        row_add_flag(r, "few-samples");
    if (r->median_ms < LAUNCH_BOUND_MS) {
        r->launch_floor_ms = launch_floor_ms;
        row_add_flag(r, "launch-bound");
    }
    char why[256];
    if (o->mode != TIMING_HOT && roofline_exceeds(roof, r->gbps, r->tflops, why, sizeof why)) {
        row_add_flag(r, "exceeds-roofline");
        r->status = ROW_FLAGGED;
        snprintf(r->reason, sizeof r->reason, "%s: cannot support a decision", why);
    }
}

void results_fill_limit(klab_row *r, const subject *copy, const roofline *roof)
{
    if (!r->has_time)
        return;
    double mem = 0, flop = 0;
    stats cs;
    if (copy && copy->state == SUBJ_OK && stats_compute(copy->samples, copy->n, &cs) == 0 && cs.n &&
        r->bytes > 0) {
        r->limit_gbps = r->bytes / cs.median / 1e6;
        mem = r->gbps / r->limit_gbps;
    }
    if (r->flops > 0 && roof->tensor_tflops > 0)
        flop = r->tflops / roof->tensor_tflops;
    if (mem <= 0 && flop <= 0)
        return;
    r->has_limit = 1;
    if (mem >= flop) {
        snprintf(r->limit, sizeof r->limit, "copy");
        r->frac_limit = mem;
    } else {
        snprintf(r->limit, sizeof r->limit, "tensor-peak");
        r->frac_limit = flop;
    }
}

void results_fill_speedup(klab_row *r, const subject *s, const subject *base)
{
    stats bs;
    if (!r->has_time || !base || base->state != SUBJ_OK || stats_compute(base->samples, base->n, &bs) != 0 ||
        bs.n == 0)
        return;
    r->has_speedup = 1;
    r->speedup = bs.median / r->median_ms;
    r->has_speedup_ci =
        stats_ratio_interval(base->samples, base->n, s->samples, s->n, &r->speedup_lo, &r->speedup_hi) == 0;
}
