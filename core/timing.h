/* How klab times: the one code path every row goes through, klab's kernels and PyTorch's alike.
 *
 * A case's subjects (its profiles, and klab's copy at the same bytes) are sampled in ROUNDS: each
 * round takes one sample of every subject, starting at a rotating position, so clock or thermal drift
 * touches all of them alike. One sample is
 *
 *     [poison outputs]  L2 flush (cold) or 20 us spin (hot)  event  run  event  [copy outputs out]
 *
 * on one non-blocking stream. The cold flush READS a buffer of 4x the L2 (at least 256 MiB), so L2
 * holds only clean lines and the timed kernel pays no write-back for anyone else (see docs/timing.md
 * for the measurement that chose this). Before a case the persisting-L2 limit is reset to 0.
 *
 * Each round is bracketed by two clock stamps on SM 0; a round whose average SM clock is under
 * `throttle` x the peak clock is discarded for every subject (nvbench discards throttled samples
 * too). Sampling stops when every subject has min_reps accepted samples and noise <= target, or at
 * max_reps, or when the budget is spent, but never before every subject's verified round (below).
 *
 * One random round per subject poisons the outputs first and checks them after: an output computed
 * only before timing, or broken after the first run, fails the row.
 *
 * Before sampling, each subject is run a few times inside device-synchronised %globaltimer spans,
 * each paired with an empty launch spanned the same way; span minus event time, less the empty
 * launch's, is device work the events did not see: work launched outside the timed stream. Such a
 * subject is flagged, not sampled, and its row reports no time. */
#ifndef KLAB_TIMING_H
#define KLAB_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "device_info.h"
#include "klab/plugin.h"
#include "stopping.h"

/* What a subject is to the timer: a plugin profile, klab's copy, a PyTorch callable, a spin. Each
   call returns 0, or -1 with the reason in err; check returns 1 for wrong numbers (reason in err). */
typedef struct subject_ops {
    /* Enqueue one run on `s` using copy `replica` of the subject's tensors (0 = the originals; see
       replicate) as step `step` of its sequence (0 for non-step subjects). 0 or -1 (reason in err). */
    int (*launch)(void *self, klab_stream s, int replica, int64_t step, char *err, size_t errlen);
    /* Overwrite every output of copy `replica` with a fresh unpredictable pattern, stream-ordered.
       The timer calls it before EVERY sample (timed or verified alike: a plugin cannot tell them apart)
       and before each run of a batch. NULL: nothing to poison (PyTorch, spins). */
    int (*poison)(void *self, klab_stream s, int replica, char *err, size_t errlen);
    /* Copy replica 0's outputs to the host after a device-wide synchronise (a verified sample). */
    int (*stage)(void *self, klab_stream s, char *err, size_t errlen);
    /* Compare the staged outputs (and red zones) with the reference: 0 ok, 1 wrong (reason), -1 error. */
    int (*check)(void *self, char *err, size_t errlen);
    /* Make copies 1..n-1 of the subject's tensors (inputs with identical contents, outputs, scratch,
       states) so a batch of n runs can rotate through them and none finds its data in L2. Sets
       *footprint to the bytes all n copies occupy. 0, or -1 with the reason (e.g. not enough device
       memory) -- the timer then batches without rotation and the row says so. NULL: cannot rotate
       (a profile with KLAB_PROFILE_FIXED_TENSORS, PyTorch). */
    int (*replicate)(void *self, int n, double *footprint, char *err, size_t errlen);
    /* Step subjects: restore the states of every copy to the start of a sequence (untimed). */
    int (*restore)(void *self, klab_stream s, char *err, size_t errlen);
} subject_ops;

typedef enum subject_state {
    SUBJ_OK = 0,
    SUBJ_FAILED,    /* an error: why[] */
    SUBJ_INCORRECT, /* the verified timed sample was wrong: why[] */
    SUBJ_ESCAPED    /* device work outside the timed stream: why[] */
} subject_state;

typedef struct subject {
    const char *label;
    const subject_ops *ops;
    void *self;
    int64_t steps;      /* > 0: a step subject: samples are single steps 0..steps-1, restored between
                           sequences; 0: an ordinary subject */
    int owns_graph;     /* the subject launches its own CUDA graphs: never captured; batched by
                           queueing runs back to back behind a blocking kernel */

    /* results */
    subject_state state;
    char why[512];
    double *samples; /* accepted, in ms */
    size_t n, cap;
    stop_acc acc;
    int discarded;   /* samples dropped with throttled rounds */
    double clock_mhz; /* median SM clock over the accepted rounds; 0 = unknown */
    stop_reason stopped;
    int verify_round; /* the round whose output was checked; -1 if none */
    double escape_excess_ms;
    int batch;          /* runs per sample */
    double footprint;   /* bytes of the copies a batch rotated through; 0 = none */
    int rotated;        /* 1 when the batch rotated copies */

    /* private to timing.c */
    void *priv;
} subject;

typedef struct timing_opts {
    int hot;          /* no flush between samples */
    int graph;        /* capture one run into a CUDA Graph and time its replays */
    int warmup;       /* untimed runs per subject */
    stop_rule stop;
    double throttle;  /* fraction of the peak SM clock below which a round is discarded (0.75) */
    uint64_t seed;    /* picks the verified rounds */
    int escape_checks; /* bracketed runs per subject (0 disables the check) */
} timing_opts;

typedef struct timing_env {
    klab_stream stream;
    void *flush_buf;
    size_t flush_bytes;
    unsigned long long *slots; /* device scratch for stamps */
    int sms;
    double peak_clock_mhz;
    double launch_floor_ms;  /* event time of an empty launch */
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

/* The order of round r over n subjects: position j takes subject (j + r) mod n. */
int timing_round_order(int n, int round, int j);

/* 1 when the CUDA error poisons the context for every later call (illegal address, launch failure,
   ...): the worker must end and a fresh one take the remaining cases. */
int cuda_error_is_sticky(int code);

#endif
