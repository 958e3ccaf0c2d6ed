/* The row plugins' and vector_add's float64 references against values computed by hand (RMSNorm and
 * its residual form, softmax, RMSNorm + RoPE with its geometry, tables, positions and refusals), and
 * the promise that an output of all zeros fails every shipped case of each, the row sweeps included
 * (and that the reference of each is fit to judge), and param.eps as the RMSNorm plugins read it.
 * swiglu and reduction have theirs in test_references_swired.c.
 * Pure CPU: the references are plain C, linked in from plugins/. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "klab_test.h"

#include "plugins/rmsnorm/rmsnorm.h"
#include "plugins/rmsnorm_rope/rmsnorm_rope.h"
#include "plugins/softmax/softmax.h"
#include "plugins/vector_add/vector_add.h"
#include "config/case_build.h"
#include "config/ini_config.h"
#include "host/verify.h"
#include "references_fixture.h"

static void test_rmsnorm_by_hand(void **state)
{
    (void)state;
    const double x[8] = {1, 2, 3, 4, -2, 0, 0, 2}, w[4] = {1, 0.5, 2, -1};
    double y[8];
    rmsnorm_reference(NULL, NULL, x, w, y, 2, 4, 0.0);
    /* row 0: mean of squares 30/4 = 7.5; row 1: 8/4 = 2 */
    const double a = 1 / sqrt(7.5), b = 1 / sqrt(2.0);
    const double want[8] = {a, a, 6 * a, -4 * a, -2 * b, 0, 0, -2 * b};
    for (int i = 0; i < 8; i++)
        assert_float_equal(y[i], want[i], 1e-15);
    /* eps is inside the square root: a zero row with eps 1 gives zeros, not NaN */
    const double z[2] = {0, 0}, one[2] = {1, 1};
    double yz[2];
    rmsnorm_reference(NULL, NULL, z, one, yz, 1, 2, 1.0);
    assert_float_equal(yz[0], 0, 0);
    /* x = [3, 4], eps = 0.5: 1 / sqrt(12.5 + 0.5) */
    const double x2[2] = {3, 4};
    rmsnorm_reference(NULL, NULL, x2, one, yz, 1, 2, 0.5);
    assert_float_equal(yz[0], 3 / sqrt(13.0), 1e-15);
    assert_float_equal(yz[1], 4 / sqrt(13.0), 1e-15);
}

static void test_rmsnorm_residual_by_hand(void **state)
{
    (void)state;
    /* h = x + r = [3, 4]; mean of squares 12.5, eps 0.5: y = h / sqrt(13) * w */
    const double x[2] = {1, 2}, r[2] = {2, 2}, w[2] = {1, -2};
    double y[2], h[2];
    rmsnorm_residual_reference(NULL, NULL, x, r, w, y, h, 1, 2, 0.5);
    assert_float_equal(h[0], 3, 0);
    assert_float_equal(h[1], 4, 0);
    assert_float_equal(y[0], 3 / sqrt(13.0), 1e-15);
    assert_float_equal(y[1], -8 / sqrt(13.0), 1e-15);
}

static void test_softmax_by_hand(void **state)
{
    (void)state;
    /* row 0: exp = 1, 2, 3 over 6; row 1: exp(1000) overflows a double, so only the max subtraction
       gives 1/2, 1/2; row 2: -1000 and 0, the first underflows to 0 */
    const double x[6] = {0, log(2.0), log(3.0), 1000, 1000, 0};
    double y[6];
    softmax_reference(NULL, NULL, x, y, 2, 3);
    assert_float_equal(y[0], 1.0 / 6, 1e-15);
    assert_float_equal(y[1], 1.0 / 3, 1e-15);
    assert_float_equal(y[2], 1.0 / 2, 1e-15);
    assert_float_equal(y[3], 0.5, 1e-15);
    assert_float_equal(y[4], 0.5, 1e-15);
    assert_float_equal(y[5], 0, 1e-300);
    const double one[1] = {-7};
    softmax_reference(NULL, NULL, one, y, 1, 1);
    assert_float_equal(y[0], 1, 0);
}

