#include "runner.h"

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_instance.h"
#include "dtype.h"
#include "gpu_kernels.h"
#include "loader.h"
#include "roofline.h"
#include "stats.h"

#define LAUNCH_BOUND_MS 0.010 /* under 10 us a row shows the empty-launch floor beside it */
#define MAX_ROWS_PER_RUN 20000

static int send_text(const job_out *out, wire_type t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int send_text(const job_out *out, wire_type t, const char *fmt, ...)
{
    wire_text m;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m.text, sizeof m.text, fmt, ap);
    va_end(ap);
    return out->send(out->user, t, &m, sizeof m);
}

static int name_in(const char *name, char (*list)[64], int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

int job_keeps_profile(const cfg_case *c, const run_filter *f, const char *profile)
{
    if (c->nprofiles && !name_in(profile, (char(*)[64])c->profiles, c->nprofiles))
        return 0;
    return f->nprofiles == 0 || name_in(profile, (char(*)[64])f->profiles, f->nprofiles);
}

int job_units(const cfg_experiment *cfg, const run_filter *f, int u, int *case_index, klab_dtype *dtype)
{
    int n = 0;
    for (int i = 0; i < cfg->ncases; i++) {
        const cfg_case *c = &cfg->cases[i];
        if (f->ncases && !name_in(c->name, (char(*)[64])f->cases, f->ncases))
            continue;
        for (int k = 0; k < c->ndtypes; k++) {
            if (f->dtypes && !(f->dtypes & KLAB_DTYPE_BIT(c->dtypes[k])))
                continue;
            if (n == u) {
                *case_index = i;
                *dtype = c->dtypes[k];
            }
            n++;
        }
    }
    return n;
}

static void describe(const loaded_plugin *lp, wire_plugin *w)
{
    memset(w, 0, sizeof *w);
    const klab_plugin *d = &lp->desc;
    snprintf(w->name, sizeof w->name, "%s", d->name);
    snprintf(w->version, sizeof w->version, "%s", d->version ? d->version : "");
    snprintf(w->summary, sizeof w->summary, "%s", d->summary ? d->summary : "");
    snprintf(w->path, sizeof w->path, "%s", lp->path);
    w->abi_major = d->abi_major;
    w->abi_minor = d->abi_minor;
    for (int i = 0; i < lp->nprofiles && i < 16; i++) {
        snprintf(w->profiles[i], sizeof w->profiles[i], "%s", d->profiles[i].name);
        snprintf(w->profile_summary[i], sizeof w->profile_summary[i], "%s",
                 d->profiles[i].summary ? d->profiles[i].summary : "");
        w->nprofiles = i + 1;
    }
    snprintf(w->baseline, sizeof w->baseline, "%s", d->baseline ? d->baseline : "");
    w->dtypes = d->dtypes;
    w->min_cc = d->min_cc;
    for (const char *const *p = d->params; p && *p; p++)
        snprintf(w->params + strlen(w->params), sizeof w->params - strlen(w->params), "%s%s",
                 w->params[0] ? "," : "", *p);
}

static int load(const job *j, const job_out *out, loaded_plugin *lp)
{
    char err[1200];
    if (loader_open(j->plugin_path, j->plugin_name[0] ? j->plugin_name : NULL, lp, err, sizeof err) != 0) {
        send_text(out, WIRE_REFUSED, "%s", err);
        return -1;
    }
    wire_plugin w;
    describe(lp, &w);
    out->send(out->user, WIRE_PLUGIN, &w, sizeof w);
    return 0;
}

static int check_config(const job *j, const job_out *out, const loaded_plugin *lp)
{
    const char *names[LOADER_MAX_PROFILES];
    for (int i = 0; i < lp->nprofiles; i++)
        names[i] = lp->desc.profiles[i].name;
    char err[1200];
    if (cfg_check_plugin(j->cfg, names, lp->nprofiles, lp->desc.dtypes, lp->desc.params, NULL, err, sizeof err) != 0) {
        send_text(out, WIRE_REFUSED, "%s", err);
        return -1;
    }
    long rows = cfg_row_count(j->cfg, lp->nprofiles);
    if (rows > MAX_ROWS_PER_RUN) {
        send_text(out, WIRE_REFUSED, "%s: asks for %ld case x dtype x profile rows; more than %d is surely a mistake",
                  j->cfg->path, rows, MAX_ROWS_PER_RUN);
        return -1;
    }
    return 0;
}

/* ---- subjects: a profile of a case instance, timed by timing.c ---- */

typedef struct profile_subject {
    case_instance *inst;
    int profile;
} profile_subject;

static int ps_launch(void *self, klab_stream s, int replica, int64_t step, char *err, size_t errlen)
{
    profile_subject *p = self;
    (void)replica; /* ABI 1: one set of tensors, no steps (the ABI 2 runner replaces this) */
    (void)step;
    p->inst->ctx->has_err = 0; /* this launch's reason, not an earlier one's */
    klab_status st = p->inst->lp->desc.run(p->inst->state, p->profile, s);
    if (st != KLAB_OK) {
        snprintf(err, errlen, "run: %s", ctx_error(p->inst->ctx, "failed without a reason"));
        return -1;
    }
    return 0;
}

static int ps_poison(void *self, klab_stream s, int replica, char *err, size_t errlen)
{
    (void)replica;
    return inst_poison(((profile_subject *)self)->inst, s, err, errlen);
}

static int ps_stage(void *self, klab_stream s, char *err, size_t errlen)
{
    return inst_stage(((profile_subject *)self)->inst, s, err, errlen);
}

static int ps_check(void *self, char *err, size_t errlen)
{
    return inst_compare(((profile_subject *)self)->inst, err, errlen) == INST_OK ? 0 : 1;
}

static const subject_ops profile_ops = {ps_launch, ps_poison, ps_stage, ps_check, NULL, NULL};

/* ---- a session: one plugin on one device; a unit: one case and dtype, all selected profiles ---- */

struct run_session {
    const job *j;
    const job_out *out;
    loaded_plugin lp;
    loaded_plugin ceiling_lp;
    const loaded_plugin *ceiling; /* vector_add, whose vectorized copy is the limit; or NULL */
    int ceiling_profile;
    timing_env env;
    device_info dev;
    roofline roof;
};

#define MAX_PROFILES LOADER_MAX_PROFILES
#define MAX_SUBJECTS (MAX_PROFILES + MAX_EXTERNAL + 1)

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
    int np, prof[MAX_PROFILES];
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
    send_text(u->s->out, WIRE_PHASE, "%s", what);
}

