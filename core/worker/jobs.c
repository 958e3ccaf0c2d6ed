/* The jobs a worker runs, top-down: job_execute picks one; a run job opens a session and walks its
 * units (session.c); validate and describe need no GPU; the self-test times spins of known length. */
#include "worker/jobs.h"

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/case_build.h"
#include "host/dtype.h"
#include "host/gpu_kernels.h"
#include "stats/stats.h"
#include "timing/roofline.h"
#include "worker/selection.h"
#include "worker/session.h"
#include "worker/unit_entries.h"
#include "worker/worker.h"



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
   with the same space share a listing), a line each when `verbose`; else only each space's size, into
   `brief` for the case's own line. Returns the rows a tune run of the case would write. */
static long list_configs(const job_out *out, const loaded_plugin *lp, const cfg_case *c, const run_filter *f,
                         int verbose, char *brief, size_t brieflen)
{
    /* what a tune run with the same selection (--profile, --dtype) would time */
    const run_filter *all = f;
    long rows = 0;
    int left_total = 0;
    built_case bc[KLAB_DTYPE_COUNT];
    brief[0] = 0;
    for (int k = 0; k < c->ndtypes; k++) {
        case_build(&bc[k], c, c->dtypes[k], &lp->desc);
        if (f->dtypes && !(f->dtypes & KLAB_DTYPE_BIT(c->dtypes[k])))
            continue;
        unit_entry e[UNIT_MAX_ENTRIES];
        int left_out;
        rows += unit_entries_make(lp, c, all, &bc[k].kcase, 1, e, UNIT_MAX_ENTRIES, &left_out);
        left_total += left_out;
        if (left_out && verbose)
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
            size_t bl = strlen(brief);
            if (!verbose) {
                snprintf(brief + bl, brieflen - bl, "%s%s %s %d", bl ? ", " : "", pr->name, dts, n);
                continue;
            }
            worker_text(out, WIRE_NOTE, "    profile %s %s: %d configuration%s; its own choice %s", pr->name, dts, n,
                        n == 1 ? "" : "s", own);
            for (int i = 0; i < n; i++)
                worker_text(out, WIRE_NOTE, "      %3d  %s", i, pr->config(&bc[k].kcase, i));
        }
    }
    if (!verbose && left_total) {
        size_t bl = strlen(brief);
        snprintf(brief + bl, brieflen - bl, "; %d left out (%d entries a unit at most)", left_total,
                 UNIT_MAX_ENTRIES);
    }
    return rows;
}

/* keeps every profile: only a case's own `profiles` narrows what validate lists */
static const run_filter every_profile;

static int job_validate(const job *j, const job_out *out)
{
    loaded_plugin lp;
    if (worker_load(j, out, &lp) != 0 || worker_check_config(j, out, &lp) != 0)
        return 0;
    const cfg_experiment *e = j->cfg;
    long tune_rows = 0;
    for (int i = 0; i < e->ncases; i++) {
        const cfg_case *c = &e->cases[i];
        if (!job_keeps_case(c, &j->filter))
            continue; /* --case selects what is listed, as it selects what runs */
        char dts[96] = "", profs[512] = "";
        for (int k = 0; k < c->ndtypes; k++)
            snprintf(dts + strlen(dts), sizeof dts - strlen(dts), "%s%s", k ? "," : "", dtype_name(c->dtypes[k]));
        int np = 0;
        for (int p = 0; p < lp.nprofiles; p++)
            if (job_keeps_profile(c, &every_profile, lp.desc.profiles[p].name)) {
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
        if (j->tune && !j->verbose) {
            /* one line a case: the listing of every configuration (--verbose) runs to thousands of lines */
            char brief[512];
            long rows = list_configs(out, &lp, c, &j->filter, 0, brief, sizeof brief);
            tune_rows += rows;
            worker_text(out, WIRE_NOTE, "  case %-14s shape %-12s dtypes %-14s  tune: %ld rows; configurations: %s",
                        c->name, c->shape, dts, rows, brief[0] ? brief : "none (no profile has a tuning space)");
            continue;
        }
        worker_text(out, WIRE_NOTE, "  case %-14s shape %-12s dtypes %-14s profiles %s%s", c->name, c->shape,
                    dts, profs, work);
        if (j->tune) {
            char brief[8];
            tune_rows += list_configs(out, &lp, c, &j->filter, 1, brief, sizeof brief);
        }
    }
    worker_text(out, WIRE_NOTE, "  %ld rows (case x dtype x profile)", cfg_row_count(e, lp.nprofiles));
    if (j->tune)
        worker_text(out, WIRE_NOTE, "  klab --tune: %ld rows (each configuration, and each profile's own choice)%s",
                    tune_rows, j->verbose ? "" : "; every configuration: --verbose");
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

static int run_job(void *arg, const job_out *out)
{
    return job_execute(arg, out);
}

int supervise(const job *j, int isolate, double timeout_s, const supervise_hooks *h, worker_outcome *out)
{
    return supervise_fn(run_job, (void *)j, isolate, timeout_s, h, out);
}
