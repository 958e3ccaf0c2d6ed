/* kb_verify_cpu: a plugin's verify() judged against outputs the caller computed on the CPU, with no
 * GPU: the case as klab builds it from the INI, setup on a host-memory context (ctx_new_on_host), the
 * caller's run, then the worker's own steps: the inputs widened, the reference through loader_verify,
 * its fitness and the comparison by verify_compare with the case's tolerance. A third party tests its
 * reference (and its model of a kernel) this way before any GPU run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/klab_bench.h"
#include "config/case_build.h"
#include "config/ini_config.h"
#include "host/dtype.h"
#include "host/host_services.h"
#include "host/loader.h"
#include "host/verify.h"

/* What one call holds, freed in one place. */
typedef struct cpu_job {
    loaded_plugin lp;
    int loaded;
    cfg_experiment *e;
    built_case bc;
    klab_ctx *ctx;
    void *state;
    int set_up;
    kb_cpu_tensor t[CTX_MAX_TENSORS];
    const double *in[CTX_MAX_TENSORS];
    const void *in_raw[CTX_MAX_TENSORS];
    size_t in_count[CTX_MAX_TENSORS], out_count[CTX_MAX_TENSORS];
    klab_dtype in_dtype[CTX_MAX_TENSORS];
    double *out[CTX_MAX_TENSORS];
    int nin, nout, out_tensor[CTX_MAX_TENSORS];
} cpu_job;

static void job_free(cpu_job *j)
{
    if (j->set_up)
        j->lp.desc.teardown(j->state);
    for (int k = 0; k < j->nin; k++) {
        free((void *)j->in[k]);
        free((void *)j->in_raw[k]);
    }
    for (int o = 0; o < j->nout; o++)
        free(j->out[o]);
    ctx_free(j->ctx);
    free(j->e);
    if (j->loaded)
        loader_close(&j->lp);
    free(j);
}

/* The plugin loaded, the case read and checked as `klab --validate` checks it, and built. */
static int open_case(cpu_job *j, const char *plugin_path, const char *ini_path, int index, int dtype, char *msg,
                     size_t len)
{
    if (loader_open(plugin_path, NULL, &j->lp, msg, len) != 0)
        return -1;
    j->loaded = 1;
    if (!(j->e = malloc(sizeof *j->e))) {
        snprintf(msg, len, "out of memory");
        return -1;
    }
    if (cfg_load(ini_path, j->e, msg, len) != 0)
        return -1;
    const char *names[LOADER_MAX_PROFILES];
    for (int i = 0; i < j->lp.nprofiles; i++)
        names[i] = j->lp.profiles[i].name;
    if (cfg_check_plugin(j->e, names, j->lp.nprofiles, j->lp.desc.dtypes, j->lp.desc.params, j->lp.desc.dims, msg,
                         len) != 0 ||
        cfg_check_params(j->e, j->lp.desc.check_param, msg, len) != 0)
        return -1;
    if (index < 0 || index >= j->e->ncases) {
        snprintf(msg, len, "%s: no case %d (it has %d)", ini_path, index, j->e->ncases);
        return -1;
    }
    if (dtype < 0 || dtype >= KLAB_DTYPE_COUNT || !(j->lp.desc.dtypes & KLAB_DTYPE_BIT(dtype))) {
        snprintf(msg, len, "%s: plugin '%s' does not support dtype %d", ini_path, j->lp.desc.name, dtype);
        return -1;
    }
    case_build(&j->bc, &j->e->cases[index], (klab_dtype)dtype, &j->lp.desc);
    return 0;
}

/* The inputs and states widened, as verify() receives them; a reference array for every output and
   state. */
static int stage(cpu_job *j, char *msg, size_t len)
{
    for (int i = 0; i < j->ctx->ntensors; i++) {
        const ctx_tensor *t = &j->ctx->tensors[i];
        if (t->role == KLAB_INPUT || t->role == KLAB_STATE) {
            double *d = malloc(t->count * sizeof *d);
            void *raw = malloc(t->bytes);
            j->in[j->nin] = d;
            j->in_raw[j->nin] = raw;
            j->in_count[j->nin] = t->count;
            j->in_dtype[j->nin++] = t->dtype;
            if (!d || !raw) {
                snprintf(msg, len, "out of memory for '%s'", t->name);
                return -1;
            }
            memcpy(raw, j->ctx->ptr[i], t->bytes);
            dtype_to_double(t->dtype, raw, d, t->count);
        }
        if (t->role == KLAB_OUTPUT || t->role == KLAB_STATE) {
            j->out_tensor[j->nout] = i;
            j->out_count[j->nout] = t->count;
            if (!(j->out[j->nout++] = malloc(t->count * sizeof(double)))) {
                snprintf(msg, len, "out of memory for the reference of '%s'", t->name);
                return -1;
            }
        }
    }
    return 0;
}