static void fill_timing(klab_row *r, const subject *s, const run_session *ss, const timing_opts *o)
{
    stats st;
    if (stats_compute(s->samples, s->n, &st) != 0 || st.n == 0) {
        r->status = ROW_FLAGGED;
        if (s->discarded)
            snprintf(r->reason, sizeof r->reason,
                     "no accepted sample: all %d ran below %.0f%% of the peak SM clock (throttled)",
                     s->discarded, 100 * o->throttle);
        else
            snprintf(r->reason, sizeof r->reason, "no accepted sample within the budget of %.0f ms",
                     o->stop.budget_ms);
        return;
    }
    r->has_time = 1;
    r->reps = (int)st.n;
    r->discarded = s->discarded;
    r->median_ms = st.median;
    r->has_ci = st.has_ci;
    r->median_lo = st.median_lo;
    r->median_hi = st.median_hi;
    r->precision = st.precision;
    r->p95_ms = st.p95;
    r->p99_ms = st.p99;
    r->min_ms = st.min;
    r->max_ms = st.max;
    r->mean_ms = st.mean;
    r->noise = st.noise;
    r->gbps = r->bytes / st.median / 1e6;
    r->tflops = r->flops / st.median / 1e9;
    r->sm_mhz = s->clock_mhz;
    if (r->batch == 0)
        r->batch = 1; /* a plain launch: one run a sample */
    if ((int)st.n < o->stop.min_reps)
        row_add_flag(r, "few-samples");
    if (st.median < LAUNCH_BOUND_MS) {
        r->launch_floor_ms = ss->env.launch_floor_ms;
        row_add_flag(r, "launch-bound");
    }
    char why[256];
    if (o->mode != TIMING_HOT && roofline_exceeds(&ss->roof, r->gbps, r->tflops, why, sizeof why)) {
        row_add_flag(r, "exceeds-roofline");
        r->status = ROW_FLAGGED;
        snprintf(r->reason, sizeof r->reason, "%s: cannot support a decision", why);
    }
}

