/* host/parallel: the chunks parallel_for cuts a range into (n not a multiple of grain, n = 0, grain
 * larger than n, grain 0), each run exactly once at every thread count; partial results combined in
 * chunk order giving the same bits at 1, 2, 4 and 8 threads; the work really spread over threads;
 * nested calls; a pool made before a fork replaced in the child; KLAB_THREADS' values. */
#include "klab_test.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/parallel.h"

#define MAX_CHUNKS 4096

typedef struct seen {
    size_t grain;
    atomic_int calls[MAX_CHUNKS];
    size_t begin[MAX_CHUNKS], end[MAX_CHUNKS];
    atomic_int bad; /* a chunk that did not start at a multiple of grain */
} seen;

static void record(void *arg, size_t begin, size_t end)
{
    seen *s = arg;
    size_t c = begin / s->grain;
    if (begin % s->grain || c >= MAX_CHUNKS) {
        atomic_fetch_add(&s->bad, 1);
        return;
    }
    atomic_fetch_add(&s->calls[c], 1);
    s->begin[c] = begin;
    s->end[c] = end;
}

/* Every chunk [c * grain, min(n, (c + 1) * grain)) exactly once, nothing else. */
static void expect_chunks(size_t n, size_t grain)
{
    static seen s;
    memset(&s, 0, sizeof s);
    s.grain = grain ? grain : 1;
    parallel_for(n, grain, record, &s);
    size_t want = parallel_chunks(n, grain);
    assert_int_equal(atomic_load(&s.bad), 0);
    for (size_t c = 0; c < MAX_CHUNKS; c++) {
        if (c >= want) {
            assert_int_equal(atomic_load(&s.calls[c]), 0);
            continue;
        }
        assert_int_equal(atomic_load(&s.calls[c]), 1);
        assert_int_equal(s.begin[c], c * s.grain);
        assert_int_equal(s.end[c], (c + 1) * s.grain < n ? (c + 1) * s.grain : n);
    }
}

static void test_chunking(void **state)
{
    (void)state;
    assert_int_equal(parallel_chunks(10, 3), 4);
    assert_int_equal(parallel_chunks(9, 3), 3);
    assert_int_equal(parallel_chunks(0, 3), 0);
    assert_int_equal(parallel_chunks(2, 5), 1);
    assert_int_equal(parallel_chunks(7, 0), 7); /* grain 0 counts as 1 */
    const int threads[] = {1, 2, 4, 8};
    for (int t = 0; t < 4; t++) {
        assert_int_equal(parallel_set_threads(threads[t]), 0);
        assert_int_equal(parallel_threads(), threads[t]);
        expect_chunks(10, 3);   /* the last chunk short: [9, 10) */
        expect_chunks(12, 3);   /* a whole number of chunks */
        expect_chunks(0, 3);    /* no chunk at all */
        expect_chunks(2, 5);    /* grain > n: one chunk [0, 2) */
        expect_chunks(1, 1);
        expect_chunks(5, 0);    /* grain 0: chunks of 1 */
        expect_chunks(4000, 1); /* many chunks, fought over */
        expect_chunks(100003, 37);
    }
    assert_int_equal(parallel_set_threads(0), 0);
}

/* Per-chunk partial sums of values whose sum depends on its order, combined in chunk order. */
typedef struct sums {
    const double *x;
    double *part;
    size_t grain;
} sums;

static void sum_chunk(void *arg, size_t begin, size_t end)
{
    sums *s = arg;
    double acc = 0;
    for (size_t i = begin; i < end; i++)
        acc += s->x[i];
    s->part[begin / s->grain] = acc;
}

static double chunked_sum(const double *x, size_t n, size_t grain)
{
    size_t nc = parallel_chunks(n, grain);
    double *part = malloc(nc * sizeof *part);
    assert_non_null(part);
    sums s = {x, part, grain};
    parallel_for(n, grain, sum_chunk, &s);
    double total = 0;
    for (size_t c = 0; c < nc; c++)
        total += part[c];
    free(part);
    return total;
}

