/* libklab_bench: klab's verification and timer for work that is not a plugin, above all PyTorch, and
 * klab's rules for the Python tools that drive it through ctypes (tools/klab/bench.py, the one place
 * ctypes is used). An external subject computes on the plugin case's own tensors, is compared with the
 * same float64 reference, and is sampled in the same rounds, after the same L2 flush, between the same
 * events as the plugin's profiles and klab's copy: a PyTorch row and a klab row of one case are
 * measured by one method in one run. What the Python side needs of klab's rules (an INI's cases, a
 * plugin's descriptor, the statistics, the CSV row) it asks for here, so no rule is written twice.
 *
 * The version: kb_abi_version() answers KB_ABI_VERSION; a caller refuses a library whose version is not
 * the one it was written for (1: kb_open .. kb_close alone, before kb_abi_version existed).
 *
 * Documents: an answer with structure (an INI's cases, a descriptor, statistics) is one JSON document
 * in a string the caller frees with kb_free; NULL on failure, kb_error(NULL) says why. Python reads it
 * with its json module: no C struct is mirrored on the other side, and a field added later breaks no
 * caller.
 *
 * Dtypes: kb_tensor and a kb_result_fn speak klab_dtype's numbers; kb_dtype_parse reads a name
 * ("fp16", "bfloat16", "float8_e4m3fn": dtype_parse's names) into one, -1 when unknown, and
 * kb_dtype_name gives klab's name of one ("fp16"; "?" for none), so no caller keeps the numbering.
 *
 * A plugin on a GPU, its rows to a CSV (a kb_session handle):
 *   kb_open      a plugin on a device; rows go to a CSV (the same columns as klab's)
 *   kb_set_mode  "plain" (the default), "batched" or "hot", as klab's --batched and --hot
 *   kb_set_quick for the cases begun after it: the quick rule (timing/stopping.h, stop_quick) caps
 *                each case's sampling, and every row written from then on carries the flag "quick"
 *   kb_write_meta  <dir>/meta.ini for the folder kb_open's CSV goes to, as klab writes its run's
 *                (core/evidence/run_meta.c): once per folder, after kb_open and kb_set_mode, before the
 *                first kb_begin. [run] id, started (kb_open's time), command (the caller's command
 *                line), klab_version, commit, csv_schema (0: kb_open's CSV, ROW_SCHEMA; a caller
 *                that writes its own CSV says its schema), seed; [device] kb_open's GPU; [method]
 *                its mode (l2, launch), throttle, isolated = no; then the caller's n entries
 *                keys[i] = "SECTION.KEY" (torch_rows.py: "torch.version"), values[i] its value, each
 *                section after klab's, in the order given. A section of klab's own, a key that is not
 *                SECTION.KEY or a value with a line break is an error, and nothing is written.
 *   kb_begin_case  case `index` of an INI (kb_ini_open) in one of its dtypes: the case as klab runs it,
 *                every key (shape, dims, params, profiles, config, steps, warm-up and stopping rule),
 *                checked against the plugin as klab checks an INI; then setup, reference, the plugin's
 *                profiles verified. budget_ms > 0 replaces the case's budget (after the quick rule).
 *   kb_begin     the same for a case given outside a file: `params` holds its keys as an INI gives
 *                them, joined by ';': "eps=1e-6" (param.eps; the prefix may be written), "dim.m=4096"
 *                (a named dim); `shape` may be "" for a case sized by its dims alone; the rest of the
 *                case is an INI's defaults. Each key is read by the INI's own rules (cfg_case_set).
 *                Both return 0 (ready), 1 (begun, but it did not set up or verify: its rows say why and
 *                the next case may begin) or -1 (not begun, or the CUDA context was lost).
 *   kb_tensor    a tensor of that case (device pointer, dtype, elements), to wrap in Python
 *   kb_stream    the timed stream: launch on it (torch.cuda.ExternalStream)
 *   kb_add_external  a callable: verified once now, then timed with the rest
 *   kb_add_external_rotating  the same, for a callable that can copy its inputs: batched, it rotates
 *                through n copies as klab's profiles do (cold data in every run of a batch)
 *   kb_finish    times everything in interleaved rounds, writes the rows
 *   kb_phase_ms  the milliseconds the units begun since kb_open spent in a phase ("setup", "reference",
 *                "verify", "timing", "teardown"; 0 for one never entered), counted only while this
 *                library runs: the caller's time between calls (compiling a callable) is in none
 *   kb_close     completes the CSV
 * Every call returns 0 (or a pointer) on success; kb_error says why not.
 *
 * An INI file, read by klab's own reader (core/config: its byte order mark, bounds and messages):
 *   kb_ini_open     NULL when klab would refuse the file; kb_error(NULL) is klab's message,
 *                   "path:line: ..." (what klab --validate prints after INVALID)
 *   kb_ini_add_case a case NAME of the INI's [defaults] alone, as a [case NAME] section with no key of
 *                   its own would be; NAME must be a shape. Its index, or -1.
 *   kb_ini_json     {"path", "plugin", "plugin_line", "question", "cases": [{"name", "line", "shape"
 *                   ("" for a case sized by dim.NAME alone), "dims" (each of the shape's), "dtypes",
 *                   "profiles" ([]: every one), "warmup", "min_reps", "max_reps", "precision",
 *                   "budget_ms", "steps" (0: the plugin's), "config", "params" {NAME: text}, "named"
 *                   {NAME: value} (dim.NAME), "lines" {key: the line that gives it, in the case or in
 *                   [defaults]}}]}, [defaults] folded into each case
 *   kb_ini_sampling the warm-up, min_reps, max_reps, precision and budget_ms case `index` is timed with
 *                   by kb_begin_case (kb_set_quick's `quick`, its budget_ms), in out[0..4]
 * A plugin, read by klab's loader (no GPU):
 *   kb_describe     the descriptor as klab --list reads it: {"name", "version", "summary", "path",
 *                   "abi_major", "abi_minor", "profiles": [{"name", "summary", "archs", "tunes"}],
 *                   "baseline", "dtypes", "min_cc", "archs", "params", "dims"}
 *   kb_case_work    case `index` of an INI in `dtype` as the plugin's hooks see it (case_build):
 *                   {"bytes", "flops" (its work hook; absent without one), "tolerance" (of an output
 *                   of that dtype), "steps" (a step plugin's sequence; 1 for others)}
 * Statistics of timing samples, klab's (core/stats; the samples in any order):
 *   kb_stats        {"n", "median", "median_lo", "median_hi", "precision" (these three where the 95 %
 *                   interval exists), "p95", "p99", "min", "max", "mean", "noise"}
 *   kb_quantile     the q-quantile, linear between closest ranks (NaN for no samples)
 *   kb_median_interval  the median's order-statistic interval at level conf
 *   kb_ratio_interval   median(num) / median(den)'s 95 % interval (each median at 97.5 %)
 * Rows of klab's CSV (core/evidence), for a tool that times on its own:
 *   kb_row_schema   the schema number of the CSV (ROW_SCHEMA)
 *   kb_row_columns  its columns' names, in order (a JSON array)
 *   kb_csv_open     a CSV at path (rows to path.partial until kb_csv_close keeps it)
 *   kb_csv_row      one row: cells by column name, text as the CSV holds it (a number to its end, a
 *                   status by name); an unknown column, a cell that does not fit or does not parse is an
 *                   error. With samples, the statistics (reps, median_ms and its interval, p95_ms,
 *                   p99_ms, min_ms, max_ms, mean_ms, noise, precision) and gbps and tflops from the
 *                   row's bytes and flops are computed as klab computes a row's; a caller never gives
 *                   those cells.
 *   kb_csv_close    keep (1: completed and renamed) or discard (0) the file */
