/* Sampling: each subject prepared (events, gates, warm-up, the escape check, a batch sized and
 * captured), then the rounds core/rounds.c schedules, one sample a turn in the subject's mode. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/gpu_kernels.h"
#include "stats/stats.h"
#include "timing/rounds.h"
#include "timing/timing_internal.h"

#define GATE_TIMEOUTS_FATAL 5 /* consecutive void samples after which a subject cannot be timed */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int poison(timing_env *env, subject *s, int replica, char *why, size_t whylen)
{
    return s->ops->poison ? s->ops->poison(s->self, env->stream, replica, why, whylen) : 0;
}

static int restore(timing_env *env, subject *s, char *why, size_t whylen)
{
    return s->ops->restore(s->self, env->stream, why, whylen);
}

/* An error during preparation: -1 when it lost the context (reason in err), else the subject fails
   with it and the others go on. */
static int prep_error(timing_env *env, subject *s, const char *why, char *err, size_t errlen)
{
    if (env->sticky) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    timing_subject_fail(s, SUBJ_FAILED, why);
    return 0;
}

/* After a subject's runs: a persisting-L2 limit or access-policy window that run() left behind fails
   its row, naming what it set, and is reset, so no later sample (the subject's own or another's)
   finds its data still in L2. Checked after every batch of runs, not once a case: a run that sets it
   again each time must not have it survive into its next timed sample. 0 (the subject failed or
   fine); -1 when the context is lost. */
static int l2_clean(timing_env *env, subject *s, rounds *r, int idx, char *err, size_t errlen)
{
    char why[512];
    int rc = timing_l2_check(env, why, sizeof why);
    if (rc == 0)
        return 0;
    if (rc < 0 && env->sticky) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    timing_subject_fail(s, SUBJ_FAILED, why);
    if (r)
        rounds_fail(r, idx);
    return 0;
}

static int prepare(timing_env *env, subject *s, char *err, size_t errlen)
{
    s->state = SUBJ_OK;
    s->why[0] = 0;
    s->n = s->cap = 0;
    s->samples = NULL;
    s->sample_tags = NULL;
    s->discarded = 0;
    s->clock_mhz = 0;
    s->few_samples = 0;
    s->batch = 1;
    s->footprint = 0;
    s->rotated = 0;
    s->batch_note[0] = 0;
    subject_priv *p = calloc(1, sizeof *p);
    if (!p) {
        timing_subject_fail(s, SUBJ_FAILED, "out of memory");
        return 0;
    }
    s->priv = p;
    p->copies = 1;
    /* a step subject keeps a chunk of samples in flight; any other has one (the escape check's spans
       run one after the other and share it) */
    int slots = s->steps > 0 ? TIMING_STEP_CHUNK : 1;
    for (int i = 0; i < slots; i++) {
        TIMING_TRY(env, cudaEventCreate(&p->ev0[i]), "cudaEventCreate", err, errlen);
        TIMING_TRY(env, cudaEventCreate(&p->ev1[i]), "cudaEventCreate", err, errlen);
    }
    if (!(p->gates = timing_gates_alloc(slots)))
        timing_subject_fail(s, SUBJ_FAILED, "cudaHostAlloc(mapped): no pinned host memory for the blocking kernel");
    if (s->steps > 0 && !s->ops->restore)
        timing_subject_fail(s, SUBJ_FAILED, "a step subject needs restore(): its sequences cannot start again");
    return 0;
}

static int warm(timing_env *env, subject *s, const timing_opts *o, char *err, size_t errlen)
{
    char why[512];
    for (int i = 0; i < o->warmup && s->state == SUBJ_OK; i++) {
        int64_t step = s->steps > 0 ? i % s->steps : 0;
        if ((s->steps > 0 && step == 0 && restore(env, s, why, sizeof why) != 0) ||
            s->ops->launch(s->self, env->stream, 0, step, why, sizeof why) != 0)
            return prep_error(env, s, why, err, errlen);
    }
    cudaError_t e = cudaStreamSynchronize(env->stream);
    if (e != cudaSuccess) {
        timing_cuda_fail(env, e, "warm-up", why, sizeof why);
        return prep_error(env, s, why, err, errlen);
    }
    return l2_clean(env, s, NULL, 0, err, errlen);
}

