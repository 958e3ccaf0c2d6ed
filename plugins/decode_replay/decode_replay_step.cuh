/* decode_replay's step control, shared by every kernel of a step: programmatic dependent launch
 * (griddepcontrol), the step's cursor and its advance by the step's last kernel, and the probes' stamps.
 * Included by decode_replay_kernels.cu and decode_replay_attention.cuh (one translation unit). */
#ifndef DECODE_REPLAY_STEP_CUH
#define DECODE_REPLAY_STEP_CUH

#include <cuda_runtime.h>

#include "cuda/pdl.cuh"
#include "decode_replay.h"

namespace {

__device__ unsigned int dr_ticket; /* CTAs of the step's last kernel that have finished */

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* What every kernel of a step shares: the cursor, the probe ring, its own place in the step. */
struct StepCtl {
    int32_t *cursor;
    unsigned long long *probe;
    int kidx, nk, last;
};

/* Where a step stands: its cursor (stable during the step: only the last kernel's last CTA writes it,
   after every other kernel of the step has completed) and its probe slot. */
struct StepPos {
    int32_t cur;
    unsigned long long *slot; /* NULL: no probes */
};

/* Probe ring of a profile (decode_replay.h): word 0 counts the steps it has seen (never restored, unlike
   the cursor); slot i is DR_PROBE_WORDS_SLOT(nk) words: the step's cursor, a spare, then a start and an end
   stamp a kernel. The first CTA to start stamps the start (atomicMin), the last to end the end. */
__device__ __forceinline__ StepPos step_begin(const StepCtl &c)
{
    StepPos p;
    p.cur = *(volatile int32_t *)c.cursor;
    p.slot = nullptr;
    if (c.probe) {
        const unsigned long long seq = *(volatile unsigned long long *)c.probe;
        p.slot = c.probe + 1 + (size_t)(seq % DR_PROBE_STEPS) * DR_PROBE_WORDS_SLOT(c.nk);
        if (threadIdx.x == 0)
            atomicMin(p.slot + 2 + 2 * c.kidx, gtimer());
    }
    return p;
}

/* The end stamp; in the step's last kernel the last CTA to finish (every CTA has read the cursor and the
   probe counter by then) records the step's cursor in its slot, resets the next slot, advances the
   probe counter and the cursor. By one thread of each of the kernel's `ctas` CTAs, once its CTA's work is
   done (its caller's barrier): a kernel whose CTAs do not all end here (a cluster's other ranks) counts
   only those that do. */
__device__ __forceinline__ void step_finish(const StepCtl &c, const StepPos &p, unsigned ctas)
{
    if (p.slot)
        atomicMax(p.slot + 3 + 2 * c.kidx, gtimer());
    if (!c.last)
        return;
    __threadfence();
    if (atomicAdd(&dr_ticket, 1u) != ctas - 1)
        return;
    dr_ticket = 0;
    if (p.slot) {
        const unsigned long long seq = *(volatile unsigned long long *)c.probe;
        unsigned long long *next = c.probe + 1 + (size_t)((seq + 1) % DR_PROBE_STEPS) * DR_PROBE_WORDS_SLOT(c.nk);
        p.slot[0] = (unsigned long long)p.cur;
        for (int i = 0; i < c.nk; i++)
            next[2 + 2 * i] = ~0ull, next[3 + 2 * i] = 0;
        *(volatile unsigned long long *)c.probe = seq + 1;
    }
    __threadfence();
    *(volatile int32_t *)c.cursor = p.cur + 1;
}

/* step_finish by thread 0 once the whole CTA is done */
__device__ __forceinline__ void step_end(const StepCtl &c, const StepPos &p)
{
    __syncthreads();
    if (threadIdx.x == 0)
        step_finish(c, p, gridDim.x * gridDim.y * gridDim.z);
}

} // namespace

#endif
