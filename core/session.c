/* A session (one plugin on one device, with its timer) and its units (one case and dtype, every
 * selected profile), in the order a unit lives:
 *
 *   unit_begin   rows for the selected profiles; skips for the device (min_cc, exact archs) and for
 *                configurations outside a profile's tuning space; setup, reference, one verified
 *                sequence per profile
 *   unit_add_external  a PyTorch callable verified against the same reference
 *   unit_finish  every verified subject and klab's copy timed in the same rounds; rows sent; teardown
 *
 * The subjects the timer samples are made here: a profile of the unit's case instance, an external
 * callable; klab's copy is copy_ref.c's. */
#include "runner.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_instance.h"
#include "copy_ref.h"
#include "dtype.h"
#include "results.h"
#include "worker.h"

#define MAX_PROFILES LOADER_MAX_PROFILES
#define MAX_SUBJECTS (MAX_PROFILES + MAX_EXTERNAL + 1)
/* Configurations a tuning space is searched through for the INI's `config`. */
#define MAX_CONFIGS 100000

struct run_session {
    const job *j;
    const job_out *out;
    loaded_plugin lp;
    timing_env env;
    device_info dev;
    roofline roof;
};

/* ---- the subjects: a profile of the unit's case instance, an external callable ---- */

typedef struct profile_subject {
    case_instance *inst;
    int profile;
    int config;
} profile_subject;

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

static const subject_ops profile_ops = {ps_launch, ps_poison, ps_stage, ps_check, ps_replicate, ps_restore};
/* a profile whose run() keeps the tensors of setup (baked into its own graph): no copies to rotate */
static const subject_ops fixed_profile_ops = {ps_launch, ps_poison, ps_stage, ps_check, NULL, ps_restore};

static int ext_launch(void *self, klab_stream s, int replica, int64_t step, char *err, size_t errlen)
{
    (void)replica;
    (void)step;
    const external_subject *e = self;
    if (e->launch(e->user, s) != 0) {
        snprintf(err, errlen, "%s: its launch failed", e->label);
        return -1;
    }
    return 0;
}

static const subject_ops external_ops = {ext_launch, NULL, NULL, NULL, NULL, NULL};

/* ---- a unit ---- */

typedef struct external_entry {
    external_subject e;
    int row;
} external_entry;

struct run_unit {
    run_session *s;
    const cfg_case *c;
    klab_dtype dtype;
    timing_opts to;
    char label[192];
    int nrows;
    klab_row rows[MAX_PROFILES + MAX_EXTERNAL];
    int np, prof[MAX_PROFILES], config[MAX_PROFILES]; /* selected profiles: index, tuning configuration */
    case_instance inst;
    int inst_made;  /* inst_setup was called: inst_teardown is owed */
    int ready;      /* set up, referenced and verified: subjects may be timed */
    int lost;       /* the CUDA context is gone */
    int ns;         /* verified profiles, the first subjects */
    profile_subject psub[MAX_PROFILES];
    int row_of[MAX_SUBJECTS];
    int next;
    external_entry ext[MAX_EXTERNAL];
};

static void phase(const run_unit *u, const char *what)
{
    worker_text(u->s->out, WIRE_PHASE, "%s", what);
}

/* A row nothing has decided yet: neither skipped, failed nor judged. */
static int row_open(const klab_row *r)
{
    return r->status == ROW_PASSED && !r->reason[0];
}

static void fail_open_rows(run_unit *u, row_status st, const char *fmt, const char *reason)
{
    for (int i = 0; i < u->nrows; i++)
        if (row_open(&u->rows[i]))
            row_fail(&u->rows[i], st, fmt, reason);
}

