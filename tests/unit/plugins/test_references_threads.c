/* The plugins' float64 references on the host's threads (klab_parallel_for through host_services, the
 * table the worker hands verify()): the same bytes with no host (the serial loop), at KLAB_THREADS 1 and
 * at 4, and the same bytes as the loops were before they were cut into chunks (written out below as
 * they stood at 6020066), for every reference that runs on the pool: rmsnorm (and its residual form),
 * softmax, rmsnorm_rope, swiglu (split and packed), reduction (many rows, a few long ones, one long
 * row: the sum one chain, the max cut into chunks with ties and NaNs), vector_add, the TN GEMM of
 * plugins/lib/gemm that fp8_gemm verifies against (whole and sampled), fused_gated_mlp, matmul_h200's,
 * and decode_replay's steps (full and attention-only, GQA, batch 3). Shapes are cut so chunks end inside
 * the data, not on its edge. */
#include <math.h>
#include <string.h>

#include "klab_test.h"

#include "plugins/decode_replay/decode_replay.h"
#include "plugins/fused_gated_mlp/fused_gated_mlp.h"
#include "plugins/matmul_h200/matmul_h200.h"
#include "plugins/reduction/reduction.h"
#include "plugins/softmax/softmax.h"
#include "plugins/swiglu/swiglu.h"
#include "plugins/vector_add/vector_add.h"
#include "gemm/gemm_reference.h"
#include "host/host_services.h"
#include "host/parallel.h"
#include "references_fixture.h"
#include "row/rms.h"
#include "row/rope.h"

static uint64_t seed = 0x2545f4914f6cdd1dull;

static double *randoms(size_t n)
{
    double *x = malloc((n ? n : 1) * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = uniform(&seed);
    return x;
}

static double *poisoned(size_t n)
{
    double *y = malloc((n ? n : 1) * sizeof *y);
    assert_non_null(y);
    for (size_t i = 0; i < n; i++)
        y[i] = NAN;
    return y;
}

/* One reference computed into `out` (n doubles) through `host` (NULL: no host). */
typedef void (*ref_fn)(const klab_host *host, void *arg, double *out);

/* The reference with no host, at 1 and at 4 threads of the host's pool: the same bytes as `want` (the
   loop as it was), when given, and as each other. */
static void expect_same(ref_fn fn, void *arg, size_t n, const double *want, const char *what)
{
    double *serial = poisoned(n), *got = poisoned(n);
    fn(NULL, arg, serial);
    if (want && memcmp(serial, want, n * sizeof *want) != 0)
        fail_msg("%s: not what the loop before the pool gave", what);
    const int threads[] = {1, 4};
    for (int t = 0; t < 2; t++) {
        assert_int_equal(parallel_set_threads(threads[t]), 0);
        for (size_t i = 0; i < n; i++)
            got[i] = NAN;
        fn(&host_services, arg, got);
        if (memcmp(got, serial, n * sizeof *got) != 0)
            fail_msg("%s: KLAB_THREADS=%d differs from the serial loop", what, threads[t]);
    }
    assert_int_equal(parallel_set_threads(0), 0);
    free(serial);
    free(got);
}

/* ---- the row family ---- */

typedef struct rows_arg {
    const double *x, *r, *w;
    size_t rows, cols;
    double eps;
} rows_arg;

static void run_rmsnorm(const klab_host *host, void *arg, double *out)
{
    const rows_arg *a = arg;
    rmsnorm_reference(host, NULL, a->x, a->w, out, a->rows, a->cols, a->eps);
}

/* out: y then h */
static void run_residual(const klab_host *host, void *arg, double *out)
{
    const rows_arg *a = arg;
    rmsnorm_residual_reference(host, NULL, a->x, a->r, a->w, out, out + a->rows * a->cols, a->rows, a->cols, a->eps);
}

static void run_softmax(const klab_host *host, void *arg, double *out)
{
    const rows_arg *a = arg;
    softmax_reference(host, NULL, a->x, out, a->rows, a->cols);
}

/* the loops at 6020066 */
static void old_rmsnorm(const double *x, const double *w, double *y, size_t rows, size_t cols, double eps)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols;
        double ss = 0;
        for (size_t c = 0; c < cols; c++)
            ss += xr[c] * xr[c];
        double inv = 1.0 / sqrt(ss / (double)cols + eps);
        for (size_t c = 0; c < cols; c++)
            y[r * cols + c] = xr[c] * inv * w[c];
    }
}

