/* swiglu and reduction (plugins/swiglu, plugins/reduction): their float64 references against values
 * computed by hand, the case shapes and reduction plans they accept or refuse, reduction's sum
 * tolerance between an honest kernel and a broken one, the promise that an output of all zeros fails
 * every shipped case of each, and their shipped INI files validated through the klab binary.
 * The references are plain C, linked in from plugins/; only the last test needs the built plugins. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "klab_test.h"

#include "plugins/reduction/reduction.h"
#include "plugins/swiglu/swiglu.h"
#include "config/case_build.h"
#include "config/ini_config.h"
#include "host/verify.h"
#include "klab_run.h"
#include "references_fixture.h"

/* A klab_case with the given params, as case_build makes it from an INI section. */
typedef struct test_case {
    klab_case k;
    klab_param params[4];
} test_case;

static const klab_case *make_case(test_case *t, const char *name, const char *shape, klab_dtype d, const char *k1,
                                  const char *v1, const char *k2, const char *v2)
{
    char why[200];
    memset(t, 0, sizeof *t);
    t->k.struct_size = sizeof t->k;
    t->k.name = name;
    t->k.rank = cfg_parse_shape(shape, t->k.dims, why, sizeof why);
    assert_true(t->k.rank > 0);
    t->k.dtype = d;
    t->k.steps = 1;
    if (k1)
        t->params[t->k.nparams++] = (klab_param){k1, v1};
    if (k2)
        t->params[t->k.nparams++] = (klab_param){k2, v2};
    t->k.params = t->params;
    return &t->k;
}

static void test_swiglu_by_hand(void **state)
{
    (void)state;
    /* silu(ln 3) = ln 3 / (1 + 1/3) = 0.75 ln 3; silu(-ln 3) = -ln 3 / 4; silu(0) = 0 */
    const double l3 = log(3.0);
    const double gate[3] = {l3, -l3, 0}, up[3] = {2, -4, 5};
    double out[3];
    swiglu_reference(NULL, NULL, gate, up, 3, out, 1, 3);
    assert_float_equal(out[0], 1.5 * l3, 1e-15);
    assert_float_equal(out[1], l3, 1e-15);
    assert_float_equal(out[2], 0, 0);
    /* packed: rows [gate | up] of width 4, row stride 4, out 2 x 2 */
    const double x[8] = {l3, 0, 2, 7, -l3, l3, -4, 1};
    double o[4];
    swiglu_reference(NULL, NULL, x, x + 2, 4, o, 2, 2);
    assert_float_equal(o[0], 1.5 * l3, 1e-15);
    assert_float_equal(o[1], 0, 0);
    assert_float_equal(o[2], l3, 1e-15);
    assert_float_equal(o[3], 0.75 * l3, 1e-15);
}

static void test_swiglu_shapes(void **state)
{
    (void)state;
    test_case t;
    swiglu_shape s;
    char why[512];
    assert_int_equal(swiglu_shape_of(make_case(&t, "a", "4096x14336", KLAB_FP16, NULL, NULL, NULL, NULL), &s, why,
                                     sizeof why), 0);
    assert_true(s.layout == SW_SPLIT && s.rows == 4096 && s.n == 14336);
    assert_int_equal(swiglu_shape_of(make_case(&t, "b", "4096x28672", KLAB_FP16, "layout", "packed", NULL, NULL), &s,
                                     why, sizeof why), 0);
    assert_true(s.layout == SW_PACKED && s.rows == 4096 && s.n == 14336);
    assert_int_equal(swiglu_shape_of(make_case(&t, "c", "2x3x8", KLAB_FP32, "layout", "split", NULL, NULL), &s, why,
                                     sizeof why), 0);
    assert_true(s.rows == 6 && s.n == 8);
    assert_int_equal(swiglu_shape_of(make_case(&t, "d", "2^20", KLAB_FP32, NULL, NULL, NULL, NULL), &s, why,
                                     sizeof why), 0);
    assert_true(s.rows == 1 && s.n == 1048576);
    /* an odd [gate | up] width has no halves: refused, naming the case, the width and the limit */
    assert_int_equal(swiglu_shape_of(make_case(&t, "odd", "3x7", KLAB_FP32, "layout", "packed", NULL, NULL), &s, why,
                                     sizeof why), -1);
    kr_expect_in(why, "case 'odd': the packed [gate | up] width is 7, which is odd; it must be a multiple of 2");
    assert_int_equal(swiglu_shape_of(make_case(&t, "e", "3x8", KLAB_FP32, "layout", "interleaved", NULL, NULL), &s,
                                     why, sizeof why), -1);
    kr_expect_in(why, "case 'e': param.layout is 'interleaved'; it must be split or packed");
}