static void test_rope_by_hand(void **state)
{
    (void)state;
    /* one token, one head of 4 at position 1: x = 1s normalises to w = [1, 2, 3, 4] (eps 0); the
       tables' row 1 holds cos = [0, 1], sin = [1, 0] (row 0 is never read) */
    rope_geom g = {.tokens = 1, .hidden = 4, .batch = 1, .seq = 1, .head_dim = 4, .cache = 2, .half = 1};
    const double x[4] = {1, 1, 1, 1}, w[4] = {1, 2, 3, 4}, pos[1] = {1};
    const double cos_t[4] = {NAN, NAN, 0, 1}, sin_t[4] = {NAN, NAN, 1, 0};
    double y[4];
    rmsnorm_rope_reference(NULL, NULL, &g, x, w, pos, cos_t, sin_t, y, 0);
    /* half: pairs (0, 2) by angle 0 of row 1 (cos 0, sin 1), (1, 3) by angle 1 (cos 1, sin 0) */
    const double half[4] = {-3, 2, 1, 4};
    for (int i = 0; i < 4; i++)
        assert_float_equal(y[i], half[i], 1e-15);
    /* interleaved: pairs (0, 1) and (2, 3) */
    g.half = 0;
    rmsnorm_rope_reference(NULL, NULL, &g, x, w, pos, cos_t, sin_t, y, 0);
    const double inter[4] = {-2, 1, 3, 4};
    for (int i = 0; i < 4; i++)
        assert_float_equal(y[i], inter[i], 1e-15);
}

static void test_rope_tables_and_positions(void **state)
{
    (void)state;
    rope_geom g = {.tokens = 6, .hidden = 16, .batch = 2, .seq = 3, .head_dim = 16, .cache = 10, .half = 1};
    float c[80], s[80];
    rope_tables(&g, c, s);
    /* angle of (p, i) = p * 10000^(-2i/16): i = 0 is p itself; position 0 is the identity */
    assert_float_equal(c[0], 1, 0);
    assert_float_equal(s[7], 0, 0);
    assert_float_equal(c[3 * 8], cos(3.0), 1e-7);
    assert_float_equal(s[3 * 8 + 4], sin(3.0 / 100), 1e-7); /* 10000^(-1/2) = 1/100 */
    int32_t p[6], q[6];
    rope_positions(&g, 42, p);
    rope_positions(&g, 42, q);
    assert_memory_equal(p, q, sizeof p); /* a pure function of the seed */
    for (int b = 0; b < 2; b++) {
        assert_true(p[3 * b] >= 0 && p[3 * b] + 2 < 10);
        assert_int_equal(p[3 * b + 1], p[3 * b] + 1);
        assert_int_equal(p[3 * b + 2], p[3 * b] + 2);
    }
    int differs = 0;
    for (uint64_t seed = 1; seed < 20 && !differs; seed++) {
        rope_positions(&g, seed, q);
        differs = memcmp(p, q, sizeof p) != 0;
    }
    assert_true(differs);
}

/* a klab_case of `shape` (BxSxH or TxH) with named dims */
static klab_case rope_case(int rank, const int64_t *dims, klab_dtype d, const klab_dim *named, int nnamed,
                           const klab_param *params, int nparams)
{
    klab_case k;
    memset(&k, 0, sizeof k);
    k.struct_size = sizeof k;
    k.name = "c1";
    k.rank = rank;
    for (int i = 0; i < rank; i++)
        k.dims[i] = dims[i];
    k.dtype = d;
    k.named = named;
    k.nnamed = nnamed;
    k.params = params;
    k.nparams = nparams;
    return k;
}

static void expect_refused(const klab_case *k, const char *part)
{
    rope_geom g;
    char why[400];
    assert_int_equal(rope_geometry(k, &g, why, sizeof why), -1);
    if (!strstr(why, part) || !strstr(why, "case c1"))
        fail_msg("\"%s\" lacks \"%s\" or the case's name", why, part);
}

