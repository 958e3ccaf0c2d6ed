#include "case_instance.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "dtype.h"
#include "timing.h"

int inst_setup(case_instance *in, const loaded_plugin *lp, const cfg_case *c, klab_dtype dtype,
               uint64_t seed, int cc, klab_stream stream, const char *label, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->lp = lp;
    in->kcase.name = c->name;
    in->kcase.rank = c->rank;
    memcpy(in->kcase.dims, c->dims, sizeof in->kcase.dims);
    in->kcase.dtype = dtype;
    for (int i = 0; i < c->nparams; i++) {
        in->params[i].key = c->param_key[i];
        in->params[i].value = c->param_val[i];
    }
    in->kcase.nparams = c->nparams;
    in->kcase.params = in->params;
    in->ctx = ctx_new(label, seed_mix(seed, label), cc, stream);
    if (!in->ctx) {
        snprintf(err, errlen, "out of memory");
        return INST_ERROR;
    }
    klab_status st = lp->desc.setup(in->ctx, &host_services, &in->kcase, &in->state);
    if (st != KLAB_OK) {
        snprintf(err, errlen, "%s", ctx_error(in->ctx, st == KLAB_UNSUPPORTED ? "not supported"
                                                                              : "setup failed without a reason"));
        return st == KLAB_UNSUPPORTED ? INST_UNSUPPORTED : INST_ERROR;
    }
    in->set_up = 1;
    cudaError_t e = cudaStreamSynchronize(stream); /* the host's fills and poison */
    if (e != cudaSuccess) {
        snprintf(err, errlen, "after setup: CUDA error %d %s: %s", (int)e, cudaGetErrorName(e),
                 cudaGetErrorString(e));
        return INST_ERROR;
    }
    if (lp->desc.work) {
        lp->desc.work(&in->kcase, &in->work);
    } else {
        for (int i = 0; i < in->ctx->ntensors; i++) {
            const ctx_tensor *t = &in->ctx->tensors[i];
            if (t->role != KLAB_SCRATCH)
                in->work.bytes += (double)t->count * (double)dtype_size(t->dtype);
        }
    }
    in->tol = lp->desc.tolerance ? lp->desc.tolerance(&in->kcase) : 0;
    if (!(in->tol > 0))
        in->tol = verify_default_tol(dtype);
    return INST_OK;
}