/* The fused space (swiglu_plan_config): 36 plans where the vectorized kernel takes the case, none where
   it does not; the own choice is one vector a thread, 256 threads, no hint. */
static void test_swiglu_plans(void **state)
{
    (void)state;
    test_case t;
    swiglu_shape s;
    swiglu_plan p;
    char why[512];
    assert_int_equal(swiglu_shape_of(make_case(&t, "a", "4096x14336", KLAB_FP16, NULL, NULL, NULL, NULL), &s, why,
                                     sizeof why), 0);
    assert_string_equal(swiglu_plan_config(&s, 2, -1, &p), "cta=256,unroll=1,hint=0");
    assert_true(p.cta == 256 && p.unroll == 1 && p.hint == 0);
    assert_string_equal(swiglu_plan_config(&s, 2, 0, &p), "cta=128,unroll=1,hint=0");
    assert_string_equal(swiglu_plan_config(&s, 2, 35, &p), "cta=512,unroll=8,hint=2");
    assert_true(p.cta == 512 && p.unroll == 8 && p.hint == 2);
    assert_null(swiglu_plan_config(&s, 2, 36, &p));
    /* packed rows of 7 fp16 elements: gate and up at different misalignments, the element-wise kernel */
    assert_int_equal(swiglu_shape_of(make_case(&t, "c", "3x14", KLAB_FP16, "layout", "packed", NULL, NULL), &s, why,
                                     sizeof why), 0);
    assert_null(swiglu_plan_config(&s, 2, -1, NULL));
    assert_null(swiglu_plan_config(&s, 2, 0, NULL));
    /* split rows of 7 are one flat vector: a space */
    assert_int_equal(swiglu_shape_of(make_case(&t, "d", "3x7", KLAB_FP16, NULL, NULL, NULL, NULL), &s, why,
                                     sizeof why), 0);
    assert_non_null(swiglu_plan_config(&s, 2, 35, NULL));
}

static void test_reduction_by_hand(void **state)
{
    (void)state;
    const double x[6] = {1, 2, 3.5, -1, -0.25, -3};
    double out[2];
    reduction_reference(NULL, NULL, RD_SUM, x, 2, 3, out);
    assert_float_equal(out[0], 6.5, 0);
    assert_float_equal(out[1], -4.25, 0);
    reduction_reference(NULL, NULL, RD_MAX, x, 2, 3, out);
    assert_float_equal(out[0], 3.5, 0);
    assert_float_equal(out[1], -0.25, 0); /* a row of negatives: not 0 */
    reduction_reference(NULL, NULL, RD_MAX, x, 1, 6, out);
    assert_float_equal(out[0], 3.5, 0);
    reduction_reference(NULL, NULL, RD_SUM, x + 5, 1, 1, out);
    assert_float_equal(out[0], -3, 0);
}

static reduction_plan plan_of(const char *shape, klab_dtype d, int profile, const char *blocks)
{
    test_case t;
    reduction_case c;
    reduction_plan p;
    char why[512];
    assert_int_equal(reduction_case_of(make_case(&t, "p", shape, d, blocks ? "blocks" : NULL, blocks, NULL, NULL), &c,
                                       why, sizeof why), 0);
    assert_int_equal(reduction_plan_of(&c, profile, d, &p, why, sizeof why), 0);
    return p;
}