static void test_rope_geometry(void **state)
{
    (void)state;
    const int64_t bsh[3] = {8, 2048, 4096}, th[2] = {12, 4096};
    rope_geom g;
    char why[400];
    klab_case k = rope_case(3, bsh, KLAB_FP16, NULL, 0, NULL, 0);
    assert_int_equal(rope_geometry(&k, &g, why, sizeof why), 0);
    assert_int_equal(g.tokens, 16384);
    assert_int_equal(g.seq, 2048);
    assert_int_equal(g.head_dim, 128);
    assert_int_equal(g.cache, 4096);
    assert_int_equal(g.half, 1);
    const klab_dim seq4[1] = {{"seq", 4}};
    k = rope_case(2, th, KLAB_FP32, seq4, 1, NULL, 0);
    assert_int_equal(rope_geometry(&k, &g, why, sizeof why), 0);
    assert_int_equal(g.batch, 3);
    const klab_param inter[1] = {{"layout", "interleaved"}}, bad_layout[1] = {{"layout", "split"}};
    k = rope_case(3, bsh, KLAB_BF16, NULL, 0, inter, 1);
    assert_int_equal(rope_geometry(&k, &g, why, sizeof why), 0);
    assert_int_equal(g.half, 0);
    /* what the kernels cannot take is refused, naming the case, the value and the limit */
    const klab_dim odd[1] = {{"head_dim", 7}}, d96[1] = {{"head_dim", 96}}, d256[1] = {{"head_dim", 256}};
    const klab_dim short_cache[1] = {{"cache", 1024}}, seq5[1] = {{"seq", 5}}, seq3[1] = {{"seq", 3}};
    k = rope_case(3, bsh, KLAB_FP16, odd, 1, NULL, 0);
    expect_refused(&k, "dim.head_dim = 7 is odd");
    k = rope_case(3, bsh, KLAB_FP16, d96, 1, NULL, 0);
    expect_refused(&k, "a power of two from 16 to 256");
    k = rope_case(3, bsh, KLAB_FP32, d256, 1, NULL, 0);
    expect_refused(&k, "a power of two from 16 to 128");
    k = rope_case(3, bsh, KLAB_FP16, short_cache, 1, NULL, 0);
    expect_refused(&k, "dim.cache = 1024 is shorter than the sequence (2048 positions)");
    k = rope_case(2, th, KLAB_FP16, seq5, 1, NULL, 0);
    expect_refused(&k, "12 tokens are not whole sequences of dim.seq = 5");
    k = rope_case(3, bsh, KLAB_FP16, seq3, 1, NULL, 0);
    expect_refused(&k, "dim.seq = 3, but the shape's sequence is 2048");
    k = rope_case(3, bsh, KLAB_FP16, NULL, 0, bad_layout, 1);
    expect_refused(&k, "param.layout = split");
    const int64_t ragged[3] = {1, 1, 4000};
    k = rope_case(3, ragged, KLAB_FP16, NULL, 0, NULL, 0);
    expect_refused(&k, "hidden size 4000 is not a whole number of heads");
    k = rope_case(1, ragged, KLAB_FP16, NULL, 0, NULL, 0);
    expect_refused(&k, "got rank 1");
    /* the fused kernel's limits: whole heads a thread group, the row on chip in one block */
    k = rope_case(3, bsh, KLAB_FP16, NULL, 0, NULL, 0);
    assert_int_equal(rope_geometry(&k, &g, why, sizeof why), 0);
    row_limits lim = rope_limits(&g, 2);
    assert_int_equal(lim.tpr_multiple, 16);
    assert_int_equal(lim.max_cluster, 1);
    assert_true(lim.no_stream);
}

/* what rmsnorm_eps_of said through host->error */
static char eps_error[200];

static klab_status record_error(klab_ctx *ctx, const char *fmt, ...)
{
    (void)ctx;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(eps_error, sizeof eps_error, fmt, ap);
    va_end(ap);
    return KLAB_ERROR;
}

/* param.eps as rmsnorm.so and rmsnorm_rope.so read it: the default, a value, and (0, 1) enforced
   with the case named */
