/* Work outside the timed stream. Events only see the stream they are recorded on; a device-wide
 * synchronisation sees everything. So a subject's run is bracketed by two %globaltimer stamps around
 * the events, the second one after cudaDeviceSynchronize: span minus event time is what the events
 * missed, plus the synchronisation's own latency. A reference bracketed the same way, right after,
 * measures that latency: a spin kernel as long as the subject's run. (An empty launch does not: it
 * ends before the host reaches cudaDeviceSynchronize, which then returns at once, while a 5 us kernel
 * makes the host wait and pay its wake-up, about 3 us on an H200 — an honest kernel read as escaping.)
 * The latency only ever adds (a host woken late, a neighbour's context torn down), so the least of
 * several spans is close to its floor: the least excess of the subject minus the least excess of its
 * reference is the work that escaped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "host/gpu_kernels.h"
#include "stats/stats.h"
#include "timing/timing_internal.h"

/* The reference spin is as long as the subject's run up to this; past it the wake-up latency is under
   0.3 % of the run, and a longer spin only costs time. */
#define SPIN_CAP_NS 1000000ull

/* One device-synchronised span around one run (the subject's, or when s == NULL a spin of spin_ns):
   the span's %globaltimer length minus the event time, in ms. */
static int bracket(timing_env *env, subject *s, int64_t step, unsigned long long spin_ns, cudaEvent_t ev0,
                   cudaEvent_t ev1, const timing_opts *o, double *excess, double *event_ms, char *why,
                   size_t whylen)
{
    cudaError_t e;
    /* the same preparation as a sample: the run cannot tell this check from a timed sample */
    if (s && s->ops->poison && s->ops->poison(s->self, env->stream, 0, why, whylen) != 0)
        return -1;
    if (o->mode != TIMING_HOT && (e = (cudaError_t)timing_flush(env)) != cudaSuccess)
        return timing_cuda_fail(env, e, "L2 flush launch", why, whylen);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess)
        return timing_cuda_fail(env, e, "escape check", why, whylen);
    gpu_stamp_time(env->slots + SLOT_SPAN_A, env->stream);
    cudaEventRecord(ev0, env->stream);
    if (s && s->ops->launch(s->self, env->stream, 0, step, why, whylen) != 0)
        return -1;
    if (!s && (e = (cudaError_t)gpu_spin_ns(spin_ns, env->slots + SLOT_SINK, env->stream)) != cudaSuccess)
        return timing_cuda_fail(env, e, "reference spin", why, whylen);
    cudaEventRecord(ev1, env->stream);
    /* waits for every stream of the device: work that escaped the timed stream ends before B */
    if ((e = cudaDeviceSynchronize()) != cudaSuccess)
        return timing_cuda_fail(env, e, "escape check", why, whylen);
    gpu_stamp_time(env->slots + SLOT_SPAN_B, env->stream);
    unsigned long long ab[2];
    if ((e = cudaMemcpyAsync(ab, env->slots + SLOT_SPAN_A, sizeof ab, cudaMemcpyDeviceToHost, env->stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(env->stream)) != cudaSuccess)
        return timing_cuda_fail(env, e, "escape check", why, whylen);
    float ms = 0;
    if ((e = cudaEventElapsedTime(&ms, ev0, ev1)) != cudaSuccess)
        return timing_cuda_fail(env, e, "escape check", why, whylen);
    *event_ms = ms;
    *excess = (double)(ab[1] - ab[0]) / 1e6 - ms;
    return 0;
}

int timing_escape_check(timing_env *env, subject *s, const timing_opts *o, char *err, size_t errlen)
{
    enum { MAXK = 16 };
    int k = o->escape_checks < MAXK ? o->escape_checks : MAXK;
    if (k <= 0)
        return 0;
    subject_priv *p = s->priv; /* one event pair: each span reads its events before the next begins */
    double least_s = INFINITY, least_e = INFINITY, evt[MAXK];
    char why[512] = "";
    if (s->steps > 0 && s->ops->restore && s->ops->restore(s->self, env->stream, why, sizeof why) != 0) {
        timing_subject_fail(s, SUBJ_FAILED, why);
        return 0;
    }
    for (int i = 0; i < k; i++) {
        int64_t step = s->steps > 0 ? i % s->steps : 0;
        if (step == 0 && i > 0 && s->steps > 0 && s->ops->restore &&
            s->ops->restore(s->self, env->stream, why, sizeof why) != 0) {
            timing_subject_fail(s, SUBJ_FAILED, why);
            return 0;
        }
        double ex_e = 0, ev_e = 0, ex_s = 0;
        int rc = bracket(env, s, step, 0, p->ev0[0], p->ev1[0], o, &ex_s, &evt[i], why, sizeof why);
        if (rc == 0) {
            unsigned long long ns = (unsigned long long)(evt[i] * 1e6);
            rc = bracket(env, NULL, 0, ns < SPIN_CAP_NS ? ns : SPIN_CAP_NS, p->ev0[0], p->ev1[0], o, &ex_e, &ev_e,
                         why, sizeof why);
        }
        if (rc != 0) {
            if (env->sticky) {
                snprintf(err, errlen, "%s", why);
                return -1;
            }
            timing_subject_fail(s, SUBJ_FAILED, why);
            return 0;
        }
        if (getenv("KLAB_DEBUG_ESCAPE")) /* each pair, for studying the check on a new GPU */
            fprintf(stderr, "escape %s pair %d: subject excess %.4f ms (events %.4f ms), reference %.4f ms (events %.4f ms)\n",
                    s->label, i, ex_s, evt[i], ex_e, ev_e);
        if (ex_e < least_e)
            least_e = ex_e;
        if (ex_s < least_s)
            least_s = ex_s;
    }
    stats ev;
    stats_compute(evt, (size_t)k, &ev);
    double excess = least_s - least_e;
    if (timing_escape_flagged(excess, ev.median)) {
        char msg[400];
        snprintf(msg, sizeof msg,
                 "work outside the timed stream: the device stayed busy %.4f ms past what the events "
                 "measured (%.4f ms); launch everything on the stream run() is given",
                 excess, ev.median);
        timing_subject_fail(s, SUBJ_ESCAPED, msg);
    }
    return 0;
}