/* Batched mode: time one run (held behind the gate, so the host is ahead), choose N, give the
   subject N copies of its tensors to rotate through, and capture the N runs into one graph unless the
   subject launches graphs of its own (then its runs are queued at each sample). */
static int size_batch(timing_env *env, subject *s, char *err, size_t errlen)
{
    subject_priv *p = s->priv;
    char why[512];
    enum { ONE_RUNS = 5 };
    double t[ONE_RUNS];
    int k = 0;
    for (int i = 0; i < ONE_RUNS; i++) {
        cudaError_t e = (cudaError_t)timing_gate_close(env, &p->gates[0]);
        int rc = e != cudaSuccess ? timing_cuda_fail(env, e, "blocking kernel launch", why, sizeof why) : 0;
        if (rc == 0) {
            cudaEventRecord(p->ev0[0], env->stream);
            rc = s->ops->launch(s->self, env->stream, 0, 0, why, sizeof why);
            cudaEventRecord(p->ev1[0], env->stream);
        }
        timing_gate_open(&p->gates[0]);
        if (rc == 0 && (e = cudaStreamSynchronize(env->stream)) != cudaSuccess)
            rc = timing_cuda_fail(env, e, "timing one run", why, sizeof why);
        if (rc != 0)
            return prep_error(env, s, why, err, errlen);
        float ms = 0;
        if (!timing_gate_timed_out(&p->gates[0]) && cudaEventElapsedTime(&ms, p->ev0[0], p->ev1[0]) == cudaSuccess)
            t[k++] = ms;
    }
    stats st;
    if (k == 0 || stats_compute(t, (size_t)k, &st) != 0)
        st.median = NAN;
    s->batch = timing_choose_batch(st.median, env->launch_floor_ms, s->owns_graph);

    double footprint = 0;
    if (!s->ops->replicate)
        snprintf(s->batch_note, sizeof s->batch_note,
                 "batched without rotation: the subject cannot copy its tensors (fixed tensors, or not a plugin)");
    else if (s->ops->replicate(s->self, s->batch, &footprint, why, sizeof why) != 0)
        snprintf(s->batch_note, sizeof s->batch_note, "batched without rotation: %s", why);
    else {
        s->rotated = 1;
        s->footprint = footprint;
        p->copies = s->batch;
    }
    if (s->owns_graph)
        return l2_clean(env, s, NULL, 0, err, errlen);

    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamBeginCapture(env->stream, cudaStreamCaptureModeGlobal);
    if (e != cudaSuccess) {
        timing_cuda_fail(env, e, "cudaStreamBeginCapture", why, sizeof why);
        return prep_error(env, s, why, err, errlen);
    }
    int rc = 0;
    for (int i = 0; i < s->batch && rc == 0; i++)
        rc = s->ops->launch(s->self, env->stream, p->copies > 1 ? i : 0, 0, why, sizeof why);
    cudaError_t ee = cudaStreamEndCapture(env->stream, &g);
    if (rc != 0 || ee != cudaSuccess) {
        char msg[600];
        if (rc != 0)
            snprintf(msg, sizeof msg, "graph capture: %s", why);
        else
            snprintf(msg, sizeof msg, "graph capture: CUDA error %d %s: %s (did run() use another stream, "
                     "synchronise or allocate?)", (int)ee, cudaGetErrorName(ee), cudaGetErrorString(ee));
        if (g)
            cudaGraphDestroy(g);
        cudaGetLastError();
        timing_subject_fail(s, SUBJ_FAILED, msg);
        return 0;
    }
    e = cudaGraphInstantiate(&p->exec, g, 0);
    cudaGraphDestroy(g);
    if (e == cudaSuccess && (e = cudaGraphUpload(p->exec, env->stream)) == cudaSuccess &&
        (e = cudaGraphLaunch(p->exec, env->stream)) == cudaSuccess) /* the first replay, untimed */
        e = cudaStreamSynchronize(env->stream);
    if (e != cudaSuccess) {
        timing_cuda_fail(env, e, "instantiating the batch's graph", why, sizeof why);
        cudaGetLastError();
        return prep_error(env, s, why, err, errlen);
    }
    /* the runs captured set what they set at capture: the graph's replays must not inherit it */
    return l2_clean(env, s, NULL, 0, err, errlen);
}

