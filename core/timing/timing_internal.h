/* What timing.c, timing_env.c and timing_escape.c share, and nobody else needs: CUDA error
 * reporting, the blocking-kernel gate, and a subject's private timing state. */
#ifndef KLAB_TIMING_INTERNAL_H
#define KLAB_TIMING_INTERNAL_H

#include <cuda_runtime.h>

#include "timing/timing.h"

#define TIMING_STEP_CHUNK 32 /* steps enqueued between two synchronisations */

/* The env's device scratch slots (env->slots). */
enum {
    SLOT_ROUND_START = 0, /* {globaltimer, clock64} on SM 0 */
    SLOT_ROUND_END = 2,
    SLOT_SPAN_A = 4,
    SLOT_SPAN_B = 5,
    SLOT_SINK = 7,
    SLOT_COUNT = 8
};

/* A blocking kernel's slot pair in host-mapped memory: [0] release, [1] timed out. */
typedef volatile int gate_slot[2];

typedef struct subject_priv {
    /* a step subject's chunk in flight; any other subject creates only pair 0 and one gate */
    cudaEvent_t ev0[TIMING_STEP_CHUNK], ev1[TIMING_STEP_CHUNK];
    gate_slot *gates;      /* one slot an event pair, host-mapped */
    cudaGraphExec_t exec;  /* batched, not owns_graph: N runs captured */
    int copies;            /* copies a batch rotates through (1: none) */
    int sampled;           /* an ordinary sample is waiting to be read this round */
    int sample_batch;      /* the runs it held */
    int timeouts;          /* consecutive samples whose blocking kernel gave up */
} subject_priv;

/* Records a CUDA failure in err; remembers it in env when it is sticky. Returns -1. */
int timing_cuda_fail(timing_env *env, cudaError_t e, const char *what, char *err, size_t errlen);

#define TIMING_TRY(env, call, what, err, errlen)                          \
    do {                                                                  \
        cudaError_t e_ = (call);                                          \
        if (e_ != cudaSuccess)                                            \
            return timing_cuda_fail((env), e_, (what), err, errlen);      \
    } while (0)

/* Host-mapped slots for blocking kernels: n slot pairs, zeroed. NULL when out of pinned memory. */
gate_slot *timing_gates_alloc(int n);
void timing_gates_free(gate_slot *g);

/* Enqueues a blocking kernel on slot g (cleared first); everything enqueued after it waits until
   timing_gate_open(g). 0 or a cudaError_t. */
int timing_gate_close(timing_env *env, gate_slot *g);
void timing_gate_open(gate_slot *g);
/* After the stream has passed the kernel: 1 when it gave up waiting (the sample behind it is void). */
int timing_gate_timed_out(const gate_slot *g);

/* The median event time, in ms, of an empty launch held behind a blocking kernel (the host ahead). */
int timing_measure_floor(timing_env *env, int samples, double *floor_ms, char *err, size_t errlen);

/* Runs the subject inside device-synchronised spans beside empty launches, and flags it
   SUBJ_ESCAPED when device work escaped the events. -1 only when the context is lost. */
int timing_escape_check(timing_env *env, subject *s, const timing_opts *o, char *err, size_t errlen);

/* Marks the subject failed with the reason, unless it failed already (the first reason stands). */
void timing_subject_fail(subject *s, subject_state st, const char *why);

/* The L2 flush of a cold sample: a read of the env's buffer. 0 or a cudaError_t. */
int timing_flush(timing_env *env);

#endif
