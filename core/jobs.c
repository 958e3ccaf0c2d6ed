/* The jobs a worker runs, top-down: job_execute picks one; a run job opens a session and walks its
 * units (session.c); validate and describe need no GPU; the self-test times spins of known length. */
#include "runner.h"

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_build.h"
#include "dtype.h"
#include "gpu_kernels.h"
#include "roofline.h"
#include "shard.h"
#include "stats.h"
#include "unit_entries.h"
#include "worker.h"

#define MAX_ROWS_PER_RUN 20000

int worker_text(const job_out *out, wire_type t, const char *fmt, ...)
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
    int n = 0, selected = 0;
    for (int i = 0; i < cfg->ncases; i++) {
        const cfg_case *c = &cfg->cases[i];
        if (f->ncases && !name_in(c->name, (char(*)[64])f->cases, f->ncases))
            continue;
        for (int k = 0; k < c->ndtypes; k++) {
            if (f->dtypes && !(f->dtypes & KLAB_DTYPE_BIT(c->dtypes[k])))
                continue;
            if (f->shard_n && shard_of(cfg->plugin, selected++, f->shard_n) != f->shard_k)
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

/* {90, 80, 0} as "9.0,8.0"; NULL: "" */
static void archs_text(const int *archs, char *buf, size_t len)
{
    buf[0] = 0;
    for (const int *a = archs; a && *a; a++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%d.%d", buf[0] ? "," : "", *a / 10, *a % 10);
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
    for (const char *const *p = d->dims; p && *p; p++)
        snprintf(w->dims + strlen(w->dims), sizeof w->dims - strlen(w->dims), "%s%s", w->dims[0] ? "," : "", *p);
    archs_text(d->archs, w->archs, sizeof w->archs);
    for (int i = 0; i < w->nprofiles; i++) {
        archs_text(lp->profiles[i].archs, w->profile_archs[i], sizeof w->profile_archs[i]);
        w->profile_tunes[i] = lp->profiles[i].config != NULL;
    }
}

int worker_load(const job *j, const job_out *out, loaded_plugin *lp)
{
    char err[1200];
    if (loader_open(j->plugin_path, j->plugin_name[0] ? j->plugin_name : NULL, lp, err, sizeof err) != 0) {
        worker_text(out, WIRE_REFUSED, "%s", err);
        return -1;
    }
    wire_plugin w;
    describe(lp, &w);
    out->send(out->user, WIRE_PLUGIN, &w, sizeof w);
    return 0;
}

int worker_check_config(const job *j, const job_out *out, const loaded_plugin *lp)
{
    const char *names[LOADER_MAX_PROFILES];
    for (int i = 0; i < lp->nprofiles; i++)
        names[i] = lp->desc.profiles[i].name;
    char err[1200];
    if (cfg_check_plugin(j->cfg, names, lp->nprofiles, lp->desc.dtypes, lp->desc.params, lp->desc.dims, err,
                         sizeof err) != 0) {
        worker_text(out, WIRE_REFUSED, "%s", err);
        return -1;
    }
    long rows = cfg_row_count(j->cfg, lp->nprofiles);
    if (rows > MAX_ROWS_PER_RUN) {
        worker_text(out, WIRE_REFUSED, "%s: asks for %ld case x dtype x profile rows; more than %d is surely a mistake",
                    j->cfg->path, rows, MAX_ROWS_PER_RUN);
        return -1;
    }
    return 0;
}

int worker_init_device(const job *j, const job_out *out, device_info *dev, timing_env *env)
{
    char err[600];
    if (device_info_query(j->device, dev, err, sizeof err) != 0 ||
        timing_env_init(env, dev, err, sizeof err) != 0) {
        worker_text(out, WIRE_FATAL, "%s", err);
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

static int done(const job_out *out, int status)
{
    out->send(out->user, WIRE_DONE, &status, sizeof status);
    return 0;
}

/* ---- run: every unit of the INI, each set up, verified, timed and torn down by session.c ---- */

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
    return done(out, 0);
}

/* ---- validate: the INI against the plugin, and each case as the plugin will see it (no GPU) ---- */

/* 1 when profile pr's tuning space (and own choice) is the same for both cases. */
static int same_space(const klab_profile *pr, const klab_case *a, const klab_case *b)
{
    for (int i = -1; i < UNIT_MAX_CONFIGS; i++) {
        /* the ABI keeps a description valid only until the next call: copy the first */
        char x[256] = "";
        const char *dx = pr->config(a, i);
        if (dx)
            snprintf(x, sizeof x, "%s", dx);
        const char *y = pr->config(b, i);
        if (!dx || !y || strcmp(x, y) != 0)
            return !dx && !y;
    }
    return 1;
}

/* --tune --validate: each profile's configurations for case c, as a tune run enumerates them (dtypes
   with the same space share a listing); returns the rows a tune run of the case would write. */
static long list_configs(const job_out *out, const loaded_plugin *lp, const cfg_case *c, const run_filter *f)
{
    /* what a tune run with the same selection (--profile, --dtype) would time */
    const run_filter *all = f;
    long rows = 0;
    built_case bc[KLAB_DTYPE_COUNT];
    for (int k = 0; k < c->ndtypes; k++) {
        case_build(&bc[k], c, c->dtypes[k], &lp->desc);
        if (f->dtypes && !(f->dtypes & KLAB_DTYPE_BIT(c->dtypes[k])))
            continue;
        unit_entry e[UNIT_MAX_ENTRIES];
        int left_out;
        rows += unit_entries_make(lp, c, all, &bc[k].kcase, 1, e, UNIT_MAX_ENTRIES, &left_out);
        if (left_out)
            worker_text(out, WIRE_NOTE, "    %s: a tune run times the first %d entries; %d configuration%s left out",
                        dtype_name(c->dtypes[k]), UNIT_MAX_ENTRIES, left_out, left_out == 1 ? "" : "s");
    }
    for (int p = 0; p < lp->nprofiles; p++) {
        const klab_profile *pr = &lp->profiles[p];
        if (!job_keeps_profile(c, all, pr->name) || !pr->config)
            continue;
        int listed[KLAB_DTYPE_COUNT] = {0};
        for (int k = 0; k < c->ndtypes; k++) {
            if (listed[k])
                continue;
            char dts[96] = "";
            for (int m = k; m < c->ndtypes; m++)
                if (m == k || (!listed[m] && same_space(pr, &bc[k].kcase, &bc[m].kcase))) {
                    listed[m] = 1;
                    snprintf(dts + strlen(dts), sizeof dts - strlen(dts), "%s%s", m == k ? "" : ",",
                             dtype_name(c->dtypes[m]));
                }
            /* copied before the space is walked: the ABI keeps it valid only until the next call */
            char own[256] = "(unnamed)";
            const char *d = pr->config(&bc[k].kcase, -1);
            if (d)
                snprintf(own, sizeof own, "%s", d);
            int n = unit_space_size(pr, &bc[k].kcase);
            worker_text(out, WIRE_NOTE, "    profile %s %s: %d configuration%s; its own choice %s", pr->name, dts, n,
                        n == 1 ? "" : "s", own);
            for (int i = 0; i < n; i++)
                worker_text(out, WIRE_NOTE, "      %3d  %s", i, pr->config(&bc[k].kcase, i));
        }
    }
    return rows;
}

static int job_validate(const job *j, const job_out *out)
{
    loaded_plugin lp;
    if (worker_load(j, out, &lp) != 0 || worker_check_config(j, out, &lp) != 0)
        return 0;
    const cfg_experiment *e = j->cfg;
    long tune_rows = 0;
    for (int i = 0; i < e->ncases; i++) {
        const cfg_case *c = &e->cases[i];
        if (j->filter.ncases && !name_in(c->name, (char(*)[64])j->filter.cases, j->filter.ncases))
            continue; /* --case selects what is listed, as it selects what runs */
        char dts[96] = "", profs[512] = "";
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
            built_case bc;
            case_build(&bc, c, c->dtypes[0], &lp.desc);
            klab_work w;
            memset(&w, 0, sizeof w);
            w.struct_size = sizeof w;
            lp.desc.work(&bc.kcase, &w);
            snprintf(work, sizeof work, ", %.1f MB moved at %s", w.bytes / 1e6, dtype_name(c->dtypes[0]));
        }
        worker_text(out, WIRE_NOTE, "  case %-14s shape %-12s dtypes %-14s profiles %s%s", c->name, c->shape,
                    dts, profs, work);
        if (j->tune)
            tune_rows += list_configs(out, &lp, c, &j->filter);
    }
    worker_text(out, WIRE_NOTE, "  %ld rows (case x dtype x profile)", cfg_row_count(e, lp.nprofiles));
    if (j->tune)
        worker_text(out, WIRE_NOTE, "  klab --tune: %ld rows (each configuration, and each profile's own choice)",
                    tune_rows);
    return done(out, 0);
}

/* ---- the timer's self-test: spins of known length, measured by %globaltimer inside the kernel ---- */

typedef struct spin_subject {
    unsigned long long ns;
    unsigned long long *measured; /* device slot */
} spin_subject;

static int spin_launch(void *self, klab_stream s, int replica, int64_t step, char *err, size_t errlen)
{
    (void)replica;
    (void)step;
    spin_subject *sp = self;
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
    if (worker_init_device(j, out, &dev, &env) != 0)
        return 1;
    const unsigned long long lens[2] = {50000, 500000};
    unsigned long long *slots;
    int bad = 0;
    if (cudaMalloc((void **)&slots, 2 * sizeof *slots) != cudaSuccess) {
        worker_text(out, WIRE_FATAL, "self-test: cudaMalloc failed");
        return 1;
    }
    worker_text(out, WIRE_NOTE, "empty launch (event pair around an empty kernel): %.4f ms", env.launch_floor_ms);
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
            worker_text(out, WIRE_NOTE, "spin %llu us: FAILED: %s", lens[i] / 1000, s.state ? s.why : err);
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
        worker_text(out, WIRE_NOTE,
                    "spin %4llu us: events %.4f ms (median of %zu), the kernel's own %%globaltimer %.4f ms: "
                    "%+.2f %% raw, %+.2f %% less the launch floor  %s",
                    lens[i] / 1000, st.median, st.n, want, raw, net, ok ? "ok (within 3 %)" : "OUTSIDE 3 %");
        timing_subject_free(&s);
    }
    cudaFree(slots);
    timing_env_free(&env);
    return done(out, bad);
}

int job_execute(const job *j, const job_out *out)
{
    int version = WIRE_VERSION;
    out->send(out->user, WIRE_HELLO, &version, sizeof version);
    switch (j->kind) {
    case JOB_DESCRIBE: {
        loaded_plugin lp;
        return worker_load(j, out, &lp) == 0 ? done(out, 0) : 0;
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
        if (worker_init_device(j, out, &dev, &env) != 0)
            return 1;
        timing_env_free(&env);
        return done(out, 0);
    }
    }
    return 1;
}
