#include "timing.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_kernels.h"
#include "stats.h"

/* Device scratch slots. */
enum {
    SLOT_ROUND_START = 0, /* {globaltimer, clock64} on SM 0 */
    SLOT_ROUND_END = 2,
    SLOT_SPAN_A = 4,
    SLOT_SPAN_B = 5,
    SLOT_SPIN = 6,
    SLOT_SINK = 7,
    SLOT_COUNT = 8
};

#define HOT_SPIN_NS 20000ull /* lets the host enqueue the sample before the GPU reaches it */
#define ESCAPE_ABS_MS 0.010  /* 10 us: above the jitter of a device synchronisation */
#define ESCAPE_REL 0.25

typedef struct subject_priv {
    cudaEvent_t ev0, ev1;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
} subject_priv;

int cuda_error_is_sticky(int code)
{
    switch ((cudaError_t)code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
        return 1;
    default:
        return 0;
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Records a CUDA failure in err; remembers it in env when it is sticky. */
static int cuda_fail(timing_env *env, cudaError_t e, const char *what, char *err, size_t errlen)
{
    int sticky = cuda_error_is_sticky(e);
    if (sticky)
        env->sticky = (int)e;
    snprintf(err, errlen, "%s: CUDA error %d %s: %s%s", what, (int)e, cudaGetErrorName(e),
             cudaGetErrorString(e), sticky ? " (context lost)" : "");
    return -1;
}

#define TRY(env, call, what, err, errlen)                    \
    do {                                                     \
        cudaError_t e_ = (call);                             \
        if (e_ != cudaSuccess)                               \
            return cuda_fail((env), e_, (what), err, errlen); \
    } while (0)

int timing_round_order(int n, int round, int j)
{
    return (j + round) % n;
}

static int pre_sample(timing_env *env, const timing_opts *o)
{
    if (o->hot)
        return gpu_spin_ns(HOT_SPIN_NS, env->slots + SLOT_SPIN, env->stream);
    return gpu_flush_read(env->flush_buf, env->flush_bytes, env->slots + SLOT_SINK, env->stream);
}

/* Enqueues one execution of the subject: its graph, or its launch hook. */
static int run_once(timing_env *env, subject *s, char *err, size_t errlen)
{
    subject_priv *p = s->priv;
    if (p->exec) {
        cudaError_t e = cudaGraphLaunch(p->exec, env->stream);
        if (e != cudaSuccess)
            return cuda_fail(env, e, "cudaGraphLaunch", err, errlen);
        return 0;
    }
    return s->ops->launch(s->self, env->stream, 0, 0, err, errlen);
}

static void subject_fail(subject *s, subject_state st, const char *why)
{
    if (s->state != SUBJ_OK)
        return;
    s->state = st;
    snprintf(s->why, sizeof s->why, "%s", why);
}

static int push_sample(subject *s, double ms)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        double *p = realloc(s->samples, cap * sizeof *p);
        if (!p)
            return -1;
        s->samples = p;
        s->cap = cap;
    }
    s->samples[s->n++] = ms;
    stop_add(&s->acc, ms);
    return 0;
}