static klab_row *new_row(run_unit *u, const char *profile)
{
    const run_session *ss = u->s;
    klab_row *r = &u->rows[u->nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->run_id, sizeof r->run_id, "%s", ss->j->run_id);
    snprintf(r->plugin, sizeof r->plugin, "%s", ss->lp.desc.name);
    snprintf(r->kcase, sizeof r->kcase, "%s", u->c->name);
    snprintf(r->shape, sizeof r->shape, "%s", u->c->shape);
    snprintf(r->dtype, sizeof r->dtype, "%s", dtype_name(u->dtype));
    snprintf(r->profile, sizeof r->profile, "%s", profile);
    snprintf(r->l2, sizeof r->l2, "%s", ss->j->topts.mode == TIMING_HOT ? "hot" : "cold");
    snprintf(r->launch, sizeof r->launch, "%s", ss->j->topts.mode == TIMING_BATCHED ? "batched" : "stream");
    r->seed = ss->j->topts.seed;
    return r;
}

/* The device: the plugin's minimum compute capability for every row, then each profile's exact
   architectures (its own list, else the plugin's). */
static void skip_for_device(run_unit *u)
{
    const run_session *ss = u->s;
    const klab_plugin *d = &ss->lp.desc;
    char msg[400];
    if (d->min_cc > ss->dev.cc) {
        snprintf(msg, sizeof msg, "needs compute capability %d.%d; device %d (%s) is %d.%d", d->min_cc / 10,
                 d->min_cc % 10, ss->dev.ordinal, ss->dev.name, ss->dev.cc / 10, ss->dev.cc % 10);
        fail_open_rows(u, ROW_SKIPPED, "%s", msg);
        return;
    }
    for (int i = 0; i < u->np; i++) {
        const int *archs = loader_profile_archs(&ss->lp, u->prof[i]);
        if (loader_arch_admits(archs, ss->dev.cc))
            continue;
        char list[200];
        loader_archs_text(archs, list, sizeof list);
        row_fail(&u->rows[i], ROW_SKIPPED, "has machine code for %s only; device %d (%s) is %d.%d", list,
                 ss->dev.ordinal, ss->dev.name, ss->dev.cc / 10, ss->dev.cc % 10);
    }
}

/* Each profile's tuning configuration: -1 (the plugin's own choice) unless the case names one, which
   must then be in the profile's tuning space. Rows say which configuration they ran. */
static void pick_configs(run_unit *u, const klab_case *kcase)
{
    const loaded_plugin *lp = &u->s->lp;
    for (int i = 0; i < u->np; i++) {
        const klab_profile *pr = &lp->profiles[u->prof[i]];
        klab_row *r = &u->rows[i];
        u->config[i] = -1;
        if (!pr->config || !row_open(r))
            continue; /* no tuning space: the plugin's choice, whatever the case names */
        if (u->c->config[0]) {
            int found = -1, n = 0;
            for (const char *d; n < MAX_CONFIGS && (d = pr->config(kcase, n)); n++)
                if (strcmp(d, u->c->config) == 0) {
                    found = n;
                    break;
                }
            if (found < 0) {
                snprintf(r->config, sizeof r->config, "%s", u->c->config);
                row_fail(r, ROW_FAILED, "config '%s' is not in the tuning space of profile '%s' (%d configurations)",
                         u->c->config, pr->name, n);
                continue;
            }
            u->config[i] = found;
        }
        const char *d = pr->config(kcase, u->config[i]);
        snprintf(r->config, sizeof r->config, "%s", d ? d : "");
    }
}