static int copy_out(const ctx_tensor *t, void *host, char *err, size_t errlen)
{
    cudaError_t e = cudaMemcpy(host, t->dev, t->count * dtype_size(t->dtype), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "copying '%s' to the host: CUDA error %d %s: %s", t->name, (int)e,
                 cudaGetErrorName(e), cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

static int input_checksum(case_instance *in, uint64_t *sum, char *err, size_t errlen)
{
    uint64_t h = CHECKSUM_INIT;
    for (int i = 0; i < in->ctx->ntensors; i++) {
        const ctx_tensor *t = &in->ctx->tensors[i];
        if (t->role != KLAB_INPUT)
            continue;
        size_t bytes = t->count * dtype_size(t->dtype);
        void *buf = malloc(bytes);
        if (!buf) {
            snprintf(err, errlen, "out of host memory for '%s'", t->name);
            return -1;
        }
        if (copy_out(t, buf, err, errlen) != 0) {
            free(buf);
            return -1;
        }
        h = checksum_update(h, buf, bytes);
        free(buf);
    }
    *sum = h;
    return 0;
}

int inst_reference(case_instance *in, char *err, size_t errlen)
{
    klab_ctx *ctx = in->ctx;
    const double *ins[CTX_MAX_TENSORS];
    double *ind[CTX_MAX_TENSORS];
    size_t in_count[CTX_MAX_TENSORS];
    int nin = 0, rc = INST_ERROR;
    double in_ss = 0, in_n = 0;
    uint64_t h = CHECKSUM_INIT;
    in->nout = 0;
    in->staging_bytes = 0;
    for (int i = 0; i < ctx->ntensors; i++) {
        const ctx_tensor *t = &ctx->tensors[i];
        size_t bytes = t->count * dtype_size(t->dtype);
        if (t->role == KLAB_INPUT) {
            void *raw = malloc(bytes);
            ind[nin] = malloc(t->count * sizeof(double));
            if (!raw || !ind[nin]) {
                free(raw);
                free(ind[nin]);
                snprintf(err, errlen, "out of host memory for input '%s'", t->name);
                goto out;
            }
            if (copy_out(t, raw, err, errlen) != 0) {
                free(raw);
                free(ind[nin]);
                goto out;
            }
            h = checksum_update(h, raw, bytes);
            dtype_to_double(t->dtype, raw, ind[nin], t->count);
            free(raw);
            for (size_t k = 0; k < t->count; k++)
                in_ss += ind[nin][k] * ind[nin][k];
            in_n += (double)t->count;
            ins[nin] = ind[nin];
            in_count[nin] = t->count;
            nin++;
        } else if (t->role == KLAB_OUTPUT) {
            in->ref[in->nout] = malloc(t->count * sizeof(double));
            if (!in->ref[in->nout]) {
                snprintf(err, errlen, "out of host memory for the reference of '%s'", t->name);
                goto out;
            }
            for (size_t k = 0; k < t->count; k++)
                in->ref[in->nout][k] = NAN; /* an element verify() forgets fails the fitness check */
            in->ref_count[in->nout] = t->count;
            in->nout++;
            in->staging_bytes += bytes;
        }
    }
    in->input_sum = h;
    if (in->nout == 0) {
        snprintf(err, errlen, "setup made no output tensor: nothing to verify");
        goto out;
    }
    in->staging = malloc(in->staging_bytes);
    if (!in->staging) {
        snprintf(err, errlen, "out of host memory for %zu bytes of outputs", in->staging_bytes);
        goto out;
    }
    klab_verify_io io = {nin, ins, in_count, in->nout, in->ref, in->ref_count};
    klab_status st = in->lp->desc.verify(in->state, &in->kcase, &io);
    if (st != KLAB_OK) {
        snprintf(err, errlen, "verify: %s", ctx_error(ctx, "failed without a reason"));
        goto out;
    }
    double in_rms = in_n > 0 ? sqrt(in_ss / in_n) : 0;
    rc = INST_OK;
    for (int o = 0; o < in->nout; o++) {
        verify_result r;
        if (verify_reference_fit(in->ref[o], in->ref_count[o], in_rms, &r) != VERIFY_PASS) {
            snprintf(err, errlen, "%s", r.msg);
            rc = INST_REFUSED;
            break;
        }
    }
out:
    for (int i = 0; i < nin; i++)
        free(ind[i]);
    return rc;
}

int inst_poison(case_instance *in, klab_stream s, char *err, size_t errlen)
{
    if (ctx_poison_outputs(in->ctx, s) != 0) {
        snprintf(err, errlen, "%s", ctx_error(in->ctx, "poisoning failed"));
        return -1;
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
    size_t off = 0;
    for (int i = 0; i < in->ctx->ntensors; i++) {
        const ctx_tensor *t = &in->ctx->tensors[i];
        if (t->role != KLAB_OUTPUT)
            continue;
        size_t bytes = t->count * dtype_size(t->dtype);
        /* pageable memory: the copy is stream-ordered after the run and before the next sample */
        cudaError_t e = cudaMemcpyAsync(in->staging + off, t->dev, bytes, cudaMemcpyDeviceToHost, s);
        if (e != cudaSuccess) {
            snprintf(err, errlen, "copying output '%s': CUDA error %d %s", t->name, (int)e, cudaGetErrorString(e));
            return -1;
        }
        off += bytes;
    }
    return 0;
}

int inst_compare(case_instance *in, char *err, size_t errlen)
{
    size_t off = 0;
    int o = 0, rc = INST_OK;
    memset(&in->last, 0, sizeof in->last);
    for (int i = 0; i < in->ctx->ntensors; i++) {
        const ctx_tensor *t = &in->ctx->tensors[i];
        if (t->role != KLAB_OUTPUT)
            continue;
        verify_result r;
        verify_compare(t->name, in->ref[o], in->staging + off, t->dtype, t->count, in->tol, &r);
        /* keep the worst figures over the outputs, and the first failure's message */
        if (o == 0 || !(r.rel_l2_err <= in->last.rel_l2_err))
            in->last.rel_l2_err = r.rel_l2_err;
        if (r.max_abs_err > in->last.max_abs_err)
            in->last.max_abs_err = r.max_abs_err;
        in->last.tol = r.tol;
        if (r.verdict != VERIFY_PASS && rc == INST_OK) {
            rc = INST_MISMATCH;
            in->last.verdict = r.verdict;
            snprintf(in->last.msg, sizeof in->last.msg, "%s", r.msg);
            snprintf(err, errlen, "%s", r.msg);
        }
        off += t->count * dtype_size(t->dtype);
        o++;
    }
    return rc;
}

int inst_verify_profile(case_instance *in, int profile, klab_stream s, int *cuda_err, char *err,
                        size_t errlen)
{
    *cuda_err = 0;
    if (inst_poison(in, s, err, errlen) != 0)
        return INST_ERROR;
    in->ctx->has_err = 0;
    klab_status st = in->lp->desc.run(in->state, profile, s);
    if (st == KLAB_UNSUPPORTED) {
        snprintf(err, errlen, "%s", ctx_error(in->ctx, "this profile does not support this case"));
        return INST_UNSUPPORTED;
    }
    if (st != KLAB_OK) {
        snprintf(err, errlen, "run: %s", ctx_error(in->ctx, "failed without a reason"));
        /* the plugin may have met a lost context and said only "error": the caller must know */
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess && cuda_error_is_sticky(e))
            *cuda_err = (int)e;
        return INST_ERROR;
    }
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess && inst_stage(in, s, err, errlen) != 0)
        return INST_ERROR;
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
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

int inst_inputs_changed(case_instance *in, klab_stream s, char *err, size_t errlen)
{
    uint64_t h;
    err[0] = 0;
    if (cudaStreamSynchronize(s) != cudaSuccess || input_checksum(in, &h, err, errlen) != 0) {
        if (!err[0])
            snprintf(err, errlen, "reading inputs back failed");
        return -1;
    }
    if (h == in->input_sum)
        return 0;
    if (ctx_refill_inputs(in->ctx) != 0 || cudaStreamSynchronize(s) != cudaSuccess) {
        snprintf(err, errlen, "%s", ctx_error(in->ctx, "refilling inputs failed"));
        return -1;
    }
    return 1;
}

void inst_teardown(case_instance *in)
{
    if (in->set_up)
        in->lp->desc.teardown(in->state);
    in->set_up = 0;
    for (int o = 0; o < in->nout; o++)
        free(in->ref[o]);
    in->nout = 0;
    free(in->staging);
    in->staging = NULL;
    ctx_free(in->ctx);
    in->ctx = NULL;
}