static void test_same_bits_at_any_thread_count(void **state)
{
    (void)state;
    enum { N = 1000003 };
    double *x = malloc(N * sizeof *x);
    assert_non_null(x);
    uint64_t z = 88172645463325252ull;
    for (size_t i = 0; i < N; i++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        /* magnitudes from 1e-8 to 1e8: any other order of additions changes the last bits */
        x[i] = ((double)(z >> 11) / 9007199254740992.0 - 0.5) * pow(10, (double)(z % 17) - 8);
    }
    assert_int_equal(parallel_set_threads(1), 0);
    double one = chunked_sum(x, N, 4099);
    /* the serial loop over the same chunks, written out */
    double want = 0;
    for (size_t b = 0; b < N; b += 4099) {
        double acc = 0;
        for (size_t i = b; i < b + 4099 && i < N; i++)
            acc += x[i];
        want += acc;
    }
    assert_memory_equal(&one, &want, sizeof one);
    const int threads[] = {2, 4, 8};
    for (int t = 0; t < 3; t++) {
        assert_int_equal(parallel_set_threads(threads[t]), 0);
        for (int rep = 0; rep < 5; rep++) {
            double got = chunked_sum(x, N, 4099);
            assert_memory_equal(&got, &one, sizeof got);
        }
    }
    /* and the chunking is what decides the bits: another grain gives another sum (the test's data
       would let an order-blind implementation pass otherwise) */
    double other = chunked_sum(x, N, 4097);
    assert_true(memcmp(&other, &one, sizeof one) != 0);
    assert_int_equal(parallel_set_threads(0), 0);
    free(x);
}

/* The work is spread: chunks that each take a while are run by more than one thread. */
typedef struct who {
    pthread_t ids[64];
    atomic_int n;
} who;

static void note_thread(void *arg, size_t begin, size_t end)
{
    (void)begin;
    (void)end;
    who *w = arg;
    struct timespec ts = {0, 2000000}; /* 2 ms: long enough for every thread to claim some */
    nanosleep(&ts, NULL);
    int k = atomic_fetch_add(&w->n, 1);
    if (k < 64)
        w->ids[k] = pthread_self();
}

static int distinct_threads(const who *w)
{
    int n = atomic_load(&w->n) < 64 ? atomic_load(&w->n) : 64, distinct = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < i && !dup; j++)
            dup = pthread_equal(w->ids[i], w->ids[j]);
        distinct += !dup;
    }
    return distinct;
}

static void test_work_is_spread(void **state)
{
    (void)state;
    static who w;
    memset(&w, 0, sizeof w);
    assert_int_equal(parallel_set_threads(4), 0);
    parallel_for(32, 1, note_thread, &w);
    assert_int_equal(atomic_load(&w.n), 32);
    assert_true(distinct_threads(&w) > 1);
    /* one thread: every chunk in the caller's thread */
    memset(&w, 0, sizeof w);
    assert_int_equal(parallel_set_threads(1), 0);
    parallel_for(8, 1, note_thread, &w);
    assert_int_equal(distinct_threads(&w), 1);
    assert_true(pthread_equal(w.ids[0], pthread_self()));
    assert_int_equal(parallel_set_threads(0), 0);
}

/* A chunk that calls parallel_for: run inline, never waiting on the pool it runs in. */
typedef struct nest {
    atomic_int inner;
} nest;

static void inner_chunk(void *arg, size_t begin, size_t end)
{
    nest *n = arg;
    atomic_fetch_add(&n->inner, (int)(end - begin));
}

static void outer_chunk(void *arg, size_t begin, size_t end)
{
    (void)begin;
    (void)end;
    parallel_for(100, 7, inner_chunk, arg);
}