static void old_softmax(const double *x, double *y, size_t rows, size_t cols)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols;
        double *yr = y + r * cols;
        double m = -INFINITY, s = 0;
        for (size_t c = 0; c < cols; c++)
            m = xr[c] > m ? xr[c] : m;
        for (size_t c = 0; c < cols; c++)
            s += yr[c] = exp(xr[c] - m);
        for (size_t c = 0; c < cols; c++)
            yr[c] /= s;
    }
}

static void test_rows(void **state)
{
    (void)state;
    /* rows of 1000 (65 a chunk: the last chunk short), and rows longer than a chunk (one a chunk) */
    const size_t shapes[2][2] = {{257, 1000}, {3, 70001}};
    for (int s = 0; s < 2; s++) {
        size_t rows = shapes[s][0], cols = shapes[s][1], n = rows * cols;
        double *x = randoms(n), *r = randoms(n), *w = randoms(cols), *want = poisoned(2 * n);
        rows_arg a = {x, r, w, rows, cols, 1e-5};
        old_rmsnorm(x, w, want, rows, cols, 1e-5);
        expect_same(run_rmsnorm, &a, n, want, "rmsnorm");
        for (size_t i = 0; i < n; i++)
            want[n + i] = x[i] + r[i];
        old_rmsnorm(want + n, w, want, rows, cols, 1e-5);
        expect_same(run_residual, &a, 2 * n, want, "rmsnorm residual");
        for (size_t i = 0; i < n; i++)
            x[i] *= 30; /* exponents that round differently in any other order */
        old_softmax(x, want, rows, cols);
        expect_same(run_softmax, &a, n, want, "softmax");
        free(x);
        free(r);
        free(w);
        free(want);
    }
}

typedef struct rope_arg {
    rope_geom g;
    const double *x, *w, *pos, *cos_t, *sin_t;
} rope_arg;

static void run_rope(const klab_host *host, void *arg, double *out)
{
    const rope_arg *a = arg;
    rmsnorm_rope_reference(host, NULL, &a->g, a->x, a->w, a->pos, a->cos_t, a->sin_t, out, 1e-6);
}

static void old_rope(const rope_geom *g, const double *x, const double *w, const double *pos, const double *cos_t,
                     const double *sin_t, double *y, double eps)
{
    const size_t D = g->head_dim, half = D / 2;
    old_rmsnorm(x, w, y, g->tokens, g->hidden, eps);
    for (size_t t = 0; t < g->tokens; t++) {
        const size_t p = (size_t)pos[t];
        for (size_t h = 0; h < g->hidden; h += D) {
            double *v = y + t * g->hidden + h;
            for (size_t i = 0; i < half; i++) {
                const double c = cos_t[p * half + i], s = sin_t[p * half + i];
                const size_t ia = g->half ? i : 2 * i, ib = g->half ? i + half : 2 * i + 1;
                const double a = v[ia], b = v[ib];
                v[ia] = a * c - b * s;
                v[ib] = b * c + a * s;
            }
        }
    }
}

