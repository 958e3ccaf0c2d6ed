/* The host's CPU threads for its float64 work: the references' widening, sums and comparisons, and
 * (through klab_host.parallel_for) the plugins' own references. A unit's host work is one core's long
 * loops over gigabyte tensors while the GPU host has many cores idle.
 *
 * The rule that keeps every figure's bits: parallel_for cuts [0, n) into ceil(n / grain) chunks
 * [c * grain, min(n, (c + 1) * grain)) that depend on n and grain alone, never on the number of
 * threads. A caller that writes each chunk's results to their own place, or keeps one partial result
 * a chunk and combines the partials in chunk order afterwards, gets the same bits with 1 thread or 64.
 * Which thread runs which chunk, and in what order chunks run, is unspecified.
 *
 * The pool is made on the first call that needs one, in the process that calls: inside the forked
 * worker, never in the parent before it forks (a fork copies no threads; a pool found after a fork
 * is abandoned and a new one made). Its threads run only the chunk functions given here: plain CPU
 * code, never CUDA (the worker's CUDA context and the timed stream stay the calling thread's). */
#ifndef KLAB_PARALLEL_H
#define KLAB_PARALLEL_H

#include <stddef.h>

/* The most threads a pool has (KLAB_THREADS above it is refused). */
#define PARALLEL_MAX_THREADS 1024

/* One chunk: the elements [begin, end) of the range; chunk c begins at c * grain. The same type as
   the SDK's klab_chunk_fn, so klab_host.parallel_for hands a plugin's function straight through. */
typedef void (*parallel_fn)(void *arg, size_t begin, size_t end);

/* Runs fn(arg, begin, end) once for every chunk of [0, n) (grain 0 counts as 1) and returns when all
   have run. Runs them in the calling thread, in order, when there is one chunk, one thread, or the
   call comes from inside a chunk (nested calls never wait on the pool they run in). Never fails: a
   pool that cannot be made leaves the work to the calling thread. */
void parallel_for(size_t n, size_t grain, parallel_fn fn, void *arg);

/* ceil(n / grain): the number of chunks parallel_for cuts [0, n) into (grain 0 counts as 1). */
size_t parallel_chunks(size_t n, size_t grain);

/* The threads a pool is made with (the calling thread included): set_threads' number, else
   KLAB_THREADS, else the CPUs this process may run on. */
int parallel_threads(void);

/* Threads for the next pool: 1..PARALLEL_MAX_THREADS, or 0 for KLAB_THREADS / the CPU count again.
   A pool already made is stopped first (its threads joined). For tests and benchmarks that compare
   thread counts in one process. 0, or -1 for a count out of range. */
int parallel_set_threads(int n);

/* Stops the pool, if any, joining its threads; the next parallel_for makes a new one. */
void parallel_shutdown(void);

/* What KLAB_THREADS = `value` gives: NULL or "" is `cpus` (at least 1); otherwise a whole number from
   1 to PARALLEL_MAX_THREADS. 0 with *threads set, or -1 with the reason in err. */
int parallel_threads_parse(const char *value, int cpus, int *threads, char *err, size_t errlen);

/* The CPUs this process may run on, shared by `parts` processes that will run side by side (at least 1
   each): what --devices gives each GPU's klab when KLAB_THREADS is unset, so N workers' host phases do
   not run N x CPUs threads at once. */
int parallel_share(int parts);

/* KLAB_THREADS checked, for a command to refuse a wrong value before any work (a pool ignores a wrong
   value and takes the CPU count). 0, or -1 with the reason in err. */
int parallel_check_env(char *err, size_t errlen);

#endif
