#include "worker/case_instance.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/dtype.h"
#include "host/input_scan.h"
#include "host/parallel.h"
#include "host/sample.h"
#include "timing/timing.h"
#include "util/checksum.h"

/* The host's own failure, as the ctx recorded it: cleared first, so an older reason is not blamed. */
static int host_failed(case_instance *in, const char *fallback, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", ctx_error(in->ctx, fallback));
    return -1;
}

int inst_setup(case_instance *in, const loaded_plugin *lp, const cfg_case *c, klab_dtype dtype,
               uint64_t seed, int cc, klab_stream stream, const char *label, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->lp = lp;
    case_build(&in->bc, c, dtype, &lp->desc);
    in->ctx = ctx_new(label, seed_mix(seed, label), cc, stream);
    if (!in->ctx) {
        snprintf(err, errlen, "out of memory");
        return INST_ERROR;
    }
    klab_status st = lp->desc.setup(in->ctx, &host_services, &in->bc.kcase, &in->state);
    if (st != KLAB_OK) {
        snprintf(err, errlen, "%s", ctx_error(in->ctx, st == KLAB_UNSUPPORTED ? "not supported"
                                                                              : "setup failed without a reason"));
        return st == KLAB_UNSUPPORTED ? INST_UNSUPPORTED : INST_ERROR;
    }
    in->set_up = 1;
    in->ctx->has_err = 0;
    if (ctx_seal(in->ctx) != 0) { /* the host's fills and poison, and the plugin's own setup work */
        snprintf(err, errlen, "after setup: %s", ctx_error(in->ctx, "CUDA error"));
        return INST_ERROR;
    }
    in->work.struct_size = sizeof in->work;
    if (lp->desc.work) {
        lp->desc.work(&in->bc.kcase, &in->work);
    } else {
        for (int i = 0; i < in->ctx->ntensors; i++) {
            const ctx_tensor *t = &in->ctx->tensors[i];
            if (t->role != KLAB_SCRATCH)
                in->work.bytes += (double)t->bytes;
        }
    }
    return INST_OK;
}