/* Enqueues one sample of an ordinary subject; its events are read when the round ends. 0, or -1
   with the reason (and env->sticky when the context is lost). */
static int sample_once(timing_env *env, subject *s, const timing_opts *o, char *why, size_t whylen)
{
    subject_priv *p = s->priv;
    int batched = o->mode == TIMING_BATCHED;
    int copies = batched ? p->copies : 1, runs = batched ? s->batch : 1;
    cudaError_t e;
    for (int k = 0; k < copies; k++)
        if (poison(env, s, k, why, whylen) != 0)
            return -1;
    if (o->mode == TIMING_HOT) {
        /* hot means the same subject ran just before: its data, its code, its clocks */
        if (s->ops->launch(s->self, env->stream, 0, 0, why, whylen) != 0 || poison(env, s, 0, why, whylen) != 0)
            return -1;
    } else if ((e = (cudaError_t)timing_flush(env)) != cudaSuccess) {
        return timing_cuda_fail(env, e, "L2 flush launch", why, whylen);
    }
    if ((e = (cudaError_t)timing_gate_close(env, &p->gates[0])) != cudaSuccess)
        return timing_cuda_fail(env, e, "blocking kernel launch", why, whylen);
    int rc = 0;
    cudaEventRecord(p->ev0[0], env->stream);
    if (batched && p->exec) {
        if ((e = cudaGraphLaunch(p->exec, env->stream)) != cudaSuccess)
            rc = timing_cuda_fail(env, e, "cudaGraphLaunch", why, whylen);
    } else {
        for (int i = 0; i < runs && rc == 0; i++)
            rc = s->ops->launch(s->self, env->stream, copies > 1 ? i : 0, 0, why, whylen);
    }
    cudaEventRecord(p->ev1[0], env->stream);
    timing_gate_open(&p->gates[0]);
    if (rc != 0)
        return -1;
    p->sampled = 1;
    p->sample_batch = runs;
    return 0;
}

/* A step subject's turn: its steps one sample each, read back every TIMING_STEP_CHUNK steps. */
static int sample_steps(timing_env *env, subject *s, rounds *r, int idx, const timing_opts *o, char *why,
                        size_t whylen)
{
    subject_priv *p = s->priv;
    int hot = o->mode == TIMING_HOT;
    int restart;
    int64_t step, count;
    rounds_turn(r, idx, &restart, &step, &count);
    int64_t end = step + count;
    if (restart && restore(env, s, why, whylen) != 0)
        return -1;
    if (hot && step < end) { /* the step before a hot sample runs untimed, like a hot sample's run */
        if (poison(env, s, 0, why, whylen) != 0 || s->ops->launch(s->self, env->stream, 0, step, why, whylen) != 0)
            return -1;
        step++;
    }
    while (step < end) {
        int c = end - step < TIMING_STEP_CHUNK ? (int)(end - step) : TIMING_STEP_CHUNK;
        for (int i = 0; i < c; i++) {
            cudaError_t e;
            if (poison(env, s, 0, why, whylen) != 0)
                return -1;
            if (!hot && (e = (cudaError_t)timing_flush(env)) != cudaSuccess)
                return timing_cuda_fail(env, e, "L2 flush launch", why, whylen);
            if ((e = (cudaError_t)timing_gate_close(env, &p->gates[i])) != cudaSuccess)
                return timing_cuda_fail(env, e, "blocking kernel launch", why, whylen);
            cudaEventRecord(p->ev0[i], env->stream);
            int rc = s->ops->launch(s->self, env->stream, 0, step + i, why, whylen);
            cudaEventRecord(p->ev1[i], env->stream);
            timing_gate_open(&p->gates[i]);
            if (rc != 0)
                return -1;
        }
        cudaError_t e = cudaStreamSynchronize(env->stream);
        if (e != cudaSuccess)
            return timing_cuda_fail(env, e, "timed steps", why, whylen);
        for (int i = 0; i < c; i++) {
            float ms = 0;
            if (timing_gate_timed_out(&p->gates[i]))
                continue;
            if ((e = cudaEventElapsedTime(&ms, p->ev0[i], p->ev1[i])) != cudaSuccess)
                return timing_cuda_fail(env, e, "cudaEventElapsedTime", why, whylen);
            if (rounds_add(r, idx, ms, step + i) != 0) {
                snprintf(why, whylen, "out of memory");
                return -1;
            }
        }
        step += c;
    }
    return 0;
}

