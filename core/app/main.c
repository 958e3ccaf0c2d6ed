/* klab: a CUDA kernel lab. See README.md; `klab --help` for the command line. */
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "app/lab.h"
#include "app/lab_resume.h"
#include "evidence/row.h"
#include "host/parallel.h"
#include "klab/plugin.h"
#include "process/supervisor.h"
#include "scale/devices.h"
#include "scale/merge.h"
#include "util/text.h"
#include "version.h"

int main(int argc, char **argv)
{
    cli_opts o;
    char err[1024] = "";
    if (cli_parse(argc, argv, &o, err, sizeof err) != 0 || cli_check_folders(&o, err, sizeof err) != 0) {
        text_printf(stderr, "klab: %s\n", err);
        return EXIT_USAGE;
    }
    /* the workers' pool would take the CPU count for a wrong KLAB_THREADS: say so before any work */
    if ((o.cmd == CMD_RUN || o.cmd == CMD_SELF_TEST) && parallel_check_env(err, sizeof err) != 0) {
        fprintf(stderr, "klab: %s\n", err);
        return EXIT_USAGE;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* commands that start workers stop them on SIGINT/SIGTERM and say so (--no-isolate: the job runs
       here, and the signal's default action ends it) */
    if (o.isolate && o.cmd != CMD_HELP && o.cmd != CMD_VERSION && o.cmd != CMD_REPORT && o.cmd != CMD_COMPARE &&
        o.cmd != CMD_MERGE && supervise_trap_signals() != 0)
        perror("klab: cannot install the SIGINT/SIGTERM handlers");
    switch (o.cmd) {
    case CMD_HELP:
        cli_usage(stdout, o.help_topic);
        return EXIT_OK;
    case CMD_VERSION:
        printf("klab %s (commit %s), plugin ABI %d.%d, CSV schema %d\n", KLAB_VERSION, KLAB_GIT_COMMIT,
               KLAB_ABI_MAJOR, KLAB_ABI_MINOR, ROW_SCHEMA);
        return EXIT_OK;
    case CMD_LIST: return lab_list(&o);
    case CMD_VALIDATE: return lab_validate(&o);
    case CMD_SELF_TEST: return lab_self_test(&o);
    case CMD_REPORT: return lab_report(&o);
    case CMD_COMPARE: return lab_compare(&o);
    case CMD_RUN:
        if (o.resume[0]) {
            int rc = lab_resume_prepare(&o);
            if (rc != EXIT_OK)
                return rc;
        }
        if (o.ndevices)
            return lab_devices(&o);
        return lab_run(&o);
    case CMD_MERGE: return merge_main(o.merge, o.nmerge);
    }
    return EXIT_USAGE;
}