static int copy_out(const ctx_tensor *t, const void *dev, void *host, char *err, size_t errlen)
{
    cudaError_t e = cudaMemcpy(host, dev, t->bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "copying '%s' to the host: CUDA error %d %s: %s", t->name, (int)e,
                 cudaGetErrorName(e), cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* The checksum of copy `copy`'s inputs. */
static int input_checksum(case_instance *in, int copy, uint64_t *sum, char *err, size_t errlen)
{
    uint64_t h = CHECKSUM_INIT;
    void *const *ptr = ctx_tensors(in->ctx, copy);
    for (int i = 0; i < in->ctx->ntensors; i++) {
        const ctx_tensor *t = &in->ctx->tensors[i];
        if (t->role != KLAB_INPUT)
            continue;
        if (t->bytes > in->readback_bytes) {
            free(in->readback);
            in->readback_bytes = 0;
            if (!(in->readback = malloc(t->bytes))) {
                snprintf(err, errlen, "out of host memory for '%s'", t->name);
                return -1;
            }
            in->readback_bytes = t->bytes;
        }
        if (copy_out(t, ptr[i], in->readback, err, errlen) != 0)
            return -1;
        if (input_scan(t->dtype, in->readback, t->count, &h, NULL, NULL) != 0) {
            snprintf(err, errlen, "out of host memory for the checksum of '%s'", t->name);
            return -1;
        }
    }
    *sum = h;
    return 0;
}

static double out_tol(const case_instance *in, klab_dtype d)
{
    return verify_case_tol(&in->lp->desc, &in->bc.kcase, d);
}

/* Elements a chunk of the worker's plain loops on the pool (filling, gathering): their results are
   the elements' own, so any fixed size does; this one keeps a chunk's work well above the pool's
   cost of handing it out. */
#define FILL_CHUNK 65536

static void nan_chunk(void *arg, size_t begin, size_t end)
{
    double *x = arg;
    for (size_t k = begin; k < end; k++)
        x[k] = NAN;
}

/* On the pool: the first write of a gigabyte reference is mostly the kernel's page faults, which
   threads take side by side. */
static void fill_nan(double *x, size_t n)
{
    parallel_for(n, FILL_CHUNK, nan_chunk, x);
}

/* The plugin's verify() for the current inputs: of every element, or of fresh indices when sampled,
   then the fitness of what it gave. */
static int draw_reference(case_instance *in, char *err, size_t errlen)
{
    double *outs[CTX_MAX_TENSORS];
    size_t counts[CTX_MAX_TENSORS];
    const size_t *samples[CTX_MAX_TENSORS];
    uint64_t counter = ++in->samples_drawn;
    for (int o = 0; o < in->nout; o++) {
        inst_out *x = &in->out[o];
        if (x->sample && sample_indices(in->ctx->seed ^ 0x73616d706c65ull, counter, x->count, x->nsample, x->sample) != 0) {
            snprintf(err, errlen, "out of host memory for a sample of %zu elements", x->nsample);
            return INST_ERROR;
        }
        fill_nan(x->ref, x->nsample); /* an element verify() forgets fails the fitness check */
        outs[o] = x->ref;
        counts[o] = x->nsample;
        samples[o] = x->sample;
    }
    klab_verify_io io;
    memset(&io, 0, sizeof io);
    io.struct_size = sizeof io;
    io.n_in = in->nin;
    io.in = in->in;
    io.in_count = in->in_count;
    io.n_out = in->nout;
    io.out = outs;
    io.out_count = counts;
    io.in_raw = in->in_raw;
    io.in_dtype = in->in_dtype;
    io.sample = in->sampled ? samples : NULL;
    io.steps = in->bc.kcase.steps;
    in->ctx->has_err = 0;
    klab_status st = loader_verify(in->lp, in->state, in->ctx, &host_services, &in->bc.kcase, &io);
    if (st != KLAB_OK) {
        snprintf(err, errlen, "verify: %s", ctx_error(in->ctx, "failed without a reason"));
        return INST_ERROR;
    }
    for (int o = 0; o < in->nout; o++) {
        verify_result r;
        if (verify_reference_fit(in->out[o].ref, in->out[o].nsample, in->input_rms, &r) != VERIFY_PASS) {
            snprintf(err, errlen, "%s", r.msg);
            return INST_REFUSED;
        }
    }
    return INST_OK;
}

int inst_inputs(case_instance *in, char *err, size_t errlen)
{
    klab_ctx *ctx = in->ctx;
    double ss = 0, nn = 0;
    uint64_t h = CHECKSUM_INIT;
    for (int i = 0; i < ctx->ntensors; i++) {
        const ctx_tensor *t = &ctx->tensors[i];
        if (t->role == KLAB_INPUT || t->role == KLAB_STATE) {
            void *raw = malloc(t->bytes);
            double *d = malloc(t->count * sizeof(double));
            int k = in->nin;
            in->in_raw[k] = raw;
            in->in[k] = d;
            in->nin++; /* freed by inst_teardown whatever happens next */
            if (!raw || !d) {
                snprintf(err, errlen, "out of host memory for %s '%s'", ctx_role_name(t->role), t->name);
                return INST_ERROR;
            }
            if (copy_out(t, ctx->ptr[i], raw, err, errlen) != 0)
                return INST_ERROR;
            /* the checksum, the widening and the sum of squares in one pass on the pool; states are
               not checksummed (run() writes them) */
            if (input_scan(t->dtype, raw, t->count, t->role == KLAB_INPUT ? &h : NULL, d, &ss) != 0) {
                snprintf(err, errlen, "out of host memory for %s '%s'", ctx_role_name(t->role), t->name);
                return INST_ERROR;
            }
            nn += (double)t->count;
            in->in_count[k] = t->count;
            in->in_dtype[k] = t->dtype;
        }
        if (t->role == KLAB_OUTPUT || t->role == KLAB_STATE) {
            inst_out *o = &in->out[in->nout++];
            o->tensor = i;
            o->count = o->nsample = t->count;
            o->tol = out_tol(in, t->dtype);
            /* states are compared whole: a sequence's state is what the next step reads */
            size_t per = ctx->sample_per_output;
            if (t->role == KLAB_OUTPUT && per > 0 && per < t->count) {
                o->nsample = per;
                o->sample = malloc(per * sizeof *o->sample);
                in->sampled = 1;
            }
            o->ref = malloc(o->nsample * sizeof(double));
            o->staged = malloc(t->bytes);
            if (!o->ref || !o->staged || (o->nsample < o->count && !o->sample)) {
                snprintf(err, errlen, "out of host memory for the reference of '%s'", t->name);
                return INST_ERROR;
            }
        }
    }
    in->input_sum = h;
    in->input_rms = nn > 0 ? sqrt(ss / nn) : 0;
    if (in->nout == 0) {
        snprintf(err, errlen, "setup made no output or state tensor: nothing to verify");
        return INST_ERROR;
    }
    return INST_OK;
}

int inst_reference(case_instance *in, char *err, size_t errlen)
{
    int rc = draw_reference(in, err, errlen);
    in->sample_unused = rc == INST_OK && in->sampled;
    if (!in->sampled) {
        /* the reference is computed for good: the inputs' copies are no longer needed */
        for (int k = 0; k < in->nin; k++) {
            free((void *)in->in[k]);
            free((void *)in->in_raw[k]);
            in->in[k] = NULL;
            in->in_raw[k] = NULL;
        }
    }
    return rc;
}

klab_status inst_run(case_instance *in, int profile, int config, klab_stream s, int copy, int64_t step)
{
    klab_launch l;
    memset(&l, 0, sizeof l);
    l.struct_size = sizeof l;
    l.profile = profile;
    l.config = config;
    l.stream = s;
    l.ntensors = in->ctx->ntensors;
    l.tensors = ctx_tensors(in->ctx, copy);
    l.step = step;
    in->ctx->has_err = 0; /* this run's reason, not an earlier one's */
    return loader_run(in->lp, in->state, in->ctx, &host_services, &l);
}

int inst_poison(case_instance *in, klab_stream s, int copy, int states, char *err, size_t errlen)
{
    in->ctx->has_err = 0;
    if (ctx_poison_outputs(in->ctx, s, copy) != 0 || (states && ctx_restore_states(in->ctx, s, copy) != 0))
        return host_failed(in, "poisoning failed", err, errlen);
    return 0;
}

int inst_restore(case_instance *in, klab_stream s, char *err, size_t errlen)
{
    in->ctx->has_err = 0;
    if (ctx_restore_states(in->ctx, s, -1) != 0)
        return host_failed(in, "restoring the states failed", err, errlen);
    return 0;
}

/* Copies the outputs to their staging buffers; the caller has synchronised the device. */
static int copy_outputs(case_instance *in, klab_stream s, char *err, size_t errlen)
{
    for (int o = 0; o < in->nout; o++) {
        const ctx_tensor *t = &in->ctx->tensors[in->out[o].tensor];
        /* pageable memory: the copy is stream-ordered after the run and done when the call returns */
        cudaError_t e = cudaMemcpyAsync(in->out[o].staged, in->ctx->ptr[in->out[o].tensor], t->bytes,
                                        cudaMemcpyDeviceToHost, s);
        if (e != cudaSuccess) {
            snprintf(err, errlen, "copying %s '%s': CUDA error %d %s", ctx_role_name(t->role), t->name, (int)e,
                     cudaGetErrorString(e));
            return -1;
        }
    }
    return 0;
}

int inst_stage(case_instance *in, klab_stream s, char *err, size_t errlen)
{
    /* Outputs are read once every stream of the device is idle: verification judges the values, and
       work left on another stream is the escape check's business (it flags the row's timing). */
    cudaError_t se = cudaDeviceSynchronize();
    if (se != cudaSuccess) {
        snprintf(err, errlen, "CUDA error %d %s: %s%s", (int)se, cudaGetErrorName(se), cudaGetErrorString(se),
                 cuda_error_is_sticky(se) ? " (context lost)" : "");
        return -1;
    }
    return copy_outputs(in, s, err, errlen);
}

typedef struct gather_job {
    const size_t *index;
    const unsigned char *from;
    unsigned char *to;
    size_t es;
} gather_job;

static void gather_chunk(void *arg, size_t begin, size_t end)
{
    const gather_job *g = arg;
    for (size_t j = begin; j < end; j++)
        memcpy(g->to + j * g->es, g->from + g->index[j] * g->es, g->es);
}

/* Compares `raw` (all `x->count` elements of dtype d) with x's reference: the sampled elements are
   gathered first. */
static int compare_one(const inst_out *x, const char *name, const void *raw, klab_dtype d, verify_result *r,
                       char *err, size_t errlen)
{
    const void *cmp = raw;
    unsigned char *gathered = NULL;
    if (x->sample) {
        size_t es = klab_dtype_size(d);
        gathered = malloc(x->nsample * es);
        if (!gathered) {
            snprintf(err, errlen, "out of host memory for a sample of '%s'", name);
            return INST_ERROR;
        }
        gather_job g = {x->sample, raw, gathered, es};
        parallel_for(x->nsample, FILL_CHUNK, gather_chunk, &g);
        cmp = gathered;
    }
    verify_compare(name, x->ref, cmp, d, x->nsample, x->sample, x->tol, r);
    free(gathered);
    return r->verdict == VERIFY_PASS ? INST_OK : INST_MISMATCH;
}

/* A fresh sample for this verified run, unless the last one drawn has not been used yet. */
static int next_reference(case_instance *in, char *err, size_t errlen)
{
    if (!in->sampled)
        return INST_OK;
    if (in->sample_unused) {
        in->sample_unused = 0;
        return INST_OK;
    }
    return draw_reference(in, err, errlen);
}

int inst_compare(case_instance *in, char *err, size_t errlen)
{
    int rc = next_reference(in, err, errlen);
    if (rc != INST_OK)
        return rc;
    memset(&in->last, 0, sizeof in->last);
    in->verified_elems = 0;
    for (int o = 0; o < in->nout; o++) {
        const inst_out *x = &in->out[o];
        const ctx_tensor *t = &in->ctx->tensors[x->tensor];
        char name[64];
        if (t->role == KLAB_STATE)
            snprintf(name, sizeof name, "state %s", t->name);
        else
            snprintf(name, sizeof name, "%s", t->name);
        verify_result r;
        int one = compare_one(x, name, x->staged, t->dtype, &r, err, errlen);
        if (one == INST_ERROR)
            return INST_ERROR;
        in->verified_elems += (long long)x->nsample;
        /* keep the worst figures over the outputs, and the first failure's message */
        if (o == 0 || !(r.rel_l2_err <= in->last.rel_l2_err)) {
            in->last.rel_l2_err = r.rel_l2_err;
            in->last.tol = r.tol;
        }
        if (r.max_abs_err > in->last.max_abs_err)
            in->last.max_abs_err = r.max_abs_err;
        if (one != INST_OK && rc == INST_OK) {
            rc = INST_MISMATCH;
            in->last.verdict = r.verdict;
            snprintf(in->last.msg, sizeof in->last.msg, "%s", r.msg);
            snprintf(err, errlen, "%s", r.msg);
        }
    }
    /* checked after every verified run, whatever the values said: the guards are rewritten for the
       next run either way */
    char zone[512];
    int z = ctx_check_redzones(in->ctx, zone, sizeof zone);
    if (z < 0 && rc == INST_OK) {
        snprintf(err, errlen, "%s", zone);
        return INST_ERROR;
    }
    if (z > 0 && rc == INST_OK) {
        rc = INST_MISMATCH;
        in->last.verdict = VERIFY_MISMATCH;
        snprintf(in->last.msg, sizeof in->last.msg, "%s", zone);
        snprintf(err, errlen, "%s", zone);
    }
    return rc;
}

int inst_verify_profile(case_instance *in, int profile, int config, klab_stream s, int *cuda_err, char *err,
                        size_t errlen)
{
    *cuda_err = 0;
    if (inst_restore(in, s, err, errlen) != 0)
        return INST_ERROR;
    for (int64_t step = 0; step < in->bc.kcase.steps; step++) {
        if (inst_poison(in, s, 0, 0, err, errlen) != 0)
            return INST_ERROR;
        klab_status st = inst_run(in, profile, config, s, 0, step);
        if (st == KLAB_UNSUPPORTED) {
            snprintf(err, errlen, "%s", ctx_error(in->ctx, "this profile does not support this case"));
            return INST_UNSUPPORTED;
        }
        if (st != KLAB_OK) {
            char at[48] = "";
            if (in->bc.kcase.steps > 1)
                snprintf(at, sizeof at, " (step %lld)", (long long)step);
            snprintf(err, errlen, "run%s: %s", at, ctx_error(in->ctx, "failed without a reason"));
            /* the plugin may have met a lost context and said only "error": the caller must know */
            cudaError_t e = cudaDeviceSynchronize();
            if (e != cudaSuccess && cuda_error_is_sticky(e))
                *cuda_err = (int)e;
            return INST_ERROR;
        }
    }
    /* one synchronisation: the copies after it are to pageable memory, done when they return */
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess && copy_outputs(in, s, err, errlen) != 0)
        return INST_ERROR;
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        *cuda_err = (int)e;
        snprintf(err, errlen, "CUDA error %d: %s%s", (int)e, cudaGetErrorString(e),
                 cuda_error_is_sticky(e) ? " (context lost)" : "");
        return INST_ERROR;
    }
    return inst_compare(in, err, errlen);
}