/* Reads an ordinary subject's sample after the round: its per-run time, or nothing when its blocking
   kernel gave up (a queued batch is then halved: the launch queue may have been full). */
static void read_sample(timing_env *env, subject *s, rounds *r, int idx, char *why, size_t whylen)
{
    subject_priv *p = s->priv;
    if (!p->sampled)
        return;
    p->sampled = 0;
    if (timing_gate_timed_out(&p->gates[0])) {
        if (s->owns_graph && s->batch > 1)
            s->batch /= 2;
        if (++p->timeouts >= GATE_TIMEOUTS_FATAL) {
            snprintf(why, whylen, "%d samples in a row could not be enqueued behind the blocking kernel within "
                     "its timeout: the host is too slow to launch this subject, or its run() synchronises", p->timeouts);
            timing_subject_fail(s, SUBJ_FAILED, why);
            rounds_fail(r, idx);
        }
        return;
    }
    p->timeouts = 0;
    float ms = 0;
    cudaError_t e = cudaEventElapsedTime(&ms, p->ev0[0], p->ev1[0]);
    if (e != cudaSuccess) {
        timing_cuda_fail(env, e, "cudaEventElapsedTime", why, whylen);
        timing_subject_fail(s, SUBJ_FAILED, why);
        rounds_fail(r, idx);
        return;
    }
    if (rounds_add(r, idx, ms / p->sample_batch, r->round) != 0) {
        timing_subject_fail(s, SUBJ_FAILED, "out of memory");
        rounds_fail(r, idx);
    }
}

static void fail_all(subject *subs, int n, rounds *r, const char *why)
{
    for (int i = 0; i < n; i++) {
        timing_subject_fail(&subs[i], SUBJ_FAILED, why);
        rounds_fail(r, i);
    }
}

