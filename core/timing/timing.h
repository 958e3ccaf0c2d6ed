/* How klab times: the one code path every row goes through, klab's kernels and PyTorch's alike.
 *
 * A case's subjects (its profiles, klab's copy at the same bytes, PyTorch callables) are sampled in
 * rounds (core/rounds.h: the order, the verified rounds, when to stop). One sample, by mode:
 *
 *   plain    poison, L2 flush (a read of 4x L2)   | event  run                event |
 *   hot      poison, run (untimed), poison          | event  run                event |
 *   batched  poison each copy, L2 flush             | event  N runs (one graph)  event |  / N
 *   step     poison, L2 flush (none when hot)       | event  one step            event |
 *
 * where | ... | is held behind a blocking kernel until the host has enqueued all of it, so the host
 * never lags inside a timed span. Batched runs rotate N copies of the subject's tensors (replicate)
 * so that no run finds its data in L2; a subject that launches its own graphs (owns_graph) is not
 * captured: its N runs are queued behind the blocking kernel instead. Outputs are poisoned with a
 * fresh pattern before every sample, timed or verified alike, so a plugin cannot tell them apart.
 *
 * Each round is bracketed by two clock stamps on SM 0; a round whose average SM clock is under
 * `throttle` x the peak clock is discarded for every subject (nvbench discards throttled samples
 * too). Sampling stops when every subject has min_reps accepted samples and a median whose 95 %
 * interval is within +-precision (stopping.h), or at max_reps, or when the budget is spent, but never
 * before every subject's verified round.
 *
 * Before sampling, each subject is run a few times inside device-synchronised %globaltimer spans,
 * each paired with an empty launch spanned the same way; span minus event time, less the empty
 * launch's, is device work the events did not see: work launched outside the timed stream. Such a
 * subject is flagged, not sampled. After sampling, a subject whose single-launch median is under the
 * empty launch's is flagged too: honest work cannot be faster than launching nothing. docs/timing.md
 * says what each mode measures and why the thresholds are what they are. */
#ifndef KLAB_TIMING_H
#define KLAB_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "host/device_info.h"
#include "klab/plugin.h"
#include "timing/stopping.h"

/* What a subject is to the timer. launch is required, the rest may be NULL. Each returns 0, or -1
   with the reason in err; check returns 1 for wrong numbers (reason in err). */
typedef struct subject_ops {
    /* Enqueue one run on `s` using copy `replica` of the subject's tensors (0 = the originals; see
       replicate) as step `step` of its sequence (0 for non-step subjects). */
    int (*launch)(void *self, klab_stream s, int replica, int64_t step, char *err, size_t errlen);
    /* Overwrite every output of copy `replica` with a fresh unpredictable pattern, stream-ordered.
       Called before EVERY sample (timed or verified alike) and before each run of a batch. NULL:
       nothing to poison (PyTorch, spins). */
    int (*poison)(void *self, klab_stream s, int replica, char *err, size_t errlen);
    /* Copy replica 0's outputs to the host after a device-wide synchronise (a verified sample). */
    int (*stage)(void *self, klab_stream s, char *err, size_t errlen);
    /* Compare the staged outputs (and red zones) with the reference: 0 ok, 1 wrong (reason), -1 error. */
    int (*check)(void *self, char *err, size_t errlen);
    /* Make copies 1..n-1 of the subject's tensors so a batch of n runs can rotate through them; sets
       *footprint to the bytes all n copies occupy. 0, or -1 with the reason (the timer then batches
       without rotation and the row says so). NULL: cannot rotate. */
    int (*replicate)(void *self, int n, double *footprint, char *err, size_t errlen);
    /* Step subjects: restore the states of every copy to the start of a sequence (untimed). */
    int (*restore)(void *self, klab_stream s, char *err, size_t errlen);
} subject_ops;

typedef enum subject_state {
    SUBJ_OK = 0,
    SUBJ_FAILED,    /* an error: why[] */
    SUBJ_INCORRECT, /* the verified timed sample was wrong: why[] */
    SUBJ_ESCAPED    /* device work outside the timed stream, or faster than an empty launch: why[] */
} subject_state;

typedef struct subject {
    const char *label;
    const subject_ops *ops;
    void *self;
    int64_t steps;  /* > 0: a step subject: samples are single steps 0..steps-1, restored between
                       sequences; 0: an ordinary subject */
    int owns_graph; /* the subject launches its own CUDA graphs: never captured; batched by queueing
                       runs back to back behind a blocking kernel */

    /* results */
    subject_state state;
    char why[512];
    double *samples;      /* accepted, ms per run, in the order taken */
    int64_t *sample_tags; /* beside each sample: its step (step subjects), else its round */
    size_t n, cap;
    int discarded;        /* samples dropped with throttled rounds */
    double clock_mhz;     /* median SM clock over the accepted rounds; 0 = unknown */
    int few_samples;      /* the budget stopped it under its minimum (min_reps; 1000 for steps) */
    int batch;            /* runs per sample: 1, or N when batched */
    double footprint;     /* bytes of the N rotated copies; 0 = none */
    int rotated;          /* the batch rotated copies (cold); 0: it reused one set (the row says why) */
    char batch_note[256]; /* why a batch did not rotate, or "" */

    /* private to timing.c */
    void *priv;
} subject;

