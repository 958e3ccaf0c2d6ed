/* One plugin set up for one case and dtype: its state, its tensors, the float64 reference of what it
 * must produce, and the checks the host makes around every verified run: states restored, outputs
 * poisoned before each step, values compared (all, or a fresh sample each time), red zones intact,
 * inputs unchanged. */
#ifndef KLAB_CASE_INSTANCE_H
#define KLAB_CASE_INSTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "config/case_build.h"
#include "config/ini_config.h"
#include "host/host_services.h"
#include "host/loader.h"
#include "host/verify.h"

/* One tensor a verified run compares: an output, or a state's contents after the sequence. */
typedef struct inst_out {
    int tensor;            /* index in the ctx */
    size_t count;          /* elements of the tensor */
    double tol;
    size_t *sample;        /* the compared element indices (ascending), or NULL: all of them */
    size_t nsample;        /* elements compared: count, or the sample's size */
    double *ref;           /* the expected value of each compared element */
    unsigned char *staged; /* the tensor's raw bytes, read back after a verified run */
} inst_out;

typedef struct case_instance {
    const loaded_plugin *lp;
    built_case bc;
    klab_ctx *ctx;
    void *state;
    int set_up;    /* setup succeeded: teardown is owed */
    klab_work work;
    /* what verify() reads: the inputs and the states' initial contents, in the order they were made */
    int nin;
    const double *in[CTX_MAX_TENSORS];
    const void *in_raw[CTX_MAX_TENSORS];
    size_t in_count[CTX_MAX_TENSORS];
    klab_dtype in_dtype[CTX_MAX_TENSORS];
    double input_rms;
    uint64_t input_sum; /* checksum of the inputs (not the states: run() writes those) */
    /* where inputs are read back for their checksum after every verified run: kept for the unit (as
       large as its largest input), so each check does not take a gigabyte's page faults anew */
    unsigned char *readback;
    size_t readback_bytes;
    int nout;
    inst_out out[CTX_MAX_TENSORS];
    int sampled;          /* verify() is called for fresh indices every verified run */
    int sample_unused;    /* the sample drawn last has not been compared yet */
    uint64_t samples_drawn;
    long long verified_elems; /* elements one verified run compares, outputs and states together */
    verify_result last;   /* the worst output of the last comparison */
} case_instance;

enum { INST_OK = 0, INST_ERROR = 1, INST_UNSUPPORTED = 2, INST_REFUSED = 3, INST_MISMATCH = 4 };

/* Builds the case and runs the plugin's setup. `label` names the instance in messages. INST_OK,
   INST_ERROR or INST_UNSUPPORTED, the reason in err. `c` must outlive the instance. */
int inst_setup(case_instance *in, const loaded_plugin *lp, const cfg_case *c, klab_dtype dtype,
               uint64_t seed, int cc, klab_stream stream, const char *label, char *err, size_t errlen);

/* Reads the inputs and states back, widens them to float64, checksums the inputs and makes room for
   the reference. INST_OK or INST_ERROR. Two steps, so that the parent can tell this host work from
   the reference's own in the run's phases. */
int inst_inputs(case_instance *in, char *err, size_t errlen);

/* After inst_inputs: has the plugin compute the reference (of a first sample, when it asked for
   sampling). INST_OK, INST_ERROR, or INST_REFUSED when the reference cannot judge (nearly zero, not
   finite). */
int inst_reference(case_instance *in, char *err, size_t errlen);

/* Enqueues one run of `profile` with tuning configuration `config` on copy `copy` of the tensors as
   step `step`. The plugin's status; the reason in the ctx (ctx_error). */
klab_status inst_run(case_instance *in, int profile, int config, klab_stream s, int copy, int64_t step);

/* Overwrites copy `copy`'s outputs with a fresh pattern (stream-ordered); with `states`, also puts its
   states back to their initial contents. 0 or -1. */
int inst_poison(case_instance *in, klab_stream s, int copy, int states, char *err, size_t errlen);

/* Restores every copy's states (a sequence starts again). 0 or -1. */
int inst_restore(case_instance *in, klab_stream s, char *err, size_t errlen);

/* Copies copy 0's outputs and states to the host after a device-wide synchronise. 0 or -1. */
int inst_stage(case_instance *in, klab_stream s, char *err, size_t errlen);

/* Judges what inst_stage read, against the reference (a fresh sample's, when sampled), then the red
   zones. INST_OK, INST_MISMATCH (reason in err and in->last), INST_REFUSED (the sample's reference
   cannot judge) or INST_ERROR. */
int inst_compare(case_instance *in, char *err, size_t errlen);

/* One verified sequence of a profile: states restored; then for each step, outputs poisoned and the
   step run; synchronise, compare. INST_OK, INST_MISMATCH, INST_REFUSED, INST_UNSUPPORTED (the
   profile or configuration declined the case) or INST_ERROR (reason in err; a sticky CUDA error is
   reported through *cuda_err). */
int inst_verify_profile(case_instance *in, int profile, int config, klab_stream s, int *cuda_err, char *err,
                        size_t errlen);

/* Judges an output computed elsewhere (a PyTorch callable) on the same inputs: `raw` holds `count`
   elements of dtype `d` in host memory, compared with the first output's reference. Fills *r;
   INST_OK, INST_MISMATCH, INST_REFUSED or INST_ERROR (reason in err). */
int inst_compare_external(case_instance *in, const void *raw, klab_dtype d, size_t count, verify_result *r,
                          char *err, size_t errlen);

/* 0: every copy's inputs as they were; 1: changed (they are refilled, so later checks start clean);
   -1: error. */
int inst_inputs_changed(case_instance *in, klab_stream s, char *err, size_t errlen);

/* 1 for a step plugin (KLAB_PLUGIN_STEPS). */
int inst_has_steps(const case_instance *in);

void inst_teardown(case_instance *in);

#endif