int inst_compare_external(case_instance *in, const void *raw, klab_dtype d, size_t count, verify_result *r,
                          char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    const inst_out *x = &in->out[0];
    if (in->nout < 1 || count != x->count) {
        snprintf(err, errlen, "its output has %zu elements, the reference %zu", count, in->nout ? x->count : 0);
        return INST_ERROR;
    }
    int rc = next_reference(in, err, errlen); /* fresh indices for every compare, as the profiles get */
    if (rc != INST_OK)
        return rc;
    rc = compare_one(x, in->ctx->tensors[x->tensor].name, raw, d, r, err, errlen);
    if (rc == INST_MISMATCH)
        snprintf(err, errlen, "%s", r->msg);
    return rc;
}

int inst_inputs_changed(case_instance *in, klab_stream s, char *err, size_t errlen)
{
    err[0] = 0;
    if (cudaStreamSynchronize(s) != cudaSuccess) {
        snprintf(err, errlen, "reading inputs back failed");
        return -1;
    }
    int changed = 0;
    for (int k = 0; k < in->ctx->ncopies && !changed; k++) {
        uint64_t h;
        if (input_checksum(in, k, &h, err, errlen) != 0)
            return -1;
        changed = h != in->input_sum;
    }
    if (!changed)
        return 0;
    in->ctx->has_err = 0;
    if (ctx_refill_inputs(in->ctx) != 0 || cudaStreamSynchronize(s) != cudaSuccess) {
        snprintf(err, errlen, "%s", ctx_error(in->ctx, "refilling inputs failed"));
        return -1;
    }
    return 1;
}

int inst_has_steps(const case_instance *in)
{
    return (in->lp->desc.flags & KLAB_PLUGIN_STEPS) != 0;
}

void inst_teardown(case_instance *in)
{
    if (in->set_up)
        in->lp->desc.teardown(in->state);
    in->set_up = 0;
    for (int k = 0; k < in->nin; k++) {
        free((void *)in->in[k]);
        free((void *)in->in_raw[k]);
    }
    in->nin = 0;
    for (int o = 0; o < in->nout; o++) {
        free(in->out[o].sample);
        free(in->out[o].ref);
        free(in->out[o].staged);
    }
    in->nout = 0;
    free(in->readback);
    in->readback = NULL;
    in->readback_bytes = 0;
    ctx_free(in->ctx);
    in->ctx = NULL;
}
