/* An experiment's INI file: which plugin, the defaults, and the named cases (shapes, dtypes,
 * profiles, timing budget). Parsed with inih and validated completely before any GPU work, so a broken
 * file is reported on a machine without a GPU too. Every error names the file, the line and the key.
 *
 *   [experiment]
 *   plugin = rmsnorm
 *   question = Does one fused pass reach the copy rate?
 *
 *   [defaults]            ; any case key, inherited by every case
 *   dtypes = fp32, fp16, bf16
 *   profiles = baseline, fused
 *   warmup = 10           ; untimed runs per profile before sampling
 *   min_reps = 20         ; at least this many accepted samples
 *   max_reps = 5000
 *   precision = 0.005     ; stop once the median's 95 % interval is within +-0.5 %
 *   budget_ms = 1500      ; wall time for the case, all profiles together
 *   param.eps = 1e-6      ; plugin-specific, checked against the plugin's list
 *   dim.k = 4096          ; a named dimension (NAME [a-z][a-z0-9_]*, 1..2^40, 16 at most), checked
 *                         ; against the names the plugin takes
 *   steps = 100           ; 1..1000000, for plugins that run in steps; 0 (not given): the plugin's own
 *   config = bm=128,bn=256,stages=4   ; a tuning configuration: a-z 0-9 _ = , . (127 at most)
 *
 *   [case 4096x8192]      ; shape defaults to the name when the name is a shape
 *   [case odd]
 *   shape = 4096x5120
 *   [case gemm]           ; no shape: sized by its dim.NAME keys alone (rank 0, shape "")
 *   dim.m = 8192
 *   dim.n = 8192
 *
 * What is refused, each with file, line and (where there is one) key: a path that is not a regular
 * file, or one over 1 MiB (ini_source.h); a line over 196 characters; a NUL byte, a control character
 * other than tab, or a byte that is not UTF-8 anywhere in a line; a name or value longer than the
 * field that keeps it (CFG_NAME - 1 for names and shapes, 127 for param values and config), which is
 * never cut. A UTF-8 byte order mark at the start is skipped.
 */
#ifndef KLAB_INI_CONFIG_H
#define KLAB_INI_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"
#include "timing/stopping.h"

#define CFG_MAX_CASES 64
#define CFG_MAX_LIST 16
#define CFG_MAX_PARAMS 16
#define CFG_MAX_DIMS 16
#define CFG_MAX_KEYS 16 /* known keys (shape, dtypes, ...), for their lines */
#define CFG_NAME 64

typedef struct cfg_case {
    char name[CFG_NAME];
    int line; /* of its [case ...] header */
    char shape[CFG_NAME];
    int rank;
    int64_t dims[KLAB_MAX_RANK];
    int ndtypes;
    klab_dtype dtypes[KLAB_DTYPE_COUNT];
    int nprofiles; /* 0: every profile the plugin has */
    char profiles[CFG_MAX_LIST][CFG_NAME];
    int warmup;
    stop_rule stop;
    int nparams;
    char param_key[CFG_MAX_PARAMS][CFG_NAME];
    char param_val[CFG_MAX_PARAMS][128];
    int param_line[CFG_MAX_PARAMS];
    int ndims_named; /* dim.NAME keys, own and inherited */
    char dim_key[CFG_MAX_DIMS][32];
    int64_t dim_val[CFG_MAX_DIMS];
    int dim_line[CFG_MAX_DIMS];
    int steps;        /* 0: the plugin's default */
    char config[128]; /* "": none */
    int key_line[CFG_MAX_KEYS]; /* line of each known key, in the case or in [defaults]; 0: not given */
    unsigned set; /* which keys this section gave (CFG_SET_*), to inherit the rest from [defaults] */
} cfg_case;

typedef struct cfg_experiment {
    char path[4096];
    char plugin[CFG_NAME];
    int plugin_line;
    char question[512];
    cfg_case defaults;
    int ncases;
    cfg_case cases[CFG_MAX_CASES];
} cfg_experiment;

/* The keys a case has where neither it nor [defaults] gives them: dtypes fp32, warmup 10, min_reps 20,
   max_reps 5000, precision 0.005, budget_ms 1500 (d is cleared first). */
void cfg_case_defaults(cfg_case *d);

/* Parses and validates `path`. Returns 0, or -1 with "path:line: [section] key 'k': why" in err. */
int cfg_load(const char *path, cfg_experiment *out, char *err, size_t errlen);

/* Completes case c of e once the file is read, as cfg_load does every case: the [defaults] keys it
   does not give, its shape from its name where it has no shape key (none when its dim.NAME keys size
   it), min_reps <= max_reps. Returns 0, or -1 with "path:line: ..." in err. */
int cfg_case_finish(const cfg_experiment *e, cfg_case *c, char *err, size_t errlen);

/* Appends [case NAME] with no keys of its own (line 0), as if the file ended with that section: it
   takes [defaults], and NAME must be a shape. libklab_bench's callers name a shape the INI lacks this
   way. Returns the case's index, or -1 with "path: why" in err. */
int cfg_add_case(cfg_experiment *e, const char *name, char *err, size_t errlen);

/* The case keys known by name, i = 0, 1, ... ("shape", "dtypes", ..., "config"); NULL past the last. */
const char *cfg_case_key_name(int i);

/* The line that gives `key` ("shape", "param.eps", "dim.m") to case c, in its own section or in
   [defaults]; 0 where the file gives it nowhere (the built-in default). */
int cfg_case_key_line(const cfg_case *c, const char *key);

/* One key of [case NAME] given outside a file (libklab_bench's kb_begin): c (a case of e, its name
   set) takes `key = value` by the rules and with the messages of a file, "e->path:line: [case NAME]
   key ...: why" in err. Returns 0, or -1. */
int cfg_case_set(cfg_experiment *e, cfg_case *c, const char *key, const char *value, int line, char *err,
                 size_t errlen);

/* "4096x8192", "2^28", "7x1000". Returns rank (1..KLAB_MAX_RANK) or -1 with the reason in why. */
int cfg_parse_shape(const char *s, int64_t dims[KLAB_MAX_RANK], char *why, size_t whylen);

/* Checks the experiment against a plugin's descriptor: profiles it names exist, dtypes are
   supported, param.NAME and dim.NAME keys are ones the plugin takes (params and dims: NULL-terminated
   lists, NULL for none). Returns 0, or -1 with "file:line: [section] key '...': why" in err, the line
   being the key's own (in [defaults] when the case inherited it). */
int cfg_check_plugin(const cfg_experiment *e, const char *const *profile_names, int nprofiles,
                     uint32_t dtypes, const char *const *params, const char *const *dims, char *err,
                     size_t errlen);

/* Checks each param.NAME's value with the plugin's check_param (2.1; NULL accepts any). Returns 0, or
   -1 with "file:line: key 'param.NAME': plugin 'P' refuses 'VALUE': why" in err. */
int cfg_check_params(const cfg_experiment *e, const char *(*check_param)(const char *key, const char *value),
                     char *err, size_t errlen);

/* Number of (case, dtype, profile) rows the file asks for, given the plugin's profile count. */
long cfg_row_count(const cfg_experiment *e, int plugin_profiles);

#endif