/* One verified sequence of each open profile; those that pass become subjects. */
static void verify_profiles(run_unit *u)
{
    run_session *ss = u->s;
    char err[1200];
    for (int i = 0; i < u->np; i++) {
        klab_row *r = &u->rows[i];
        if (!row_open(r))
            continue;
        int cuda_err = 0;
        int rc = inst_verify_profile(&u->inst, u->prof[i], u->config[i], ss->env.stream, &cuda_err, err, sizeof err);
        if (rc == INST_UNSUPPORTED) {
            row_fail(r, ROW_SKIPPED, "%s", err);
            continue;
        }
        if (rc == INST_ERROR && cuda_err && cuda_error_is_sticky(cuda_err)) {
            row_fail(r, ROW_FAILED, "%s", err);
            char msg[1300];
            snprintf(msg, sizeof msg, "not run: profile '%s' lost the CUDA context before it", r->profile);
            fail_open_rows(u, ROW_FAILED, "%s", msg);
            u->lost = 1;
            return;
        }
        /* Whatever the run's verdict, its inputs are checked and refilled if it changed them, so a
           broken profile cannot fail the profiles after it. */
        char why[1200] = "";
        int changed = inst_inputs_changed(&u->inst, ss->env.stream, why, sizeof why);
        if (rc == INST_ERROR) {
            row_fail(r, ROW_FAILED, "%s", err);
            continue;
        }
        if (rc == INST_REFUSED) {
            row_fail(r, ROW_REFUSED, "%s", err);
            continue;
        }
        r->has_err = 1;
        r->rel_l2_err = u->inst.last.rel_l2_err;
        r->max_abs_err = u->inst.last.max_abs_err;
        r->tol = u->inst.last.tol;
        r->verified_elems = u->inst.verified_elems;
        if (rc == INST_MISMATCH) {
            row_fail(r, ROW_INCORRECT, "%s%s", err, changed > 0 ? "; and it changed its inputs" : "");
            continue;
        }
        if (changed != 0) {
            row_fail(r, changed > 0 ? ROW_INCORRECT : ROW_FAILED, "%s",
                     changed > 0 ? "input modified: run changed its inputs (checksum differs after one run)" : why);
            continue;
        }
        u->psub[u->ns] = (profile_subject){&u->inst, u->prof[i], u->config[i]};
        u->row_of[u->ns] = i;
        u->ns++;
    }
}

run_unit *unit_begin(run_session *ss, int unit, const cfg_case *c, klab_dtype dtype)
{
    const job *j = ss->j;
    const klab_plugin *d = &ss->lp.desc;
    run_unit *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->s = ss;
    u->c = c;
    u->dtype = dtype;
    u->to = j->topts;
    u->to.warmup = c->warmup;
    u->to.stop = c->stop;
    snprintf(u->label, sizeof u->label, "%s %s %s", d->name, c->name, dtype_name(dtype));

    wire_unit wu;
    memset(&wu, 0, sizeof wu);
    wu.unit = unit;
    snprintf(wu.kcase, sizeof wu.kcase, "%s", c->name);
    snprintf(wu.dtype, sizeof wu.dtype, "%s", dtype_name(dtype));
    snprintf(wu.shape, sizeof wu.shape, "%s", c->shape);
    for (int p = 0; p < ss->lp.nprofiles && u->np < MAX_PROFILES; p++)
        if (job_keeps_profile(c, &j->filter, d->profiles[p].name)) {
            u->prof[u->np] = p;
            snprintf(wu.profiles[u->np], sizeof wu.profiles[u->np], "%s", d->profiles[p].name);
            new_row(u, d->profiles[p].name);
            u->np++;
        }
    wu.nprofiles = u->np;
    if (u->np == 0)
        return u; /* nothing selected: no rows, nothing to do */
    ss->out->send(ss->out->user, WIRE_UNIT, &wu, sizeof wu);

    skip_for_device(u);
    built_case bc; /* configurations are a pure function of the case: named before any setup */
    case_build(&bc, c, dtype, d);
    pick_configs(u, &bc.kcase);
    int open = 0;
    for (int i = 0; i < u->np; i++)
        open += row_open(&u->rows[i]);
    if (!open)
        return u; /* nothing this device can run: setup would meet kernels it has no code for */

    char err[1200] = "";
    uint64_t seed = seed_mix(j->topts.seed, "klab");
    phase(u, "setup");
    if (timing_reset_l2(&ss->env, err, sizeof err) != 0) {
        fail_open_rows(u, ROW_FAILED, "%s", err);
        u->lost = ss->env.sticky != 0;
        return u;
    }
    u->inst_made = 1;
    int rc = inst_setup(&u->inst, &ss->lp, c, dtype, seed, ss->dev.cc, ss->env.stream, u->label, err, sizeof err);
    if (rc != INST_OK) {
        fail_open_rows(u, rc == INST_UNSUPPORTED ? ROW_SKIPPED : ROW_FAILED, rc == INST_UNSUPPORTED ? "%s" : "setup: %s",
                       err);
        cudaError_t e = cudaDeviceSynchronize();
        u->lost = e != cudaSuccess && cuda_error_is_sticky(e);
        return u;
    }
    for (int i = 0; i < u->np; i++) {
        u->rows[i].bytes = u->inst.work.bytes;
        u->rows[i].flops = u->inst.work.flops;
    }
    /* a plugin may have set a persisting-L2 window in setup: none survives into timing */
    if (timing_reset_l2(&ss->env, err, sizeof err) != 0) {
        fail_open_rows(u, ROW_FAILED, "%s", err);
        u->lost = ss->env.sticky != 0;
        return u;
    }

    phase(u, "reference");
    rc = inst_reference(&u->inst, err, sizeof err);
    if (rc != INST_OK) {
        fail_open_rows(u, rc == INST_REFUSED ? ROW_REFUSED : ROW_FAILED, "%s", err);
        return u;
    }

    phase(u, "verify");
    verify_profiles(u);
    if (!u->lost)
        u->ready = 1;
    return u;
}

