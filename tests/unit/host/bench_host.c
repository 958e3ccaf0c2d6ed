/* klab_host_bench: the host side of two large units, on the CPU alone, at several thread counts (not a
 * test: ctest never runs it; docs/timing.md "Host-side work" quotes it).
 *
 * A unit's host work, as the worker does it, minus the device copies (which stay the calling thread's
 * and the PCIe link's): the input scan (checksum, widening, sum of squares; buffers freshly allocated,
 * so their page faults count as in the worker), the reference's NaN fill, the plugin's reference, its
 * fitness check, then for each profile the comparison and the inputs' checksum. Two units:
 *   rows    rmsnorm, fp32, ROWS x COLS (default 8192 x 8192: 2^26 elements), 3 profiles
 *   reduce  reduction, fp32, one row of 2^27 (--reduce N), sum and max, 4 profiles
 * and, for the rows unit, "before": the same work by the loops as they were before the pool (one
 * checksum over the bytes, the widening, the sum of squares, the pre-pool verify_compare of
 * tests/unit/host/verify_v0.c). Every figure of every run is checked against the first thread count's, bit for
 * bit; a difference fails the program (exit 1).
 *
 *   build/tests/klab_host_bench [--threads 1,2] [--rows R] [--cols C] [--reduce N] [--reps K]
 * (--rows 0: the reduction alone; --reduce 0: the rows unit alone) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugins/reduction/reduction.h"
#include "host/dtype.h"
#include "host/input_scan.h"
#include "host/parallel.h"
#include "host/verify.h"
#include "row/rms.h"
#include "util/checksum.h"
#include "verify_v0.h"

#define MAX_T 8

/* The host table's one service a reference uses, as host_services.c gives it: the pool (the bench
   needs no GPU, so none of the rest). */
static void pool_for(klab_ctx *ctx, size_t n, size_t grain, klab_chunk_fn fn, void *arg)
{
    (void)ctx;
    parallel_for(n, grain, fn, arg);
}

static const klab_host pool_host = {.abi_major = KLAB_ABI_MAJOR, .abi_minor = KLAB_ABI_MINOR,
                                    .struct_size = sizeof(klab_host), .parallel_for = pool_for};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { P_SCAN, P_FILL, P_REF, P_FIT, P_CMP, P_SUM, P_COUNT };
static const char *const phase_name[P_COUNT] = {"input scan (checksum, widen, sum of squares)", "reference NaN fill",
                                                "plugin reference", "reference fitness",
                                                "compare (all profiles)", "inputs' checksum (all profiles)"};

/* What a unit's figures were, to check every thread count against the first. */
typedef struct figures {
    uint64_t sum;
    double ss, ref_first, ref_last;
    verify_result fit, cmp;
} figures;

static void nan_chunk(void *arg, size_t b, size_t e)
{
    double *x = arg;
    for (size_t i = b; i < e; i++)
        x[i] = NAN;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "klab_host_bench: out of memory for %zu bytes\n", n);
        exit(2);
    }
    return p;
}

static float *random_floats(size_t n, uint64_t s, float lo, float hi)
{
    float *x = xmalloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x[i] = lo + (hi - lo) * (float)((double)(s >> 11) / 9007199254740992.0);
    }
    return x;
}

