/* The timer's environment: the timed stream, the flush buffer, the blocking-kernel gates, the
 * empty-launch floor, and how CUDA errors are reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/gpu_kernels.h"
#include "stats/stats.h"
#include "timing/timing_internal.h"

/* A host that has not enqueued a sample 250 ms after its blocking kernel began cannot: its launch
   queue is full (the kernel holds back what would drain it) or it was descheduled. The sample is
   void; the GPU is not held longer. */
#define GATE_TIMEOUT_NS 250000000ull

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

int timing_cuda_fail(timing_env *env, cudaError_t e, const char *what, char *err, size_t errlen)
{
    int sticky = cuda_error_is_sticky(e);
    if (sticky)
        env->sticky = (int)e;
    snprintf(err, errlen, "%s: CUDA error %d %s: %s%s", what, (int)e, cudaGetErrorName(e),
             cudaGetErrorString(e), sticky ? " (context lost)" : "");
    return -1;
}

void timing_subject_fail(subject *s, subject_state st, const char *why)
{
    if (s->state != SUBJ_OK)
        return;
    s->state = st;
    snprintf(s->why, sizeof s->why, "%s", why);
}

gate_slot *timing_gates_alloc(int n)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, (size_t)n * sizeof(gate_slot), cudaHostAllocMapped) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    memset(p, 0, (size_t)n * sizeof(gate_slot));
    return p;
}

void timing_gates_free(gate_slot *g)
{
    if (g)
        cudaFreeHost((void *)g);
}

int timing_gate_close(timing_env *env, gate_slot *g)
{
    (*g)[0] = 0;
    (*g)[1] = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* mapped memory: with unified addressing the host pointer is the device pointer */
    return gpu_block(&(*g)[0], &(*g)[1], GATE_TIMEOUT_NS, env->stream);
}

void timing_gate_open(gate_slot *g)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    (*g)[0] = 1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int timing_gate_timed_out(const gate_slot *g)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return (*g)[1] != 0;
}

int timing_flush(timing_env *env)
{
    return gpu_flush_read(env->flush_buf, env->flush_bytes, env->slots + SLOT_SINK, env->stream);
}