static void test_rmsnorm_eps(void **state)
{
    (void)state;
    klab_host host;
    memset(&host, 0, sizeof host);
    host.error = record_error;
    const int64_t dims[2] = {4, 8};
    float eps = 0;
    klab_case k = rope_case(2, dims, KLAB_FP32, NULL, 0, NULL, 0);
    assert_int_equal(rmsnorm_eps_of(NULL, &host, &k, &eps), KLAB_OK);
    assert_float_equal(eps, (float)RMS_DEFAULT_EPS, 0);
    const klab_param small[1] = {{"eps", "1e-5"}};
    k = rope_case(2, dims, KLAB_FP32, NULL, 0, small, 1);
    assert_int_equal(rmsnorm_eps_of(NULL, &host, &k, &eps), KLAB_OK);
    assert_float_equal(eps, 1e-5f, 0);
    const char *bad[] = {"0", "1", "-1e-6", "x", "nan"};
    for (int i = 0; i < 5; i++) {
        const klab_param p[1] = {{"eps", bad[i]}};
        k = rope_case(2, dims, KLAB_FP32, NULL, 0, p, 1);
        eps_error[0] = 0;
        eps = 0.25f;
        assert_int_equal(rmsnorm_eps_of(NULL, &host, &k, &eps), KLAB_ERROR);
        assert_string_equal(eps_error, "case c1: param.eps must be in (0, 1)");
        assert_float_equal(eps, 0.25f, 0); /* untouched */
    }
}

static void test_vector_add_by_hand(void **state)
{
    (void)state;
    const double a[3] = {1, -2, 0.5}, b[3] = {4, 0.25, -1};
    double c[3];
    vector_add_reference(NULL, NULL, VA_COPY, a, NULL, c, 3);
    assert_memory_equal(c, a, sizeof a);
    vector_add_reference(NULL, NULL, VA_ADD, a, b, c, 3);
    assert_float_equal(c[0], 5, 0);
    assert_float_equal(c[1], -1.75, 0);
    assert_float_equal(c[2], -0.5, 0);
    vector_add_reference(NULL, NULL, VA_TRIAD, a, b, c, 3);
    assert_float_equal(c[0], 13, 0);
    assert_float_equal(c[1], -1.25, 0);
    assert_float_equal(c[2], -2.5, 0);
    assert_int_equal(vector_add_op("copy"), VA_COPY);
    assert_int_equal(vector_add_op("triad"), VA_TRIAD);
    assert_int_equal(vector_add_op("scale"), -1);
}

static const char *param(const cfg_case *c, const char *key, const char *dflt)
{
    for (int i = 0; i < c->nparams; i++)
        if (!strcmp(c->param_key[i], key))
            return c->param_val[i];
    return dflt;
}

/* A descriptor listing every param and dim the row plugins take, for case_build. */
static const char *const row_params[] = {"eps", "residual", "spread", "layout", NULL};
static const char *const row_dims[] = {"head_dim", "seq", "cache", NULL};

/* The reference of one shipped case on random inputs like the host's: uniform in [-1, 1) (softmax:
   [-spread, spread)). Rows are independent, so a few rows of the real width stand for the case;
   elementwise ops likewise. */