static void test_rmsnorm_rope(void **state)
{
    (void)state;
    for (int half = 0; half <= 1; half++) {
        rope_arg a;
        a.g = (rope_geom){.batch = 3, .seq = 100, .tokens = 300, .hidden = 384, .head_dim = 64, .cache = 256,
                          .half = half};
        size_t n = a.g.tokens * a.g.hidden, tab = a.g.cache * a.g.head_dim / 2;
        int32_t pos32[300];
        rope_positions(&a.g, 77, pos32);
        float *cf = malloc(tab * sizeof *cf), *sf = malloc(tab * sizeof *sf);
        double *pos = malloc(300 * sizeof *pos), *ct = malloc(tab * sizeof *ct), *st = malloc(tab * sizeof *st);
        assert_non_null(cf);
        assert_non_null(sf);
        assert_non_null(pos);
        assert_non_null(ct);
        assert_non_null(st);
        rope_tables(&a.g, cf, sf);
        for (size_t i = 0; i < tab; i++)
            ct[i] = cf[i], st[i] = sf[i];
        for (size_t t = 0; t < 300; t++)
            pos[t] = pos32[t];
        double *x = randoms(n), *w = randoms(a.g.hidden), *want = poisoned(n);
        a.x = x, a.w = w, a.pos = pos, a.cos_t = ct, a.sin_t = st;
        old_rope(&a.g, x, w, pos, ct, st, want, 1e-6);
        expect_same(run_rope, &a, n, want, half ? "rmsnorm_rope half" : "rmsnorm_rope interleaved");
        free(cf);
        free(sf);
        free(pos);
        free(ct);
        free(st);
        free(x);
        free(w);
        free(want);
    }
}

typedef struct sw_arg {
    const double *gate, *up;
    size_t ld, rows, n;
} sw_arg;

static void run_swiglu(const klab_host *host, void *arg, double *out)
{
    const sw_arg *a = arg;
    swiglu_reference(host, NULL, a->gate, a->up, a->ld, out, a->rows, a->n);
}

static void test_swiglu(void **state)
{
    (void)state;
    const size_t rows = 301, n = 500;
    double *g = randoms(rows * 2 * n), *u = randoms(rows * n), *want = poisoned(rows * n);
    for (int packed = 0; packed <= 1; packed++) {
        sw_arg a = packed ? (sw_arg){g, g + n, 2 * n, rows, n} : (sw_arg){g, u, n, rows, n};
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < n; c++) {
                double x = a.gate[r * a.ld + c];
                want[r * n + c] = x / (1.0 + exp(-x)) * a.up[r * a.ld + c];
            }
        expect_same(run_swiglu, &a, rows * n, want, packed ? "swiglu packed" : "swiglu split");
    }
    free(g);
    free(u);
    free(want);
}

/* ---- reduction ---- */

typedef struct rd_arg {
    int op;
    const double *x;
    size_t rows, cols;
} rd_arg;

static void run_reduction(const klab_host *host, void *arg, double *out)
{
    const rd_arg *a = arg;
    reduction_reference(host, NULL, a->op, a->x, a->rows, a->cols, out);
}

static void old_reduction(int op, const double *x, size_t rows, size_t cols, double *out)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols;
        double v = xr[0];
        for (size_t c = 1; c < cols; c++)
            v = op == RD_MAX ? (xr[c] > v ? xr[c] : v) : v + xr[c];
        out[r] = v;
    }
}

static void expect_reduction(int op, const double *x, size_t rows, size_t cols, const char *what)
{
    double *want = poisoned(rows);
    old_reduction(op, x, rows, cols, want);
    rd_arg a = {op, x, rows, cols};
    expect_same(run_reduction, &a, rows, want, what);
    free(want);
}