/* Fraction of limit: against klab's copy at the same bytes in the same rounds, or against the tensor
   peak, whichever the row is closer to (a roofline read). */
static void fill_limit(klab_row *r, const subject *copy, const run_session *ss)
{
    if (!r->has_time)
        return;
    double mem = 0, flop = 0;
    stats cs;
    if (copy && copy->state == SUBJ_OK && stats_compute(copy->samples, copy->n, &cs) == 0 && cs.n &&
        r->bytes > 0) {
        r->limit_gbps = r->bytes / cs.median / 1e6;
        mem = r->gbps / r->limit_gbps;
    }
    if (r->flops > 0 && ss->roof.tensor_tflops > 0)
        flop = r->tflops / ss->roof.tensor_tflops;
    if (mem <= 0 && flop <= 0)
        return;
    r->has_limit = 1;
    if (mem >= flop) {
        snprintf(r->limit, sizeof r->limit, "copy");
        r->frac_limit = mem;
    } else {
        snprintf(r->limit, sizeof r->limit, "tensor-peak");
        r->frac_limit = flop;
    }
}

static void fail_open_rows(run_unit *u, row_status st, const char *fmt, const char *reason)
{
    for (int i = 0; i < u->nrows; i++)
        if (u->rows[i].status == ROW_PASSED && !u->rows[i].reason[0])
            row_fail(&u->rows[i], st, fmt, reason);
}

/* klab's copy over the unit's bytes, verified once; NULL when unavailable (the note says why). */
static case_instance *ceiling_setup(run_session *ss, double bytes, uint64_t seed, char *note, size_t notelen)
{
    if (!ss->ceiling || ss->ceiling_profile < 0 || bytes <= 0)
        return NULL;
    static cfg_case cc; /* static: the instance keeps pointing at its name and params */
    memset(&cc, 0, sizeof cc);
    snprintf(cc.name, sizeof cc.name, "copy-ref");
    cc.nparams = 1;
    snprintf(cc.param_key[0], sizeof cc.param_key[0], "op");
    snprintf(cc.param_val[0], sizeof cc.param_val[0], "copy");
    cc.rank = 1;
    cc.dims[0] = (int64_t)((bytes + 7) / 8); /* fp32 copy: 4 bytes read + 4 written an element */
    for (int i = 1; i < KLAB_MAX_RANK; i++)
        cc.dims[i] = 1;
    case_instance *ci = calloc(1, sizeof *ci);
    char err[600];
    int cuda_err = 0;
    if (!ci)
        return NULL;
    if (inst_setup(ci, ss->ceiling, &cc, KLAB_FP32, seed, ss->dev.cc, ss->env.stream, "copy-ref", err, sizeof err) != INST_OK ||
        inst_reference(ci, err, sizeof err) != INST_OK ||
        inst_verify_profile(ci, ss->ceiling_profile, ss->env.stream, &cuda_err, err, sizeof err) != INST_OK) {
        snprintf(note, notelen, "copy reference unavailable, no fraction of limit: %s", err);
        inst_teardown(ci);
        free(ci);
        return NULL;
    }
    return ci;
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

    if (d->min_cc > ss->dev.cc) {
        char msg[300];
        snprintf(msg, sizeof msg, "needs compute capability %d.%d; device %d (%s) is %d.%d", d->min_cc / 10,
                 d->min_cc % 10, ss->dev.ordinal, ss->dev.name, ss->dev.cc / 10, ss->dev.cc % 10);
        fail_open_rows(u, ROW_SKIPPED, "%s", msg);
        return u;
    }

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
    for (int i = 0; i < u->np; i++) {
        int cuda_err = 0;
        klab_row *r = &u->rows[i];
        rc = inst_verify_profile(&u->inst, u->prof[i], ss->env.stream, &cuda_err, err, sizeof err);
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
            return u;
        }
        /* Whatever the run's verdict, its inputs are checked and refilled if it changed them, so a
           broken profile cannot fail the profiles after it. */
        char why[1200] = "";
        int changed = inst_inputs_changed(&u->inst, ss->env.stream, why, sizeof why);
        if (rc == INST_ERROR) {
            row_fail(r, ROW_FAILED, "%s", err);
            continue;
        }
        r->has_err = 1;
        r->rel_l2_err = u->inst.last.rel_l2_err;
        r->max_abs_err = u->inst.last.max_abs_err;
        r->tol = u->inst.tol;
        if (rc == INST_MISMATCH) {
            row_fail(r, ROW_INCORRECT, "%s%s", err, changed > 0 ? "; and it changed its inputs" : "");
            continue;
        }
        if (changed != 0) {
            row_fail(r, changed > 0 ? ROW_INCORRECT : ROW_FAILED, "%s",
                     changed > 0 ? "input modified: run changed its inputs (checksum differs after one run)" : why);
            continue;
        }
        u->psub[u->ns].inst = &u->inst;
        u->psub[u->ns].profile = u->prof[i];
        u->row_of[u->ns] = i;
        u->ns++;
    }
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
            *dev = ctx->tensors[i].dev;
            *dtype = ctx->tensors[i].dtype;
            *count = ctx->tensors[i].count;
            return 0;
        }
    return -1;
}

