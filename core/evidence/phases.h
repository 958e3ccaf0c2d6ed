/* Where a run's time went: milliseconds per (plugin, phase), and the run's wall time. The parent sums
 * them from the workers' messages (app/lab_worker.c) and the PyTorch child; meta.ini keeps them in
 * [phases] (run_meta_put_phases):
 *
 *   [phases]
 *   wall_ms = 312400.0
 *   softmax.start_ms = 812.3      ; worker spawn to its first unit: fork, CUDA context, plugin load
 *   softmax.setup_ms = ...        ; then inputs, reference, verify, timing, teardown (docs/timing.md)
 *   softmax.torch_ms = ...        ; the PyTorch child, and torch_<key> from its own phases file
 *
 * Nothing here is a measurement of a kernel: these are host clock intervals, for planning runs. */
#ifndef KLAB_PHASES_H
#define KLAB_PHASES_H

#include <stddef.h>
#include <stdio.h>

/* 128 plugins (discovery's most) times a dozen phases each, with room to spare */
#define PHASES_MAX 2048

typedef struct phase_total {
    char plugin[64];
    char phase[40];
    double ms;
} phase_total;

typedef struct run_phases {
    int n;
    phase_total e[PHASES_MAX];
    double wall_ms; /* the whole run; 0: not known */
} run_phases;

/* CLOCK_MONOTONIC in milliseconds: the one clock of every phase and wall time. */
double phases_clock_ms(void);

/* Adds ms to (plugin, phase), made on first use in the order met. 0, or -1 when full, a name does
   not fit, or ms is negative or not finite (nothing added). */
int phases_add(run_phases *p, const char *plugin, const char *phase, double ms);

/* 1 when there is anything to write. */
int phases_any(const run_phases *p);

/* The [phases] section (a blank line, the header, wall_ms, then each entry in order); nothing when
   phases_any is 0. */
void phases_write(FILE *fp, const run_phases *p);

/* The indices of the `k` largest entries, largest first (ties: the earlier one); returns how many. */
int phases_top(const run_phases *p, int *idx, int k);

/* One line for the terminal: the wall time and the `k` largest phases with their share of it. */
void phases_line(const run_phases *p, int k, char *buf, size_t len);

/* Adds the [phases] section of INI file `path` to *p. plugin NULL: a meta.ini's keys
   (<plugin>.<phase>_ms; wall_ms raises p->wall_ms to the file's when larger, as runs side by side
   take the longest one's time). plugin given: every key <name>_ms becomes (plugin, prefix<name>),
   as PyTorch's phases file is one plugin's. 0 (no such section: nothing added), or -1 with
   "path:line: why" for a key or value that is not one of these (what came before it is kept). */
int phases_read(const char *path, const char *plugin, const char *prefix, run_phases *p, char *err, size_t errlen);

#endif
