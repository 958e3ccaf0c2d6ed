#include "scale/devices.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "evidence/csv_sink.h"
#include "evidence/run_meta.h"
#include "host/discovery.h"
#include "host/parallel.h"
#include "process/supervisor.h"
#include "report/table.h"
#include "scale/merge.h"
#include "util/text.h"

/* The options a child gets its own value of, and those only the parent acts on: it reports once,
   over the merged rows (--report, and the report's --out-dir and --experiments, which a child would
   refuse without --report). getopt_long takes unambiguous abbreviations: "--ou" is --out, so any
   prefix of these names goes too. */
static const char *const replaced[] = {"devices", "device", "out", "run-id", "tune-cache", "out-dir", "experiments"};
static const char *const parents_own[] = {"report"}; /* no value */

static int abbreviates(const char *name, size_t len, const char *option)
{
    return len >= 2 && len <= strlen(option) && strncmp(option, name, len) == 0;
}

/* 0: keep the word; 1: drop it; 2: drop it and the value after it. */
static int replaced_option(const char *arg)
{
    if (strncmp(arg, "--", 2) != 0 || !arg[2])
        return 0;
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    for (size_t i = 0; i < sizeof parents_own / sizeof parents_own[0]; i++)
        if (abbreviates(name, len, parents_own[i]))
            return 1;
    for (size_t i = 0; i < sizeof replaced / sizeof replaced[0]; i++)
        if (abbreviates(name, len, replaced[i]))
            return eq ? 1 : 2;
    return 0;
}

int devices_child_argv(const devices_opts *o, int i, const char *exe, const char *out, const char *run_id,
                       char *argv[DEVICES_MAX_ARGS], char store[DEVICES_MAX_ARGS][4200])
{
    int n = 0;
#define ARG(...) (snprintf(store[n], sizeof store[n], __VA_ARGS__), argv[n] = store[n], n++)
    ARG("%s", exe);
    for (int k = 1; k < o->argc; k++) {
        int r = replaced_option(o->argv[k]);
        if (r) {
            k += r - 1;
            continue;
        }
        if (n + 9 >= DEVICES_MAX_ARGS)
            return -1;
        ARG("%s", o->argv[k]);
    }
    ARG("--device");
    ARG("%d", o->devices[i]);
    ARG("--shard");
    ARG("%d/%d", i, o->ndevices);
    ARG("--out");
    ARG("%s", out);
    ARG("--run-id");
    ARG("%s", run_id);
    ARG("--tune-cache"); /* the parent's, not one under the child's own --out */
    ARG("%s", o->tune_cache);
#undef ARG
    argv[n] = NULL;
    return n;
}

int devices_exit_status(const int *rcs, int n)
{
    static const int worst_first[] = {EXIT_USAGE, EXIT_NO_GPU, EXIT_FAILED_ROWS};
    for (int i = 0; i < n; i++)
        if (rcs[i] > EXIT_SIGNALED)
            return rcs[i];
    for (size_t w = 0; w < sizeof worst_first / sizeof worst_first[0]; w++)
        for (int i = 0; i < n; i++)
            if (rcs[i] == worst_first[w])
                return rcs[i];
    for (int i = 0; i < n; i++)
        if (rcs[i] != EXIT_OK)
            return EXIT_FAILED_ROWS;
    return EXIT_OK;
}

/* The children's [phases] summed into the merged folder's meta.ini, with this run's wall time: the
   children ran side by side, so the wall is the parent's, not a sum. A child without [phases] (one
   that stopped early) adds nothing. */
static void merged_phases(const char *merged, char sources[][4500], const int *rcs, int n, double wall_ms)
{
    static run_phases ph;
    memset(&ph, 0, sizeof ph);
    char err[2000], meta[4600];
    for (int i = 0; i < n; i++) {
        snprintf(meta, sizeof meta, "%s/meta.ini", sources[i]);
        if (rcs[i] < EXIT_SIGNALED && access(meta, R_OK) == 0 &&
            phases_read(meta, NULL, NULL, &ph, err, sizeof err) != 0)
            text_printf(stderr, "klab: %s\n", err);
    }
    ph.wall_ms = wall_ms;
    snprintf(meta, sizeof meta, "%s/meta.ini", merged);
    if (run_meta_put_phases(meta, &ph, err, sizeof err) != 0)
        text_printf(stderr, "klab: %s\n", err);
}