/* One rows unit: t[] gets each phase's seconds. `before`: the loops before the pool. */
static void rows_unit(const float *x, const float *w, size_t rows, size_t cols, int profiles, int before, double *t,
                      figures *f)
{
    const size_t n = rows * cols;
    memset(f, 0, sizeof *f);
    double t0 = now();
    double *xw = xmalloc(n * sizeof *xw), *ww = xmalloc(cols * sizeof *ww), ss = 0;
    uint64_t h = CHECKSUM_INIT;
    if (before) {
        h = checksum_update(h, x, n * sizeof *x);
        dtype_to_double(KLAB_FP32, x, xw, n);
        for (size_t e = 0; e < n; e++)
            ss += xw[e] * xw[e];
        h = checksum_update(h, w, cols * sizeof *w);
        dtype_to_double(KLAB_FP32, w, ww, cols);
        for (size_t e = 0; e < cols; e++)
            ss += ww[e] * ww[e];
    } else {
        input_scan(KLAB_FP32, x, n, &h, xw, &ss);
        input_scan(KLAB_FP32, w, cols, &h, ww, &ss);
    }
    double rms_in = sqrt(ss / (double)(n + cols));
    double t1 = now();
    double *ref = xmalloc(n * sizeof *ref);
    if (before)
        nan_chunk(ref, 0, n);
    else
        parallel_for(n, 65536, nan_chunk, ref);
    double t2 = now();
    rmsnorm_reference(before ? NULL : &pool_host, NULL, xw, ww, ref, rows, cols, 1e-5);
    double t3 = now();
    if (before)
        v0_verify_reference_fit(ref, n, rms_in, &f->fit);
    else
        verify_reference_fit(ref, n, rms_in, &f->fit);
    double t4 = now();
    /* the device's output: the reference in fp32, one element in 1000 off by a part in 10^4 */
    float *out = xmalloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i] = (float)(ref[i] * (i % 1000 ? 1 : 1 + 1e-4));
    double t5 = now();
    for (int p = 0; p < profiles; p++) {
        if (before)
            v0_verify_compare("y", ref, out, KLAB_FP32, n, NULL, 1e-5, &f->cmp);
        else
            verify_compare("y", ref, out, KLAB_FP32, n, NULL, 1e-5, &f->cmp);
    }
    double t6 = now();
    for (int p = 0; p < profiles; p++) {
        uint64_t hc = CHECKSUM_INIT;
        if (before) {
            hc = checksum_update(hc, x, n * sizeof *x);
            hc = checksum_update(hc, w, cols * sizeof *w);
        } else {
            input_scan(KLAB_FP32, x, n, &hc, NULL, NULL);
            input_scan(KLAB_FP32, w, cols, &hc, NULL, NULL);
        }
        if (hc != h) {
            fprintf(stderr, "klab_host_bench: the inputs' checksum changed between two reads\n");
            exit(1);
        }
    }
    double t7 = now();
    t[P_SCAN] += t1 - t0, t[P_FILL] += t2 - t1, t[P_REF] += t3 - t2, t[P_FIT] += t4 - t3, t[P_CMP] += t6 - t5;
    t[P_SUM] += t7 - t6;
    f->sum = h, f->ss = ss, f->ref_first = ref[0], f->ref_last = ref[n - 1];
    free(xw);
    free(ww);
    free(ref);
    free(out);
}

/* One reduction unit of one long row: `op`'s reference (one value). */
static void reduce_unit(const float *x, size_t n, int op, int profiles, double *t, figures *f)
{
    memset(f, 0, sizeof *f);
    double t0 = now();
    double *xw = xmalloc(n * sizeof *xw), ss = 0;
    uint64_t h = CHECKSUM_INIT;
    input_scan(KLAB_FP32, x, n, &h, xw, &ss);
    double t1 = now(), ref = NAN;
    double t2 = now();
    reduction_reference(&pool_host, NULL, op, xw, 1, n, &ref);
    double t3 = now();
    verify_reference_fit(&ref, 1, sqrt(ss / (double)n), &f->fit);
    double t4 = now();
    float out = (float)ref;
    for (int p = 0; p < profiles; p++)
        verify_compare("out", &ref, &out, KLAB_FP32, 1, NULL, 1e-3, &f->cmp);
    double t5 = now();
    for (int p = 0; p < profiles; p++) {
        uint64_t hc = CHECKSUM_INIT;
        input_scan(KLAB_FP32, x, n, &hc, NULL, NULL);
    }
    double t6 = now();
    t[P_SCAN] += t1 - t0, t[P_FILL] += t2 - t1, t[P_REF] += t3 - t2, t[P_FIT] += t4 - t3, t[P_CMP] += t5 - t4;
    t[P_SUM] += t6 - t5;
    f->sum = h, f->ss = ss, f->ref_first = f->ref_last = ref;
    free(xw);
}

static void check_same(const figures *a, const figures *b, const char *what, int threads)
{
    if (memcmp(a, b, sizeof *a) != 0) {
        fprintf(stderr, "klab_host_bench: %s at %d threads: figures differ from the first thread count's\n", what,
                threads);
        exit(1);
    }
}

static void print_table(const char *title, double t[][P_COUNT], const int *threads, int nt, const double *before)
{
    printf("\n%s\n%-46s", title, "phase (ms)");
    if (before)
        printf(" %9s", "before");
    for (int k = 0; k < nt; k++)
        printf("   %2d thr", threads[k]);
    printf("   speedup %d->%d\n", threads[0], threads[nt - 1]);
    double tot[MAX_T + 1] = {0}, totb = 0;
    for (int p = 0; p < P_COUNT; p++) {
        printf("%-46s", phase_name[p]);
        if (before) {
            printf(" %9.1f", 1e3 * before[p]);
            totb += before[p];
        }
        for (int k = 0; k < nt; k++) {
            printf(" %8.1f", 1e3 * t[k][p]);
            tot[k] += t[k][p];
        }
        printf("   %6.2fx\n", t[nt - 1][p] > 0 ? t[0][p] / t[nt - 1][p] : 0);
    }
    printf("%-46s", "total");
    if (before)
        printf(" %9.1f", 1e3 * totb);
    for (int k = 0; k < nt; k++)
        printf(" %8.1f", 1e3 * tot[k]);
    printf("   %6.2fx\n", tot[0] / tot[nt - 1]);
}