int unit_ready(const run_unit *u)
{
    return u->ready;
}

int unit_tensor(const run_unit *u, const char *name, void **dev, klab_dtype *dtype, size_t *count)
{
    if (!u->ready)
        return -1;
    const klab_ctx *ctx = u->inst.ctx;
    for (int i = 0; i < ctx->ntensors; i++)
        if (strcmp(ctx->tensors[i].name, name) == 0) {
            *dev = ctx->ptr[i];
            *dtype = ctx->tensors[i].dtype;
            *count = ctx->tensors[i].count;
            return 0;
        }
    return -1;
}

int unit_add_external(run_unit *u, const external_subject *e)
{
    if (!u->ready || u->next == MAX_EXTERNAL)
        return -1;
    external_entry *x = &u->ext[u->next++];
    x->e = *e;
    x->row = u->nrows;
    klab_row *r = new_row(u, e->label);
    r->bytes = u->inst.work.bytes;
    r->flops = u->inst.work.flops;
    row_add_flag(r, "external");
    if (!e->result) {
        row_add_flag(r, "not-verified");
        return 0;
    }
    /* run it once and judge its output against the same float64 reference as the profiles */
    void *ptr = NULL;
    int dt = -1;
    size_t count = 0;
    if (e->result(e->user, &ptr, &dt, &count) != 0 || !ptr || (unsigned)dt >= KLAB_DTYPE_COUNT) {
        row_fail(r, ROW_FAILED, "%s: running it once to verify failed", e->label);
        return 0;
    }
    size_t bytes = count * klab_dtype_size((klab_dtype)dt);
    void *host = malloc(bytes ? bytes : 1);
    cudaError_t ce = host ? cudaMemcpy(host, ptr, bytes, cudaMemcpyDeviceToHost) : cudaErrorMemoryAllocation;
    if (ce != cudaSuccess) {
        free(host);
        row_fail(r, ROW_FAILED, "%s: reading its output: %s", e->label, cudaGetErrorString(ce));
        return 0;
    }
    verify_result vr;
    char err[600];
    int rc = inst_compare_external(&u->inst, host, (klab_dtype)dt, count, &vr, err, sizeof err);
    free(host);
    if (rc == INST_ERROR || rc == INST_REFUSED) {
        row_fail(r, rc == INST_REFUSED ? ROW_REFUSED : ROW_FAILED, "%s: %s", e->label, err);
        return 0;
    }
    r->has_err = 1;
    r->rel_l2_err = vr.rel_l2_err;
    r->max_abs_err = vr.max_abs_err;
    r->tol = vr.tol;
    r->verified_elems = (long long)u->inst.out[0].nsample;
    if (rc == INST_MISMATCH)
        row_fail(r, ROW_INCORRECT, "%s", vr.msg);
    else
        row_add_flag(r, "verified-before-timing"); /* its later outputs are its own tensors: not poisoned */
    return 0;
}