static void test_reduction(void **state)
{
    (void)state;
    const size_t shapes[4][2] = {{1000, 100}, {5, 200003}, {1, 3 * 65536 + 5}, {1, 1}};
    for (int s = 0; s < 4; s++) {
        size_t rows = shapes[s][0], cols = shapes[s][1];
        double *x = randoms(rows * cols);
        for (size_t i = 0; i < rows * cols; i++)
            x[i] = fabs(x[i]) * 1e3 + 1e-3 * (double)(i % 97); /* sums of one sign, as the plugin's */
        expect_reduction(RD_SUM, x, rows, cols, "reduction sum");
        expect_reduction(RD_MAX, x, rows, cols, "reduction max");
        free(x);
    }
    /* one long row whose maximum is tied: +0 and -0 (equal, different bits) and the largest value met
       in several chunks; the first of them is the one the one loop keeps */
    const size_t n = 3 * 65536 + 5;
    double *x = randoms(n);
    for (size_t i = 0; i < n; i++)
        x[i] = -fabs(x[i]) - 1;
    x[70000] = -0.0, x[140000] = 0.0, x[2] = -0.0;
    expect_reduction(RD_MAX, x, 1, n, "reduction max, zeros tied");
    x[65536 * 2 + 1] = 5, x[65536 + 3] = 5, x[100] = 4;
    expect_reduction(RD_MAX, x, 1, n, "reduction max, 5 twice");
    /* NaN: skipped where it is not first, kept where it is */
    x[65536 + 1] = NAN, x[65536] = NAN;
    expect_reduction(RD_MAX, x, 1, n, "reduction max, a NaN inside");
    x[0] = NAN;
    expect_reduction(RD_MAX, x, 1, n, "reduction max, a NaN first");
    double *two = randoms(2 * n);
    two[n] = NAN; /* the second row's first element */
    expect_reduction(RD_MAX, two, 2, n, "reduction max, two long rows");
    free(two);
    free(x);
}

/* ---- vector_add ---- */

typedef struct va_arg {
    int op;
    const double *a, *b;
    size_t n;
} va_arg;

static void run_vector_add(const klab_host *host, void *arg, double *out)
{
    const va_arg *a = arg;
    vector_add_reference(host, NULL, a->op, a->a, a->b, out, a->n);
}

static void test_vector_add(void **state)
{
    (void)state;
    const size_t n = 200003;
    double *a = randoms(n), *b = randoms(n), *want = poisoned(n);
    for (int op = VA_COPY; op <= VA_TRIAD; op++) {
        for (size_t i = 0; i < n; i++)
            want[i] = op == VA_ADD ? a[i] + b[i] : op == VA_TRIAD ? a[i] + VA_TRIAD_SCALAR * b[i] : a[i];
        va_arg v = {op, a, op == VA_COPY ? NULL : b, n};
        expect_same(run_vector_add, &v, n, want, "vector_add");
    }
    free(a);
    free(b);
    free(want);
}

/* ---- the GEMMs ---- */

typedef struct gemm_arg {
    const double *x, *w, *w2;
    size_t m, n, k;
    const size_t *sample;
    size_t count;
} gemm_arg;

static void run_gemm_tn(const klab_host *host, void *arg, double *out)
{
    const gemm_arg *a = arg;
    gemm_reference_tn(host, NULL, a->x, a->w, a->m, a->n, a->k, a->sample, a->count, out);
}

static void run_gated_mlp(const klab_host *host, void *arg, double *out)
{
    const gemm_arg *a = arg;
    gated_mlp_shape s = {.m = (int64_t)a->m, .k = (int64_t)a->k, .f = (int64_t)a->n, .act = GM_GELU};
    assert_int_equal(gated_mlp_reference(host, NULL, &s, a->x, a->w, a->w2, a->sample, a->count, out), 0);
}

static void run_mm(const klab_host *host, void *arg, double *out)
{
    const gemm_arg *a = arg;
    mm_case c = {(int64_t)a->m, (int64_t)a->n, (int64_t)a->k};
    mm_reference(host, NULL, &c, a->x, a->w, a->sample, a->count, out);
}

static void test_gemms(void **state)
{
    (void)state;
    const size_t m = 70, n = 52, k = 1000; /* 65 elements a chunk: the last one short */
    double *x = randoms(m * k), *w = randoms(n * k), *w2 = randoms(n * k), *want = poisoned(m * n);
    size_t sample[333];
    for (size_t j = 0; j < 333; j++)
        sample[j] = (j * 11 + 5) % (m * n); /* not ascending: each element on its own */
    for (int sampled = 0; sampled <= 1; sampled++) {
        gemm_arg a = {x, w, w2, m, n, k, sampled ? sample : NULL, sampled ? 333 : m * n};
        for (size_t j = 0; j < a.count; j++) { /* the loop at 6020066 */
            size_t e = a.sample ? a.sample[j] : j, r = e / n, c = e % n;
            double acc = 0;
            for (size_t i = 0; i < k; i++)
                acc += x[r * k + i] * w[c * k + i];
            want[j] = acc;
        }
        expect_same(run_gemm_tn, &a, a.count, want, "gemm_reference_tn");
        expect_same(run_gated_mlp, &a, a.count, NULL, "gated_mlp_reference");
        for (size_t j = 0; j < a.count; j++) { /* mm_reference at 6020066: B is k x n */
            size_t e = a.sample ? a.sample[j] : j, r = e / n, col = e % n;
            double s = 0.0;
            for (size_t i = 0; i < k; i++)
                s += x[r * k + i] * w[i * n + col];
            want[j] = s;
        }
        expect_same(run_mm, &a, a.count, want, "matmul_h200's mm_reference");
    }
    free(x);
    free(w);
    free(w2);
    free(want);
}