typedef enum timing_mode {
    TIMING_PLAIN = 0, /* one run per sample, L2 flushed by a read before each */
    TIMING_BATCHED,   /* N runs per sample (one graph, or queued), time / N; copies rotated, flushed */
    TIMING_HOT        /* one run per sample, right after an untimed run of the same subject */
} timing_mode;

typedef struct timing_opts {
    timing_mode mode;
    int warmup;        /* untimed runs per subject */
    stop_rule stop;
    double throttle;   /* fraction of the peak SM clock below which a round is discarded (0.75) */
    uint64_t seed;     /* picks the verified rounds */
    int escape_checks; /* bracketed runs per subject (0 disables the check) */
} timing_opts;

typedef struct timing_env {
    klab_stream stream;
    void *flush_buf;
    size_t flush_bytes;
    unsigned long long *slots; /* device scratch for stamps */
    volatile int *gate;        /* host-mapped {release, timed_out} for the env's own blocking kernel */
    int sms;
    double peak_clock_mhz;
    double launch_floor_ms;  /* event time of an empty launch, host ahead; re-measured per case */
    int sticky;              /* a CUDA error that poisons the context was seen: code, else 0 */
} timing_env;

/* Creates the stream and flush buffer and measures the floors. 0, or -1 with the reason. */
int timing_env_init(timing_env *env, const device_info *dev, char *err, size_t errlen);
void timing_env_free(timing_env *env);

/* Resets the persisting-L2 limit and lines, so no window set by anyone survives into a case. */
int timing_reset_l2(timing_env *env, char *err, size_t errlen);

/* Samples the subjects. Per-subject outcomes land in each subject; returns -1 only when the context
   itself is lost (env->sticky set, reason in err). Free samples with timing_subject_free. */
int timing_measure(timing_env *env, subject *subs, int n, const timing_opts *o, char *err, size_t errlen);

void timing_subject_free(subject *s);

/* ---- the rules, pure functions (tests/unit/timing/test_timing_order.c) ---- */

/* Runs per batched sample for a subject whose one run took one_run_ms between events (the launch
   floor included): enough that the floor, paid once per sample, is at most 1 % of it. */
int timing_choose_batch(double one_run_ms, double floor_ms, int owns_graph);

/* 1 when device work the events did not see (excess_ms, from the escape check) is too much to be the
   check's own jitter for a subject whose event time is event_ms. */
int timing_escape_flagged(double excess_ms, double event_ms);

/* 1 when a single-launch median is under the empty launch's: impossible for honest work. */
int timing_below_floor(double median_ms, double floor_ms);

/* A plugin's run() may set the persisting-L2 limit (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize))
   or an access-policy window on the stream it is given; either keeps lines in L2 across the flush a
   cold sample starts with. After a subject's runs the timer reads both back: 1 with the row's reason
   in why when either is set (the state found: limit_bytes, the window's num_bytes, hitRatio and
   whether hits persist), 0 when neither is. */
int timing_l2_residue(size_t limit_bytes, size_t window_bytes, double hit_ratio, int hit_persisting, char *why,
                      size_t whylen);

/* Reads the device's persisting-L2 limit and the env stream's access-policy window: 0 when both are
   clear; 1 when a run left either (why: timing_l2_residue's reason), both then reset; -1 with the
   reason when CUDA fails. */
int timing_l2_check(timing_env *env, char *why, size_t whylen);

/* How a subject's row was measured, for its columns: l2 "cold" | "hot"; launch "stream" (one run
   between events), "batched" (N runs in one graph), "queued" (N runs queued behind a blocking
   kernel), "steps" (one step between events); the runs per sample; the rotated copies' footprint in
   bytes (0: none); and a note, "" unless a batch could not rotate ("batched without rotation: ..."). */
void timing_row_mode(const subject *s, const timing_opts *o, char *l2, size_t l2len, char *launch,
                     size_t launchlen, int *batch, double *footprint, char *note, size_t notelen);

/* 1 when the CUDA error poisons the context for every later call (illegal address, launch failure,
   ...): the worker must end and a fresh one take the remaining cases. */
int cuda_error_is_sticky(int code);

#endif