#ifndef KLAB_BENCH_H
#define KLAB_BENCH_H

#include <stddef.h>

#include "klab/plugin.h"

#define KB_ABI_VERSION 2

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_session kb_session;
typedef int (*kb_launch_fn)(void *user, void *stream);
typedef int (*kb_result_fn)(void *user, void **ptr, int *dtype, size_t *count);
/* launch on copy `replica` (0: the case's own tensors) */
typedef int (*kb_launch_copy_fn)(void *user, void *stream, int replica);
/* make copies 1..n-1 of the inputs; *footprint: the bytes of all n copies */
typedef int (*kb_replicate_fn)(void *user, int n, double *footprint);

typedef struct kb_ini kb_ini;
typedef struct kb_csv kb_csv;

KLAB_EXPORT int kb_abi_version(void);
KLAB_EXPORT void kb_free(void *document);
KLAB_EXPORT int kb_dtype_parse(const char *name);
KLAB_EXPORT const char *kb_dtype_name(int dtype);

KLAB_EXPORT kb_session *kb_open(const char *plugin_path, int device, const char *csv_path, const char *run_id,
                                unsigned long long seed);
KLAB_EXPORT int kb_set_mode(kb_session *s, const char *mode); /* for the cases begun after it */
KLAB_EXPORT int kb_write_meta(kb_session *s, const char *dir, const char *command, int csv_schema,
                              const char *const *keys, const char *const *values, int n);
