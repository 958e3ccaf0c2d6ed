#include "worker/subjects.h"

#include <stdio.h>

static int ps_launch(void *self, klab_stream s, int replica, int64_t step, char *err, size_t errlen)
{
    profile_subject *p = self;
    if (inst_run(p->inst, p->profile, p->config, s, replica, step) != KLAB_OK) {
        snprintf(err, errlen, "run: %s", ctx_error(p->inst->ctx, "failed without a reason"));
        return -1;
    }
    return 0;
}

/* Outputs poisoned before every sample; an ordinary plugin's states restored too, so every run starts
   where a verified one does. A step plugin's states carry over between steps (restore does those). */
static int ps_poison(void *self, klab_stream s, int replica, char *err, size_t errlen)
{
    profile_subject *p = self;
    return inst_poison(p->inst, s, replica, !inst_has_steps(p->inst), err, errlen);
}

static int ps_stage(void *self, klab_stream s, char *err, size_t errlen)
{
    return inst_stage(((profile_subject *)self)->inst, s, err, errlen);
}

static int ps_check(void *self, char *err, size_t errlen)
{
    int rc = inst_compare(((profile_subject *)self)->inst, err, errlen);
    return rc == INST_OK ? 0 : rc == INST_MISMATCH ? 1 : -1;
}

static int ps_replicate(void *self, int n, double *footprint, char *err, size_t errlen)
{
    return ctx_replicate(((profile_subject *)self)->inst->ctx, n, footprint, err, errlen);
}

static int ps_restore(void *self, klab_stream s, char *err, size_t errlen)
{
    return inst_restore(((profile_subject *)self)->inst, s, err, errlen);
}

const subject_ops subject_profile_ops = {ps_launch, ps_poison, ps_stage, ps_check, ps_replicate, ps_restore};
/* a profile whose run() keeps the tensors of setup (baked into its own graph): no copies to rotate */
const subject_ops subject_fixed_profile_ops = {ps_launch, ps_poison, ps_stage, ps_check, NULL, ps_restore};

static int ext_launch(void *self, klab_stream s, int replica, int64_t step, char *err, size_t errlen)
{
    (void)step;
    const external_subject *e = self;
    if ((e->launch_copy ? e->launch_copy(e->user, s, replica) : e->launch(e->user, s)) != 0) {
        snprintf(err, errlen, "%s: its launch failed", e->label);
        return -1;
    }
    return 0;
}

static int ext_replicate(void *self, int n, double *footprint, char *err, size_t errlen)
{
    const external_subject *e = self;
    if (e->replicate(e->user, n, footprint) != 0) {
        snprintf(err, errlen, "%s: its %d copies could not be made", e->label, n);
        return -1;
    }
    return 0;
}

const subject_ops subject_external_ops = {ext_launch, NULL, NULL, NULL, NULL, NULL};
/* a callable that can copy its inputs rotates through copies when batched, as a profile does */
const subject_ops subject_external_rotating_ops = {ext_launch, NULL, NULL, NULL, ext_replicate, NULL};
