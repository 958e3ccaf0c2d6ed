#include "app/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/adhoc_case.h"
#include "host/dtype.h"
#include "report/compare.h"
#include "report/report_json.h"
#include "util/text.h"
#include "worker/shard.h"

static int split(const char *arg, char (*out)[64], int max, int *n, const char *what, char *err, size_t errlen)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", arg);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        if (!*t)
            continue;
        if (*n == max) {
            snprintf(err, errlen, "%s: more than %d names", what, max);
            return -1;
        }
        if (strlen(t) >= 64) {
            snprintf(err, errlen, "%s: '%s' is too long", what, t);
            return -1;
        }
        snprintf(out[(*n)++], 64, "%s", t);
    }
    if (*n == 0) {
        snprintf(err, errlen, "%s needs at least one name", what);
        return -1;
    }
    return 0;
}

static int number(const char *arg, const char *what, double lo, double hi, double *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    /* !(lo <= v <= hi), not v < lo || v > hi: NaN is neither, and "--threshold nan" passed every test */
    if (!*arg || *end || errno || !(v >= lo && v <= hi)) {
        snprintf(err, errlen, "%s: '%s' is not a number in [%g, %g]", what, arg, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int cli_check_adhoc(cli_opts *o, char *err, size_t errlen);
static int cli_check_output(const cli_opts *o, char *err, size_t errlen);

/* Whose help --help asks for: the subcommand among the words (klab report --help), else klab's whole.
   A word that is an option's value (--run-id report) names none. --help wins over every other word, so
   the words are read here and not parsed. */
static cli_cmd help_topic(int argc, char **argv, const struct option *longopts)
{
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (w[0] == '-') {
            for (const struct option *l = longopts; w[1] == '-' && l->name; l++)
                if (l->has_arg == required_argument && strcmp(w + 2, l->name) == 0)
                    i++; /* its value is the next word */
            if (strcmp(w, "-p") == 0)
                i++;
            continue;
        }
        return !strcmp(w, "report") ? CMD_REPORT : !strcmp(w, "compare") ? CMD_COMPARE
               : !strcmp(w, "merge") ? CMD_MERGE : CMD_HELP;
    }
    return CMD_HELP;
}

int cli_parse(int argc, char **argv, cli_opts *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->cmd = CMD_RUN;
    o->isolate = 1;
    o->timeout_s = 120;
    o->throttle = 0.75;
    o->threshold = CMP_DEFAULT_THRESHOLD;
    snprintf(o->torch_python, sizeof o->torch_python, "python3");
    snprintf(o->out_dir, sizeof o->out_dir, "out");
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(o->command_line);
        snprintf(o->command_line + n, sizeof o->command_line - n, "%s%s", i ? " " : "", argv[i]);
    }
    /* a control character in a word (an escape sequence in a run id, a line break in a path) would
       reach meta.ini, file names and the terminal: none belongs on klab's command line */
    for (int i = 1; i < argc; i++)
        for (const unsigned char *c = (const unsigned char *)argv[i]; *c; c++)
            if (*c < 0x20 || *c == 0x7f) {
                char shown[200];
                text_escape(shown, sizeof shown, argv[i]);
                snprintf(err, errlen, "'%s' holds a control character (\\x%02x): klab takes none", shown, *c);
                return -1;
            }
    enum { O_CASE = 256, O_DTYPE, O_PROFILE, O_CONFIG, O_PLUGIN_PATH, O_INI_DIR, O_OUT, O_RUN_ID, O_DEVICE,
           O_HOT, O_BATCHED, O_GRAPH, O_VERIFY_ONLY, O_TUNE, O_TUNE_CACHE, O_TIMEOUT, O_THROTTLE, O_SEED, O_NO_ISOLATE, O_LIST, O_VALIDATE, O_SELF_TEST, O_VERSION,
           O_WITH_TORCH, O_TORCH, O_THRESHOLD, O_OUT_DIR, O_EXPERIMENTS, O_WITH_PROFILING, O_PROFILE_PASS,
           O_DEVICES, O_SHARD, O_BUDGET_MS, O_QUICK, O_REPORT, O_RESUME, O_ALLOW_MISSING,
           O_ALLOW_CONFIG, O_SHAPE, O_DIM, O_JSON, O_VERBOSE, O_QUIET, O_FAIL_ON };
    static const struct option longopts[] = {
        {"plugin", required_argument, 0, 'p'},     {"case", required_argument, 0, O_CASE},
        {"dtype", required_argument, 0, O_DTYPE},  {"profile", required_argument, 0, O_PROFILE},
        {"config", required_argument, 0, O_CONFIG}, {"plugin-path", required_argument, 0, O_PLUGIN_PATH},
        {"ini-dir", required_argument, 0, O_INI_DIR}, {"out", required_argument, 0, O_OUT},
        {"run-id", required_argument, 0, O_RUN_ID}, {"device", required_argument, 0, O_DEVICE},
        {"hot", no_argument, 0, O_HOT},            {"batched", no_argument, 0, O_BATCHED},
        {"graph", no_argument, 0, O_GRAPH},
        {"verify-only", no_argument, 0, O_VERIFY_ONLY},
        {"tune", no_argument, 0, O_TUNE},          {"tune-cache", required_argument, 0, O_TUNE_CACHE},
        {"timeout", required_argument, 0, O_TIMEOUT}, {"throttle", required_argument, 0, O_THROTTLE},
        {"seed", required_argument, 0, O_SEED},    {"no-isolate", no_argument, 0, O_NO_ISOLATE},
        {"list", no_argument, 0, O_LIST},          {"validate", no_argument, 0, O_VALIDATE},
        {"self-test", no_argument, 0, O_SELF_TEST}, {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, O_VERSION},    {"with-torch", no_argument, 0, O_WITH_TORCH},
        {"torch", required_argument, 0, O_TORCH},  {"threshold", required_argument, 0, O_THRESHOLD},
        {"out-dir", required_argument, 0, O_OUT_DIR}, {"experiments", required_argument, 0, O_EXPERIMENTS},
        {"with-profiling", no_argument, 0, O_WITH_PROFILING}, {"profile-pass", no_argument, 0, O_PROFILE_PASS},
        {"devices", required_argument, 0, O_DEVICES}, {"shard", required_argument, 0, O_SHARD},
        {"budget-ms", required_argument, 0, O_BUDGET_MS}, {"quick", no_argument, 0, O_QUICK},
        {"report", no_argument, 0, O_REPORT},
        {"resume", required_argument, 0, O_RESUME},
        {"allow-missing", no_argument, 0, O_ALLOW_MISSING}, {"allow-config-change", no_argument, 0, O_ALLOW_CONFIG},
        {"shape", required_argument, 0, O_SHAPE}, {"dim", required_argument, 0, O_DIM},
        {"json", no_argument, 0, O_JSON},          {"verbose", no_argument, 0, O_VERBOSE},
        {"quiet", no_argument, 0, O_QUIET},        {"fail-on", required_argument, 0, O_FAIL_ON},
        {0, 0, 0, 0},
    };
    opterr = 0;
    optind = 0; /* glibc: 0 re-initialises fully; 1 would keep the rest of a previous "-hx" pending */
    int c;
    double v;
    char names[CLI_MAX][64];
    int nn = 0;
    while ((c = getopt_long(argc, argv, ":p:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (split(optarg, o->plugins, CLI_MAX, &o->nplugins, "--plugin", err, errlen))
                return -1;
            break;
        case O_CASE:
            if (split(optarg, o->filter.cases, FILTER_MAX, &o->filter.ncases, "--case", err, errlen))
                return -1;
            break;
        case O_DTYPE:
            nn = 0;
            if (split(optarg, names, CLI_MAX, &nn, "--dtype", err, errlen))
                return -1;
            for (int i = 0; i < nn; i++) {
                int d = dtype_parse(names[i]);
                if (d < 0) {
                    snprintf(err, errlen, "--dtype: unknown dtype '%s' (known: " DTYPE_KNOWN ")", names[i]);
                    return -1;
                }
                o->filter.dtypes |= KLAB_DTYPE_BIT(d);
            }
            break;
        case O_PROFILE:
            if (split(optarg, o->filter.profiles, FILTER_MAX, &o->filter.nprofiles, "--profile", err, errlen))
                return -1;
            break;
        case O_CONFIG: snprintf(o->config, sizeof o->config, "%s", optarg); break;
        case O_PLUGIN_PATH:
            if (o->npaths == CLI_MAX) {
                snprintf(err, errlen, "--plugin-path: more than %d folders", CLI_MAX);
                return -1;
            }
            o->plugin_paths[o->npaths++] = optarg;
            break;
        case O_INI_DIR: snprintf(o->ini_dir, sizeof o->ini_dir, "%s", optarg); break;
        case O_OUT_DIR: snprintf(o->report_out, sizeof o->report_out, "%s", optarg); break;
        case O_EXPERIMENTS:
            snprintf(o->experiments_dir, sizeof o->experiments_dir, "%s", optarg);
            o->experiments_given = 1;
            break;
        case O_OUT: snprintf(o->out_dir, sizeof o->out_dir, "%s", optarg); break;
        case O_RUN_ID:
            if (!*optarg || strchr(optarg, '/') || !strcmp(optarg, ".") || !strcmp(optarg, "..") ||
                strlen(optarg) >= sizeof o->run_id) {
                snprintf(err, errlen, "--run-id: '%s' must be a plain name under 64 characters", optarg);
                return -1;
            }
            snprintf(o->run_id, sizeof o->run_id, "%s", optarg);
            break;
        case O_DEVICE:
            if (number(optarg, "--device", 0, 1024, &v, err, errlen))
                return -1;
            if (v != (int)v) {
                snprintf(err, errlen, "--device: '%s' is not a device number", optarg);
                return -1;
            }
            o->device = (int)v;
            break;
        case O_HOT: o->hot = 1; break;
        case O_BATCHED: o->batched = 1; break;
        case O_GRAPH:
            snprintf(err, errlen, "--graph was replaced by --batched: a graph replayed once per event pair kept the "
                                  "~2.6 us launch floor in every sample; --batched times N runs per sample");
            return -1;
        case O_VERIFY_ONLY: o->verify_only = 1; break;
        case O_TUNE: o->tune = 1; break;
        case O_TUNE_CACHE:
            if (!*optarg || strlen(optarg) >= sizeof o->tune_cache) {
                snprintf(err, errlen, "--tune-cache: '%s' is not a usable path", optarg);
                return -1;
            }
            snprintf(o->tune_cache, sizeof o->tune_cache, "%s", optarg);
            break;
        case O_TIMEOUT:
            if (number(optarg, "--timeout", 0.1, 86400, &o->timeout_s, err, errlen))
                return -1;
            break;
        case O_THROTTLE:
            if (number(optarg, "--throttle", 0, 1, &o->throttle, err, errlen))
                return -1;
            break;
        case O_SEED: {
            char *end;
            errno = 0;
            /* strtoull reads "-1" as 2^64 - 1 and skips leading blanks: a seed starts with a digit */
            unsigned long long s = strtoull(optarg, &end, 0);
            if (*optarg < '0' || *optarg > '9' || *end || errno || s == 0) {
                snprintf(err, errlen, "--seed: '%s' is not a positive whole number", optarg);
                return -1;
            }
            o->seed = s;
            break;
        }
        case O_NO_ISOLATE: o->isolate = 0; break;
        case O_BUDGET_MS:
            /* the INI's own range for budget_ms, less 0: a budget of nothing samples nothing */
            if (number(optarg, "--budget-ms", 1, STOP_BUDGET_MAX_MS, &o->budget_ms, err, errlen)) {
                snprintf(err, errlen, "--budget-ms: '%s' is not a number of milliseconds from 1 to %.0f", optarg,
                         STOP_BUDGET_MAX_MS);
                return -1;
            }
            break;
        case O_QUICK: o->quick = 1; break;
        case O_REPORT: o->report = 1; break;
        case O_WITH_TORCH: o->with_torch = 1; break;
        case O_TORCH:
            if (!*optarg || strlen(optarg) >= sizeof o->torch_python) {
                snprintf(err, errlen, "--torch: '%s' is not a usable interpreter", optarg);
                return -1;
            }
            snprintf(o->torch_python, sizeof o->torch_python, "%s", optarg);
            o->with_torch = 1;
            break;
        case O_THRESHOLD:
            if (number(optarg, "--threshold", 0.01, 99, &v, err, errlen))
                return -1;
            o->threshold = v / 100;
            break;
        case O_ALLOW_MISSING: o->allow_missing = 1; break;
        case O_ALLOW_CONFIG: o->allow_config_change = 1; break;
        case O_LIST: o->cmd = CMD_LIST; break;
        case O_VALIDATE: o->cmd = CMD_VALIDATE; break;
        case O_SELF_TEST: o->cmd = CMD_SELF_TEST; break;
        case O_WITH_PROFILING: o->with_profiling = 1; break;
        case O_PROFILE_PASS: o->profile_pass = 1; break;
        case O_DEVICES:
            nn = 0;
            if (split(optarg, names, CLI_MAX, &nn, "--devices", err, errlen))
                return -1;
            for (o->ndevices = 0; o->ndevices < nn; o->ndevices++) {
                if (number(names[o->ndevices], "--devices", 0, 1024, &v, err, errlen))
                    return -1;
                for (int k = 0; k < o->ndevices; k++)
                    if (o->devices[k] == (int)v) {
                        snprintf(err, errlen, "--devices: device %d is named twice", (int)v);
                        return -1;
                    }
                o->devices[o->ndevices] = (int)v;
            }
            break;
        case O_SHARD:
            if (shard_parse(optarg, &o->filter.shard_k, &o->filter.shard_n, err, errlen))
                return -1;
            break;
        case O_RESUME:
            if (!*optarg || strlen(optarg) >= sizeof o->resume) {
                snprintf(err, errlen, "--resume: '%s' is not a usable run folder", optarg);
                return -1;
            }
            snprintf(o->resume, sizeof o->resume, "%s", optarg);
            break;
        case O_SHAPE:
            if (strlen(optarg) >= sizeof o->adhoc_shape) {
                snprintf(err, errlen, "--shape: '%.80s...' is longer than %zu characters", optarg,
                         sizeof o->adhoc_shape - 1);
                return -1;
            }
            snprintf(o->adhoc_shape, sizeof o->adhoc_shape, "%s", optarg);
            break;
        case O_DIM:
            if (strlen(o->adhoc_dims) + strlen(optarg) + 2 > sizeof o->adhoc_dims) {
                snprintf(err, errlen, "--dim: longer than %zu characters in all", sizeof o->adhoc_dims - 1);
                return -1;
            }
            /* repeatable: --dim m=64 --dim n=4096 is --dim m=64,n=4096 */
            snprintf(o->adhoc_dims + strlen(o->adhoc_dims), sizeof o->adhoc_dims - strlen(o->adhoc_dims), "%s%s",
                     o->adhoc_dims[0] ? "," : "", optarg);
            break;
        case O_JSON: o->json = 1; break;
        case O_VERBOSE: o->verbose = 1; break;
        case O_QUIET: o->quiet = 1; break;
        case O_FAIL_ON:
            if (strcmp(optarg, "rejected") == 0)
                o->fail_on = REPORT_FAIL_REJECTED;
            else if (strcmp(optarg, "caveated") == 0)
                o->fail_on = REPORT_FAIL_CAVEATED;
            else {
                snprintf(err, errlen, "--fail-on: '%s' is not a status to fail on (rejected, caveated)", optarg);
                return -1;
            }
            break;
        case 'h': o->cmd = CMD_HELP; o->help_topic = help_topic(argc, argv, longopts); return 0;
        case O_VERSION: o->cmd = CMD_VERSION; return 0;
        case ':':
            snprintf(err, errlen, "%s needs a value", argv[optind - 1]);
            return -1;
        default:
            if (optopt > 0 && optopt < 256) /* a short option, maybe inside a group like -xh */
                snprintf(err, errlen, "unknown option '-%c' (see klab --help)", optopt);
            else
                snprintf(err, errlen, "unknown option '%s' (see klab --help)", argv[optind - 1]);
            return -1;
        }
    }
    o->argc = argc;
    o->argv = argv;
    if (optind < argc && strcmp(argv[optind], "merge") == 0) {
        if (argc - optind < 3) {
            snprintf(err, errlen, "merge takes an output folder and at least one run folder: klab merge OUT RUN...");
            return -1;
        }
        o->cmd = CMD_MERGE;
        o->merge = argv + optind + 1;
        o->nmerge = argc - optind - 1;
        return 0;
    }
    if (optind < argc) {
        if (strcmp(argv[optind], "compare") == 0) {
            if (optind + 3 != argc) {
                snprintf(err, errlen, "compare takes two runs: klab compare RUN-A RUN-B");
                return -1;
            }
            o->cmd = CMD_COMPARE;
            snprintf(o->compare[0], sizeof o->compare[0], "%s", argv[optind + 1]);
            snprintf(o->compare[1], sizeof o->compare[1], "%s", argv[optind + 2]);
        } else if (strcmp(argv[optind], "report") != 0) {
            snprintf(err, errlen, "unexpected argument '%s' (see klab --help)", argv[optind]);
            return -1;
        } else {
            o->cmd = CMD_REPORT;
            o->reports = argv + optind + 1;
            o->nreports = argc - optind - 1;
            if (o->nreports)
                snprintf(o->report_dir, sizeof o->report_dir, "%s", o->reports[0]);
        }
    }
    if (o->report && o->cmd != CMD_RUN) {
        snprintf(err, errlen, "--report goes with a run (klab report RUN reports a run made before)");
        return -1;
    }
    if ((o->report_out[0] || o->experiments_dir[0]) && o->cmd != CMD_REPORT && !o->report) {
        snprintf(err, errlen, "--out-dir and --experiments go with klab report, or with a run's --report");
        return -1;
    }
    if ((o->quick || o->budget_ms > 0) && o->cmd != CMD_RUN) {
        snprintf(err, errlen, "--quick and --budget-ms go with a run");
        return -1;
    }
    if (o->quick && o->tune) {
        /* the tuning cache would keep a winner picked from a handful of samples */
        snprintf(err, errlen, "--quick goes with a plain run, not --tune: a tuning cache must not learn from a "
                              "smoke pass");
        return -1;
    }
    if (!o->experiments_dir[0])
        snprintf(o->experiments_dir, sizeof o->experiments_dir, "%s", CLI_SHIPPED_EXPERIMENTS);
    if (o->tune && o->cmd != CMD_RUN && o->cmd != CMD_VALIDATE) {
        /* configurations are per case: --list has no cases; --validate lists them */
        snprintf(err, errlen, "--tune goes with a run, or with --validate to list each case's configurations");
        return -1;
    }
    if (o->threshold != CMP_DEFAULT_THRESHOLD && o->cmd != CMD_COMPARE) {
        snprintf(err, errlen, "--threshold goes with klab compare RUN-A RUN-B");
        return -1;
    }
    if ((o->allow_missing || o->allow_config_change) && o->cmd != CMD_COMPARE) {
        snprintf(err, errlen, "--allow-missing and --allow-config-change go with klab compare RUN-A RUN-B");
        return -1;
    }
    if (o->with_torch && ((o->cmd != CMD_RUN && o->cmd != CMD_VALIDATE) || o->tune || o->verify_only)) {
        /* torch_rows.py times every case it is given: it has no tuning trials and no verify-only run */
        snprintf(err, errlen, "--with-torch goes with a run, or with --validate, not with --tune or --verify-only");
        return -1;
    }
    if (!o->tune_cache[0]) {
        static const char name[] = "/tune-cache.ini";
        size_t n = strlen(o->out_dir);
        if (n + sizeof name > sizeof o->tune_cache) {
            snprintf(err, errlen, "--out: too long to hold tune-cache.ini; give --tune-cache PATH");
            return -1;
        }
        memcpy(o->tune_cache, o->out_dir, n);
        memcpy(o->tune_cache + n, name, sizeof name);
    }
    if (o->hot && o->batched) {
        snprintf(err, errlen, "--hot and --batched are two timing modes: choose one");
        return -1;
    }
    if (o->ndevices && o->filter.shard_n) {
        /* a slice of a slice is possible but not one anybody has asked for: keep the arithmetic one level */
        snprintf(err, errlen, "--devices splits the units itself: give --devices or --shard, not both");
        return -1;
    }
    if (o->ndevices && o->tune) {
        /* each GPU's klab would rewrite the one tuning cache, the last keeping only its own finds */
        snprintf(err, errlen, "--tune runs on one GPU: give --device N, not --devices");
        return -1;
    }
    /* --validate --shard lists a slice's units (--with-torch: those PyTorch would run) */
    if ((o->ndevices || (o->filter.shard_n && o->cmd != CMD_VALIDATE) || o->with_profiling || o->profile_pass) &&
        o->cmd != CMD_RUN) {
        snprintf(err, errlen, "--devices, --shard and --with-profiling go with a run (--shard also with --validate)");
        return -1;
    }
    if (o->resume[0] && (o->cmd != CMD_RUN || o->profile_pass)) {
        snprintf(err, errlen, "--resume goes with a run");
        return -1;
    }
    if (o->resume[0] && o->ndevices) {
        /* a --devices run is one run folder per GPU, merged only when all ended: each is resumed alone */
        snprintf(err, errlen, "--resume continues one klab's run folder, and a --devices run has one per GPU "
                              "(<out>/<id>.devices/gpu<N>/<id>): resume each with --resume FOLDER --device N, "
                              "then klab merge them");
        return -1;
    }
    if ((o->with_profiling || o->profile_pass) && o->tune) {
        /* a tune run's rows are configurations a second klab could not select on its command line */
        snprintf(err, errlen, "--with-profiling goes with a plain run, not --tune");
        return -1;
    }
    if (o->config[0] && o->nplugins) {
        snprintf(err, errlen, "--config names its plugin itself; give either --config or --plugin");
        return -1;
    }
    return cli_check_adhoc(o, err, errlen) != 0 || cli_check_output(o, err, errlen) != 0 ? -1 : 0;
}

/* --shape and --dim: where they go, and the case they name, selected in place of --case. */
static int cli_check_adhoc(cli_opts *o, char *err, size_t errlen)
{
    if (!o->adhoc_shape[0] && !o->adhoc_dims[0])
        return 0;
    if (o->cmd != CMD_RUN && o->cmd != CMD_VALIDATE) {
        snprintf(err, errlen, "--shape and --dim go with a run or --validate");
        return -1;
    }
    if (!o->nplugins && !o->config[0]) {
        /* every plugin's INI would get a case of one size, most of them a size that means nothing there */
        snprintf(err, errlen, "--shape and --dim make a case for the plugins named: give --plugin NAME");
        return -1;
    }
    if (o->filter.ncases) {
        snprintf(err, errlen, "--shape and --dim make the case that runs: give them or --case, not both");
        return -1;
    }
    if (o->with_torch) {
        /* tools/torch_rows.py reads its cases from the INI file, where this one is not */
        snprintf(err, errlen, "--with-torch runs the INI's cases: it does not go with --shape or --dim");
        return -1;
    }
    if (cfg_adhoc_name(o->adhoc_shape, o->adhoc_dims, o->adhoc_name, sizeof o->adhoc_name, err, errlen) != 0)
        return -1;
    snprintf(o->filter.cases[0], sizeof o->filter.cases[0], "%s", o->adhoc_name);
    o->filter.ncases = 1;
    return 0;
}

/* --json, --verbose, --quiet and --fail-on: the commands that write what they shape. */
static int cli_check_output(const cli_opts *o, char *err, size_t errlen)
{
    if (o->json && o->cmd != CMD_LIST && o->cmd != CMD_VALIDATE && o->cmd != CMD_COMPARE && o->cmd != CMD_REPORT) {
        snprintf(err, errlen, "--json goes with --list, --validate, klab compare and klab report");
        return -1;
    }
    if (o->json && o->cmd == CMD_VALIDATE && o->with_torch) {
        snprintf(err, errlen, "--json describes klab's INI checks: it does not go with --with-torch");
        return -1;
    }
    if (o->verbose && !(o->cmd == CMD_VALIDATE && o->tune)) {
        snprintf(err, errlen, "--verbose goes with --tune --validate (every configuration listed)");
        return -1;
    }
    if ((o->quiet || o->fail_on) && o->cmd != CMD_REPORT) {
        snprintf(err, errlen, "--quiet and --fail-on go with klab report");
        return -1;
    }
    return 0;
}

timing_mode cli_timing_mode(const cli_opts *o)
{
    return o->hot ? TIMING_HOT : o->batched ? TIMING_BATCHED : TIMING_PLAIN;
}

devices_opts cli_devices_opts(const cli_opts *o)
{
    return (devices_opts){.argc = o->argc, .argv = o->argv, .devices = o->devices, .ndevices = o->ndevices,
                          .run_id = o->run_id, .out_dir = o->out_dir, .tune_cache = o->tune_cache};
}

profiling_opts cli_profiling_opts(const cli_opts *o)
{
    return (profiling_opts){.device = o->device, .timeout_s = o->timeout_s, .tune_cache = o->tune_cache,
                            .plugin_paths = o->plugin_paths, .npaths = o->npaths};
}

/* A folder named on the command line must be one: a misspelt --ini-dir or --plugin-path would
   otherwise fall back to the default search without a word, and a misspelt --experiments would give a
   report without its claims. */
static int is_folder(const char *opt, const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "%s: '%s': %s", opt, dir, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: '%s' is not a folder", opt, dir);
        return 0;
    }
    return 1;
}

int cli_check_folders(const cli_opts *o, char *err, size_t errlen)
{
    if (o->ini_dir[0] && !is_folder("--ini-dir", o->ini_dir, err, errlen))
        return -1;
    for (int i = 0; i < o->npaths; i++)
        if (!is_folder("--plugin-path", o->plugin_paths[i], err, errlen))
            return -1;
    if (o->experiments_given && !is_folder("--experiments", o->experiments_dir, err, errlen))
        return -1;
    return 0;
}