static void test_reduction_cases_and_plans(void **state)
{
    (void)state;
    test_case t;
    reduction_case c;
    char why[512];
    assert_int_equal(reduction_case_of(make_case(&t, "s", "2^28", KLAB_FP32, NULL, NULL, NULL, NULL), &c, why,
                                       sizeof why), 0);
    assert_true(c.op == RD_SUM && c.fill == RD_POSITIVE && c.rows == 1 && c.cols == (1u << 28) && c.blocks == 1024);
    assert_int_equal(reduction_case_of(make_case(&t, "m", "16384x8192", KLAB_BF16, "op", "max", NULL, NULL), &c, why,
                                       sizeof why), 0);
    assert_true(c.op == RD_MAX && c.fill == RD_SIGNED && c.rows == 16384 && c.cols == 8192);
    assert_int_equal(reduction_case_of(make_case(&t, "bad", "3", KLAB_FP32, "fill", "signed", NULL, NULL), &c, why,
                                       sizeof why), -1);
    kr_expect_in(why, "case 'bad': a sum of signed values (param.fill = signed)");
    assert_int_equal(reduction_case_of(make_case(&t, "b0", "3", KLAB_FP32, "blocks", "0", NULL, NULL), &c, why,
                                       sizeof why), -1);
    kr_expect_in(why, "case 'b0': param.blocks is '0'; it must be a whole number from 1 to 65536");
    assert_int_equal(reduction_case_of(make_case(&t, "o", "3", KLAB_FP32, "op", "min", NULL, NULL), &c, why,
                                       sizeof why), -1);
    kr_expect_in(why, "param.op is 'min'; it must be sum or max");

    /* 2^28: 1024 blocks; the cluster profile meets in clusters of 8, 128 partials to finish */
    reduction_plan p = plan_of("2^28", KLAB_FP32, RD_TWO_PASS, NULL);
    assert_true(p.splits == 1024 && p.cluster == 1 && p.groups == 1024);
    p = plan_of("2^28", KLAB_FP32, RD_CLUSTER, NULL);
    assert_true(p.splits == 1024 && p.cluster == 8 && p.groups == 128);
    /* many short rows: a block a row, nothing to finish; the cluster splits each over 2 */
    p = plan_of("16384x8192", KLAB_FP32, RD_LAST_BLOCK, NULL);
    assert_true(p.splits == 1 && p.groups == 1);
    p = plan_of("16384x8192", KLAB_FP32, RD_CLUSTER, NULL);
    assert_true(p.splits == 2 && p.cluster == 2 && p.groups == 1);
    /* a few long rows share the 1024 blocks */
    p = plan_of("8x2^24", KLAB_FP16, RD_ATOMIC, NULL);
    assert_true(p.splits == 128 && p.groups == 128);
    /* never more blocks than tiles: 3 elements are one block */
    p = plan_of("3", KLAB_FP32, RD_TWO_PASS, NULL);
    assert_true(p.splits == 1);
    p = plan_of("3", KLAB_FP32, RD_CLUSTER, NULL);
    assert_true(p.splits == 2 && p.cluster == 2 && p.groups == 1);
    /* 3 blocks a row: clusters of 4 */
    p = plan_of("5x1048579", KLAB_FP32, RD_CLUSTER, "15");
    assert_true(p.splits == 4 && p.cluster == 4 && p.groups == 1);
    p = plan_of("5x1048579", KLAB_FP32, RD_CLUSTER, NULL);
    assert_true(p.splits == 208 && p.cluster == 8 && p.groups == 26);
}

/* xorshift in [0, 1) */
static double unit_draw(uint64_t *s)
{
    return (uniform(s) + 1) / 2;
}

/* The sum tolerance between an honest kernel and a broken one. The honest one is emulated in fp32 with
   the atomic profile's plan (its chains are the longest): each thread adds its vectors one after
   another (each vector's 4 elements as a tree), the threads of a block meet as a tree, and the blocks'
   partials are added one after another in a shuffled order. The broken one drops a block. */