/* ---- decode_replay ---- */

typedef struct dr_arg {
    dr_geom g;
    dr_ref_in in;
    const double *kc0, *vc0;
    size_t ncache, ny;
    int64_t steps;
} dr_arg;

/* out: the K cache, the V cache, then y */
static void run_decode(const klab_host *host, void *arg, double *out)
{
    const dr_arg *a = arg;
    memcpy(out, a->kc0, a->ncache * sizeof *out);
    memcpy(out + a->ncache, a->vc0, a->ncache * sizeof *out);
    assert_int_equal(dr_reference(host, NULL, &a->g, &a->in, a->steps, out, out + a->ncache, out + 2 * a->ncache), 0);
}

static void test_decode_replay(void **state)
{
    (void)state;
    for (int attn_only = 0; attn_only <= 1; attn_only++) {
        dr_arg a;
        memset(&a, 0, sizeof a);
        dr_geom *g = &a.g;
        g->batch = 3, g->layers = 2, g->hidden = 256, g->heads = 4, g->kv_heads = 2, g->head_dim = 64;
        g->inter = 384, g->kv = 40, g->kv_min = 5, g->steps = 3, g->dynamic = 1, g->attn_only = attn_only;
        g->eps = 1e-5, g->nqkv = (g->heads + 2 * g->kv_heads) * g->head_dim;
        const int64_t B = g->batch, H = g->hidden, L = g->layers, I = g->inter, D = g->head_dim;
        a.ncache = (size_t)(L * B * g->kv_heads * g->kv * D);
        a.ny = (size_t)(attn_only ? L * B * g->heads * D : B * H);
        double *x = randoms((size_t)(attn_only ? L * B * g->nqkv : B * H));
        double *wqkv = randoms((size_t)(L * g->nqkv * H)), *wo = randoms((size_t)(L * H * g->heads * D));
        double *wgu = randoms((size_t)(L * 2 * I * H)), *wd = randoms((size_t)(L * H * I));
        double *ga = randoms((size_t)(L * H)), *gm = randoms((size_t)(L * H));
        double *ct = randoms((size_t)(g->kv * D / 2)), *st = randoms((size_t)(g->kv * D / 2));
        double *kc0 = randoms(a.ncache), *vc0 = randoms(a.ncache), lens[9];
        for (int i = 0; i < 9; i++)
            lens[i] = (double)(5 + (i * 13) % 36); /* 5 to 40, different per sequence and step */
        a.in = (dr_ref_in){x, wqkv, wo, wgu, wd, ga, gm, ct, st, lens, 1};
        a.kc0 = kc0, a.vc0 = vc0, a.steps = 2;
        expect_same(run_decode, &a, 2 * a.ncache + a.ny, NULL, attn_only ? "decode_replay attn" : "decode_replay");
        free(x);
        free(wqkv);
        free(wo);
        free(wgu);
        free(wd);
        free(ga);
        free(gm);
        free(ct);
        free(st);
        free(kc0);
        free(vc0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_rmsnorm_rope),
        cmocka_unit_test(test_swiglu),
        cmocka_unit_test(test_reduction),
        cmocka_unit_test(test_vector_add),
        cmocka_unit_test(test_gemms),
        cmocka_unit_test(test_decode_replay),
    };
    KLAB_RUN_TESTS(tests);
}