int main(int argc, char **argv)
{
    int threads[MAX_T] = {1, 2}, nt = 2, reps = 3;
    size_t rows = 8192, cols = 8192, reduce_n = (size_t)1 << 27;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "klab_host_bench: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--threads") == 0) {
            nt = 0;
            for (char *s = (char *)v; *s && nt < MAX_T;) {
                threads[nt++] = (int)strtol(s, &s, 10);
                if (*s == ',')
                    s++;
            }
        } else if (strcmp(a, "--rows") == 0) {
            rows = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--cols") == 0) {
            cols = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--reduce") == 0) {
            reduce_n = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--reps") == 0) {
            reps = atoi(v);
        } else {
            fprintf(stderr, "usage: klab_host_bench [--threads 1,2] [--rows R] [--cols C] [--reduce N] [--reps K]\n");
            return 2;
        }
    }
    for (int k = 0; k < nt; k++)
        if (threads[k] < 1 || parallel_set_threads(threads[k]) != 0) {
            fprintf(stderr, "klab_host_bench: --threads: 1 to %d each\n", PARALLEL_MAX_THREADS);
            return 2;
        }
    printf("klab_host_bench: %zu x %zu rmsnorm fp32 (3 profiles), a %zu-element reduction (4 profiles), best of %d\n",
           rows, cols, reduce_n, reps);
    double t[MAX_T][P_COUNT], best[MAX_T][P_COUNT], before[P_COUNT];
    figures first, f, old;

    if (rows * cols > 0) { /* --rows 0: the reduction alone */
        float *x = random_floats(rows * cols, 0x1234567ull, -1, 1), *w = random_floats(cols, 0x89abcdefull, 0.5f, 1.5f);
        for (int r = 0; r < reps; r++) { /* "before" */
            double tb[P_COUNT] = {0};
            rows_unit(x, w, rows, cols, 3, 1, tb, &old);
            for (int p = 0; p < P_COUNT; p++)
                before[p] = r == 0 || tb[p] < before[p] ? tb[p] : before[p];
        }
        for (int k = 0; k < nt; k++) {
            parallel_set_threads(threads[k]);
            for (int r = 0; r < reps; r++) {
                memset(t[k], 0, sizeof t[k]);
                rows_unit(x, w, rows, cols, 3, 0, t[k], &f);
                if (k == 0 && r == 0)
                    first = f;
                check_same(&first, &f, "rows", threads[k]);
                for (int p = 0; p < P_COUNT; p++)
                    best[k][p] = r == 0 || t[k][p] < best[k][p] ? t[k][p] : best[k][p];
            }
        }
        /* what reaches a row is what the loops before the pool gave (the checksum and the inputs' sum of
           squares are chunked now: their bits differ, and reach no row) */
        if (memcmp(&old.fit, &first.fit, sizeof old.fit) || memcmp(&old.cmp, &first.cmp, sizeof old.cmp) ||
            memcmp(&old.ref_first, &first.ref_first, sizeof old.ref_first) ||
            memcmp(&old.ref_last, &first.ref_last, sizeof old.ref_last)) {
            fprintf(stderr, "klab_host_bench: the reference or the comparison differs from the loops before "
                            "the pool\n");
            return 1;
        }
        print_table("rows unit (rmsnorm fp32); \"before\": the loops before the pool", best, threads, nt, before);
        free(x);
        free(w);
    }

    if (reduce_n == 0) /* --reduce 0: the rows unit alone */
        return 0;
    float *x = random_floats(reduce_n, 0x51ed27ull, 0, 1);
    for (int op = RD_SUM; op <= RD_MAX; op++) {
        for (int k = 0; k < nt; k++) {
            parallel_set_threads(threads[k]);
            for (int r = 0; r < reps; r++) {
                memset(t[k], 0, sizeof t[k]);
                reduce_unit(x, reduce_n, op, 4, t[k], &f);
                if (k == 0 && r == 0)
                    first = f;
                check_same(&first, &f, op == RD_SUM ? "sum" : "max", threads[k]);
                for (int p = 0; p < P_COUNT; p++)
                    best[k][p] = r == 0 || t[k][p] < best[k][p] ? t[k][p] : best[k][p];
            }
        }
        print_table(op == RD_SUM ? "reduction unit, sum of one row (the sum itself stays one chain)"
                                 : "reduction unit, max of one row",
                    best, threads, nt, NULL);
    }
    free(x);
    printf("\nevery figure (checksum, sum of squares, reference, fitness, comparison) identical at every thread "
           "count\n");
    return 0;
}