static void test_reduction_tolerance_separates(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 22;
    test_case t;
    const klab_case *k = make_case(&t, "s", "2^22", KLAB_FP32, NULL, NULL, NULL, NULL);
    reduction_plan p = plan_of("2^22", KLAB_FP32, RD_ATOMIC, NULL);
    assert_int_equal(p.splits, 1024);
    const double tol = reduction_tolerance(k);
    /* depth: 4 vectors a thread, 2 for the vector's tree, 2 head/tail, 8 the block, 1024 the atomics */
    assert_float_equal(reduction_sum_depth(&p, RD_ATOMIC, KLAB_FP32), 1040, 0);
    assert_true(tol > 1040 / 16777216.0 && tol < 1.01 * 1040 / 16777216.0);
    float *x = malloc(n * sizeof *x), *block = malloc((size_t)p.splits * sizeof *block);
    double *xd = malloc(n * sizeof *xd), ref;
    uint64_t seed = 0x243f6a8885a308d3ull;
    for (size_t i = 0; i < n; i++)
        xd[i] = x[i] = (float)unit_draw(&seed);
    reduction_reference(NULL, NULL, RD_SUM, xd, 1, n, &ref);
    const size_t tiles = n / 4 / RD_TILE;
    for (int j = 0; j < p.splits; j++) {
        float th[RD_THREADS];
        for (int tid = 0; tid < RD_THREADS; tid++) {
            float acc = 0;
            for (size_t tile = (size_t)j; tile < tiles; tile += (size_t)p.splits)
                for (int u = 0; u < RD_UNROLL; u++) {
                    const float *v = x + 4 * (tile * RD_TILE + (size_t)u * RD_THREADS + (size_t)tid);
                    acc += (v[0] + v[2]) + (v[1] + v[3]);
                }
            th[tid] = acc;
        }
        for (int w = RD_THREADS / 2; w >= 1; w /= 2)
            for (int i = 0; i < w; i++)
                th[i] += th[i + w];
        block[j] = th[0];
    }
    float honest = 0;
    for (int j = 0; j < p.splits; j++)
        honest += block[(size_t)j * 389 % (size_t)p.splits]; /* 389 is prime to 1024: a shuffled order */
    verify_result r;
    if (verify_compare("out", &ref, &honest, KLAB_FP32, 1, NULL, tol, &r) != VERIFY_PASS)
        fail_msg("an honest fp32 sum fails the tolerance: %s", r.msg);
    for (int j = 0; j < p.splits; j++) {
        float dropped = honest - block[j];
        if (verify_compare("out", &ref, &dropped, KLAB_FP32, 1, NULL, tol, &r) == VERIFY_PASS)
            fail_msg("a sum without block %d passes the tolerance %.3g", j, tol);
    }
    /* a max is exact: one ulp off fails */
    const klab_case *km = make_case(&t, "m", "2^22", KLAB_FP32, "op", "max", NULL, NULL);
    double one = 0.75;
    float off = nextafterf(0.75f, 1.0f), same = 0.75f;
    assert_int_equal(verify_compare("out", &one, &same, KLAB_FP32, 1, NULL, reduction_tolerance(km), &r), VERIFY_PASS);
    assert_int_equal(verify_compare("out", &one, &off, KLAB_FP32, 1, NULL, reduction_tolerance(km), &r),
                     VERIFY_MISMATCH);
    free(x);
    free(xd);
    free(block);
}

/* Every shipped swiglu and reduction case: an output of zeros fails, and the reference is fit to
   judge (a few rows at the real width stand for a case; a whole vector is cut to 2^16 elements). */
