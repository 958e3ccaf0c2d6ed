/* What the parts of libklab_bench share (klab_bench.c: a plugin on a GPU, kb_open .. kb_close; bench_ini.c: INI files and
 * plugins; bench_evidence.c: statistics and CSV rows). Not exported; the interface is klab_bench.h. */
#ifndef KLAB_BENCH_INTERNAL_H
#define KLAB_BENCH_INTERNAL_H

#include "util/json_out.h"
#include "bench/klab_bench.h"
#include "config/ini_config.h"
#include "timing/stopping.h"

struct kb_ini {
    cfg_experiment e; /* as cfg_load read it, and the cases kb_ini_add_case appended */
};

/* The error of a call without a kb_session handle: what kb_error(NULL) answers. */
void kb_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* calloc, a failure said as kb_error(NULL)'s "out of memory". */
void *kb_calloc(size_t size);

/* json_open and json_close, a failure said as kb_error(NULL)'s "out of memory". */
int kb_json_open(json_out *j);
char *kb_json_close(json_out *j);

/* The warm-up and stopping rule case c is timed with: its own (the INI's), capped by the quick rule
   when quick, then budget_ms in place of its budget when budget_ms > 0. */
void kb_case_sampling(const cfg_case *c, int quick, double budget_ms, int *warmup, stop_rule *stop);

#endif
