/* libklab_bench: klab's verification and timer for work that is not a plugin, above all PyTorch,
 * driven from Python through ctypes (tools/torch_rows.py). An external subject computes on the
 * plugin case's own tensors, is compared with the same float64 reference, and is sampled in the same
 * rounds, after the same L2 flush, between the same events as the plugin's profiles and klab's copy:
 * a PyTorch row and a klab row of one case are measured by one method in one run.
 *
 *   kb_open      a plugin on a device; rows go to a CSV (the same columns as klab's)
 *   kb_set_mode  "plain" (the default), "batched" or "hot", as klab's --batched and --hot
 *   kb_write_meta  <dir>/meta.ini for the folder the session's CSV goes to, as klab writes its run's
 *                (core/run_meta.c): once per folder, after kb_open and kb_set_mode, before the first
 *                kb_begin. [run] id, started (kb_open's time), command (the caller's command line),
 *                klab_version, commit, csv_schema (0: this session's CSV, ROW_SCHEMA; a caller that
 *                writes its own CSV says its schema), seed; [device] the session's GPU; [method] its
 *                mode (l2, launch), throttle, isolated = no; then the caller's n entries
 *                keys[i] = "SECTION.KEY" (torch_rows.py: "torch.version"), values[i] its value, each
 *                section after klab's, in the order given. A section of klab's own, a key that is not
 *                SECTION.KEY or a value with a line break is an error, and nothing is written.
 *   kb_begin     one case and dtype: setup, reference, the plugin's profiles verified. `params` holds
 *                the case's keys as an INI gives them, joined by ';': "eps=1e-6" (param.eps; the prefix
 *                may be written), "dim.m=4096" (a named dim); `shape` may be "" for a case sized by
 *                its dims alone. Each key is read by the INI's own rules (cfg_case_set) and checked
 *                against the plugin as klab checks an INI: a dim or param it does not take, or a dtype
 *                it lacks, is an error before any setup.
 *   kb_tensor    a tensor of that case (device pointer, dtype, elements), to wrap in Python
 *   kb_stream    the timed stream: launch on it (torch.cuda.ExternalStream)
 *   kb_add_external  a callable: verified once now, then timed with the rest
 *   kb_add_external_rotating  the same, for a callable that can copy its inputs: batched, it rotates
 *                through n copies as klab's profiles do (cold data in every run of a batch)
 *   kb_finish    times everything in interleaved rounds, writes the rows
 *   kb_close     completes the CSV
 * Every call returns 0 (or a pointer) on success; kb_error says why not. */
#ifndef KLAB_BENCH_H
#define KLAB_BENCH_H

#include <stddef.h>

#include "klab/plugin.h"

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

KLAB_EXPORT kb_session *kb_open(const char *plugin_path, int device, const char *csv_path, const char *run_id,
                                unsigned long long seed);
KLAB_EXPORT int kb_set_mode(kb_session *s, const char *mode); /* for the cases begun after it */
KLAB_EXPORT int kb_write_meta(kb_session *s, const char *dir, const char *command, int csv_schema,
                              const char *const *keys, const char *const *values, int n);
KLAB_EXPORT int kb_begin(kb_session *s, const char *case_name, const char *shape, const char *dtype,
                         const char *params, double budget_ms);
KLAB_EXPORT void *kb_tensor(kb_session *s, const char *name, int *dtype, size_t *count);
KLAB_EXPORT void *kb_stream(kb_session *s);
KLAB_EXPORT int kb_add_external(kb_session *s, const char *label, kb_launch_fn launch, kb_result_fn result,
                                void *user);
KLAB_EXPORT int kb_add_external_rotating(kb_session *s, const char *label, kb_launch_copy_fn launch,
                                         kb_result_fn result, kb_replicate_fn replicate, void *user);
KLAB_EXPORT int kb_finish(kb_session *s);
KLAB_EXPORT int kb_close(kb_session *s);
/* The last failure, or "" (a session that failed to open still answers through kb_error(NULL)). */
KLAB_EXPORT const char *kb_error(const kb_session *s);

#ifdef __cplusplus
}
#endif

#endif
