/* The command line: what to do and with which options. Parsing only: no side effects. */
#ifndef KLAB_CLI_H
#define KLAB_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "config/ini_config.h"
#include "process/exit_status.h"
#include "scale/devices.h"
#include "scale/profiling.h"
#include "worker/job.h"

typedef enum cli_cmd { CMD_RUN, CMD_LIST, CMD_VALIDATE, CMD_SELF_TEST, CMD_REPORT, CMD_COMPARE, CMD_HELP,
                       CMD_VERSION, CMD_MERGE } cli_cmd;

#define CLI_MAX 32
#define CLI_SHIPPED_EXPERIMENTS "experiments" /* klab report's experiments, beside any --experiments DIR */

typedef struct cli_opts {
    cli_cmd cmd;
    int nplugins;
    char plugins[CLI_MAX][64];
    run_filter filter;
    char config[4096];
    int npaths;
    const char *plugin_paths[CLI_MAX];
    char ini_dir[4096];
    char run_id[64];
    char out_dir[4096];
    char report_dir[4096];     /* klab report: the first RUN ("": the latest under --out) */
    int nreports;              /* klab report RUN...: every RUN, as given */
    char *const *reports;      /* pointers into argv: as many runs as the command line holds */
    char report_out[4096];     /* --out-dir: where the report goes ("": <first RUN>/report) */
    char experiments_dir[4096]; /* --experiments: the experiment and decision files (default experiments);
                                  both also with a run's --report */
    int experiments_given;     /* --experiments was named: it must exist (the default may not) */
    char adhoc_shape[CFG_NAME]; /* --shape, --dim: a case made on the command line (adhoc_case.h) */
    char adhoc_dims[512];
    char adhoc_name[CFG_NAME];  /* its name, also the one --case the filter holds; "": none */
    int json;                  /* --json: --list, --validate, compare and report write one JSON document */
    int verbose;               /* --verbose: --tune --validate lists every configuration */
    int quiet;                 /* klab report --quiet: the verdicts alone, no tables */
    int fail_on;               /* klab report --fail-on (report_fail_on, report_json.h): exit 1 when a decision
                                  has a status it names */
    cli_cmd help_topic;        /* --help: CMD_REPORT, CMD_COMPARE, CMD_MERGE for their own help; else the whole */
    char compare[2][4096]; /* klab compare RUN-A RUN-B: run folders, or run ids under --out */
    double threshold;      /* klab compare --threshold PCT, as a fraction (compare.h) */
    int allow_missing, allow_config_change; /* klab compare: what the gate may let pass (compare.h) */
    int device;
    int hot, batched, isolate, verify_only; /* hot, batched: timing modes (timing.h), at most one */
    int tune; /* a run: every configuration of each tuning space timed; --validate: listed */
    char tune_cache[4096]; /* --tune-cache, else <out_dir>/tune-cache.ini */
    double timeout_s;
    double throttle;
    uint64_t seed; /* 0: pick one from the clock */
    double budget_ms; /* --budget-ms: every case's sampling budget instead of its INI's; 0: the INI's */
    int quick;        /* --quick: a smoke pass, every check made, little sampled (stopping.h) */
    int report;       /* --report: the run ends with its report (lab_run_report) */
    int with_torch;       /* --with-torch or --torch PYTHON: PyTorch rows beside klab's (lab_torch.h) */
    char torch_python[4096]; /* the interpreter: --torch PYTHON, else python3 */
    char command_line[2048];
    /* scale-out (docs/scale-out.md): --with-profiling, --devices, --shard (in filter), klab merge */
    int with_profiling;
    int profile_pass; /* internal: the child --with-profiling starts under ncu */
    int ndevices;
    int devices[CLI_MAX];
    int nmerge;           /* klab merge OUT RUN...: OUT and the runs, pointers into argv */
    char *const *merge;
    char resume[4096];    /* --resume RUN: the run folder to continue (lab_resume.h); "": a new run */
    int argc;             /* the command line as given: --devices and --with-profiling start klab again */
    char *const *argv;
} cli_opts;


/* Returns 0, or -1 with one sentence in err. */
int cli_parse(int argc, char **argv, cli_opts *o, char *err, size_t errlen);

/* The folders the command line names (--ini-dir, --plugin-path, --experiments) exist and are folders:
   0, or -1 with which one and why. Apart from cli_parse, which reads only its words. */
int cli_check_folders(const cli_opts *o, char *err, size_t errlen);

/* The narrow views of the command line the layers below take. */
devices_opts cli_devices_opts(const cli_opts *o);
profiling_opts cli_profiling_opts(const cli_opts *o);

/* The timing mode the options ask for (--hot, --batched, else plain). */
timing_mode cli_timing_mode(const cli_opts *o);

/* The help of `topic` (CMD_REPORT, CMD_COMPARE, CMD_MERGE), else klab's whole (cli_help.c). */
void cli_usage(FILE *fp, cli_cmd topic);

#endif
