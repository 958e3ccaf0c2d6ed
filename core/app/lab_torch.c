#include "app/lab_torch.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app/lab_worker.h"
#include "config/ini_config.h"
#include "host/discovery.h"
#include "host/dtype.h"
#include "util/text.h"
#include "worker/selection.h"

#ifndef KLAB_BIN_TO_LIBDIR /* core/CMakeLists.txt: the install prefix's lib and share, from its bin */
#define KLAB_BIN_TO_LIBDIR "../lib"
#endif
#ifndef KLAB_BIN_TO_DATADIR
#define KLAB_BIN_TO_DATADIR "../share"
#endif

static int add(torch_cmd *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int add(torch_cmd *c, const char *fmt, ...)
{
    if (c->argc >= TORCH_MAX_ARGS)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *w = need < 0 ? NULL : malloc((size_t)need + 1);
    if (!w)
        return -1;
    va_start(ap, fmt);
    vsnprintf(w, (size_t)need + 1, fmt, ap);
    va_end(ap);
    c->argv[c->argc++] = w;
    c->argv[c->argc] = NULL;
    return 0;
}

void torch_cmd_free(torch_cmd *c)
{
    for (int i = 0; i < c->argc; i++)
        free(c->argv[i]);
    c->argc = 0;
    c->argv[0] = NULL;
}

/* A list of names as one comma-separated word. */
static void joined(char (*names)[64], int n, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", i ? "," : "", names[i]);
    }
}

int torch_command(torch_cmd *c, const cli_opts *o, const char *script, const char *build, const torch_target *t,
                  int n, const torch_run *run)
{
    memset(c, 0, sizeof *c);
    int bad = add(c, "%s", o->torch_python) || add(c, "%s", script) || add(c, "--build") || add(c, "%s", build);
    if (!run)
        bad |= add(c, "--dry-run");
    else
        bad |= add(c, "--out") || add(c, "%s", run->dir) || add(c, "--run-id") || add(c, "%s", run->id) ||
               add(c, "--seed") || add(c, "%llu", (unsigned long long)run->seed) || add(c, "--device") ||
               add(c, "%d", o->device);
    /* beside klab's <plugin>.csv in the same folder, never over it */
    bad |= add(c, "--csv-suffix") || add(c, ".torch");
    for (int i = 0; i < n; i++) {
        bad |= add(c, "--ini") || add(c, "%s", t[i].ini) || add(c, "--so") || add(c, "%s=%s", t[i].plugin, t[i].so);
        /* torch_rows.py reads one units file for all its INIs: a target that has one goes alone */
        if (t[i].units[0])
            bad |= n != 1 || add(c, "--units") || add(c, "%s", t[i].units);
    }
    if (o->filter.ncases) {
        /* klab's --case keeps the INI's cases of those names and no others; torch_rows.py's --cases
           would make a case of a shape name an INI lacks, unless told not to */
        char names[FILTER_MAX * 64 + 1];
        joined((char(*)[64])o->filter.cases, o->filter.ncases, names, sizeof names);
        bad |= add(c, "--cases") || add(c, "%s", names) || add(c, "--ini-cases-only");
    }
    if (o->filter.dtypes) {
        char names[KLAB_DTYPE_COUNT * 16] = "";
        for (int d = 0; d < KLAB_DTYPE_COUNT; d++)
            if (o->filter.dtypes & KLAB_DTYPE_BIT(d)) {
                size_t l = strlen(names);
                snprintf(names + l, sizeof names - l, "%s%s", l ? "," : "", dtype_name((klab_dtype)d));
            }
        bad |= add(c, "--dtypes") || add(c, "%s", names);
    }
    if (o->hot || o->batched)
        bad |= add(c, "--mode") || add(c, "%s", o->hot ? "hot" : "batched");
    if (o->budget_ms > 0)
        bad |= add(c, "--budget-ms") || add(c, "%.15g", o->budget_ms);
    if (o->quick)
        bad |= add(c, "--quick");
    if (run && run->phases_out)
        bad |= add(c, "--phases-out") || add(c, "%s", run->phases_out);
    if (bad) {
        torch_cmd_free(c);
        return -1;
    }
    return 0;
}