typedef struct ext_self {
    const external_subject *e;
} ext_self;

static int ext_launch(void *self, klab_stream s, int replica, int64_t step, char *err, size_t errlen)
{
    const external_subject *e = self;
    (void)replica;
    (void)step;
    if (e->launch(e->user, s) != 0) {
        snprintf(err, errlen, "%s: its launch failed", e->label);
        return -1;
    }
    return 0;
}

static const subject_ops external_ops = {ext_launch, NULL, NULL, NULL, NULL, NULL};

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
    if (u->inst.nout < 1 || count != u->inst.ref_count[0]) {
        row_fail(r, ROW_FAILED, "%s: its output has %zu elements, the reference %zu", e->label, count,
                 u->inst.nout ? u->inst.ref_count[0] : 0);
        return 0;
    }
    size_t bytes = count * dtype_size((klab_dtype)dt);
    void *host = malloc(bytes);
    cudaError_t ce = host ? cudaMemcpy(host, ptr, bytes, cudaMemcpyDeviceToHost) : cudaErrorMemoryAllocation;
    if (ce != cudaSuccess) {
        free(host);
        row_fail(r, ROW_FAILED, "%s: reading its output: %s", e->label, cudaGetErrorString(ce));
        return 0;
    }
    verify_result vr;
    verify_compare("y", u->inst.ref[0], host, (klab_dtype)dt, count, u->inst.tol, &vr);
    free(host);
    r->has_err = 1;
    r->rel_l2_err = vr.rel_l2_err;
    r->max_abs_err = vr.max_abs_err;
    r->tol = vr.tol;
    if (vr.verdict != VERIFY_PASS)
        row_fail(r, ROW_INCORRECT, "%s", vr.msg);
    else
        row_add_flag(r, "verified-before-timing"); /* its later outputs are its own tensors: not poisoned */
    return 0;
}

