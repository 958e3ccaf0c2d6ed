/* The plugins' float64 references against values computed by hand, and the promise that an output of
 * all zeros fails every shipped case of every plugin (and that the reference of each is fit to judge).
 * Pure CPU: the references are plain C, linked in from plugins/. */
#include <math.h>
#include <string.h>

#include "klab_test.h"

#include "ini_config.h"
#include "verify.h"
#include "../plugins/rmsnorm/rmsnorm.h"
#include "../plugins/vector_add/vector_add.h"

static void test_rmsnorm_by_hand(void **state)
{
    (void)state;
    const double x[8] = {1, 2, 3, 4, -2, 0, 0, 2}, w[4] = {1, 0.5, 2, -1};
    double y[8];
    rmsnorm_reference(x, w, y, 2, 4, 0.0);
    /* row 0: mean of squares 30/4 = 7.5; row 1: 8/4 = 2 */
    const double a = 1 / sqrt(7.5), b = 1 / sqrt(2.0);
    const double want[8] = {a, a, 6 * a, -4 * a, -2 * b, 0, 0, -2 * b};
    for (int i = 0; i < 8; i++)
        assert_float_equal(y[i], want[i], 1e-15);
    /* eps is inside the square root: a zero row with eps 1 gives zeros, not NaN */
    const double z[2] = {0, 0}, one[2] = {1, 1};
    double yz[2];
    rmsnorm_reference(z, one, yz, 1, 2, 1.0);
    assert_float_equal(yz[0], 0, 0);
    /* x = [3, 4], eps = 0.5: 1 / sqrt(12.5 + 0.5) */
    const double x2[2] = {3, 4};
    rmsnorm_reference(x2, one, yz, 1, 2, 0.5);
    assert_float_equal(yz[0], 3 / sqrt(13.0), 1e-15);
    assert_float_equal(yz[1], 4 / sqrt(13.0), 1e-15);
}

static void test_vector_add_by_hand(void **state)
{
    (void)state;
    const double a[3] = {1, -2, 0.5}, b[3] = {4, 0.25, -1};
    double c[3];
    vector_add_reference(VA_COPY, a, NULL, c, 3);
    assert_memory_equal(c, a, sizeof a);
    vector_add_reference(VA_ADD, a, b, c, 3);
    assert_float_equal(c[0], 5, 0);
    assert_float_equal(c[1], -1.75, 0);
    assert_float_equal(c[2], -0.5, 0);
    vector_add_reference(VA_TRIAD, a, b, c, 3);
    assert_float_equal(c[0], 13, 0);
    assert_float_equal(c[1], -1.25, 0);
    assert_float_equal(c[2], -2.5, 0);
    assert_int_equal(vector_add_op("copy"), VA_COPY);
    assert_int_equal(vector_add_op("triad"), VA_TRIAD);
    assert_int_equal(vector_add_op("scale"), -1);
}

static double uniform(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1;
}

static const char *param(const cfg_case *c, const char *key, const char *dflt)
{
    for (int i = 0; i < c->nparams; i++)
        if (!strcmp(c->param_key[i], key))
            return c->param_val[i];
    return dflt;
}

/* The reference of one shipped case on random inputs like the host's: uniform in [-1, 1). Rows are
   independent, so a few rows of the real width stand for the case; elementwise ops likewise. */
static void check_case(const char *plugin, const cfg_case *c)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    size_t cols = (size_t)c->dims[c->rank - 1], rows = 8, n;
    double *in0, *in1, *ref;
    if (!strcmp(plugin, "rmsnorm")) {
        n = rows * cols;
        in0 = malloc(n * sizeof *in0);
        in1 = malloc(cols * sizeof *in1);
        ref = malloc(n * sizeof *ref);
        for (size_t i = 0; i < n; i++)
            in0[i] = uniform(&seed);
        for (size_t i = 0; i < cols; i++)
            in1[i] = uniform(&seed);
        rmsnorm_reference(in0, in1, ref, rows, cols, strtod(param(c, "eps", "1e-6"), NULL));
    } else {
        n = 1 << 16;
        in0 = malloc(n * sizeof *in0);
        in1 = malloc(n * sizeof *in1);
        ref = malloc(n * sizeof *ref);
        for (size_t i = 0; i < n; i++) {
            in0[i] = uniform(&seed);
            in1[i] = uniform(&seed);
        }
        int op = vector_add_op(param(c, "op", "copy"));
        assert_true(op >= 0);
        vector_add_reference(op, in0, in1, ref, n);
    }
    verify_result r;
    assert_int_equal(verify_reference_fit(ref, n, verify_rms(in0, n), &r), VERIFY_PASS);
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
}

static void test_zeros_fail_every_shipped_case(void **state)
{
    (void)state;
    static const char *const plugins[] = {"vector_add", "rmsnorm"};
    for (int p = 0; p < 2; p++) {
        static cfg_experiment e;
        char path[4096], err[1200];
        snprintf(path, sizeof path, "%s/../ini/%s.ini", KLAB_TEST_DATA, plugins[p]);
        if (cfg_load(path, &e, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_true(e.ncases > 0);
        for (int i = 0; i < e.ncases; i++)
            check_case(plugins[p], &e.cases[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rmsnorm_by_hand),
        cmocka_unit_test(test_vector_add_by_hand),
        cmocka_unit_test(test_zeros_fail_every_shipped_case),
    };
    KLAB_RUN_TESTS(tests);
}