int timing_env_init(timing_env *env, const device_info *dev, char *err, size_t errlen)
{
    memset(env, 0, sizeof *env);
    env->sms = dev->sms;
    env->peak_clock_mhz = dev->clock_khz / 1e3;
    TRY(env, cudaSetDevice(dev->ordinal), "cudaSetDevice", err, errlen);
    /* Non-blocking: work a plugin leaves on the legacy default stream does not silently serialise
       with the timed stream, so the escape check sees it instead of the events half-seeing it. */
    TRY(env, cudaStreamCreateWithFlags(&env->stream, cudaStreamNonBlocking), "cudaStreamCreate", err,
        errlen);
    size_t l2x4 = 4 * (size_t)(dev->l2_bytes > 0 ? dev->l2_bytes : 64 << 20);
    env->flush_bytes = l2x4 > (256u << 20) ? l2x4 : (256u << 20);
    env->flush_bytes = (env->flush_bytes + 15) & ~(size_t)15;
    TRY(env, cudaMalloc(&env->flush_buf, env->flush_bytes), "cudaMalloc(flush buffer)", err, errlen);
    TRY(env, cudaMemsetAsync(env->flush_buf, 1, env->flush_bytes, env->stream), "cudaMemset(flush)", err,
        errlen);
    TRY(env, cudaMalloc((void **)&env->slots, SLOT_COUNT * sizeof *env->slots), "cudaMalloc(slots)", err,
        errlen);
    TRY(env, cudaMemsetAsync(env->slots, 0, SLOT_COUNT * sizeof *env->slots, env->stream),
        "cudaMemset(slots)", err, errlen);

    /* The launch floor: event time of an empty kernel, hot, after a spin so the host is ahead. */
    cudaEvent_t a, b;
    TRY(env, cudaEventCreate(&a), "cudaEventCreate", err, errlen);
    TRY(env, cudaEventCreate(&b), "cudaEventCreate", err, errlen);
    enum { FLOOR_N = 51 };
    double t[FLOOR_N];
    for (int i = 0; i < FLOOR_N; i++) {
        gpu_spin_ns(HOT_SPIN_NS, env->slots + SLOT_SPIN, env->stream);
        cudaEventRecord(a, env->stream);
        gpu_empty(env->stream);
        cudaEventRecord(b, env->stream);
        TRY(env, cudaEventSynchronize(b), "launch floor", err, errlen);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t[i] = ms;
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    stats st;
    stats_compute(t, FLOOR_N, &st);
    env->launch_floor_ms = st.median;
    return 0;
}

void timing_env_free(timing_env *env)
{
    if (env->flush_buf)
        cudaFree(env->flush_buf);
    if (env->slots)
        cudaFree(env->slots);
    if (env->stream)
        cudaStreamDestroy(env->stream);
    memset(env, 0, sizeof *env);
}

int timing_reset_l2(timing_env *env, char *err, size_t errlen)
{
    cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    /* Devices without a persisting L2 (before Ampere) say so; nothing to reset there. */
    if (e != cudaSuccess && e != cudaErrorUnsupportedLimit && e != cudaErrorInvalidValue)
        return cuda_fail(env, e, "resetting the persisting-L2 limit", err, errlen);
    cudaGetLastError();
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    cudaStreamSetAttribute(env->stream, cudaStreamAttributeAccessPolicyWindow, &v);
    cudaGetLastError();
    TRY(env, cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache", err, errlen);
    return 0;
}

static int prepare(timing_env *env, subject *s, const timing_opts *o, char *err, size_t errlen)
{
    subject_priv *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->priv = p;
    s->state = SUBJ_OK;
    s->verify_round = -1;
    TRY(env, cudaEventCreate(&p->ev0), "cudaEventCreate", err, errlen);
    TRY(env, cudaEventCreate(&p->ev1), "cudaEventCreate", err, errlen);
    s->batch = 1;
    if (o->graph && !s->owns_graph) { /* a subject that launches its own graphs is never captured */
        char why[512] = "";
        cudaError_t e = cudaStreamBeginCapture(env->stream, cudaStreamCaptureModeGlobal);
        if (e != cudaSuccess)
            return cuda_fail(env, e, "cudaStreamBeginCapture", err, errlen);
        int rc = s->ops->launch(s->self, env->stream, 0, 0, why, sizeof why);
        cudaError_t ee = cudaStreamEndCapture(env->stream, &p->graph);
        if (rc != 0 || ee != cudaSuccess) {
            char msg[600];
            if (rc != 0)
                snprintf(msg, sizeof msg, "graph capture: %s", why);
            else
                snprintf(msg, sizeof msg, "graph capture: CUDA error %d %s: %s (did run() use another stream, "
                         "synchronise or allocate?)", (int)ee, cudaGetErrorName(ee), cudaGetErrorString(ee));
            subject_fail(s, SUBJ_FAILED, msg);
            cudaGetLastError();
            return 0;
        }
        e = cudaGraphInstantiate(&p->exec, p->graph, 0);
        if (e != cudaSuccess) {
            char msg[300];
            snprintf(msg, sizeof msg, "cudaGraphInstantiate: %s", cudaGetErrorString(e));
            subject_fail(s, SUBJ_FAILED, msg);
            cudaGetLastError();
        }
    }
    return 0;
}

static int warm(timing_env *env, subject *s, const timing_opts *o, char *err, size_t errlen)
{
    char why[512];
    for (int i = 0; i < o->warmup && s->state == SUBJ_OK; i++) {
        if (run_once(env, s, why, sizeof why) != 0) {
            if (env->sticky) {
                snprintf(err, errlen, "%s", why);
                return -1;
            }
            subject_fail(s, SUBJ_FAILED, why);
        }
    }
    cudaError_t e = cudaStreamSynchronize(env->stream);
    if (e != cudaSuccess)
        return cuda_fail(env, e, "warm-up", err, errlen);
    return 0;
}

/* Picks, per subject, a distinct early round whose output is poisoned and checked. */
static void pick_verify_rounds(subject *subs, int n, const timing_opts *o)
{
    int pool = o->stop.min_reps > n ? o->stop.min_reps : n;
    int *perm = malloc((size_t)pool * sizeof *perm);
    if (!perm)
        return;
    uint64_t x = o->seed ? o->seed : 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < pool; i++)
        perm[i] = i;
    for (int i = pool - 1; i > 0; i--) { /* Fisher-Yates with xorshift */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int j = (int)(x % (uint64_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    /* a step subject's output is checked after a whole sequence, which this timer does not run: its
       sequences are verified before timing (case_instance.c) */
    for (int i = 0; i < n; i++)
        subs[i].verify_round = subs[i].ops->check && subs[i].steps == 0 ? perm[i] : -1;
    free(perm);
}

/* One device-synchronised span around one execution (the subject, or an empty launch with
   s == NULL): the span's %globaltimer length minus the event time, in ms. */
static int bracket(timing_env *env, subject *s, cudaEvent_t ev0, cudaEvent_t ev1, const timing_opts *o,
                   double *excess, double *event_ms, char *why, size_t whylen)
{
    cudaError_t e = o->hot ? cudaSuccess : (cudaError_t)pre_sample(env, o);
    if (e != cudaSuccess)
        return cuda_fail(env, e, "L2 flush launch", why, whylen);
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        return cuda_fail(env, e, "escape check", why, whylen);
    gpu_stamp_time(env->slots + SLOT_SPAN_A, env->stream);
    cudaEventRecord(ev0, env->stream);
    if (s && run_once(env, s, why, whylen) != 0)
        return -1;
    if (!s && (e = (cudaError_t)gpu_empty(env->stream)) != cudaSuccess)
        return cuda_fail(env, e, "empty launch", why, whylen);
    cudaEventRecord(ev1, env->stream);
    /* waits for every stream of the device: work that escaped the timed stream ends before B */
    if ((e = cudaDeviceSynchronize()) != cudaSuccess)
        return cuda_fail(env, e, "escape check", why, whylen);
    gpu_stamp_time(env->slots + SLOT_SPAN_B, env->stream);
    unsigned long long ab[2];
    if ((e = cudaMemcpyAsync(ab, env->slots + SLOT_SPAN_A, sizeof ab, cudaMemcpyDeviceToHost, env->stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(env->stream)) != cudaSuccess)
        return cuda_fail(env, e, "escape check", why, whylen);
    float ms = 0;
    cudaEventElapsedTime(&ms, ev0, ev1);
    *event_ms = ms;
    *excess = (double)(ab[1] - ab[0]) / 1e6 - ms;
    return 0;
}

/* Runs the subject a few times inside device-synchronised spans, each paired with an empty launch
   bracketed the same way just before it, and flags device work the events did not see. The least
   excess over the pairs is kept: escaped work is in every pair, the jitter of a synchronisation
   (or a neighbour's context being torn down) is not. */
static int escape_check(timing_env *env, subject *s, const timing_opts *o, char *err, size_t errlen)
{
    subject_priv *p = s->priv;
    enum { MAXK = 16 };
    int k = o->escape_checks < MAXK ? o->escape_checks : MAXK;
    double least = INFINITY, evt[MAXK];
    char why[512] = "";
    for (int i = 0; i < k; i++) {
        double floor_ex, floor_ev, ex;
        if (bracket(env, NULL, p->ev0, p->ev1, o, &floor_ex, &floor_ev, why, sizeof why) != 0 ||
            bracket(env, s, p->ev0, p->ev1, o, &ex, &evt[i], why, sizeof why) != 0) {
            if (env->sticky) {
                snprintf(err, errlen, "%s", why);
                return -1;
            }
            subject_fail(s, SUBJ_FAILED, why);
            return 0;
        }
        if (ex - floor_ex < least)
            least = ex - floor_ex;
    }
    if (k == 0)
        return 0;
    stats ev;
    stats_compute(evt, (size_t)k, &ev);
    s->escape_excess_ms = least;
    double limit = ESCAPE_REL * ev.median > ESCAPE_ABS_MS ? ESCAPE_REL * ev.median : ESCAPE_ABS_MS;
    if (least > limit) {
        char msg[400];
        snprintf(msg, sizeof msg,
                 "work outside the timed stream: the device stayed busy %.4f ms past what the events "
                 "measured (%.4f ms); launch everything on the stream run() is given",
                 least, ev.median);
        subject_fail(s, SUBJ_ESCAPED, msg);
    }
    return 0;
}

int timing_measure(timing_env *env, subject *subs, int n, const timing_opts *o, char *err, size_t errlen)
{
    char why[512];
    for (int i = 0; i < n; i++) {
        memset(&subs[i].acc, 0, sizeof subs[i].acc);
        subs[i].n = 0;
        subs[i].discarded = 0;
        if (prepare(env, &subs[i], o, err, errlen) != 0) {
            if (env->sticky)
                return -1;
            subject_fail(&subs[i], SUBJ_FAILED, err);
        }
    }
    for (int i = 0; i < n; i++)
        if (subs[i].state == SUBJ_OK && warm(env, &subs[i], o, err, errlen) != 0)
            return -1;
    /* Before the rounds: escaped work also races the host's own stream (the poison before a verified
       sample), so a subject that escapes is flagged as such, and not sampled. */
    for (int i = 0; i < n; i++)
        if (subs[i].state == SUBJ_OK && o->escape_checks > 0 && escape_check(env, &subs[i], o, err, errlen) != 0)
            return -1;
    pick_verify_rounds(subs, n, o);

    double *round_mhz = NULL;
    size_t nround_mhz = 0, cap_mhz = 0;
    /* the budget is for sampling: the time spent copying and checking verified outputs (seconds for a
       gigabyte output) is not charged to it */
    double t0 = now_ms(), checking_ms = 0;
    for (int round = 0;; round++) {
        int live = 0;
        for (int i = 0; i < n; i++)
            live += subs[i].state == SUBJ_OK;
        if (!live)
            break;
        /* Every subject has had the same rounds, so one reaching max_reps or the budget ends the
           case for all; otherwise it ends when each has met its noise target and had its verified
           round. */
        int all_done = 1, hard_stop = 0, pending_check = 0;
        double elapsed = now_ms() - t0 - checking_ms;
        for (int i = 0; i < n; i++) {
            if (subs[i].state != SUBJ_OK)
                continue;
            subs[i].stopped = stop_check(&o->stop, &subs[i].acc, elapsed);
            if (subs[i].stopped == STOP_BUDGET || subs[i].stopped == STOP_MAX)
                hard_stop = 1;
            if (subs[i].stopped == STOP_NOT_YET)
                all_done = 0;
            pending_check |= subs[i].ops->check && subs[i].verify_round >= round;
        }
        /* A verified round is never skipped: neither the budget nor max_reps ends the case before
           every subject's has come (at most max(min_reps, subjects) rounds). */
        if ((hard_stop || all_done) && !pending_check)
            break;

        cudaMemsetAsync(env->slots, 0, 4 * sizeof *env->slots, env->stream);
        gpu_stamp_sm0(env->slots + SLOT_ROUND_START, env->sms, env->stream);
        for (int j = 0; j < n; j++) {
            subject *s = &subs[timing_round_order(n, round, j)];
            subject_priv *p = s->priv;
            if (s->state != SUBJ_OK)
                continue;
            int verified = s->verify_round == round;
            if (verified && s->ops->poison && s->ops->poison(s->self, env->stream, 0, why, sizeof why) != 0) {
                subject_fail(s, SUBJ_FAILED, why);
                continue;
            }
            cudaError_t fe = (cudaError_t)pre_sample(env, o);
            if (fe != cudaSuccess) { /* the launch already cleared it: report it here */
                free(round_mhz);
                cuda_fail(env, fe, o->hot ? "spin launch" : "L2 flush launch", err, errlen);
                if (env->sticky)
                    return -1;
                for (int i = 0; i < n; i++)
                    subject_fail(&subs[i], SUBJ_FAILED, err);
                return 0;
            }
            cudaEventRecord(p->ev0, env->stream);
            if (run_once(env, s, why, sizeof why) != 0) {
                if (env->sticky) {
                    free(round_mhz);
                    snprintf(err, errlen, "%s", why);
                    return -1;
                }
                subject_fail(s, SUBJ_FAILED, why);
                continue;
            }
            cudaEventRecord(p->ev1, env->stream);
            if (verified && s->ops->stage) {
                double c0 = now_ms(); /* a copy to pageable memory returns when it is done */
                if (s->ops->stage(s->self, env->stream, why, sizeof why) != 0)
                    subject_fail(s, SUBJ_FAILED, why);
                checking_ms += now_ms() - c0;
            }
        }
        gpu_stamp_sm0(env->slots + SLOT_ROUND_END, env->sms, env->stream);
        unsigned long long st[4];
        cudaMemcpyAsync(st, env->slots, sizeof st, cudaMemcpyDeviceToHost, env->stream);
        cudaError_t e = cudaStreamSynchronize(env->stream);
        if (e == cudaSuccess)
            e = cudaGetLastError();
        if (e != cudaSuccess) {
            free(round_mhz);
            cuda_fail(env, e, "timed round", err, errlen);
            if (env->sticky)
                return -1;
            for (int i = 0; i < n; i++)
                subject_fail(&subs[i], SUBJ_FAILED, err);
            return 0;
        }
        /* The round's SM clock; unknown (kept) when a stamp missed SM 0. */
        double mhz = 0;
        if (st[0] && st[2] && st[2] > st[0] && st[3] > st[1])
            mhz = (double)(st[3] - st[1]) / (double)(st[2] - st[0]) * 1e3;
        int throttled = mhz > 0 && env->peak_clock_mhz > 0 && mhz < o->throttle * env->peak_clock_mhz;
        for (int i = 0; i < n; i++) {
            subject *s = &subs[i];
            subject_priv *p = s->priv;
            if (s->state != SUBJ_OK)
                continue;
            float ms = 0;
            if ((e = cudaEventElapsedTime(&ms, p->ev0, p->ev1)) != cudaSuccess) {
                cuda_fail(env, e, "cudaEventElapsedTime", why, sizeof why);
                subject_fail(s, SUBJ_FAILED, why);
                continue;
            }
            if (s->verify_round == round && s->ops->check) {
                double c0 = now_ms();
                int rc = s->ops->check(s->self, why, sizeof why);
                checking_ms += now_ms() - c0;
                if (rc != 0) {
                    char msg[600];
                    snprintf(msg, sizeof msg, "timed repetition %d: %s", round, why);
                    subject_fail(s, rc > 0 ? SUBJ_INCORRECT : SUBJ_FAILED, msg);
                    continue;
                }
            }
            if (throttled) {
                s->discarded++;
                continue;
            }
            if (push_sample(s, ms) != 0) {
                subject_fail(s, SUBJ_FAILED, "out of memory");
                continue;
            }
        }
        if (!throttled && mhz > 0) {
            if (nround_mhz == cap_mhz) {
                cap_mhz = cap_mhz ? 2 * cap_mhz : 256;
                double *q = realloc(round_mhz, cap_mhz * sizeof *q);
                if (!q)
                    break;
                round_mhz = q;
            }
            round_mhz[nround_mhz++] = mhz;
        }
    }
    stats cs;
    stats_compute(round_mhz, nround_mhz, &cs);
    free(round_mhz);
    for (int i = 0; i < n; i++)
        subs[i].clock_mhz = cs.n ? cs.median : 0;
    return 0;
}

void timing_subject_free(subject *s)
{
    subject_priv *p = s->priv;
    if (p) {
        if (p->exec)
            cudaGraphExecDestroy(p->exec);
        if (p->graph)
            cudaGraphDestroy(p->graph);
        if (p->ev0)
            cudaEventDestroy(p->ev0);
        if (p->ev1)
            cudaEventDestroy(p->ev1);
        free(p);
    }
    free(s->samples);
    s->samples = NULL;
    s->priv = NULL;
    s->n = s->cap = 0;
}
