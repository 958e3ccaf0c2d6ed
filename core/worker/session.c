/* A session (one plugin on one device, with its timer) and its units (one case and dtype, every
 * selected profile), in the order a unit lives:
 *
 *   unit_begin   the entries: one per selected profile, and in a tune run one per configuration of a
 *                tuning space too, each a row; skips for the device (min_cc, exact archs); each
 *                entry's configuration (the tune run's, the INI's, the tuning cache's or the plugin's
 *                own); setup, reference, one verified sequence per entry
 *   unit_add_external  a PyTorch callable verified against the same reference
 *   unit_finish  every verified subject and klab's copy timed in the same rounds; rows sent; teardown
 *
 * The rows and every verdict on them that needs no GPU are unit_rows.h's; the subjects the timer samples
 * are subjects.h's; klab's copy is copy_ref.h's. */
#include "worker/session.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/case_build.h"
#include "config/tune_cache.h"
#include "host/dtype.h"
#include "host/nvtx_range.h"
#include "worker/case_instance.h"
#include "worker/copy_ref.h"
#include "worker/results.h"
#include "worker/selection.h"
#include "worker/subjects.h"
#include "worker/unit_entries.h"
#include "worker/unit_rows.h"
#include "worker/worker.h"

#define MAX_ENTRIES UNIT_MAX_ENTRIES
#define MAX_SUBJECTS (MAX_ENTRIES + MAX_EXTERNAL + 1)

struct run_session {
    const job *j;
    const job_out *out;
    loaded_plugin lp;
    timing_env env;
    device_info dev;
    roofline roof;
    int have_cache; /* a plain run's tuning cache, read once */
    tune_cache cache;
};

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
    unit_rows rw; /* row i is entry i's; externals' follow */
    int ne;       /* entries (unit_entries.h) */
    unit_entry e[MAX_ENTRIES];
    case_instance inst;
    int inst_made;  /* inst_setup was called: inst_teardown is owed */
    int ready;      /* set up, referenced and verified: subjects may be timed */
    int lost;       /* the CUDA context is gone */
    int ns;         /* verified entries, the first subjects */
    profile_subject psub[MAX_ENTRIES];
    int row_of[MAX_SUBJECTS];
    int next;
    external_entry ext[MAX_EXTERNAL];
};

static void phase(const run_unit *u, const char *what)
{
    worker_text(u->s->out, WIRE_PHASE, "%s", what);
}