int devices_run(const devices_opts *o)
{
    char run_id[64], work[4400], exe[4200];
    double t0 = phases_clock_ms();
    if (o->merged)
        o->merged[0] = 0;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    run_meta_run_id(o->run_id, &tm, run_id, sizeof run_id);
    exe_path(exe, sizeof exe);
    snprintf(work, sizeof work, "%s/%s.devices", o->out_dir, run_id);
    if (make_dirs(work) != 0) {
        fprintf(stderr, "klab: cannot create %s: %s\n", work, strerror(errno));
        return EXIT_USAGE;
    }
    int n = o->ndevices;
    pid_t pids[DEVICES_MAX];
    int rcs[DEVICES_MAX] = {0}; /* GCC at -O2 cannot see that each is set below */
    char runs[DEVICES_MAX][4500];
    static char store[DEVICES_MAX_ARGS][4200];
    printf("klab: run %s on GPUs", run_id);
    for (int i = 0; i < n; i++)
        printf(" %d", o->devices[i]);
    printf(", one klab each (their output: %s/gpu<N>.log)\n", work);
    for (int i = 0; i < n; i++) {
        char out[4500], log[4500];
        snprintf(out, sizeof out, "%s/gpu%d", work, o->devices[i]);
        snprintf(runs[i], sizeof runs[i], "%s/%s", out, run_id);
        snprintf(log, sizeof log, "%s/gpu%d.log", work, o->devices[i]);
        char *argv[DEVICES_MAX_ARGS];
        rcs[i] = EXIT_FAILED_ROWS;
        pids[i] = -1;
        if (supervise_interrupted() || devices_child_argv(o, i, exe, out, run_id, argv, store) < 0)
            continue;
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            if (!freopen(log, "w", stdout))
                _exit(EXIT_USAGE);
            /* the host's CPUs shared among the GPUs' workers, unless the user said how many */
            char threads[16];
            snprintf(threads, sizeof threads, "%d", parallel_share(n));
            setenv("KLAB_THREADS", threads, 0);
            execv(argv[0], argv);
            fprintf(stderr, "klab: cannot run %s: %s\n", argv[0], strerror(errno));
            _exit(EXIT_USAGE);
        }
        if (pid < 0)
            fprintf(stderr, "klab: cannot start the klab for GPU %d: %s\n", o->devices[i], strerror(errno));
        pids[i] = pid;
    }
    /* Wait for all. A signal from the terminal or the scheduler reaches the children too (one process
       group); one sent to this klab alone is passed on, after a grace period, to a child still running:
       at once, it would be a child's second signal, which ends it without its word. */
    int left = 0, forwarded = 0;
    double stopped_at = 0;
    for (int i = 0; i < n; i++)
        left += pids[i] > 0;
    while (left > 0) {
        int status;
        pid_t w = waitpid(-1, &status, WNOHANG);
        if (w > 0) {
            for (int i = 0; i < n; i++)
                if (pids[i] == w) {
                    rcs[i] = WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_SIGNALED + WTERMSIG(status);
                    pids[i] = -1;
                    left--;
                }
            continue;
        }
        if (w < 0 && errno != EINTR)
            break;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double t = now.tv_sec + now.tv_nsec / 1e9;
        if (supervise_interrupted() && !stopped_at)
            stopped_at = t;
        if (stopped_at && !forwarded && t - stopped_at > 2) {
            for (int i = 0; i < n; i++)
                if (pids[i] > 0)
                    kill(pids[i], supervise_interrupted());
            forwarded = 1;
        }
        struct timespec ms = {0, 20000000};
        nanosleep(&ms, NULL);
    }
    const char *sources[DEVICES_MAX];
    int ns = 0;
    for (int i = 0; i < n; i++) {
        char meta[4600];
        snprintf(meta, sizeof meta, "%s/meta.ini", runs[i]);
        if (rcs[i] != EXIT_OK)
            fprintf(stderr, "klab: the klab for GPU %d exited with status %d (its output: %s/gpu%d.log)\n",
                    o->devices[i], rcs[i], work, o->devices[i]);
        if (access(meta, F_OK) == 0 && rcs[i] < EXIT_SIGNALED)
            sources[ns++] = runs[i];
    }
    int rc = devices_exit_status(rcs, n);
    if (supervise_interrupted()) {
        fprintf(stderr, "klab: interrupted: nothing merged; each GPU's rows so far are under %s\n", work);
        return EXIT_SIGNALED + supervise_interrupted();
    }
    if (ns == 0)
        return rc;
    char merged[4500], err[2000];
    snprintf(merged, sizeof merged, "%s/%s", o->out_dir, run_id);
    int mr = merge_runs(merged, sources, ns, stdout, err, sizeof err);
    if (mr != 0) {
        text_printf(stderr, "klab: the GPUs' run folders could not be merged: %s\n", err);
        return rc == EXIT_OK ? EXIT_FAILED_ROWS : rc;
    }
    merged_phases(merged, runs, rcs, n, phases_clock_ms() - t0);
    if (o->merged)
        snprintf(o->merged, o->merged_len, "%s", merged);
    if (table_report(stdout, merged, err, sizeof err) != 0)
        text_printf(stderr, "klab: %s\n", err);
    if (ns < n)
        fprintf(stderr, "klab: %d of %d GPUs' rows merged into %s\n", ns, n, merged);
    return rc;
}