int unit_finish(run_unit *u)
{
    run_session *ss = u->s;
    char err[1200] = "";
    subject subs[MAX_SUBJECTS];
    int nsub = 0, copy_at = -1;
    case_instance *copy = NULL;
    memset(subs, 0, sizeof subs);
    int timed = u->ready && (u->ns > 0 || u->next > 0) && !ss->j->verify_only;
    if (u->ready && ss->j->verify_only)
        for (int i = 0; i < u->nrows; i++)
            if (u->rows[i].status == ROW_PASSED)
                row_add_flag(&u->rows[i], "verify-only");
    if (timed) {
        char note[1300] = "";
        copy = ceiling_setup(ss, u->inst.work.bytes, seed_mix(ss->j->topts.seed, "copy"), note, sizeof note);
        if (!copy && note[0])
            send_text(ss->out, WIRE_NOTE, "%s: %s", u->label, note);
        phase(u, "timing");
        for (int k = 0; k < u->ns; k++) {
            subs[nsub].label = u->rows[u->row_of[k]].profile;
            subs[nsub].ops = &profile_ops;
            subs[nsub].self = &u->psub[k];
            nsub++;
        }
        for (int k = 0; k < u->next; k++) {
            if (u->rows[u->ext[k].row].status != ROW_PASSED)
                continue;
            u->row_of[nsub] = u->ext[k].row;
            subs[nsub].label = u->ext[k].e.label;
            subs[nsub].ops = &external_ops;
            subs[nsub].self = &u->ext[k].e;
            subs[nsub].owns_graph = 1; /* PyTorch cannot be captured into klab's graph: queued instead */
            nsub++;
        }
        profile_subject copy_ps = {copy, ss->ceiling_profile};
        if (copy) {
            copy_at = nsub;
            subs[nsub].label = "copy-ref";
            subs[nsub].ops = &profile_ops;
            subs[nsub].self = &copy_ps;
            nsub++;
        }
        if (timing_measure(&ss->env, subs, nsub, &u->to, err, sizeof err) != 0) {
            fail_open_rows(u, ROW_FAILED, "timing: %s", err);
            u->lost = ss->env.sticky != 0;
        } else {
            int changed = inst_inputs_changed(&u->inst, ss->env.stream, err, sizeof err);
            const subject *base = NULL;
            for (int k = 0; k < u->ns; k++)
                if (ss->lp.baseline == u->psub[k].profile && subs[k].state == SUBJ_OK)
                    base = &subs[k];
            stats bs;
            int have_base = base && stats_compute(base->samples, base->n, &bs) == 0 && bs.n;
            for (int k = 0; k < nsub; k++) {
                if (k == copy_at)
                    continue;
                klab_row *r = &u->rows[u->row_of[k]];
                subject *sb = &subs[k];
                if (sb->state != SUBJ_OK) {
                    row_fail(r, sb->state == SUBJ_INCORRECT ? ROW_INCORRECT
                                : sb->state == SUBJ_ESCAPED ? ROW_FLAGGED : ROW_FAILED, "%s", sb->why);
                    continue;
                }
                if (changed != 0) {
                    row_fail(r, changed > 0 ? ROW_INCORRECT : ROW_FAILED, "%s",
                             changed > 0 ? "input modified during timing (checksum differs after the timed runs)" : err);
                    continue;
                }
                fill_timing(r, sb, ss, &u->to);
                int batch;
                double footprint;
                char note[256];
                timing_row_mode(sb, &u->to, r->l2, sizeof r->l2, r->launch, sizeof r->launch, &batch, &footprint,
                                note, sizeof note);
                if (note[0])
                    row_add_flag(r, "not-rotated");
                fill_limit(r, copy_at >= 0 ? &subs[copy_at] : NULL, ss);
                if (have_base && r->has_time) {
                    r->has_speedup = 1;
                    r->speedup = bs.median / r->median_ms;
                    r->has_speedup_ci = stats_ratio_interval(base->samples, base->n, sb->samples, sb->n,
                                                             &r->speedup_lo, &r->speedup_hi) == 0;
                }
            }
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
        if (copy)
            inst_teardown(copy);
        if (u->inst_made)
            inst_teardown(&u->inst);
    } /* with the context lost, teardown would only meet the same error; the worker exits */
    free(copy);
    for (int k = 0; k < nsub; k++)
        timing_subject_free(&subs[k]);
    for (int i = 0; i < u->nrows; i++)
        ss->out->send(ss->out->user, WIRE_ROW, &u->rows[i], sizeof u->rows[i]);
    int lost = u->lost;
    free(u);
    return lost ? -1 : 0;
}

/* ---- jobs ---- */

static int init_device(const job *j, const job_out *out, device_info *dev, timing_env *env)
{
    char err[600];
    if (device_info_query(j->device, dev, err, sizeof err) != 0 ||
        timing_env_init(env, dev, err, sizeof err) != 0) {
        send_text(out, WIRE_FATAL, "%s", err);
        return -1;
    }
    wire_device wd;
    memset(&wd, 0, sizeof wd);
    wd.info = *dev;
    wd.launch_floor_ms = env->launch_floor_ms;
    wd.flush_bytes = (double)env->flush_bytes;
    roofline r;
    roofline_from_device(dev, &r);
    wd.mem_gbps = r.mem_gbps;
    wd.tensor_tflops = r.tensor_tflops;
    out->send(out->user, WIRE_DEVICE, &wd, sizeof wd);
    return 0;
}

run_session *session_open(const job *j, const job_out *out, int *fatal)
{
    *fatal = 0;
    run_session *ss = calloc(1, sizeof *ss);
    if (!ss) {
        send_text(out, WIRE_FATAL, "out of memory");
        *fatal = 1;
        return NULL;
    }
    ss->j = j;
    ss->out = out;
    ss->ceiling_profile = -1;
    if (load(j, out, &ss->lp) != 0 || (j->cfg && check_config(j, out, &ss->lp) != 0)) {
        free(ss);
        return NULL; /* reported; the parent goes on with the next plugin */
    }
    if (init_device(j, out, &ss->dev, &ss->env) != 0) {
        timing_env_free(&ss->env);
        free(ss);
        *fatal = 1;
        return NULL;
    }
    roofline_from_device(&ss->dev, &ss->roof);
    char err[1200];
    if (j->ceiling_path[0]) {
        if (loader_open(j->ceiling_path, "vector_add", &ss->ceiling_lp, err, sizeof err) == 0) {
            ss->ceiling = &ss->ceiling_lp;
            ss->ceiling_profile = loader_profile_index(&ss->ceiling_lp, "vectorized");
        } else {
            send_text(out, WIRE_NOTE, "no fraction of limit: the copy reference did not load: %s", err);
        }
    }
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

static int job_run(const job *j, const job_out *out)
{
    int fatal;
    run_session *ss = session_open(j, out, &fatal);
    if (!ss)
        return fatal ? 1 : 0;
    int n = job_units(j->cfg, &j->filter, -1, NULL, NULL);
    for (int k = j->start_unit; k < n; k++) {
        int ci;
        klab_dtype dt;
        job_units(j->cfg, &j->filter, k, &ci, &dt);
        run_unit *u = unit_begin(ss, k, &j->cfg->cases[ci], dt);
        if (!u || unit_finish(u) != 0)
            return WIRE_EXIT_CONTEXT_LOST; /* the parent starts a fresh worker at the next unit */
    }
    session_close(ss);
    int status = 0;
    out->send(out->user, WIRE_DONE, &status, sizeof status);
    return 0;
}

static int job_validate(const job *j, const job_out *out)
{
    loaded_plugin lp;
    if (load(j, out, &lp) != 0 || check_config(j, out, &lp) != 0)
        return 0;
    const cfg_experiment *e = j->cfg;
    for (int i = 0; i < e->ncases; i++) {
        const cfg_case *c = &e->cases[i];
        char dts[64] = "", profs[512] = "";
        for (int k = 0; k < c->ndtypes; k++)
            snprintf(dts + strlen(dts), sizeof dts - strlen(dts), "%s%s", k ? "," : "", dtype_name(c->dtypes[k]));
        int np = 0;
        for (int p = 0; p < lp.nprofiles; p++)
            if (!c->nprofiles || name_in(lp.desc.profiles[p].name, (char(*)[64])c->profiles, c->nprofiles)) {
                snprintf(profs + strlen(profs), sizeof profs - strlen(profs), "%s%s", np ? "," : "",
                         lp.desc.profiles[p].name);
                np++;
            }
        char work[128] = "";
        if (lp.desc.work) {
            klab_case kc = {c->name, c->rank, {0}, c->dtypes[0], 0, NULL};
            memcpy(kc.dims, c->dims, sizeof kc.dims);
            klab_work w = {0, 0};
            lp.desc.work(&kc, &w);
            snprintf(work, sizeof work, ", %.1f MB moved at %s", w.bytes / 1e6, dtype_name(c->dtypes[0]));
        }
        send_text(out, WIRE_NOTE, "  case %-14s shape %-12s dtypes %-14s profiles %s%s", c->name, c->shape,
                  dts, profs, work);
    }
    send_text(out, WIRE_NOTE, "  %ld rows (case x dtype x profile)", cfg_row_count(e, lp.nprofiles));
    int status = 0;
    out->send(out->user, WIRE_DONE, &status, sizeof status);
    return 0;
}

/* ---- the timer's self-test: spins of known length, measured by %globaltimer inside the kernel ---- */

typedef struct spin_subject {
    unsigned long long ns;
    unsigned long long *measured; /* device slot */
} spin_subject;

static int spin_launch(void *self, klab_stream s, int replica, int64_t step, char *err, size_t errlen)
{
    spin_subject *sp = self;
    (void)replica;
    (void)step;
    int e = gpu_spin_ns(sp->ns, sp->measured, s);
    if (e) {
        snprintf(err, errlen, "spin launch: %s", cudaGetErrorString((cudaError_t)e));
        return -1;
    }
    return 0;
}

static const subject_ops spin_ops = {spin_launch, NULL, NULL, NULL, NULL, NULL};

static int job_self_test(const job *j, const job_out *out)
{
    device_info dev;
    timing_env env;
    if (init_device(j, out, &dev, &env) != 0)
        return 1;
    const unsigned long long lens[2] = {50000, 500000};
    unsigned long long *slots;
    int bad = 0;
    if (cudaMalloc((void **)&slots, 2 * sizeof *slots) != cudaSuccess) {
        send_text(out, WIRE_FATAL, "self-test: cudaMalloc failed");
        return 1;
    }
    send_text(out, WIRE_NOTE, "empty launch (event pair around an empty kernel): %.4f ms", env.launch_floor_ms);
    for (int i = 0; i < 2; i++) {
        spin_subject sp = {lens[i], slots + i};
        subject s;
        memset(&s, 0, sizeof s);
        s.label = "spin";
        s.ops = &spin_ops;
        s.self = &sp;
        timing_opts o = j->topts;
        o.warmup = 3;
        o.stop.min_reps = 20;
        o.stop.max_reps = 200;
        o.stop.precision = 0.001;
        o.stop.budget_ms = 1000;
        o.escape_checks = 0;
        char err[600];
        if (timing_measure(&env, &s, 1, &o, err, sizeof err) != 0 || s.state != SUBJ_OK) {
            send_text(out, WIRE_NOTE, "spin %llu us: FAILED: %s", lens[i] / 1000, s.state ? s.why : err);
            bad = 1;
            timing_subject_free(&s);
            continue;
        }
        unsigned long long measured = 0;
        cudaMemcpy(&measured, slots + i, sizeof measured, cudaMemcpyDeviceToHost);
        stats st;
        stats_compute(s.samples, s.n, &st);
        /* Every event-timed sample carries the empty launch's event time (the floor) on top of the
           kernel's own; the check is that nothing else does. */
        double want = measured / 1e6, raw = 100 * (st.median - want) / want;
        double floor_ms = o.mode == TIMING_BATCHED ? 0 : env.launch_floor_ms; /* batched: paid once per N */
        double net = 100 * (st.median - floor_ms - want) / want;
        int ok = net <= 3 && net >= -3;
        bad |= !ok;
        send_text(out, WIRE_NOTE,
                  "spin %4llu us: events %.4f ms (median of %zu), the kernel's own %%globaltimer %.4f ms: "
                  "%+.2f %% raw, %+.2f %% less the launch floor  %s",
                  lens[i] / 1000, st.median, st.n, want, raw, net, ok ? "ok (within 3 %)" : "OUTSIDE 3 %");
        timing_subject_free(&s);
    }
    cudaFree(slots);
    timing_env_free(&env);
    out->send(out->user, WIRE_DONE, &bad, sizeof bad);
    return 0;
}

int job_execute(const job *j, const job_out *out)
{
    int version = WIRE_VERSION;
    out->send(out->user, WIRE_HELLO, &version, sizeof version);
    switch (j->kind) {
    case JOB_DESCRIBE: {
        loaded_plugin lp;
        if (load(j, out, &lp) == 0) {
            int status = 0;
            out->send(out->user, WIRE_DONE, &status, sizeof status);
        }
        return 0;
    }
    case JOB_VALIDATE:
        return job_validate(j, out);
    case JOB_RUN:
        return job_run(j, out);
    case JOB_SELF_TEST:
        return job_self_test(j, out);
    case JOB_PROBE: {
        device_info dev;
        timing_env env;
        if (init_device(j, out, &dev, &env) != 0)
            return 1;
        timing_env_free(&env);
        int status = 0;
        out->send(out->user, WIRE_DONE, &status, sizeof status);
        return 0;
    }
    }
    return 1;
}