static void check_case(const char *plugin, const cfg_case *c)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    size_t cols = (size_t)c->dims[c->rank - 1], rows = 8, n, nin;
    double *in0, *in1, *ref, *extra = NULL;
    if (!strcmp(plugin, "rmsnorm") || !strcmp(plugin, "softmax")) {
        n = rows * cols;
        nin = n;
        in0 = malloc(n * sizeof *in0);
        in1 = malloc(n * sizeof *in1);
        ref = malloc(n * sizeof *ref);
        double spread = strtod(param(c, "spread", "100"), NULL), scale = strcmp(plugin, "softmax") ? 1 : spread;
        for (size_t i = 0; i < n; i++) {
            in0[i] = scale * uniform(&seed);
            in1[i] = uniform(&seed);
        }
        double eps = strtod(param(c, "eps", "1e-6"), NULL);
        if (!strcmp(plugin, "softmax")) {
            softmax_reference(NULL, NULL, in0, ref, rows, cols);
        } else if (!strcmp(param(c, "residual", "0"), "1")) {
            extra = malloc(n * sizeof *extra);
            rmsnorm_residual_reference(NULL, NULL, in0, in1, in1, ref, extra, rows, cols, eps);
        } else {
            rmsnorm_reference(NULL, NULL, in0, in1, ref, rows, cols, eps);
        }
    } else if (!strcmp(plugin, "rmsnorm_rope")) {
        static const klab_plugin desc = {.params = row_params, .dims = row_dims};
        built_case bc;
        case_build(&bc, c, c->dtypes[0], &desc);
        rope_geom g;
        char why[400];
        if (rope_geometry(&bc.kcase, &g, why, sizeof why) != 0)
            fail_msg("%s", why);
        g.batch = 1, g.seq = g.tokens = rows; /* a few tokens of the real width */
        n = nin = rows * g.hidden;
        const size_t ntab = g.cache * g.head_dim / 2;
        in0 = malloc(n * sizeof *in0);
        in1 = malloc(n * sizeof *in1);
        ref = malloc(n * sizeof *ref);
        extra = malloc((2 * ntab + rows) * sizeof *extra);
        float *ct = malloc(2 * ntab * sizeof *ct);
        int32_t pos[8];
        rope_positions(&g, seed, pos);
        rope_tables(&g, ct, ct + ntab);
        for (size_t i = 0; i < 2 * ntab; i++)
            extra[i] = ct[i];
        for (size_t i = 0; i < rows; i++)
            extra[2 * ntab + i] = pos[i];
        for (size_t i = 0; i < n; i++) {
            in0[i] = uniform(&seed);
            in1[i] = uniform(&seed);
        }
        rmsnorm_rope_reference(NULL, NULL, &g, in0, in1, extra + 2 * ntab, extra, extra + ntab, ref,
                               strtod(param(c, "eps", "1e-6"), NULL));
        free(ct);
    } else {
        n = nin = 1 << 16;
        in0 = malloc(n * sizeof *in0);
        in1 = malloc(n * sizeof *in1);
        ref = malloc(n * sizeof *ref);
        for (size_t i = 0; i < n; i++) {
            in0[i] = uniform(&seed);
            in1[i] = uniform(&seed);
        }
        int op = vector_add_op(param(c, "op", "copy"));
        assert_true(op >= 0);
        vector_add_reference(NULL, NULL, op, in0, in1, ref, n);
    }
    verify_result r;
    if (verify_reference_fit(ref, n, verify_rms(in0, nin), &r) != VERIFY_PASS)
        fail_msg("%s %s: %s", plugin, c->name, r.msg);
    void *zeros = calloc(n, 4);
    float *exact = malloc(n * sizeof *exact);
    for (size_t i = 0; i < n; i++)
        exact[i] = (float)ref[i];
    for (int k = 0; k < c->ndtypes; k++) {
        klab_dtype d = c->dtypes[k];
        if (verify_compare("y", ref, zeros, d, n, NULL, verify_default_tol(d), &r) == VERIFY_PASS)
            fail_msg("%s %s: an output of zeros passes", plugin, c->name);
        assert_non_null(strstr(r.msg, "all zeros"));
    }
    /* the check is not vacuous: the reference itself, rounded to fp32, passes */
    assert_int_equal(verify_compare("y", ref, exact, KLAB_FP32, n, NULL, verify_default_tol(KLAB_FP32), &r), VERIFY_PASS);
    free(zeros);
    free(exact);
    free(in0);
    free(in1);
    free(ref);
    free(extra);
}

static void test_zeros_fail_every_shipped_case(void **state)
{
    (void)state;
    static const char *const inis[][2] = {
        {"vector_add", "ini/vector_add.ini"},           {"rmsnorm", "ini/rmsnorm.ini"},
        {"softmax", "ini/softmax.ini"},                 {"rmsnorm_rope", "ini/rmsnorm_rope.ini"},
        {"rmsnorm", "experiments/rowsweep_rmsnorm.ini"}, {"softmax", "experiments/rowsweep_softmax.ini"},
    };
    for (size_t p = 0; p < sizeof inis / sizeof inis[0]; p++) {
        static cfg_experiment e;
        char path[4096], err[1200];
        snprintf(path, sizeof path, "%s/../%s", KLAB_TEST_DATA, inis[p][1]);
        if (cfg_load(path, &e, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_true(e.ncases > 0);
        for (int i = 0; i < e.ncases; i++)
            check_case(inis[p][0], &e.cases[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rmsnorm_by_hand),
        cmocka_unit_test(test_rmsnorm_residual_by_hand),
        cmocka_unit_test(test_softmax_by_hand),
        cmocka_unit_test(test_rope_by_hand),
        cmocka_unit_test(test_rope_tables_and_positions),
        cmocka_unit_test(test_rope_geometry),
        cmocka_unit_test(test_rmsnorm_eps),
        cmocka_unit_test(test_vector_add_by_hand),
        cmocka_unit_test(test_zeros_fail_every_shipped_case),
    };
    KLAB_RUN_TESTS(tests);
}
