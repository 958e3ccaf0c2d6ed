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
    const char *names[64];
    for (int i = 0; i < lp->nprofiles && i < 64; i++)
        names[i] = lp->desc.profiles[i].name;
    char err[1200];
    if (cfg_check_plugin(j->cfg, names, lp->nprofiles, lp->desc.dtypes, lp->desc.params, err, sizeof err) != 0) {
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

static int ps_launch(void *self, klab_stream s, char *err, size_t errlen)
{
    profile_subject *p = self;
    klab_status st = p->inst->lp->desc.run(p->inst->state, p->profile, s);
    if (st != KLAB_OK) {
        snprintf(err, errlen, "run: %s", ctx_error(p->inst->ctx, "failed without a reason"));
        return -1;
    }
    return 0;
}

static int ps_poison(void *self, klab_stream s, char *err, size_t errlen)
{
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

static const subject_ops profile_ops = {ps_launch, ps_poison, ps_stage, ps_check};

/* ---- one unit: a case and a dtype, all selected profiles ---- */

typedef struct unit_ctx {
    const job *j;
    const job_out *out;
    const loaded_plugin *lp;
    const loaded_plugin *ceiling; /* vector_add, or NULL */
    int ceiling_profile;
    timing_env *env;
    const device_info *dev;
    roofline roof;
} unit_ctx;

static void phase(const unit_ctx *u, const char *what)
{
    send_text(u->out, WIRE_PHASE, "%s", what);
}

static void fill_timing(klab_row *r, const subject *s, const unit_ctx *u, const timing_opts *o)
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
    r->p95_ms = st.p95;
    r->min_ms = st.min;
    r->max_ms = st.max;
    r->mean_ms = st.mean;
    r->noise = st.noise;
    r->gbps = r->bytes / st.median / 1e6;
    r->tflops = r->flops / st.median / 1e9;
    r->sm_mhz = s->clock_mhz;
    if ((int)st.n < o->stop.min_reps)
        row_add_flag(r, "few-samples");
    if (st.median < LAUNCH_BOUND_MS) {
        r->launch_floor_ms = u->env->launch_floor_ms;
        row_add_flag(r, "launch-bound");
    }
    char why[256];
    if (!o->hot && roofline_exceeds(&u->roof, r->gbps, r->tflops, why, sizeof why)) {
        row_add_flag(r, "exceeds-roofline");
        r->status = ROW_FLAGGED;
        snprintf(r->reason, sizeof r->reason, "%s: cannot support a decision", why);
    }
}

/* Fraction of limit: against klab's copy at the same bytes in the same rounds, or against the tensor
   peak, whichever the row is closer to (a roofline read). */
static void fill_limit(klab_row *r, const subject *copy, const unit_ctx *u)
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
    if (r->flops > 0 && u->roof.tensor_tflops > 0)
        flop = r->tflops / u->roof.tensor_tflops;
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

static void send_rows(const unit_ctx *u, klab_row *rows, int n)
{
    for (int i = 0; i < n; i++)
        u->out->send(u->out->user, WIRE_ROW, &rows[i], sizeof rows[i]);
}

static void fail_open_rows(klab_row *rows, int n, row_status st, const char *fmt, const char *reason)
{
    for (int i = 0; i < n; i++)
        if (rows[i].status == ROW_PASSED && !rows[i].reason[0])
            row_fail(&rows[i], st, fmt, reason);
}

/* Sets up klab's copy over the unit's bytes and verifies it once. NULL when unavailable. */
static case_instance *ceiling_setup(const unit_ctx *u, double bytes, uint64_t seed, char *note, size_t notelen)
{
    if (!u->ceiling || u->ceiling_profile < 0 || bytes <= 0)
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
    if (inst_setup(ci, u->ceiling, &cc, KLAB_FP32, seed, u->dev->cc, u->env->stream, "copy-ref", err, sizeof err) != INST_OK ||
        inst_reference(ci, err, sizeof err) != INST_OK ||
        inst_verify_profile(ci, u->ceiling_profile, u->env->stream, &cuda_err, err, sizeof err) != INST_OK) {
        snprintf(note, notelen, "copy reference unavailable, no fraction of limit: %s", err);
        inst_teardown(ci);
        free(ci);
        return NULL;
    }
    return ci;
}

static int run_unit(const unit_ctx *u, int unit, int ci_index, klab_dtype dtype)
{
    const job *j = u->j;
    const cfg_case *c = &j->cfg->cases[ci_index];
    const klab_plugin *d = &u->lp->desc;
    const timing_opts *o = &j->topts;
    timing_opts to = *o;
    to.warmup = c->warmup;
    to.stop = c->stop;

    int prof[16], np = 0;
    wire_unit wu;
    memset(&wu, 0, sizeof wu);
    wu.unit = unit;
    snprintf(wu.kcase, sizeof wu.kcase, "%s", c->name);
    snprintf(wu.dtype, sizeof wu.dtype, "%s", dtype_name(dtype));
    snprintf(wu.shape, sizeof wu.shape, "%s", c->shape);
    for (int p = 0; p < u->lp->nprofiles && np < 16; p++)
        if (job_keeps_profile(c, &j->filter, d->profiles[p].name)) {
            prof[np] = p;
            snprintf(wu.profiles[np], sizeof wu.profiles[np], "%s", d->profiles[p].name);
            np++;
        }
    wu.nprofiles = np;
    if (np == 0)
        return 0;
    u->out->send(u->out->user, WIRE_UNIT, &wu, sizeof wu);

    klab_row rows[16];
    uint64_t seed = seed_mix(o->seed, "klab");
    for (int i = 0; i < np; i++) {
        klab_row *r = &rows[i];
        memset(r, 0, sizeof *r);
        snprintf(r->run_id, sizeof r->run_id, "%s", j->run_id);
        snprintf(r->plugin, sizeof r->plugin, "%s", d->name);
        snprintf(r->kcase, sizeof r->kcase, "%s", c->name);
        snprintf(r->shape, sizeof r->shape, "%s", c->shape);
        snprintf(r->dtype, sizeof r->dtype, "%s", dtype_name(dtype));
        snprintf(r->profile, sizeof r->profile, "%s", d->profiles[prof[i]].name);
        snprintf(r->l2, sizeof r->l2, "%s", o->hot ? "hot" : "cold");
        snprintf(r->launch, sizeof r->launch, "%s", o->graph ? "graph" : "stream");
        r->seed = o->seed;
    }

    if (d->min_cc > u->dev->cc) {
        char msg[300];
        snprintf(msg, sizeof msg, "needs compute capability %d.%d; device %d (%s) is %d.%d", d->min_cc / 10,
                 d->min_cc % 10, u->dev->ordinal, u->dev->name, u->dev->cc / 10, u->dev->cc % 10);
        fail_open_rows(rows, np, ROW_SKIPPED, "%s", msg);
        send_rows(u, rows, np);
        return 0;
    }

    char err[1200] = "", label[192];
    snprintf(label, sizeof label, "%s %s %s", d->name, c->name, dtype_name(dtype));
    phase(u, "setup");
    case_instance inst;
    case_instance *copy = NULL; /* klab's copy at the same bytes, timed in the same rounds */
    subject subs[17];
    profile_subject psub[16];
    int row_of[16]; /* subject -> row */
    int ns = 0, nsub = 0, lost = 0;
    memset(subs, 0, sizeof subs);

    if (timing_reset_l2(u->env, err, sizeof err) != 0) {
        fail_open_rows(rows, np, ROW_FAILED, "%s", err);
        send_rows(u, rows, np);
        return u->env->sticky ? -1 : 0;
    }
    int rc = inst_setup(&inst, u->lp, c, dtype, seed, u->dev->cc, u->env->stream, label, err, sizeof err);
    if (rc != INST_OK) {
        fail_open_rows(rows, np, rc == INST_UNSUPPORTED ? ROW_SKIPPED : ROW_FAILED,
                       rc == INST_UNSUPPORTED ? "%s" : "setup: %s", err);
        lost = cudaGetLastError() != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess;
        goto done;
    }
    for (int i = 0; i < np; i++) {
        rows[i].bytes = inst.work.bytes;
        rows[i].flops = inst.work.flops;
    }
    /* a plugin may have set a persisting-L2 window in setup: none survives into timing */
    if (timing_reset_l2(u->env, err, sizeof err) != 0) {
        fail_open_rows(rows, np, ROW_FAILED, "%s", err);
        lost = u->env->sticky != 0;
        goto done;
    }

    phase(u, "reference");
    rc = inst_reference(&inst, err, sizeof err);
    if (rc != INST_OK) {
        fail_open_rows(rows, np, rc == INST_REFUSED ? ROW_REFUSED : ROW_FAILED, "%s", err);
        goto done;
    }

    phase(u, "verify");
    for (int i = 0; i < np; i++) {
        int cuda_err = 0;
        rc = inst_verify_profile(&inst, prof[i], u->env->stream, &cuda_err, err, sizeof err);
        klab_row *r = &rows[i];
        if (rc == INST_UNSUPPORTED) {
            row_fail(r, ROW_SKIPPED, "%s", err);
            continue;
        }
        if (rc == INST_ERROR) {
            row_fail(r, ROW_FAILED, "%s", err);
            if (cuda_err && cuda_error_is_sticky(cuda_err)) {
                char msg[1300];
                snprintf(msg, sizeof msg, "not run: profile '%s' lost the CUDA context before it", r->profile);
                fail_open_rows(rows, np, ROW_FAILED, "%s", msg);
                lost = 1;
                goto done;
            }
            continue;
        }
        r->has_err = 1;
        r->rel_l2_err = inst.last.rel_l2_err;
        r->max_abs_err = inst.last.max_abs_err;
        r->tol = inst.tol;
        if (rc == INST_MISMATCH) {
            row_fail(r, ROW_INCORRECT, "%s", err);
            continue;
        }
        int changed = inst_inputs_changed(&inst, u->env->stream, err, sizeof err);
        if (changed != 0) {
            row_fail(r, changed > 0 ? ROW_INCORRECT : ROW_FAILED, "%s",
                     changed > 0 ? "input modified: run changed its inputs (checksum differs after one run)" : err);
            continue;
        }
        psub[ns].inst = &inst;
        psub[ns].profile = prof[i];
        row_of[ns] = i;
        ns++;
    }
    if (ns == 0)
        goto done;

    char note[1300] = "";
    copy = ceiling_setup(u, inst.work.bytes, seed, note, sizeof note);
    if (!copy && note[0])
        send_text(u->out, WIRE_NOTE, "%s: %s", label, note);

    phase(u, "timing");
    for (int s = 0; s < ns; s++) {
        subs[s].label = rows[row_of[s]].profile;
        subs[s].ops = &profile_ops;
        subs[s].self = &psub[s];
    }
    nsub = ns;
    profile_subject copy_ps = {copy, u->ceiling_profile};
    if (copy) {
        subs[nsub].label = "copy-ref";
        subs[nsub].ops = &profile_ops;
        subs[nsub].self = &copy_ps;
        nsub++;
    }
    if (timing_measure(u->env, subs, nsub, &to, err, sizeof err) != 0) {
        fail_open_rows(rows, np, ROW_FAILED, "timing: %s", err);
        lost = u->env->sticky != 0;
        goto done;
    }
    int changed = inst_inputs_changed(&inst, u->env->stream, err, sizeof err);
    const subject *base = NULL, *cref = copy ? &subs[ns] : NULL;
    for (int s = 0; s < ns; s++)
        if (u->lp->baseline == psub[s].profile && subs[s].state == SUBJ_OK)
            base = &subs[s];
    stats bs;
    int have_base = base && stats_compute(base->samples, base->n, &bs) == 0 && bs.n;
    for (int s = 0; s < ns; s++) {
        klab_row *r = &rows[row_of[s]];
        subject *sb = &subs[s];
        if (sb->state == SUBJ_FAILED) {
            row_fail(r, ROW_FAILED, "%s", sb->why);
            continue;
        }
        if (sb->state == SUBJ_INCORRECT) {
            row_fail(r, ROW_INCORRECT, "%s", sb->why);
            continue;
        }
        if (sb->state == SUBJ_ESCAPED) {
            row_fail(r, ROW_FLAGGED, "%s", sb->why);
            continue;
        }
        if (changed != 0) {
            row_fail(r, changed > 0 ? ROW_INCORRECT : ROW_FAILED, "%s",
                     changed > 0 ? "input modified during timing (checksum differs after the timed runs)" : err);
            continue;
        }
        fill_timing(r, sb, u, &to);
        fill_limit(r, cref, u);
        if (have_base && r->has_time) {
            r->has_speedup = 1;
            r->speedup = bs.median / r->median_ms;
        }
    }

done:
    phase(u, "teardown");
    if (!lost) {
        if (copy)
            inst_teardown(copy);
        inst_teardown(&inst);
    } /* with the context lost, teardown would only meet the same error; the worker exits */
    free(copy);
    for (int s = 0; s < nsub; s++)
        timing_subject_free(&subs[s]);
    send_rows(u, rows, np);
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
    wd.span_floor_ms = env->span_floor_ms;
    wd.flush_bytes = (double)env->flush_bytes;
    roofline r;
    roofline_from_device(dev, &r);
    wd.mem_gbps = r.mem_gbps;
    wd.tensor_tflops = r.tensor_tflops;
    out->send(out->user, WIRE_DEVICE, &wd, sizeof wd);
    return 0;
}

static int job_run(const job *j, const job_out *out)
{
    loaded_plugin lp, ceiling;
    if (load(j, out, &lp) != 0 || check_config(j, out, &lp) != 0)
        return 0; /* reported; the parent goes on with the next plugin */
    device_info dev;
    timing_env env;
    if (init_device(j, out, &dev, &env) != 0)
        return 1;
    unit_ctx u = {.j = j, .out = out, .lp = &lp, .env = &env, .dev = &dev, .ceiling_profile = -1};
    roofline_from_device(&dev, &u.roof);
    char err[1200];
    if (j->ceiling_path[0]) {
        if (loader_open(j->ceiling_path, "vector_add", &ceiling, err, sizeof err) == 0) {
            u.ceiling = &ceiling;
            u.ceiling_profile = loader_profile_index(&ceiling, "vectorized");
        } else {
            send_text(out, WIRE_NOTE, "no fraction of limit: the copy reference did not load: %s", err);
        }
    }
    int n = job_units(j->cfg, &j->filter, -1, NULL, NULL);
    for (int k = j->start_unit; k < n; k++) {
        int ci;
        klab_dtype dt;
        job_units(j->cfg, &j->filter, k, &ci, &dt);
        if (run_unit(&u, k, ci, dt) != 0)
            return WIRE_EXIT_CONTEXT_LOST;
    }
    timing_env_free(&env);
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

static int spin_launch(void *self, klab_stream s, char *err, size_t errlen)
{
    spin_subject *sp = self;
    int e = gpu_spin_ns(sp->ns, sp->measured, s);
    if (e) {
        snprintf(err, errlen, "spin launch: %s", cudaGetErrorString((cudaError_t)e));
        return -1;
    }
    return 0;
}

static const subject_ops spin_ops = {spin_launch, NULL, NULL, NULL};

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
        o.stop.noise = 0.001;
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
        double want = measured / 1e6, dev_pct = 100 * (st.median - want) / want;
        int ok = dev_pct <= 3 && dev_pct >= -3;
        bad |= !ok;
        send_text(out, WIRE_NOTE,
                  "spin %4llu us: events %.4f ms (median of %zu), kernel's own %%globaltimer %.4f ms: %+.2f %%  %s",
                  lens[i] / 1000, st.median, st.n, want, dev_pct, ok ? "ok (within 3 %)" : "OUTSIDE 3 %");
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