static void test_nested_calls(void **state)
{
    (void)state;
    nest n;
    atomic_init(&n.inner, 0);
    assert_int_equal(parallel_set_threads(4), 0);
    parallel_for(16, 1, outer_chunk, &n);
    assert_int_equal(atomic_load(&n.inner), 1600);
    assert_int_equal(parallel_set_threads(0), 0);
}

/* A pool made before a fork: the child has none of its threads, and makes its own. */
static void test_pool_after_fork(void **state)
{
    (void)state;
    assert_int_equal(parallel_set_threads(4), 0);
    nest n;
    atomic_init(&n.inner, 0);
    parallel_for(100, 7, inner_chunk, &n); /* the pool exists now */
    assert_int_equal(atomic_load(&n.inner), 100);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        static who w;
        parallel_for(32, 1, note_thread, &w);
        _exit(atomic_load(&w.n) == 32 && distinct_threads(&w) > 1 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(parallel_set_threads(0), 0);
}

static void test_klab_threads(void **state)
{
    (void)state;
    char err[256] = "";
    int t = -1;
    assert_int_equal(parallel_threads_parse(NULL, 16, &t, err, sizeof err), 0);
    assert_int_equal(t, 16);
    assert_int_equal(parallel_threads_parse("", 3, &t, err, sizeof err), 0);
    assert_int_equal(t, 3);
    assert_int_equal(parallel_threads_parse(NULL, 0, &t, err, sizeof err), 0);
    assert_int_equal(t, 1);
    assert_int_equal(parallel_threads_parse("4", 16, &t, err, sizeof err), 0);
    assert_int_equal(t, 4);
    assert_int_equal(parallel_threads_parse("1024", 16, &t, err, sizeof err), 0);
    assert_int_equal(t, 1024);
    const char *bad[] = {"0", "-2", "1025", "four", "4x", " ", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_int_equal(parallel_threads_parse(bad[i], 16, &t, err, sizeof err), -1);
        assert_non_null(strstr(err, "KLAB_THREADS is '"));
        assert_non_null(strstr(err, "from 1 to 1024"));
    }
    assert_int_equal(parallel_threads_parse("abc", 16, &t, err, sizeof err), -1);
    assert_string_equal(err, "KLAB_THREADS is 'abc': it must be a whole number of threads from 1 to 1024 (unset: one a "
                             "CPU, 16 here)");
    /* the environment, read once a pool is asked for */
    assert_int_equal(setenv("KLAB_THREADS", "3", 1), 0);
    assert_int_equal(parallel_set_threads(0), 0);
    assert_int_equal(parallel_threads(), 3);
    assert_int_equal(parallel_check_env(err, sizeof err), 0);
    assert_int_equal(setenv("KLAB_THREADS", "zero", 1), 0);
    assert_int_equal(parallel_check_env(err, sizeof err), -1);
    assert_non_null(strstr(err, "'zero'"));
    assert_int_equal(parallel_set_threads(0), 0);
    assert_true(parallel_threads() >= 1); /* a wrong value gives the CPU count, never 0 */
    unsetenv("KLAB_THREADS");
    /* --devices' share: the CPUs split, never below one each */
    assert_true(parallel_share(1) >= 1);
    assert_int_equal(parallel_share(0), parallel_share(1));
    assert_true(parallel_share(2) == (parallel_share(1) / 2 ? parallel_share(1) / 2 : 1));
    assert_int_equal(parallel_share(1 << 20), 1);
    assert_int_equal(parallel_set_threads(-1), -1);
    assert_int_equal(parallel_set_threads(PARALLEL_MAX_THREADS + 1), -1);
    assert_int_equal(parallel_set_threads(0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunking),
        cmocka_unit_test(test_same_bits_at_any_thread_count),
        cmocka_unit_test(test_work_is_spread),
        cmocka_unit_test(test_nested_calls),
        cmocka_unit_test(test_pool_after_fork),
        cmocka_unit_test(test_klab_threads),
    };
    KLAB_RUN_TESTS(tests);
}