int timing_measure_floor(timing_env *env, int samples, double *floor_ms, char *err, size_t errlen)
{
    enum { MAX_FLOOR = 101 };
    if (samples > MAX_FLOOR)
        samples = MAX_FLOOR;
    cudaEvent_t a, b;
    TIMING_TRY(env, cudaEventCreate(&a), "cudaEventCreate", err, errlen);
    if (cudaEventCreate(&b) != cudaSuccess) {
        cudaEventDestroy(a);
        return timing_cuda_fail(env, cudaGetLastError(), "cudaEventCreate", err, errlen);
    }
    double t[MAX_FLOOR];
    int n = 0, rc = 0;
    for (int i = 0; i < samples && rc == 0; i++) {
        cudaError_t e = (cudaError_t)timing_gate_close(env, (gate_slot *)env->gate);
        if (e == cudaSuccess) {
            cudaEventRecord(a, env->stream);
            e = (cudaError_t)gpu_empty(env->stream);
            cudaEventRecord(b, env->stream);
        }
        timing_gate_open((gate_slot *)env->gate);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(b);
        if (e != cudaSuccess) {
            rc = timing_cuda_fail(env, e, "measuring the launch floor", err, errlen);
            break;
        }
        float ms = 0;
        if (!timing_gate_timed_out((gate_slot *)env->gate) && cudaEventElapsedTime(&ms, a, b) == cudaSuccess)
            t[n++] = ms;
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    if (rc != 0)
        return rc;
    stats st;
    if (n == 0 || stats_compute(t, (size_t)n, &st) != 0) {
        snprintf(err, errlen, "measuring the launch floor: no empty launch could be timed");
        return -1;
    }
    *floor_ms = st.median;
    return 0;
}

int timing_env_init(timing_env *env, const device_info *dev, char *err, size_t errlen)
{
    memset(env, 0, sizeof *env);
    env->sms = dev->sms;
    env->peak_clock_mhz = dev->clock_khz / 1e3;
    TIMING_TRY(env, cudaSetDevice(dev->ordinal), "cudaSetDevice", err, errlen);
    /* Non-blocking: work a plugin leaves on the legacy default stream does not silently serialise
       with the timed stream, so the escape check sees it instead of the events half-seeing it. */
    TIMING_TRY(env, cudaStreamCreateWithFlags(&env->stream, cudaStreamNonBlocking), "cudaStreamCreate", err,
               errlen);
    size_t l2x4 = 4 * (size_t)(dev->l2_bytes > 0 ? dev->l2_bytes : 64 << 20);
    env->flush_bytes = l2x4 > (256u << 20) ? l2x4 : (256u << 20);
    env->flush_bytes = (env->flush_bytes + 15) & ~(size_t)15;
    TIMING_TRY(env, cudaMalloc(&env->flush_buf, env->flush_bytes), "cudaMalloc(flush buffer)", err, errlen);
    TIMING_TRY(env, cudaMemsetAsync(env->flush_buf, 1, env->flush_bytes, env->stream), "cudaMemset(flush)", err,
               errlen);
    TIMING_TRY(env, cudaMalloc((void **)&env->slots, SLOT_COUNT * sizeof *env->slots), "cudaMalloc(slots)", err, errlen);
    TIMING_TRY(env, cudaMemsetAsync(env->slots, 0, SLOT_COUNT * sizeof *env->slots, env->stream), "cudaMemset(slots)",
               err, errlen);
    env->gate = (volatile int *)timing_gates_alloc(1);
    if (!env->gate) {
        snprintf(err, errlen, "cudaHostAlloc(mapped): no pinned host memory for the blocking kernel");
        return -1;
    }
    return timing_measure_floor(env, 51, &env->launch_floor_ms, err, errlen);
}

void timing_env_free(timing_env *env)
{
    if (env->flush_buf)
        cudaFree(env->flush_buf);
    if (env->slots)
        cudaFree(env->slots);
    if (env->stream)
        cudaStreamDestroy(env->stream);
    timing_gates_free((gate_slot *)env->gate);
    memset(env, 0, sizeof *env);
}

int timing_reset_l2(timing_env *env, char *err, size_t errlen)
{
    cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    /* Devices without a persisting L2 (before Ampere) say so; nothing to reset there. */
    if (e != cudaSuccess && e != cudaErrorUnsupportedLimit && e != cudaErrorInvalidValue)
        return timing_cuda_fail(env, e, "resetting the persisting-L2 limit", err, errlen);
    cudaGetLastError();
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    cudaStreamSetAttribute(env->stream, cudaStreamAttributeAccessPolicyWindow, &v);
    cudaGetLastError();
    TIMING_TRY(env, cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache", err, errlen);
    return 0;
}

int timing_l2_check(timing_env *env, char *why, size_t whylen)
{
    size_t limit = 0;
    cudaError_t e = cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize);
    if (e == cudaErrorUnsupportedLimit || e == cudaErrorInvalidValue) { /* no persisting L2 (before Ampere) */
        cudaGetLastError();
        limit = 0;
    } else if (e != cudaSuccess) {
        return timing_cuda_fail(env, e, "reading the persisting-L2 limit", why, whylen);
    }
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    e = cudaStreamGetAttribute(env->stream, cudaStreamAttributeAccessPolicyWindow, &v);
    if (e != cudaSuccess) { /* a driver without access policies: nothing a run could have set */
        cudaGetLastError();
        memset(&v, 0, sizeof v);
    }
    const struct cudaAccessPolicyWindow *w = &v.accessPolicyWindow;
    if (!timing_l2_residue(limit, w->num_bytes, w->hitRatio, w->hitProp == cudaAccessPropertyPersisting, why, whylen))
        return 0;
    char err[300];
    if (timing_reset_l2(env, err, sizeof err) != 0) {
        snprintf(why, whylen, "%s", err);
        return -1;
    }
    return 1;
}