/* One verified sequence of each open profile; those that pass become subjects. */
static void verify_profiles(run_unit *u)
{
    run_session *ss = u->s;
    char err[1200];
    for (int i = 0; i < u->ne; i++) {
        klab_row *r = &u->rw.rows[i];
        if (!unit_row_open(r))
            continue;
        int cuda_err = 0;
        int rc = inst_verify_profile(&u->inst, u->e[i].prof, u->e[i].config, ss->env.stream, &cuda_err, err, sizeof err);
        if (rc == INST_UNSUPPORTED) {
            row_fail(r, ROW_SKIPPED, "%s", err);
            continue;
        }
        if (rc == INST_ERROR && cuda_err && cuda_error_is_sticky(cuda_err)) {
            row_fail(r, ROW_FAILED, "%s", err);
            char msg[1300];
            snprintf(msg, sizeof msg, "not run: %s '%s' lost the CUDA context before it",
                     u->e[i].trial ? "trial" : "profile", u->e[i].label);
            unit_rows_fail_open(&u->rw, ROW_FAILED, "%s", msg);
            u->lost = 1;
            return;
        }
        /* Whatever the run's verdict, its inputs are checked and refilled if it changed them, so a
           broken profile cannot fail the profiles after it. */
        char why[1200] = "";
        int changed = inst_inputs_changed(&u->inst, ss->env.stream, why, sizeof why);
        if (!unit_row_verified(r, rc, err, &u->inst.last, (uint64_t)u->inst.verified_elems, changed, why))
            continue;
        u->psub[u->ns] = (profile_subject){&u->inst, u->e[i].prof, u->e[i].config};
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
    stop_rule_for_run(&u->to.warmup, &u->to.stop, j->quick, j->budget_ms);
    unit_rows_init(&u->rw, j, &ss->lp, &ss->dev, c, dtype);

    wire_unit wu;
    memset(&wu, 0, sizeof wu);
    wu.unit = unit;
    snprintf(wu.kcase, sizeof wu.kcase, "%s", c->name);
    snprintf(wu.dtype, sizeof wu.dtype, "%s", dtype_name(dtype));
    snprintf(wu.shape, sizeof wu.shape, "%s", c->shape);
    built_case bc; /* configurations are a pure function of the case: enumerated and named before any setup */
    case_build(&bc, c, dtype, d);
    const klab_case *kcase = &bc.kcase;
    int left_out;
    u->ne = unit_entries_make(&ss->lp, c, &j->filter, kcase, j->tune, u->e, MAX_ENTRIES, &left_out);
    if (u->ne == 0)
        return u; /* nothing selected: no rows, nothing to do */
    for (int i = 0; i < u->ne; i++)
        if (i == 0 || u->e[i].prof != u->e[i - 1].prof) /* entries are grouped by profile */
            snprintf(wu.profiles[wu.nprofiles++], sizeof wu.profiles[0], "%s", d->profiles[u->e[i].prof].name);
    unit_rows_for_entries(&u->rw, u->e, u->ne);
    ss->out->send(ss->out->user, WIRE_UNIT, &wu, sizeof wu);
    if (left_out)
        worker_text(ss->out, WIRE_NOTE, "%s: %d configuration%s left out: a case and dtype times at most %d entries "
                                        "(profile and configuration); select fewer with --profile",
                    u->rw.label, left_out, left_out == 1 ? "" : "s", MAX_ENTRIES);

    unit_rows_skip_for_device(&u->rw, u->e, u->ne);
    unit_rows_pick_configs(&u->rw, u->e, u->ne, kcase, ss->have_cache ? &ss->cache : NULL, ss->out);
    if (!unit_rows_open(&u->rw))
        return u; /* nothing this device can run: setup would meet kernels it has no code for */

    char err[1200] = "";
    uint64_t seed = seed_mix(j->topts.seed, "klab");
    phase(u, "setup");
    if (timing_reset_l2(&ss->env, err, sizeof err) != 0) {
        unit_rows_fail_open(&u->rw, ROW_FAILED, "%s", err);
        u->lost = ss->env.sticky != 0;
        return u;
    }
    u->inst_made = 1;
    int rc = inst_setup(&u->inst, &ss->lp, c, dtype, seed, ss->dev.cc, ss->env.stream, u->rw.label, err, sizeof err);
    if (rc != INST_OK) {
        unit_rows_fail_open(&u->rw, rc == INST_UNSUPPORTED ? ROW_SKIPPED : ROW_FAILED, rc == INST_UNSUPPORTED ? "%s" : "setup: %s",
                       err);
        return u; /* unit_finish finds out whether setup lost the context */
    }
    for (int i = 0; i < u->ne; i++) {
        u->rw.rows[i].bytes = u->inst.work.bytes;
        u->rw.rows[i].flops = u->inst.work.flops;
    }
    /* a plugin may have set a persisting-L2 window in setup: none survives into timing */
    if (timing_reset_l2(&ss->env, err, sizeof err) != 0) {
        unit_rows_fail_open(&u->rw, ROW_FAILED, "%s", err);
        u->lost = ss->env.sticky != 0;
        return u;
    }

    phase(u, "inputs"); /* read back and widened: on a large case it costs what the reference does */
    rc = inst_inputs(&u->inst, err, sizeof err);
    if (rc == INST_OK) {
        phase(u, "reference");
        rc = inst_reference(&u->inst, err, sizeof err);
    }
    if (rc != INST_OK) {
        unit_rows_fail_open(&u->rw, rc == INST_REFUSED ? ROW_REFUSED : ROW_FAILED, "%s", err);
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
    x->row = u->rw.n;
    klab_row *r = unit_row_new(&u->rw, e->label);
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
        subs[n].label = u->e[u->row_of[k]].label;
        subs[n].ops = pr->flags & KLAB_PROFILE_FIXED_TENSORS ? &subject_fixed_profile_ops : &subject_profile_ops;
        subs[n].self = &u->psub[k];
        subs[n].steps = inst_has_steps(&u->inst) ? u->inst.bc.kcase.steps : 0;
        subs[n].owns_graph = (pr->flags & KLAB_PROFILE_OWNS_GRAPH) != 0;
        n++;
    }
    for (int k = 0; k < u->next; k++) {
        if (u->rw.rows[u->ext[k].row].status != ROW_PASSED)
            continue;
        u->row_of[n] = u->ext[k].row;
        subs[n].label = u->ext[k].e.label;
        subs[n].ops = u->ext[k].e.replicate ? &subject_external_rotating_ops : &subject_external_ops;
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
    /* the baseline's first entry: its own choice in a tune run */
    const subject *base = NULL;
    for (int k = 0; k < u->ns && !base; k++)
        if (ss->lp.baseline == u->psub[k].profile && subs[k].state == SUBJ_OK)
            base = &subs[k];
    roofline roof = roofline_for_dtype(&ss->roof, u->dtype);
    for (int k = 0; k < nsub; k++) {
        if (k == copy_at)
            continue;
        klab_row *r = &u->rw.rows[u->row_of[k]];
        subject *sb = &subs[k];
        if (!unit_row_timed(r, sb, changed, err))
            continue;
        results_fill_timing(r, sb, &roof, ss->env.launch_floor_ms, &u->to);
        results_fill_limit(r, copy_at >= 0 ? &subs[copy_at] : NULL, &roof);
        results_fill_speedup(r, sb, base);
        if (sb->steps > 0 && r->has_time) {
            /* a step row is a distribution: its raw samples go to the parent, which writes them beside
               the CSV (samples_file.h), and the row names the file relative to the run folder; a tune
               trial's file is named by its configuration's index too (its profile has several rows) */
            const unit_entry *en = k < u->ns ? &u->e[u->row_of[k]] : NULL;
            char name[64];
            if (en && en->trial && en->config >= 0)
                snprintf(name, sizeof name, "%.48s.cfg%d", r->profile, en->config);
            else
                snprintf(name, sizeof name, "%.48s%s", r->profile, en && en->trial ? ".own" : "");
            if (wire_send_samples(ss->out->send, ss->out->user, r->plugin, r->kcase, r->dtype, name,
                                  sb->samples, sb->sample_tags, sb->n) == 0) {
                char rel[sizeof r->samples_file];
                snprintf(rel, sizeof rel, "%s.samples/%s.%s.%s.csv", r->plugin, r->kcase, r->dtype, name);
                memcpy(r->samples_file, rel, sizeof rel);
            }
        }
    }
}

/* --with-profiling's pass (profiling.h): each verified entry once, inside the range ncu profiles, nothing
   timed; the rows say so. */
static void profile_once(run_unit *u)
{
    run_session *ss = u->s;
    char err[1200];
    phase(u, "profile");
    for (int k = 0; k < u->ns && !u->lost; k++) {
        klab_row *r = &u->rw.rows[u->row_of[k]];
        nvtx_range_push_timed();
        int rc = subject_profile_ops.launch(&u->psub[k], ss->env.stream, 0, 0, err, sizeof err);
        cudaError_t e = cudaStreamSynchronize(ss->env.stream);
        nvtx_range_pop();
        if (rc != 0) {
            row_fail(r, ROW_FAILED, "%s", err);
        } else if (e != cudaSuccess) {
            row_fail(r, ROW_FAILED, "profile pass: CUDA error %d: %s", (int)e, cudaGetErrorString(e));
            u->lost = cuda_error_is_sticky(e);
        } else {
            row_add_flag(r, "profile-pass");
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
    int timed = u->ready && (u->ns > 0 || u->next > 0) && !ss->j->verify_only && !ss->j->profile_pass;
    if (u->ready && ss->j->profile_pass)
        profile_once(u);
    if (u->ready && ss->j->verify_only)
        for (int i = 0; i < u->rw.n; i++)
            if (u->rw.rows[i].status == ROW_PASSED)
                row_add_flag(&u->rw.rows[i], "verify-only");
    if (timed) {
        copy = copy_ref_open(u->inst.work.bytes, seed_mix(ss->j->topts.seed, "copy"), ss->env.stream, err, sizeof err);
        if (!copy && u->inst.work.bytes > 0)
            worker_text(ss->out, WIRE_NOTE, "%s: copy reference unavailable, no fraction of limit: %s", u->rw.label, err);
        phase(u, "timing");
        nsub = make_subjects(u, subs, copy, &copy_at);
        if (timing_measure(&ss->env, subs, nsub, &u->to, err, sizeof err) != 0) {
            unit_rows_fail_open(&u->rw, ROW_FAILED, "timing: %s", err);
            u->lost = ss->env.sticky != 0;
        } else {
            judge_timing(u, subs, nsub, copy_at);
        }
    }
    if (u->ne)
        phase(u, "teardown");
    if (!u->lost && u->inst_made) {
        /* a plugin may have lost the context and said only "error": find out before tearing down */
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess && cuda_error_is_sticky(e)) {
            char msg[300];
            snprintf(msg, sizeof msg, "CUDA error %d: %s (context lost)", (int)e, cudaGetErrorString(e));
            unit_rows_fail_open(&u->rw, ROW_FAILED, "%s", msg);
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
    for (int i = 0; i < u->rw.n; i++)
        ss->out->send(ss->out->user, WIRE_ROW, &u->rw.rows[i], sizeof u->rw.rows[i]);
    int lost = u->lost;
    free(u);
    return lost ? -1 : 0;
}

/* ---- the session ---- */

/* A plain run reads the tuning cache once, when a profile has a tuning space to look up. A cache that
   cannot be read is a NOTE and is not used: the plugins' own choices run. */
static void load_cache(run_session *ss)
{
    const job *j = ss->j;
    int spaces = 0;
    for (int p = 0; p < ss->lp.nprofiles; p++)
        spaces += ss->lp.profiles[p].config != NULL;
    if (j->tune || !j->tune_cache[0] || !spaces)
        return;
    char err[1200];
    if (tune_cache_load(j->tune_cache, &ss->cache, err, sizeof err) != 0) {
        worker_text(ss->out, WIRE_NOTE, "%s: tuning cache not used: %s (fix or delete it; klab --tune writes it anew)",
                    ss->lp.desc.name, err);
        return;
    }
    ss->have_cache = 1;
}

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
    load_cache(ss);
    return ss;
}

klab_stream run_session_stream(const run_session *ss)
{
    return ss->env.stream;
}

int session_check_params(const run_session *ss, const cfg_experiment *e, char *err, size_t errlen)
{
    return cfg_check_params(e, ss->lp.desc.check_param, err, errlen);
}

void session_close(run_session *ss)
{
    if (!ss)
        return;
    timing_env_free(&ss->env);
    tune_cache_free(&ss->cache);
    free(ss);
}