/* The unit's subjects for the timer: verified profiles, verified externals, then klab's copy. Returns
   how many; *copy_at is the copy's index, or -1. */
static int make_subjects(run_unit *u, subject *subs, copy_ref *copy, int *copy_at)
{
    int n = 0;
    for (int k = 0; k < u->ns; k++) {
        const klab_profile *pr = &u->s->lp.profiles[u->psub[k].profile];
        subs[n].label = u->rows[u->row_of[k]].profile;
        subs[n].ops = pr->flags & KLAB_PROFILE_FIXED_TENSORS ? &fixed_profile_ops : &profile_ops;
        subs[n].self = &u->psub[k];
        subs[n].steps = inst_has_steps(&u->inst) ? u->inst.bc.kcase.steps : 0;
        subs[n].owns_graph = (pr->flags & KLAB_PROFILE_OWNS_GRAPH) != 0;
        n++;
    }
    for (int k = 0; k < u->next; k++) {
        if (u->rows[u->ext[k].row].status != ROW_PASSED)
            continue;
        u->row_of[n] = u->ext[k].row;
        subs[n].label = u->ext[k].e.label;
        subs[n].ops = &external_ops;
        subs[n].self = &u->ext[k].e;
        subs[n].owns_graph = 1; /* PyTorch cannot be captured into klab's graph: queued instead */
        n++;
    }
    *copy_at = -1;
    if (copy) {
        *copy_at = n;
        subs[n].label = "copy-ref";
        subs[n].ops = &copy_ref_ops;
        subs[n].self = copy;
        n++;
    }
    return n;
}

/* The timed rows: each subject's outcome, then its numbers against the copy and the baseline. */
static void judge_timing(run_unit *u, subject *subs, int nsub, int copy_at)
{
    run_session *ss = u->s;
    char err[1200] = "";
    int changed = inst_inputs_changed(&u->inst, ss->env.stream, err, sizeof err);
    const subject *base = NULL;
    for (int k = 0; k < u->ns; k++)
        if (ss->lp.baseline == u->psub[k].profile && subs[k].state == SUBJ_OK)
            base = &subs[k];
    roofline roof = roofline_for_dtype(&ss->roof, u->dtype);
    for (int k = 0; k < nsub; k++) {
        if (k == copy_at)
            continue;
        klab_row *r = &u->rows[u->row_of[k]];
        subject *sb = &subs[k];
        if (sb->state != SUBJ_OK) {
            row_fail(r, sb->state == SUBJ_INCORRECT ? ROW_INCORRECT : sb->state == SUBJ_ESCAPED ? ROW_FLAGGED : ROW_FAILED,
                     "%s", sb->why);
            continue;
        }
        if (changed != 0) {
            row_fail(r, changed > 0 ? ROW_INCORRECT : ROW_FAILED, "%s",
                     changed > 0 ? "input modified during timing (checksum differs after the timed runs)" : err);
            continue;
        }
        results_fill_timing(r, sb, &roof, ss->env.launch_floor_ms, &u->to);
        results_fill_limit(r, copy_at >= 0 ? &subs[copy_at] : NULL, &roof);
        results_fill_speedup(r, sb, base);
        if (sb->steps > 0 && r->has_time) {
            /* a step row is a distribution: its raw samples go to the parent, which writes them beside
               the CSV (samples_file.h), and the row names the file relative to the run folder */
            if (wire_send_samples(ss->out->send, ss->out->user, r->plugin, r->kcase, r->dtype, r->profile,
                                  sb->samples, sb->sample_tags, sb->n) == 0) {
                char rel[sizeof r->samples_file];
                snprintf(rel, sizeof rel, "%s.samples/%s.%s.%s.csv", r->plugin, r->kcase, r->dtype, r->profile);
                memcpy(r->samples_file, rel, sizeof rel);
            }
        }
    }
}

