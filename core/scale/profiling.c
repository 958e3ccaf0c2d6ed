#define _GNU_SOURCE /* setpgid in a C11 build */
#include "scale/profiling.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "evidence/counters.h"
#include "evidence/csv_sink.h"
#include "host/discovery.h"
#include "process/supervisor.h"
#include "util/text.h"

void profiling_find_ncu(char *buf, size_t len)
{
    buf[0] = 0;
    const char *env = getenv("KLAB_NCU");
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return;
    }
    const char *path = getenv("PATH");
    char dirs[8192];
    snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char cand[4200];
        snprintf(cand, sizeof cand, "%s/ncu", *d ? d : ".");
        if (access(cand, X_OK) == 0) {
            snprintf(buf, len, "%s", cand);
            return;
        }
    }
}

/* A file-name part from an INI name: only letters, digits and ._- survive. */
static void file_part(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (; *s && o + 1 < len; s++)
        buf[o++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
                           *s == '.' || *s == '_' || *s == '-'
                       ? *s
                       : '_';
    buf[o] = 0;
}

int profiling_argv(const profiling_ctx *c, const klab_row *row, const char *log, char *argv[PROFILING_MAX_ARGS],
                   char store[PROFILING_MAX_ARGS][4200])
{
    int n = 0;
#define ARG(...) (snprintf(store[n], sizeof store[n], __VA_ARGS__), argv[n] = store[n], n++)
    const profiling_opts *o = c->o;
    char metrics[2048];
    ncu_metric_list(c->skip, metrics, sizeof metrics);
    ARG("%s", c->ncu);
    ARG("--clock-control");
    ARG("none");
    ARG("--target-processes");
    ARG("all");
    ARG("--nvtx");
    ARG("--nvtx-include");
    ARG("%s/", PROFILING_RANGE); /* the trailing slash: a push/pop range */
    ARG("--csv");
    ARG("--page");
    ARG("raw");
    ARG("--print-units");
    ARG("base");
    ARG("--metrics");
    ARG("%s", metrics);
    ARG("--log-file");
    ARG("%s", log);
    ARG("%s", c->exe);
    ARG("--profile-pass");
    ARG("--no-isolate"); /* the plugin in the process ncu started: nothing forked to follow */
    ARG("--config");
    ARG("%s", c->ini);
    ARG("--case");
    ARG("%s", row->kcase);
    ARG("--dtype");
    ARG("%s", row->dtype);
    ARG("--profile");
    ARG("%s", row->profile);
    ARG("--device");
    ARG("%d", row->has_gpu ? row->gpu_index : o->device);
    if (row->seed) {
        ARG("--seed");
        ARG("%llu", (unsigned long long)row->seed);
    }
    ARG("--timeout");
    ARG("%g", o->timeout_s);
    ARG("--tune-cache"); /* the configuration the timed row ran: its --out differs, its cache must not */
    ARG("%s", o->tune_cache);
    ARG("--out");
    ARG("%s/runs", c->workdir);
    for (int i = 0; i < o->npaths && n + 3 < PROFILING_MAX_ARGS; i++) {
        ARG("--plugin-path");
        ARG("%s", o->plugin_paths[i]);
    }
#undef ARG
    argv[n] = NULL;
    return n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Starts argv with its output in `out`, in a process group of its own (ncu and the klab it starts end
   together); waits at most timeout_s, and no longer than SIGINT/SIGTERM to klab. The exit status, or
   -1 with why in err. */
static int run_waited(char *const argv[], const char *out, double timeout_s, char *err, size_t errlen)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        FILE *fp = freopen(out, "w", stdout);
        if (fp)
            dup2(fileno(stdout), STDERR_FILENO);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no race with the kill below */
    double deadline = now_s() + timeout_s;
    int status = 0, killed = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            snprintf(err, errlen, "waiting for %s: %s", argv[0], strerror(errno));
            return -1;
        }
        if (!killed && (supervise_interrupted() || now_s() > deadline)) {
            kill(-pid, SIGKILL);
            killed = supervise_interrupted() ? 2 : 1;
        }
        struct timespec ms = {0, 20000000};
        nanosleep(&ms, NULL);
    }
    if (killed) {
        snprintf(err, errlen, killed == 2 ? "stopped: klab was interrupted"
                                          : "ncu took longer than %g s and was killed",
                 timeout_s);
        return -1;
    }
    if (WIFSIGNALED(status)) {
        snprintf(err, errlen, "%s was killed by signal %d", argv[0], WTERMSIG(status));
        return -1;
    }
    return WEXITSTATUS(status);
}