static void swired_check_case(const char *plugin, const cfg_case *c, const klab_plugin *desc)
{
    uint64_t seed = 0x13198a2e03707344ull;
    for (int d = 0; d < c->ndtypes; d++) {
        built_case b;
        case_build(&b, c, c->dtypes[d], desc);
        size_t width = (size_t)c->dims[c->rank - 1], rows = c->rank > 1 ? 4 : 1, nin, nout;
        double *in, *ref, tol;
        char why[512];
        if (!strcmp(plugin, "swiglu")) {
            swiglu_shape s;
            if (swiglu_shape_of(&b.kcase, &s, why, sizeof why) != 0)
                fail_msg("%s", why);
            nin = rows * 2 * s.n;
            nout = rows * s.n;
            in = malloc(nin * sizeof *in);
            ref = malloc(nout * sizeof *ref);
            for (size_t i = 0; i < nin; i++)
                in[i] = uniform(&seed);
            if (s.layout == SW_PACKED)
                swiglu_reference(NULL, NULL, in, in + s.n, 2 * s.n, ref, rows, s.n);
            else
                swiglu_reference(NULL, NULL, in, in + nout, s.n, ref, rows, s.n);
            tol = verify_default_tol(c->dtypes[d]);
        } else {
            reduction_case rc;
            if (reduction_case_of(&b.kcase, &rc, why, sizeof why) != 0)
                fail_msg("%s", why);
            width = width < 65536 ? width : 65536;
            nin = rows * width;
            nout = rows;
            in = malloc(nin * sizeof *in);
            ref = malloc(nout * sizeof *ref);
            for (size_t i = 0; i < nin; i++)
                in[i] = rc.fill == RD_POSITIVE ? unit_draw(&seed) : rc.fill == RD_NEGATIVE ? -unit_draw(&seed)
                                                                                            : uniform(&seed);
            reduction_reference(NULL, NULL, rc.op, in, rows, width, ref);
            tol = reduction_tolerance(&b.kcase);
            assert_true(tol > 0 && tol < 1e-3);
        }
        verify_result r;
        assert_int_equal(verify_reference_fit(ref, nout, verify_rms(in, nin), &r), VERIFY_PASS);
        float *zeros = calloc(nout, sizeof *zeros);
        if (verify_compare("out", ref, zeros, KLAB_FP32, nout, NULL, tol, &r) == VERIFY_PASS)
            fail_msg("%s %s: an output of zeros passes", plugin, c->name);
        free(zeros);
        free(in);
        free(ref);
    }
}

static void test_swired_zeros_fail_every_shipped_case(void **state)
{
    (void)state;
    static const char *const rd_params[] = {"op", "fill", "blocks", NULL}, *const sw_params[] = {"layout", NULL};
    static const klab_plugin sw = {.name = "swiglu", .params = sw_params}, rd = {.name = "reduction", .params = rd_params};
    const klab_plugin *descs[] = {&sw, &rd};
    for (int p = 0; p < 2; p++) {
        static cfg_experiment e;
        char path[4096], err[1200];
        snprintf(path, sizeof path, "%s/../ini/%s.ini", KLAB_TEST_DATA, descs[p]->name);
        if (cfg_load(path, &e, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_true(e.ncases >= 8);
        for (int i = 0; i < e.ncases; i++)
            swired_check_case(descs[p]->name, &e.cases[i], descs[p]);
    }
}

/* The shipped INI files against the built plugins, through the klab binary: every case is valid and
   moves the bytes the plugin declares (read 2 M N and write M N; read the input and write a float a
   row). */
static void test_swired_inis_validate(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    kr_mkdir("plugins", dir, sizeof dir);
    kr_link_plugin(dir, KLAB_BINARY_DIR "/plugins/swiglu.so");
    kr_link_plugin(dir, KLAB_BINARY_DIR "/plugins/reduction.so");
    klab_result r = KLAB("--validate", "--plugin-path", dir, "--ini-dir", KLAB_TEST_DATA "/../ini", "--plugin",
                         "swiglu,reduction");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "case 4096x14336     shape 4096x14336   dtypes fp32,fp16,bf16 profiles baseline,fused, "
                        "704.6 MB moved at fp32");
    kr_expect_in(r.out, "case packed-4096x14336 shape 4096x28672   dtypes fp32,fp16,bf16 profiles baseline,fused, "
                        "704.6 MB moved at fp32");
    kr_expect_in(r.out, "case sum-2^28       shape 2^28         dtypes fp32,fp16,bf16 profiles "
                        "two_pass,last_block,atomic,cluster, 1073.7 MB moved at fp32");
    kr_expect_in(r.out, "2 INI files checked: 0 invalid, 0 plugins refused");
    free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swiglu_by_hand),
        cmocka_unit_test(test_swiglu_shapes),
        cmocka_unit_test(test_swiglu_plans),
        cmocka_unit_test(test_reduction_by_hand),
        cmocka_unit_test(test_reduction_cases_and_plans),
        cmocka_unit_test(test_reduction_tolerance_separates),
        cmocka_unit_test(test_swired_zeros_fail_every_shipped_case),
        KR_TEST(test_swired_inis_validate),
    };
    KLAB_RUN_TESTS(tests);
}