/* ---- running it ---- */

/* `rel` (absolute, or relative to the folder `exe`) and `tail` as a path, resolved when it exists, so
   that what klab prints is the prefix's path and not bin/../. */
static void from_exe(char *buf, size_t len, const char *exe, const char *rel, const char *tail)
{
    if (rel[0] == '/')
        snprintf(buf, len, "%s/%s", rel, tail);
    else
        snprintf(buf, len, "%s/%s/%s", exe, rel, tail);
    char real[PATH_MAX];
    if (realpath(buf, real))
        snprintf(buf, len, "%s", real);
}

/* Where the PyTorch driver and libklab_bench are, found as klab's plugins and INIs are (host/discovery.h),
   from klab's own folder `exe`: the build tree's python/torch_rows.py and libklab_bench.so beside klab,
   else the install prefix's share/klab/python/torch_rows.py and lib/; KLAB_TORCH_ROWS names another
   script. Never the source tree: an installed klab runs what was installed with it. `lib` is the
   folder; each path is the installed one when neither exists, so that a message names it. */
static void torch_paths(const char *exe, char *script, size_t slen, char *lib, size_t llen)
{
    const char *env = getenv("KLAB_TORCH_ROWS");
    snprintf(script, slen, "%s/python/torch_rows.py", exe);
    if (env && *env)
        snprintf(script, slen, "%s", env);
    else if (access(script, R_OK) != 0)
        from_exe(script, slen, exe, KLAB_BIN_TO_DATADIR, "klab/python/torch_rows.py");
    char so[4200];
    snprintf(so, sizeof so, "%s/libklab_bench.so", exe);
    if (access(so, R_OK) == 0)
        snprintf(lib, llen, "%s", exe);
    else
        from_exe(lib, llen, exe, KLAB_BIN_TO_LIBDIR, ".");
}

/* Runs argv; with `out`, its stdout and stderr are read and their tail kept there (NUL-terminated;
   the whole output when it fits), otherwise they are klab's. Returns the exit status, 127 when it could
   not start (out says why), 128 + the signal that ended it. */