/* The rounds. -1 only when the context is lost. */
static int run_rounds(timing_env *env, subject *subs, int n, rounds *r, const timing_opts *o, double *clock_mhz,
                      char *err, size_t errlen)
{
    char why[512];
    double *round_mhz = NULL;
    size_t nround_mhz = 0, cap_mhz = 0;
    /* the budget is for sampling: the time spent copying and checking verified outputs (seconds for a
       gigabyte output) is not charged to it */
    double t0 = now_ms(), checking_ms = 0;
    int rc = 0;
    while (rounds_next(r, now_ms() - t0 - checking_ms)) {
        cudaMemsetAsync(env->slots, 0, 4 * sizeof *env->slots, env->stream);
        gpu_stamp_sm0(env->slots + SLOT_ROUND_START, env->sms, env->stream);
        for (int j = 0; j < n; j++) {
            int i = rounds_at(r, j);
            if (i < 0)
                continue;
            subject *s = &subs[i];
            int bad = s->steps > 0 ? sample_steps(env, s, r, i, o, why, sizeof why)
                                   : sample_once(env, s, o, why, sizeof why);
            if (bad == 0 && l2_clean(env, s, r, i, err, errlen) != 0) {
                rc = -1;
                goto out;
            }
            if (s->state != SUBJ_OK)
                continue; /* it left the L2 state set: failed, and its sample is not read */
            if (bad == 0 && rounds_verified(r, i) && s->ops->stage) {
                double c0 = now_ms(); /* a copy to pageable memory returns when it is done */
                bad = s->ops->stage(s->self, env->stream, why, sizeof why);
                checking_ms += now_ms() - c0;
            }
            if (bad != 0) {
                if (env->sticky) {
                    snprintf(err, errlen, "%s", why);
                    rc = -1;
                    goto out;
                }
                timing_subject_fail(s, SUBJ_FAILED, why);
                rounds_fail(r, i);
            }
        }
        gpu_stamp_sm0(env->slots + SLOT_ROUND_END, env->sms, env->stream);
        unsigned long long st[4];
        cudaMemcpyAsync(st, env->slots, sizeof st, cudaMemcpyDeviceToHost, env->stream);
        cudaError_t e = cudaStreamSynchronize(env->stream);
        if (e == cudaSuccess)
            e = cudaGetLastError();
        if (e != cudaSuccess) {
            timing_cuda_fail(env, e, "timed round", err, errlen);
            if (env->sticky) {
                rc = -1;
                goto out;
            }
            fail_all(subs, n, r, err);
            break;
        }
        /* The round's SM clock; unknown (kept) when a stamp missed SM 0. */
        double mhz = 0;
        if (st[0] && st[2] && st[2] > st[0] && st[3] > st[1])
            mhz = (double)(st[3] - st[1]) / (double)(st[2] - st[0]) * 1e3;
        int throttled = mhz > 0 && env->peak_clock_mhz > 0 && mhz < o->throttle * env->peak_clock_mhz;
        for (int i = 0; i < n; i++) {
            subject *s = &subs[i];
            if (s->state != SUBJ_OK || !r->m[i].in_round)
                continue;
            if (s->steps == 0)
                read_sample(env, s, r, i, why, sizeof why);
            if (s->state != SUBJ_OK || !rounds_verified(r, i) || !s->ops->check)
                continue;
            double c0 = now_ms();
            int wrong = s->ops->check(s->self, why, sizeof why);
            checking_ms += now_ms() - c0;
            if (wrong != 0) {
                char msg[600];
                snprintf(msg, sizeof msg, "timed repetition %d: %s", r->round, why);
                timing_subject_fail(s, wrong > 0 ? SUBJ_INCORRECT : SUBJ_FAILED, msg);
                rounds_fail(r, i);
            }
        }
        rounds_end(r, throttled);
        if (!throttled && mhz > 0) {
            if (nround_mhz == cap_mhz) {
                size_t cap = cap_mhz ? 2 * cap_mhz : 256;
                double *q = realloc(round_mhz, cap * sizeof *q);
                if (!q)
                    continue; /* the clock column is a convenience: sampling goes on */
                round_mhz = q;
                cap_mhz = cap; /* only once the buffer has grown */
            }
            round_mhz[nround_mhz++] = mhz;
        }
    }
    stats cs;
    stats_compute(round_mhz, nround_mhz, &cs);
    *clock_mhz = cs.n ? cs.median : 0;
out:
    free(round_mhz);
    return rc;
}

/* After the rounds: a single-launch median under the empty launch's cannot be honest work. */
static void floor_check(const timing_env *env, subject *s)
{
    stats st;
    if (s->state != SUBJ_OK || s->batch != 1 || s->n == 0 || stats_compute(s->samples, s->n, &st) != 0)
        return;
    if (timing_below_floor(st.median, env->launch_floor_ms)) {
        char msg[300];
        snprintf(msg, sizeof msg,
                 "faster than an empty launch (%.2f us < %.2f us): work escaped the timed stream or was skipped",
                 st.median * 1e3, env->launch_floor_ms * 1e3);
        timing_subject_fail(s, SUBJ_ESCAPED, msg);
    }
}