/* One ncu run of the row into *r. */
static void profile_once(const profiling_ctx *c, const klab_row *row, ncu_result *r)
{
    char base[600], cs[200], ps[200], log[4400], out[4400], err[600];
    file_part(row->kcase, cs, sizeof cs);
    file_part(row->profile, ps, sizeof ps);
    snprintf(base, sizeof base, "%s.%s.%s", cs, row->dtype, ps);
    snprintf(log, sizeof log, "%s/%s.ncu.log", c->workdir, base);
    snprintf(out, sizeof out, "%s/%s.out", c->workdir, base);
    static char store[PROFILING_MAX_ARGS][4200];
    char *argv[PROFILING_MAX_ARGS];
    profiling_argv(c, row, log, argv, store);
    unlink(log); /* a log from an earlier run of this folder must not pass for this one's */
    int rc = run_waited(argv, out, c->timeout_s, err, sizeof err);
    /* ncu's report goes to --log-file; its standard output (in `out`, with the profiled klab's, whose
       lines never begin with a quote) is read too, in case this ncu prints the report there */
    size_t len = 0, olen = 0;
    char *text = file_read_all(log, &len), *more = file_read_all(out, &olen);
    char *both = text && more ? realloc(text, len + olen + 2) : NULL;
    if (both) {
        text = both;
        text[len++] = '\n';
        memcpy(text + len, more, olen + 1);
        len += olen;
    } else if (!text && more) {
        text = more; /* no log at all: what ncu printed, if anything, says why */
        len = olen;
        more = NULL;
    }
    free(more);
    if (text) {
        ncu_parse(text, len, r);
        free(text);
    } else {
        memset(r, 0, sizeof *r);
        r->status = NCU_FAILED;
        snprintf(r->reason, sizeof r->reason, "ncu wrote no log (%s)", out);
    }
    if (rc < 0 && r->status == NCU_MEASURED) {
        r->status = NCU_FAILED;
        snprintf(r->reason, sizeof r->reason, "%s", err);
    } else if (r->status == NCU_FAILED || r->status == NCU_NO_KERNELS) {
        size_t l = strlen(r->reason);
        if (rc < 0)
            snprintf(r->reason + l, sizeof r->reason - l, "; %s", err);
        else if (rc != 0)
            snprintf(r->reason + l, sizeof r->reason - l, "; ncu exited with status %d (the profiled klab's output: %s)",
                     rc, out);
    }
}

void profiling_row(profiling_ctx *c, const klab_row *row, ncu_result *r)
{
    for (;;) {
        profile_once(c, row, r);
        int m = r->status == NCU_FAILED ? ncu_named_metric(r->reason) : -1;
        if (m < 0 || (c->skip & (1u << m)))
            break;
        text_printf(stderr, "klab: ncu does not know %s: profiling without it\n", ncu_metrics[m].metric);
        c->skip |= 1u << m;
    }
    if (r->status != NCU_MEASURED || !c->skip)
        return;
    size_t l = 0;
    r->reason[0] = 0;
    for (int m = 0; m < NCU_NMETRICS; m++)
        if (c->skip & (1u << m))
            l += (size_t)snprintf(r->reason + l, sizeof r->reason - l, "%s%s", l ? ", " : "this ncu does not know ",
                                  ncu_metrics[m].metric);
}

int profiling_plugin(const profiling_opts *o, const char *plugin, const char *ini, const char *run_dir,
                     const klab_row *rows, int n, char *err, size_t errlen)
{
    char ncu[4200], exe[4200], workdir[4400];
    profiling_find_ncu(ncu, sizeof ncu);
    exe_path(exe, sizeof exe);
    snprintf(workdir, sizeof workdir, "%s/profiling/%s", run_dir, plugin);
    if (ncu[0] && make_dirs(workdir) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", workdir, strerror(errno));
        return -1;
    }
    csv_sink s;
    if (counters_open(&s, run_dir, plugin, err, errlen) != 0)
        return -1;
    /* ncu replays each kernel once per pass of counters: a generous bound, not the worker's watchdog */
    profiling_ctx c = {o, ncu, exe, ini, workdir, 10 * o->timeout_s, 0};
    int measured = 0, refused = 0;
    for (int i = 0; i < n; i++) {
        const klab_row *r = &rows[i];
        if (r->status != ROW_PASSED && r->status != ROW_FLAGGED) {
            counters_add_status(&s, r, "not-profiled", "the row did not pass: nothing to explain");
            continue;
        }
        if (row_has_flag(r, "external")) {
            counters_add_status(&s, r, "not-profiled", "an external subject: klab cannot start it again alone");
            continue;
        }
        if (!ncu[0]) {
            counters_add_status(&s, r, "no-ncu", "no ncu (Nsight Compute) on PATH and no KLAB_NCU: no counters");
            continue;
        }
        if (supervise_interrupted()) {
            counters_add_status(&s, r, "not-profiled", "klab was interrupted");
            continue;
        }
        text_printf(stderr, "[%s profiling] %s %s %s\n", plugin, r->kcase, r->dtype, r->profile);
        ncu_result res;
        profiling_row(&c, r, &res);
        measured += res.status == NCU_MEASURED;
        refused += res.status == NCU_REFUSED;
        counters_add(&s, r, &res);
    }
    if (csv_sink_commit(&s, err, errlen) != 0)
        return -1;
    text_printf(stdout, "%s: counters -> %s (%d row%s measured%s)\n", plugin, s.path, measured,
                measured == 1 ? "" : "s",
                !ncu[0] ? "; no ncu found" : refused ? "; counters refused: no permission (ERR_NVGPUCTRPERM)" : "");
    return 0;
}