KLAB_EXPORT int kb_set_quick(kb_session *s, int on);
KLAB_EXPORT int kb_begin_case(kb_session *s, const kb_ini *ini, int index, const char *dtype, double budget_ms);
KLAB_EXPORT int kb_begin(kb_session *s, const char *case_name, const char *shape, const char *dtype,
                         const char *params, double budget_ms);
KLAB_EXPORT void *kb_tensor(kb_session *s, const char *name, int *dtype, size_t *count);
KLAB_EXPORT void *kb_stream(kb_session *s);
KLAB_EXPORT int kb_add_external(kb_session *s, const char *label, kb_launch_fn launch, kb_result_fn result,
                                void *user);
KLAB_EXPORT int kb_add_external_rotating(kb_session *s, const char *label, kb_launch_copy_fn launch,
                                         kb_result_fn result, kb_replicate_fn replicate, void *user);
KLAB_EXPORT int kb_finish(kb_session *s);
KLAB_EXPORT double kb_phase_ms(const kb_session *s, const char *phase);
KLAB_EXPORT int kb_close(kb_session *s);
/* The last failure, or "" (a kb_open that failed still answers through kb_error(NULL)). */
KLAB_EXPORT const char *kb_error(const kb_session *s);

KLAB_EXPORT kb_ini *kb_ini_open(const char *path);
KLAB_EXPORT int kb_ini_add_case(kb_ini *ini, const char *name);
KLAB_EXPORT char *kb_ini_json(const kb_ini *ini);
KLAB_EXPORT int kb_ini_sampling(const kb_ini *ini, int index, int quick, double budget_ms, double out[5]);
KLAB_EXPORT void kb_ini_close(kb_ini *ini);

KLAB_EXPORT char *kb_describe(const char *plugin_path);

/* A plugin's verify() on the CPU alone, no GPU (core/bench/verify_cpu.c): for a plugin's own tests of
   its reference. Case `case_index` of the INI (checked as klab --validate checks it) in `dtype` is set
   up with its tensors in host memory: inputs and states filled as the host fills them (uniform [-1, 1),
   fill_uniform, fill_data; the CPU's draws, not the device's), outputs NaN. Then run(arg, ...) stands
   for the plugin's run of `profile`: it MUST write every output's elements (data, in the tensor's own
   dtype; klab/convert.h narrows floats) from the inputs, and returns 0. Then the plugin's verify(),
   through the host's verify path, and the comparison a run makes with the case's tolerance. Returns 0
   (passed), 1 (an output is outside tolerance, or the reference is unfit: msg says which) or -1 (could
   not be tried: msg says why; a setup that needs the device, such as one that allocates, is one). */
typedef struct kb_cpu_tensor {
    const char *name;
    int role;     /* klab_role */
    int dtype;    /* klab_dtype */
    size_t count; /* elements */
    void *data;   /* count elements of dtype, in host memory */
} kb_cpu_tensor;
typedef int (*kb_cpu_run_fn)(void *arg, const klab_case *kcase, int profile, kb_cpu_tensor *tensors, int n);
KLAB_EXPORT int kb_verify_cpu(const char *plugin_path, const char *ini_path, int case_index, int dtype,
                              int profile, kb_cpu_run_fn run, void *arg, char *msg, size_t msglen);
KLAB_EXPORT char *kb_case_work(const char *plugin_path, const kb_ini *ini, int index, const char *dtype);

KLAB_EXPORT char *kb_stats(const double *samples, size_t n);
KLAB_EXPORT double kb_quantile(const double *samples, size_t n, double q);
KLAB_EXPORT int kb_median_interval(const double *samples, size_t n, double conf, double *lo, double *hi);
KLAB_EXPORT int kb_ratio_interval(const double *num, size_t nn, const double *den, size_t nd, double *lo,
                                  double *hi);

KLAB_EXPORT int kb_row_schema(void);
KLAB_EXPORT char *kb_row_columns(void);
KLAB_EXPORT kb_csv *kb_csv_open(const char *path);
KLAB_EXPORT int kb_csv_row(kb_csv *c, const char *const *columns, const char *const *values, int n,
                           const double *samples, size_t nsamples);
KLAB_EXPORT int kb_csv_close(kb_csv *c, int keep);

#ifdef __cplusplus
}
#endif

#endif