static int run_child(char *const *argv, char *out, size_t len)
{
    int fds[2] = {-1, -1};
    if (out) {
        out[0] = 0;
        if (pipe(fds) != 0) {
            snprintf(out, len, "pipe: %s", strerror(errno));
            return 127;
        }
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        if (out)
            snprintf(out, len, "fork: %s", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        if (out) {
            dup2(fds[1], STDOUT_FILENO);
            dup2(fds[1], STDERR_FILENO);
            close(fds[0]);
            close(fds[1]);
        }
        signal(SIGPIPE, SIG_DFL); /* klab ignores it; an interpreter should not inherit that */
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (out) {
        close(fds[1]);
        size_t have = 0;
        ssize_t got;
        /* keep a window of the output's tail: the last line is --check's answer */
        while ((got = read(fds[0], out + have, len - 1 - have)) != 0) {
            if (got < 0) {
                if (errno == EINTR)
                    continue;
                break;
            }
            have += (size_t)got;
            if (have == len - 1) {
                memmove(out, out + have / 2, have - have / 2);
                have -= have / 2;
            }
        }
        close(fds[0]);
        out[have] = 0;
    }
    /* polled: klab's SIGINT/SIGTERM handler restarts a blocking wait (SA_RESTART), and a signal sent to
       klab alone must stop the interpreter too, as it stops a worker */
    int status, told = 0;
    pid_t got;
    while ((got = waitpid(pid, &status, WNOHANG)) == 0 || (got < 0 && errno == EINTR)) {
        if (supervise_interrupted() && !told++)
            kill(pid, SIGTERM);
        struct timespec tick = {0, 20000000};
        nanosleep(&tick, NULL);
    }
    if (got < 0)
        return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The last non-empty line of buf, in place. */
static const char *last_line(char *buf)
{
    size_t have = strlen(buf);
    while (have && (buf[have - 1] == '\n' || buf[have - 1] == '\r' || buf[have - 1] == ' '))
        buf[--have] = 0;
    char *last = strrchr(buf, '\n');
    return last ? last + 1 : buf;
}

int lab_torch_ready(const cli_opts *o)
{
    char script[4200], exe[4096], lib[4200], so[4300], out[4096];
    if (exe_dir(exe, sizeof exe) != 0) {
        text_printf(stdout, "klab: PyTorch rows skipped: klab's own folder cannot be read (/proc/self/exe)\n");
        return 0;
    }
    torch_paths(exe, script, sizeof script, lib, sizeof lib);
    if (access(script, R_OK) != 0) {
        text_printf(stdout, "klab: PyTorch rows skipped: no %s (KLAB_TORCH_ROWS names the script)\n", script);
        return 0;
    }
    snprintf(so, sizeof so, "%s/libklab_bench.so", lib);
    if (access(so, R_OK) != 0) {
        text_printf(stdout, "klab: PyTorch rows skipped: no %s, beside klab or in its prefix's lib\n", so);
        return 0;
    }
    char *argv[] = {(char *)o->torch_python, script, "--check", NULL};
    int rc = run_child(argv, out, sizeof out);
    const char *line = last_line(out);
    if (rc == 0) {
        text_printf(stdout, "klab: PyTorch rows: %s (%s)\n", line, o->torch_python);
        return 1;
    }
    if (rc == 127 && !strncmp(line, "cannot run", 10))
        text_printf(stdout, "klab: PyTorch rows skipped: %s\n", line);
    else if (line[0])
        text_printf(stdout, "klab: PyTorch rows skipped: %s (%s %s --check, exit status %d)\n", line,
                    o->torch_python, script, rc);
    else
        text_printf(stdout, "klab: PyTorch rows skipped: '%s %s --check' said nothing (exit status %d)\n",
                    o->torch_python, script, rc);
    return 0;
}

int torch_units_write(const char *path, const cfg_experiment *cfg, const run_filter *f, int *n, char *err,
                      size_t errlen)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    *n = job_units(cfg, f, -1, NULL, NULL);
    for (int u = 0; u < *n; u++) {
        int ci;
        klab_dtype dt;
        job_units(cfg, f, u, &ci, &dt);
        fprintf(fp, "%s\t%s\n", cfg->cases[ci].name, dtype_name(dt));
    }
    if (ferror(fp) | (fclose(fp) != 0)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}

/* The INI, parsed again (it was checked before), and how many of its units klab's selection keeps;
   -1 with the reason in err when it cannot be read now. */
static int selected_units(const cli_opts *o, const char *ini, cfg_experiment *cfg, char *err, size_t errlen)
{
    return cfg_load(ini, cfg, err, errlen) == 0 ? job_units(cfg, &o->filter, -1, NULL, NULL) : -1;
}

/* An INI's file name without its extension: torch_rows.py's name for its CSV (<stem>.torch.csv). */
static void ini_stem(const char *ini, char *buf, size_t len)
{
    const char *base = strrchr(ini, '/');
    base = base ? base + 1 : ini;
    const char *dot = strrchr(base, '.');
    snprintf(buf, len, "%.*s", dot && dot != base ? (int)(dot - base) : (int)strlen(base), base);
}

/* A resumed run keeps the PyTorch CSVs its first part completed (<INI stem>.torch.csv); a target
   whose CSV is partial runs again whole: torch_rows.py writes an INI's units between one kb_open and
   kb_close of libklab_bench, which keeps no record of which of them are whole. */
static int torch_csv_done(const char *dir, const char *ini)
{
    char stem[256], path[8400];
    ini_stem(ini, stem, sizeof stem);
    snprintf(path, sizeof path, "%s/%s.torch.csv", dir, stem);
    if (access(path, F_OK) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/%s.torch-units", dir, stem);
    unlink(path); /* left only when klab was killed between torch_rows.py's end and its removal */
    return 1;
}

/* One torch_rows.py command for targets t[0..n), printed and run. Returns its status as lab_torch does. */
/* 1 when `python script --help` names `option`: a newer torch_rows.py than this klab knows may take it,
   an older one would stop at it. */
static int script_takes(const cli_opts *o, const char *script, const char *option)
{
    static char out[1 << 16]; /* argparse's whole --help; more than this would keep only its tail */
    char *argv[] = {(char *)o->torch_python, (char *)script, "--help", NULL};
    return run_child(argv, out, sizeof out) == 0 && strstr(out, option) != NULL;
}

/* One run of the script for targets t[0..n) (run NULL: the listing). Returns its exit status, as
   lab_torch's. */
static int torch_child(const cli_opts *o, const char *script, const char *lib, const torch_target *t, int n,
                       const torch_run *run)
{
    torch_cmd c;
    if (torch_command(&c, o, script, lib, t, n, run) != 0) {
        printf("klab: PyTorch rows skipped: the command line is too long or out of memory\n");
        return 0;
    }
    printf("\nklab: PyTorch %s:", run ? "in the same rounds" : "cases (torch_rows.py --dry-run)");
    for (int i = 0; i < c.argc; i++)
        text_printf(stdout, " %s", c.argv[i]);
    printf("\n");
    char why[512];
    int rc = run_child(c.argv, NULL, 0);
    torch_cmd_free(&c);
    if (supervise_interrupted()) {
        if (run)
            snprintf(why, sizeof why, "PyTorch's complete CSVs are in %s, an incomplete one as .csv.partial", run->dir);
        else
            snprintf(why, sizeof why, "PyTorch's listing was stopped");
        rc = lab_interrupted(why);
    } else if (rc == 127 && !run) {
        /* --validate lists without torch; only a missing interpreter skips it (its line is above) */
        printf("klab: PyTorch cases skipped: the interpreter could not start\n");
        rc = 0;
    } else if (rc != 0) {
        text_printf(stderr, "klab: PyTorch rows: %s exited with status %d%s%s\n", script, rc,
                    run ? "; its complete CSVs are in " : "", run ? run->dir : "");
    }
    return rc;
}

/* A run's PyTorch rows, one child per plugin, each timed as its plugin's phase "torch"; with
   --phases-out, the script's own phases join them as torch_<key>, and its file is removed. */
static int torch_rows_per_plugin(const cli_opts *o, const char *script, const char *lib, const torch_target *t,
                                 int n, const torch_run *run)
{
    int takes = script_takes(o, script, "--phases-out"), rc = 0;
    for (int i = 0; i < n && !supervise_interrupted(); i++) {
        char phases_out[4400], err[1200];
        const char *base = strrchr(t[i].ini, '/');
        base = base ? base + 1 : t[i].ini;
        size_t stem = strlen(base) > 4 && !strcmp(base + strlen(base) - 4, ".ini") ? strlen(base) - 4 : strlen(base);
        snprintf(phases_out, sizeof phases_out, "%s/%.*s.torch.phases.ini", run->dir, (int)stem, base);
        torch_run one = *run;
        one.phases_out = takes ? phases_out : NULL;
        unlink(phases_out); /* an earlier run's would pass for this one's */
        double t0 = phases_clock_ms();
        int r = torch_child(o, script, lib, &t[i], 1, &one);
        if (run->phases)
            phases_add(run->phases, t[i].plugin, "torch", phases_clock_ms() - t0);
        if (takes && access(phases_out, R_OK) == 0) {
            if (run->phases && phases_read(phases_out, t[i].plugin, "torch_", run->phases, err, sizeof err) != 0)
                text_printf(stderr, "klab: PyTorch's phases: %s\n", err);
            unlink(phases_out);
        }
        if (r != 0 && (rc == 0 || r > EXIT_SIGNALED))
            rc = r;
    }
    return rc;
}

/* Under --shard: each target alone, with the units file of its slice (in the run folder, or for
   --validate in a folder of its own), removed after. */
static int torch_shard(const cli_opts *o, const char *script, const char *lib, torch_target *t, int n,
                       const torch_run *run)
{
    char tmp[4200] = "", err[1200];
    if (!run) {
        const char *base = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/klab-units-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(tmp)) {
            text_printf(stdout, "klab: PyTorch cases skipped: cannot make %s: %s\n", tmp, strerror(errno));
            return 0;
        }
    }
    static cfg_experiment cfg;
    int rc = 0;
    for (int i = 0; i < n && !supervise_interrupted(); i++) {
        char stem[256];
        ini_stem(t[i].ini, stem, sizeof stem);
        /* not *.csv nor *.partial: klab merge and klab report read those */
        snprintf(t[i].units, sizeof t[i].units, "%s/%s.torch-units", run ? run->dir : tmp, stem);
        int units = 0;
        if (selected_units(o, t[i].ini, &cfg, err, sizeof err) < 0 ||
            torch_units_write(t[i].units, &cfg, &o->filter, &units, err, sizeof err) != 0) {
            text_printf(stderr, "klab: PyTorch rows of %s skipped: %s\n", t[i].ini, err);
            rc = rc ? rc : 1;
            continue;
        }
        text_printf(stdout, "\nklab: PyTorch units of %s (shard %d/%d): %d\n", t[i].ini, o->filter.shard_k,
                    o->filter.shard_n, units);
        for (int u = 0; u < units && !run; u++) {
            int ci;
            klab_dtype dt;
            job_units(&cfg, &o->filter, u, &ci, &dt);
            text_printf(stdout, "  %s %s\n", cfg.cases[ci].name, dtype_name(dt));
        }
        int r = run ? torch_rows_per_plugin(o, script, lib, &t[i], 1, run) : torch_child(o, script, lib, &t[i], 1, NULL);
        unlink(t[i].units);
        if (r && (!rc || supervise_interrupted()))
            rc = r; /* the first failure, unless a signal stopped a later one */
    }
    if (tmp[0])
        rmdir(tmp);
    return rc;
}

int lab_torch(const cli_opts *o, const torch_target *t, int n, const torch_run *run)
{
    char script[4200], exe[4096], lib[4200];
    if (exe_dir(exe, sizeof exe) != 0)
        snprintf(exe, sizeof exe, ".");
    torch_paths(exe, script, sizeof script, lib, sizeof lib);
    torch_target *kept = malloc((size_t)(n ? n : 1) * sizeof *kept);
    if (!kept) {
        fprintf(stdout, "klab: PyTorch rows skipped: out of memory\n");
        return 0;
    }
    static cfg_experiment cfg;
    char err[1200];
    int k = 0, done = 0;
    for (int i = 0; i < n; i++) {
        if (selected_units(o, t[i].ini, &cfg, err, sizeof err) <= 0)
            continue;
        if (run && o->resume[0] && torch_csv_done(run->dir, t[i].ini)) {
            text_printf(stdout, "klab: PyTorch rows of %s: its CSV is complete, kept\n", t[i].ini);
            done++;
            continue;
        }
        kept[k] = t[i];
        kept[k++].units[0] = 0;
    }
    int rc = 0;
    if (k == 0) {
        if (!done) /* a resumed run's kept targets each said so above */
            printf("klab: PyTorch rows: no case selected\n");
    } else if (o->filter.shard_n)
        rc = torch_shard(o, script, lib, kept, k, run);
    else if (!run)
        rc = torch_child(o, script, lib, kept, k, NULL);
    else
        rc = torch_rows_per_plugin(o, script, lib, kept, k, run);
    free(kept);
    return rc;
}
