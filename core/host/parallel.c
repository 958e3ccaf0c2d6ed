#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "host/parallel.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct job {
    parallel_fn fn;
    void *arg;
    size_t n, grain, nchunks;
} job;

/* The caller returns once every chunk has run, not once every thread has woken: on a loaded machine a
   thread still asleep when the work is done would otherwise hold up every call. A thread that joins a
   job is counted in `active` until it leaves it, and a new job is handed out only when none is left in
   the last one, so no thread claims from a counter the next job has reset. */
typedef struct pool {
    pid_t pid;    /* the process that made it: after a fork, the child finds no threads behind it */
    int nthreads; /* threads made, the calling thread not counted */
    pthread_t *tid;
    pthread_mutex_t mu;
    pthread_cond_t wake, idle; /* a job for the threads; a job done, or its last thread gone */
    unsigned long gen;         /* jobs handed out */
    int stop;
    int active; /* threads inside the current job */
    job cur;
    atomic_size_t next; /* the next chunk of the current job to claim */
    atomic_size_t done; /* chunks of the current job finished */
} pool;

static pool *the_pool;
static int wanted;   /* parallel_set_threads' count; 0: the environment's */
static int resolved; /* the count the environment gave, once asked; 0: not yet */
/* One job at a time: a second caller (another thread) runs its chunks itself rather than wait. */
static pthread_mutex_t call_mu = PTHREAD_MUTEX_INITIALIZER;
/* Set while a thread runs chunks: a parallel_for inside a chunk runs inline (the pool is busy with
   the job that called it, and waiting on it would deadlock). */
static _Thread_local int in_chunk;

size_t parallel_chunks(size_t n, size_t grain)
{
    if (grain == 0)
        grain = 1;
    return n / grain + (n % grain != 0);
}

static void run_chunk(const job *j, size_t c)
{
    size_t begin = c * j->grain;
    size_t end = j->n - begin < j->grain ? j->n : begin + j->grain;
    j->fn(j->arg, begin, end);
}

static void run_claimed(pool *p, const job *j)
{
    int was = in_chunk;
    in_chunk = 1;
    for (;;) {
        size_t c = atomic_fetch_add(&p->next, 1);
        if (c >= j->nchunks)
            break;
        run_chunk(j, c);
        if (atomic_fetch_add(&p->done, 1) + 1 == j->nchunks) { /* the last: the caller may go on */
            pthread_mutex_lock(&p->mu);
            pthread_cond_broadcast(&p->idle);
            pthread_mutex_unlock(&p->mu);
        }
    }
    in_chunk = was;
}

static void *pool_thread(void *arg)
{
    pool *p = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->gen == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->stop)
            break;
        seen = p->gen; /* woken late, a thread joins whichever job is current, perhaps one already done */
        job j = p->cur;
        p->active++;
        pthread_mutex_unlock(&p->mu);
        run_claimed(p, &j);
        pthread_mutex_lock(&p->mu);
        if (--p->active == 0)
            pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static int cpu_count(void)
{
    /* the CPUs this process may run on (taskset, a Slurm job's cpuset), not every CPU of the machine:
       threads beyond those would only take turns */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)(n < PARALLEL_MAX_THREADS ? n : PARALLEL_MAX_THREADS) : 1;
}

int parallel_threads_parse(const char *value, int cpus, int *threads, char *err, size_t errlen)
{
    if (!value || !*value) {
        *threads = cpus < 1 ? 1 : cpus > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS : cpus;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno || end == value || *end || v < 1 || v > PARALLEL_MAX_THREADS) {
        snprintf(err, errlen,
                 "KLAB_THREADS is '%s': it must be a whole number of threads from 1 to %d (unset: one a CPU, %d here)",
                 value, PARALLEL_MAX_THREADS, cpus);
        return -1;
    }
    *threads = (int)v;
    return 0;
}

int parallel_share(int parts)
{
    int c = cpu_count() / (parts > 0 ? parts : 1);
    return c < 1 ? 1 : c;
}

int parallel_check_env(char *err, size_t errlen)
{
    int t;
    return parallel_threads_parse(getenv("KLAB_THREADS"), cpu_count(), &t, err, errlen);
}

int parallel_threads(void)
{
    if (wanted)
        return wanted;
    if (!resolved) {
        char err[160];
        int cpus = cpu_count();
        if (parallel_threads_parse(getenv("KLAB_THREADS"), cpus, &resolved, err, sizeof err) != 0)
            resolved = cpus; /* commands refuse a wrong value first (parallel_check_env) */
    }
    return resolved;
}

static pool *pool_make(int threads)
{
    pool *p = calloc(1, sizeof *p);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    if (!p || !tid || pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        free(tid);
        return NULL;
    }
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->idle, NULL);
    p->pid = getpid();
    p->tid = tid;
    /* signals stay the calling thread's business (SIGINT, the watchdog's SIGKILL needs none): the
       threads start with every signal blocked */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (int i = 0; i < threads - 1; i++) {
        if (pthread_create(&p->tid[i], NULL, pool_thread, p) != 0)
            break; /* fewer threads: the same chunks, the same results, more time */
        p->nthreads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return p;
}

static void pool_free(pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->idle);
    pthread_mutex_destroy(&p->mu);
    free(p->tid);
    free(p);
}

/* The pool of this process, made on first need; NULL when one thread is all there is. */
static pool *pool_get(void)
{
    if (the_pool && the_pool->pid != getpid())
        the_pool = NULL; /* made before a fork: its threads stayed in the parent, and its locks may be
                            in any state; it is left as it is, not freed */
    if (!the_pool && parallel_threads() > 1)
        the_pool = pool_make(parallel_threads());
    return the_pool && the_pool->nthreads > 0 ? the_pool : NULL;
}

void parallel_for(size_t n, size_t grain, parallel_fn fn, void *arg)
{
    if (grain == 0)
        grain = 1;
    job j = {fn, arg, n, grain, parallel_chunks(n, grain)};
    if (j.nchunks == 0)
        return;
    if (j.nchunks > 1 && !in_chunk && pthread_mutex_trylock(&call_mu) == 0) {
        pool *p = pool_get();
        if (p) {
            pthread_mutex_lock(&p->mu);
            while (p->active > 0) /* a thread still leaving the last job */
                pthread_cond_wait(&p->idle, &p->mu);
            p->cur = j;
            atomic_store(&p->next, 0);
            atomic_store(&p->done, 0);
            p->gen++;
            pthread_cond_broadcast(&p->wake);
            pthread_mutex_unlock(&p->mu);
            run_claimed(p, &j);
            pthread_mutex_lock(&p->mu);
            while (atomic_load(&p->done) < j.nchunks)
                pthread_cond_wait(&p->idle, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        pthread_mutex_unlock(&call_mu);
        if (p)
            return;
    }
    for (size_t c = 0; c < j.nchunks; c++)
        run_chunk(&j, c);
}

void parallel_shutdown(void)
{
    pthread_mutex_lock(&call_mu);
    if (the_pool && the_pool->pid == getpid())
        pool_free(the_pool);
    the_pool = NULL;
    pthread_mutex_unlock(&call_mu);
}

int parallel_set_threads(int n)
{
    if (n < 0 || n > PARALLEL_MAX_THREADS)
        return -1;
    parallel_shutdown();
    wanted = n;
    resolved = 0;
    return 0;
}