int timing_measure(timing_env *env, subject *subs, int n, const timing_opts *o, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        subs[i].priv = NULL;
        if (prepare(env, &subs[i], err, errlen) != 0) {
            if (env->sticky)
                return -1;
            timing_subject_fail(&subs[i], SUBJ_FAILED, err);
        }
    }
    /* what the verifying runs before timing may have left in L2 is nobody's yet: cleared, not blamed
       (each subject's own runs below are checked after they run) */
    if (timing_reset_l2(env, err, errlen) != 0) {
        if (env->sticky)
            return -1;
        for (int i = 0; i < n; i++)
            timing_subject_fail(&subs[i], SUBJ_FAILED, err);
        return 0;
    }
    /* the floor the rows show, and the floor check uses, is measured beside the case */
    double floor_ms;
    if (timing_measure_floor(env, 21, &floor_ms, err, errlen) != 0) {
        if (env->sticky)
            return -1;
        for (int i = 0; i < n; i++)
            timing_subject_fail(&subs[i], SUBJ_FAILED, err);
        return 0;
    }
    env->launch_floor_ms = floor_ms;
    for (int i = 0; i < n; i++)
        if (subs[i].state == SUBJ_OK && warm(env, &subs[i], o, err, errlen) != 0)
            return -1;
    /* Before the rounds: escaped work also races the host's own stream (the poison before the next
       sample), so a subject that escapes is flagged as such, and not sampled. */
    for (int i = 0; i < n; i++)
        if (subs[i].state == SUBJ_OK && o->escape_checks > 0 &&
            (timing_escape_check(env, &subs[i], o, err, errlen) != 0 ||
             (subs[i].state == SUBJ_OK && l2_clean(env, &subs[i], NULL, 0, err, errlen) != 0)))
            return -1;
    if (o->mode == TIMING_BATCHED)
        for (int i = 0; i < n; i++)
            if (subs[i].state == SUBJ_OK && subs[i].steps == 0 && size_batch(env, &subs[i], err, errlen) != 0)
                return -1;

    int *verifiable = calloc(n > 0 ? (size_t)n : 1, sizeof *verifiable);
    int64_t *steps = calloc(n > 0 ? (size_t)n : 1, sizeof *steps);
    rounds r;
    int rc = -1;
    if (verifiable && steps) {
        for (int i = 0; i < n; i++) {
            /* a step subject's output is checked after a whole sequence, which a sample is not: its
               sequences are verified before timing (case_instance.c) */
            verifiable[i] = subs[i].ops->check && subs[i].ops->stage && subs[i].steps == 0;
            steps[i] = subs[i].steps > 0 ? subs[i].steps : 0;
        }
        rc = rounds_init(&r, n, &o->stop, o->seed, verifiable, steps);
    }
    free(verifiable);
    free(steps);
    if (rc != 0) {
        for (int i = 0; i < n; i++)
            timing_subject_fail(&subs[i], SUBJ_FAILED, "out of memory");
        return 0;
    }
    for (int i = 0; i < n; i++)
        if (subs[i].state != SUBJ_OK)
            rounds_fail(&r, i);

    double clock_mhz = 0;
    rc = run_rounds(env, subs, n, &r, o, &clock_mhz, err, errlen);
    for (int i = 0; i < n; i++) {
        subject *s = &subs[i];
        const rounds_member *m = &r.m[i];
        s->samples = rounds_take_samples(&r, i, &s->n, &s->cap, &s->sample_tags);
        s->discarded = m->discarded;
        s->few_samples = m->few;
        s->clock_mhz = clock_mhz;
        if (rc == 0)
            floor_check(env, s);
    }
    rounds_free(&r);
    return rc;
}

void timing_subject_free(subject *s)
{
    subject_priv *p = s->priv;
    if (p) {
        if (p->exec)
            cudaGraphExecDestroy(p->exec);
        for (int i = 0; i < TIMING_STEP_CHUNK; i++) {
            if (p->ev0[i])
                cudaEventDestroy(p->ev0[i]);
            if (p->ev1[i])
                cudaEventDestroy(p->ev1[i]);
        }
        timing_gates_free(p->gates);
        free(p);
    }
    free(s->samples);
    free(s->sample_tags);
    s->samples = NULL;
    s->sample_tags = NULL;
    s->priv = NULL;
    s->n = s->cap = 0;
}
