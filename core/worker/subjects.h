/* The subjects a unit hands the timer (timing.h): a profile of the unit's case instance, and an
 * external callable (PyTorch through libklab_bench). klab's own copy is copy_ref.h's. */
#ifndef KLAB_SUBJECTS_H
#define KLAB_SUBJECTS_H

#include "timing/timing.h"
#include "worker/case_instance.h"

/* Work timed beside a plugin's profiles, in the same rounds, that is not a plugin: PyTorch called
   through libklab_bench (tools/torch_rows.py). */
#define MAX_EXTERNAL 8
typedef struct external_subject {
    char label[64];
    /* Enqueues one execution on `s`; 0 or -1. */
    int (*launch)(void *user, klab_stream s);
    /* Runs it once and gives its output (device pointer, klab_dtype, element count) to be compared with
       the case's float64 reference; 0 or -1. NULL: the row says not-verified. */
    int (*result)(void *user, void **ptr, int *dtype, size_t *count);
    /* MAY be NULL: make copies 1..n-1 of the callable's inputs (same contents) so a batch rotates
       through them as a profile's does; sets *footprint to the bytes of all n. 0, or -1: the batch then
       reuses one set and the row says so. With it, launch_copy replaces launch. */
    int (*replicate)(void *user, int n, double *footprint);
    int (*launch_copy)(void *user, klab_stream s, int replica);
    void *user;
} external_subject;

/* `self` of a profile's subject. */
typedef struct profile_subject {
    case_instance *inst;
    int profile;
    int config;
} profile_subject;

/* A profile: outputs poisoned before every sample, checked after; copies rotated when batched. */
extern const subject_ops subject_profile_ops;
/* A profile whose run() keeps the tensors of setup (baked into its own graph): no copies to rotate. */
extern const subject_ops subject_fixed_profile_ops;
/* An external_subject (session.h) as `self`; the rotating one copies its inputs when batched. */
extern const subject_ops subject_external_ops;
extern const subject_ops subject_external_rotating_ops;

#endif
