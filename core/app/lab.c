/* The parent's smaller commands: the timer's self-test, --devices' parent and klab compare. The run is
 * lab_run.c; list, validate and report have files of their own. */
#include "app/lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/lab_worker.h"
#include "evidence/run_set.h"
#include "report/compare.h"
#include "util/text.h"

int lab_self_test(const cli_opts *o)
{
    job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_SELF_TEST;
    j.device = o->device;
    j.topts.mode = cli_timing_mode(o);
    j.topts.throttle = o->throttle;
    j.topts.seed = 1;
    job_state s;
    memset(&s, 0, sizeof s);
    s.notes_to_stdout = 1;
    worker_outcome w;
    if (lab_spawn(&j, o, o->timeout_s, &s, &w) != 0)
        return supervise_interrupted() ? lab_interrupted(WORKER_STOPPED) : EXIT_FAILED_ROWS;
    if (s.fatal) {
        fprintf(stderr, "klab: %s.\nklab: the self-test needs a GPU.\n", s.fatal_msg);
        return EXIT_NO_GPU;
    }
    if (!s.done) {
        char how[128];
        worker_outcome_text(&w, how, sizeof how);
        fprintf(stderr, "klab: the self-test worker %s\n", how);
        return EXIT_FAILED_ROWS;
    }
    printf("self-test %s\n", s.done_status ? "FAILED" : "passed");
    return s.done_status ? EXIT_FAILED_ROWS : EXIT_OK;
}

int lab_devices(const cli_opts *o)
{
    char merged[4500], err[1200], meta[4600];
    devices_opts d = cli_devices_opts(o);
    d.merged = merged;
    d.merged_len = sizeof merged;
    int rc = devices_run(&d);
    if (!merged[0])
        return rc; /* stopped, or nothing to merge: said above */
    static run_phases ph;
    memset(&ph, 0, sizeof ph);
    snprintf(meta, sizeof meta, "%s/meta.ini", merged);
    if (phases_read(meta, NULL, NULL, &ph, err, sizeof err) != 0)
        text_printf(stderr, "klab: %s\n", err);
    if (o->report)
        lab_run_report(o, merged);
    lab_print_time(&ph);
    return rc;
}

/* A run as the user names it: a folder, else a run id under --out. */
static const char *run_folder(const cli_opts *o, const char *run, char *buf, size_t len)
{
    struct stat st;
    if (stat(run, &st) == 0 && S_ISDIR(st.st_mode))
        return run;
    snprintf(buf, len, "%s/%s", o->out_dir, run);
    return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? buf : run;
}

int lab_compare(const cli_opts *o)
{
    char err[1200], ba[8300], bb[8300];
    const char *a = run_folder(o, o->compare[0], ba, sizeof ba), *b = run_folder(o, o->compare[1], bb, sizeof bb);
    cmp_totals t;
    json_out j;
    cmp_opts co = {o->threshold, o->allow_missing, o->allow_config_change, o->json ? &j : NULL};
    if (o->json) {
        if (json_open_document(&j, CMP_JSON_SCHEMA) != 0) {
            fprintf(stderr, "klab: out of memory\n");
            return EXIT_USAGE;
        }
    }
    int rc = cmp_runs(stdout, a, b, &co, &t, err, sizeof err);
    if (o->json) {
        json_end(&j);
        if (rc == 0 && json_print(&j, stdout) != 0) {
            fprintf(stderr, "klab: the JSON document could not be written\n");
            return EXIT_USAGE;
        }
        if (rc != 0)
            free(json_close(&j)); /* half a document is no document */
    }
    if (rc != 0) {
        text_printf(stderr, "klab: %s\n", err);
        return EXIT_USAGE;
    }
    int matched = t.n[CMP_SAME] + t.n[CMP_FASTER] + t.n[CMP_SLOWER] + t.n[CMP_UNSURE] + t.n[CMP_NOT_COMPARED];
    if (matched == 0) {
        /* a gate must not pass on nothing: two runs with no row in common compared nothing */
        fprintf(stderr, "klab: no row of %s matches a row of %s\n", a, b);
        return EXIT_USAGE;
    }
    return t.gate_failed ? EXIT_FAILED_ROWS : EXIT_OK;
}