int unit_finish(run_unit *u)
{
    run_session *ss = u->s;
    char err[1200] = "";
    subject subs[MAX_SUBJECTS];
    int nsub = 0, copy_at = -1;
    copy_ref *copy = NULL;
    memset(subs, 0, sizeof subs);
    int timed = u->ready && (u->ns > 0 || u->next > 0) && !ss->j->verify_only;
    if (u->ready && ss->j->verify_only)
        for (int i = 0; i < u->nrows; i++)
            if (u->rows[i].status == ROW_PASSED)
                row_add_flag(&u->rows[i], "verify-only");
    if (timed) {
        copy = copy_ref_open(u->inst.work.bytes, seed_mix(ss->j->topts.seed, "copy"), ss->env.stream, err, sizeof err);
        if (!copy && u->inst.work.bytes > 0)
            worker_text(ss->out, WIRE_NOTE, "%s: copy reference unavailable, no fraction of limit: %s", u->label, err);
        phase(u, "timing");
        nsub = make_subjects(u, subs, copy, &copy_at);
        if (timing_measure(&ss->env, subs, nsub, &u->to, err, sizeof err) != 0) {
            fail_open_rows(u, ROW_FAILED, "timing: %s", err);
            u->lost = ss->env.sticky != 0;
        } else {
            judge_timing(u, subs, nsub, copy_at);
        }
    }
    if (u->np)
        phase(u, "teardown");
    if (!u->lost && u->inst_made) {
        /* a plugin may have lost the context and said only "error": find out before tearing down */
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess && cuda_error_is_sticky(e)) {
            char msg[300];
            snprintf(msg, sizeof msg, "CUDA error %d: %s (context lost)", (int)e, cudaGetErrorString(e));
            fail_open_rows(u, ROW_FAILED, "%s", msg);
            u->lost = 1;
        }
    }
    if (!u->lost) {
        copy_ref_close(copy);
        if (u->inst_made)
            inst_teardown(&u->inst);
    } /* with the context lost, teardown would only meet the same error; the worker exits */
    for (int k = 0; k < nsub; k++)
        timing_subject_free(&subs[k]);
    for (int i = 0; i < u->nrows; i++)
        ss->out->send(ss->out->user, WIRE_ROW, &u->rows[i], sizeof u->rows[i]);
    int lost = u->lost;
    free(u);
    return lost ? -1 : 0;
}

/* ---- the session ---- */

run_session *session_open(const job *j, const job_out *out, int *fatal)
{
    *fatal = 0;
    run_session *ss = calloc(1, sizeof *ss);
    if (!ss) {
        worker_text(out, WIRE_FATAL, "out of memory");
        *fatal = 1;
        return NULL;
    }
    ss->j = j;
    ss->out = out;
    if (worker_load(j, out, &ss->lp) != 0 || (j->cfg && worker_check_config(j, out, &ss->lp) != 0)) {
        free(ss);
        return NULL; /* reported; the parent goes on with the next plugin */
    }
    if (worker_init_device(j, out, &ss->dev, &ss->env) != 0) {
        timing_env_free(&ss->env);
        free(ss);
        *fatal = 1;
        return NULL;
    }
    roofline_from_device(&ss->dev, &ss->roof);
    return ss;
}

klab_stream run_session_stream(const run_session *ss)
{
    return ss->env.stream;
}

void session_close(run_session *ss)
{
    if (!ss)
        return;
    timing_env_free(&ss->env);
    free(ss);
}
