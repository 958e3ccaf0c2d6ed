/* One plugin set up for one case and dtype: its state, its tensors, the float64 reference of its
 * outputs, and the checks the host makes around every run (poison, compare, input checksum). */
#ifndef KLAB_CASE_INSTANCE_H
#define KLAB_CASE_INSTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "host_services.h"
#include "ini_config.h"
#include "loader.h"
#include "verify.h"

typedef struct case_instance {
    const loaded_plugin *lp;
    klab_case kcase;
    klab_param params[CFG_MAX_PARAMS];
    klab_ctx *ctx;
    void *state;
    int set_up;         /* setup succeeded: teardown is owed */
    klab_work work;
    double tol;
    int nout;
    double *ref[CTX_MAX_TENSORS]; /* per output, in output order */
    size_t ref_count[CTX_MAX_TENSORS];
    unsigned char *staging;       /* raw outputs copied out of a verified run */
    size_t staging_bytes;
    uint64_t input_sum;
    verify_result last;           /* the worst output of the last comparison */
} case_instance;

enum { INST_OK = 0, INST_ERROR = 1, INST_UNSUPPORTED = 2, INST_REFUSED = 3, INST_MISMATCH = 4 };

/* Runs the plugin's setup. `label` names the instance in messages. INST_OK, INST_ERROR or
   INST_UNSUPPORTED, the reason in err. */
int inst_setup(case_instance *in, const loaded_plugin *lp, const cfg_case *c, klab_dtype dtype,
               uint64_t seed, int cc, klab_stream stream, const char *label, char *err, size_t errlen);

/* Copies the inputs out, checksums them, and has the plugin compute the reference. INST_OK,
   INST_ERROR, or INST_REFUSED when the reference cannot judge (nearly zero). */
int inst_reference(case_instance *in, char *err, size_t errlen);

/* Poison outputs / copy outputs to staging (stream-ordered) / compare staging with the reference. */
int inst_poison(case_instance *in, klab_stream s, char *err, size_t errlen);
int inst_stage(case_instance *in, klab_stream s, char *err, size_t errlen);
int inst_compare(case_instance *in, char *err, size_t errlen); /* INST_OK or INST_MISMATCH */

/* One verified run of a profile: poison, run, synchronise, compare. INST_OK, INST_MISMATCH,
   INST_UNSUPPORTED (the profile declined the case) or INST_ERROR (reason in err; a sticky CUDA error
   is reported through *cuda_err). */
int inst_verify_profile(case_instance *in, int profile, klab_stream s, int *cuda_err, char *err,
                        size_t errlen);

/* 0: inputs as they were; 1: changed (they are refilled, so later checks start clean); -1: error. */
int inst_inputs_changed(case_instance *in, klab_stream s, char *err, size_t errlen);

void inst_teardown(case_instance *in);

#endif