/* 0: every output within tolerance; 1: one is not (msg says which and why). */
static int judge(cpu_job *j, double input_rms, char *msg, size_t len)
{
    for (int o = 0; o < j->nout; o++) {
        const ctx_tensor *t = &j->ctx->tensors[j->out_tensor[o]];
        verify_result r;
        memset(&r, 0, sizeof r);
        if (verify_reference_fit(j->out[o], t->count, input_rms, &r) != VERIFY_PASS ||
            verify_compare(t->name, j->out[o], j->ctx->ptr[j->out_tensor[o]], t->dtype, t->count, NULL,
                           verify_case_tol(&j->lp.desc, &j->bc.kcase, t->dtype), &r) != VERIFY_PASS) {
            snprintf(msg, len, "%s", r.msg);
            return 1;
        }
    }
    snprintf(msg, len, "passed");
    return 0;
}

int kb_verify_cpu(const char *plugin_path, const char *ini_path, int case_index, int dtype, int profile,
                  kb_cpu_run_fn run, void *arg, char *msg, size_t msglen)
{
    cpu_job *j = calloc(1, sizeof *j);
    if (!j) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    int rc = -1;
    if (open_case(j, plugin_path, ini_path, case_index, dtype, msg, msglen) != 0)
        goto done;
    if (profile < 0 || profile >= j->lp.nprofiles) {
        snprintf(msg, msglen, "plugin '%s' has no profile %d", j->lp.desc.name, profile);
        goto done;
    }
    char label[256];
    snprintf(label, sizeof label, "%s %s %s", j->lp.desc.name, j->bc.kcase.name, dtype_name((klab_dtype)dtype));
    if (!(j->ctx = ctx_new_on_host(label, seed_mix(1, label), 90))) {
        snprintf(msg, msglen, "out of memory");
        goto done;
    }
    if (j->lp.desc.setup(j->ctx, &host_services, &j->bc.kcase, &j->state) != KLAB_OK) {
        snprintf(msg, msglen, "setup: %s", ctx_error(j->ctx, "failed without a reason"));
        goto done;
    }
    j->set_up = 1;
    j->ctx->sealed = 1;
    if (stage(j, msg, msglen) != 0)
        goto done;
    int n = j->ctx->ntensors;
    for (int i = 0; i < n; i++) {
        const ctx_tensor *t = &j->ctx->tensors[i];
        j->t[i] = (kb_cpu_tensor){t->name, (int)t->role, (int)t->dtype, t->count, j->ctx->ptr[i]};
    }
    if (run(arg, &j->bc.kcase, profile, j->t, n) != 0) {
        snprintf(msg, msglen, "the CPU run failed");
        goto done;
    }
    klab_verify_io io = {.struct_size = sizeof io, .n_in = j->nin, .in = j->in, .in_count = j->in_count,
                         .n_out = j->nout, .out = j->out, .out_count = j->out_count, .in_raw = j->in_raw,
                         .in_dtype = j->in_dtype, .steps = j->bc.kcase.steps};
    j->ctx->has_err = 0;
    if (loader_verify(&j->lp, j->state, j->ctx, &host_services, &j->bc.kcase, &io) != KLAB_OK) {
        snprintf(msg, msglen, "verify: %s", ctx_error(j->ctx, "failed without a reason"));
        goto done;
    }
    double ss = 0, nn = 0;
    for (int k = 0; k < j->nin; k++)
        for (size_t e = 0; e < j->in_count[k]; e++, nn++)
            ss += j->in[k][e] * j->in[k][e];
    rc = judge(j, nn > 0 ? sqrt(ss / nn) : 0, msg, msglen);
done:
    job_free(j);
    return rc;
}
