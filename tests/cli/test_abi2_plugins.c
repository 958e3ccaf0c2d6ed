/* The ABI 2.0 test plugins (tests/fixtures/plugins/abi2) where no GPU is needed: the loader reads their 2.0
 * fields, their float64 references compute what their kernels must (verify() with samples, raw
 * integers, states and steps, called on the CPU), `klab --list` names the new dtypes, and
 * `klab --validate` describes their cases, and vector_add's, as a run would set them up, and
 * `klab --tune --validate` lists a tuning space's configurations per case.
 * Their GPU behaviour is tested in test_gpu.c. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "host/loader.h"
#include "klab_run.h"
#include "klab_test.h"

#define PLUGIN(stem) KLAB_TEST_PLUGINS "/" stem ".so"

static char err[2048];

static void open_plugin(const char *stem, loaded_plugin *lp)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.so", KLAB_TEST_PLUGINS, stem);
    if (loader_open(path, stem, lp, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static klab_case make_case(klab_dtype d, int64_t n, int64_t steps)
{
    klab_case k;
    memset(&k, 0, sizeof k);
    k.struct_size = sizeof k;
    k.name = "c";
    k.rank = 1;
    k.dims[0] = n;
    k.dtype = d;
    k.steps = steps;
    return k;
}

/* A verify_io over one input and one output of n elements. */
typedef struct io1 {
    klab_verify_io io;
    const double *in[4];
    const void *raw[4];
    size_t in_count[4], out_count[4];
    klab_dtype in_dtype[4];
    double *out[4];
    const size_t *sample[4];
} io1;

static void io_init(io1 *x, int n_in, int n_out)
{
    memset(x, 0, sizeof *x);
    x->io.struct_size = sizeof x->io;
    x->io.n_in = n_in;
    x->io.in = x->in;
    x->io.in_raw = x->raw;
    x->io.in_count = x->in_count;
    x->io.in_dtype = x->in_dtype;
    x->io.n_out = n_out;
    x->io.out = x->out;
    x->io.out_count = x->out_count;
    x->io.steps = 1;
}

static void test_fp8_reference(void **state)
{
    (void)state;
    loaded_plugin lp;
    open_plugin("abi2_fp8", &lp);
    assert_int_equal(lp.desc.dtypes, KLAB_DTYPE_BIT(KLAB_FP8_E4M3) | KLAB_DTYPE_BIT(KLAB_FP8_E5M2));
    const double x[3] = {1, -0.5, 0.375};
    double y[3];
    io1 v;
    io_init(&v, 1, 1);
    v.in[0] = x;
    v.in_count[0] = v.out_count[0] = 3;
    v.in_dtype[0] = KLAB_FP8_E4M3;
    v.out[0] = y;
    klab_case k = make_case(KLAB_FP8_E4M3, 3, 1);
    assert_int_equal(lp.desc.verify(NULL, &k, &v.io), KLAB_OK);
    assert_true(y[0] == 1.5 && y[1] == -0.75 && y[2] == 0.5625);
    klab_work w = {.struct_size = sizeof w};
    lp.desc.work(&k, &w);
    assert_true(w.bytes == 6 && w.flops == 3); /* one byte an element, read and written */
    loader_close(&lp);
}

static void test_int32_reference_reads_raw_integers(void **state)
{
    (void)state;
    loaded_plugin lp;
    open_plugin("abi2_int32", &lp);
    const int32_t lens[3] = {1, 7, 1000};
    const double widened[3] = {1, 7, 1000};
    double y[3];
    io1 v;
    io_init(&v, 1, 1);
    v.in[0] = widened;
    v.raw[0] = lens;
    v.in_count[0] = v.out_count[0] = 3;
    v.in_dtype[0] = KLAB_INT32;
    v.out[0] = y;
    klab_case k = make_case(KLAB_INT32, 3, 1);
    assert_int_equal(lp.desc.verify(NULL, &k, &v.io), KLAB_OK);
    assert_true(y[0] == 4 && y[1] == 22 && y[2] == 3001);
    v.in_dtype[0] = KLAB_INT64; /* it checks what it is given */
    assert_int_equal(lp.desc.verify(NULL, &k, &v.io), KLAB_ERROR);
    loader_close(&lp);
}

static void test_sampled_reference_fills_the_sample(void **state)
{
    (void)state;
    loaded_plugin lp;
    open_plugin("abi2_sampled", &lp);
    double x[8], y[8];
    for (int i = 0; i < 8; i++)
        x[i] = i;
    const size_t sample[3] = {1, 5, 7};
    io1 v;
    io_init(&v, 1, 1);
    v.in[0] = x;
    v.in_count[0] = 8;
    v.in_dtype[0] = KLAB_FP32;
    v.out[0] = y;
    v.out_count[0] = 3;
    v.sample[0] = sample;
    v.io.sample = v.sample;
    klab_case k = make_case(KLAB_FP32, 8, 1);
    assert_int_equal(lp.desc.verify(NULL, &k, &v.io), KLAB_OK);
    assert_true(y[0] == 2 && y[1] == 10 && y[2] == 14);
    /* no sample: every element */
    v.io.sample = NULL;
    v.out_count[0] = 8;
    assert_int_equal(lp.desc.verify(NULL, &k, &v.io), KLAB_OK);
    for (int i = 0; i < 8; i++)
        assert_true(y[i] == 2 * i);
    loader_close(&lp);
}

/* Three steps from acc0 = {0.5, -1}, count0 = 1: acc = acc0 + 3 x, count = 1 + 1 + 2 + 3, y = acc. */
static void test_step_reference_after_steps(void **state)
{
    (void)state;
    loaded_plugin lp;
    open_plugin("abi2_steps", &lp);
    assert_int_equal(lp.desc.flags, KLAB_PLUGIN_STEPS);
    assert_int_equal(lp.desc.default_steps, 4);
    const double x[2] = {1, 2}, acc0[2] = {0.5, -1}, count0[1] = {1};
    double acc[2], count[1], y[2];
    io1 v;
    io_init(&v, 3, 3);
    v.in[0] = x;
    v.in[1] = acc0;
    v.in[2] = count0;
    v.in_count[0] = v.in_count[1] = 2;
    v.in_count[2] = 1;
    v.in_dtype[0] = v.in_dtype[1] = KLAB_FP32;
    v.in_dtype[2] = KLAB_INT32;
    v.out[0] = acc;
    v.out[1] = count;
    v.out[2] = y;
    v.out_count[0] = v.out_count[2] = 2;
    v.out_count[1] = 1;
    v.io.steps = 3;
    klab_case k = make_case(KLAB_FP32, 2, 3);
    assert_int_equal(lp.desc.verify(NULL, &k, &v.io), KLAB_OK);
    assert_true(acc[0] == 3.5 && acc[1] == 5);
    assert_true(y[0] == 3.5 && y[1] == 5);
    assert_true(count[0] == 7);
    loader_close(&lp);
}

static void test_tuning_space_enumerates(void **state)
{
    (void)state;
    loaded_plugin lp;
    open_plugin("abi2_tuning", &lp);
    klab_case k = make_case(KLAB_FP32, 1 << 16, 1);
    const klab_profile *tiled = &lp.desc.profiles[0], *fixed = &lp.desc.profiles[1];
    static const char *const want[] = {"threads=128", "threads=256", "threads=48", "threads=2048"};
    for (int i = 0; i < 4; i++)
        assert_string_equal(tiled->config(&k, i), want[i]);
    assert_null(tiled->config(&k, 4));
    assert_string_equal(tiled->config(&k, -1), "threads=256");
    assert_null(fixed->config);
    loader_close(&lp);
}

static void test_exact_archs_read(void **state)
{
    (void)state;
    loaded_plugin lp;
    open_plugin("abi2_arch", &lp);
    char text[64];
    assert_null(loader_profile_archs(&lp, 0));
    loader_archs_text(loader_profile_archs(&lp, 1), text, sizeof text);
    assert_string_equal(text, "sm_90");
    loader_archs_text(loader_profile_archs(&lp, 2), text, sizeof text);
    assert_string_equal(text, "sm_100");
    assert_true(loader_arch_admits(loader_profile_archs(&lp, 1), 90));
    assert_false(loader_arch_admits(loader_profile_archs(&lp, 1), 100));
    loader_close(&lp);
}

/* ---- through the klab binary ---- */

static void link_abi2(char *dir, size_t len)
{
    kr_mkdir("plugins", dir, len);
    static const char *const names[] = {"abi2_fp8", "abi2_int32", "abi2_sampled", "abi2_arch", "abi2_tuning",
                                        "abi2_steps"};
    for (int i = 0; i < 6; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s.so", KLAB_TEST_PLUGINS, names[i]);
        kr_link_plugin(dir, path);
    }
}

static void test_list_names_the_new_dtypes(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    link_abi2(dir, sizeof dir);
    klab_result r = KLAB("--list", "--plugin-path", dir, "--plugin",
                         "abi2_fp8,abi2_int32,abi2_steps,abi2_arch,abi2_tuning");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "dtypes: fp8e4m3 fp8e5m2\n");
    kr_expect_in(r.out, "dtypes: int32\n");
    /* enumerated without launching: a profile's exact machine code and whether it names configurations */
    kr_expect_in(r.out, "profile sm90a        sm_90a code only  [machine code for cc 9.0 only]\n");
    kr_expect_in(r.out, "profile portable     any device\n");
    kr_expect_in(r.out, "[configurations: klab --tune --validate]\n");
    kr_expect_in(r.out, "profile fixed        y = 2 x, 256 threads a block\n");
    kr_expect_in(r.out, "(plugin ABI 2.1)");
    kr_expect_in(r.out, "5 plugins, 0 refused");
    free(r.out);
}

static void test_validate_abi2_inis(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    link_abi2(dir, sizeof dir);
    /* abi2_tuning.ini names a `config`, a key of the ini branch: not validated here */
    klab_result r = KLAB("--validate", "--plugin-path", dir, "--ini-dir", KLAB_TEST_DATA "/gpu/ini", "--plugin",
                         "abi2_fp8,abi2_int32,abi2_sampled,abi2_arch,abi2_steps");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "dtypes fp8e4m3,fp8e5m2 profiles scale, 2.1 MB moved at fp8e4m3");
    kr_expect_in(r.out, "5 INI files checked: 0 invalid, 0 plugins refused");
    free(r.out);
}

/* `klab --tune --validate --verbose` enumerates each case's configurations without launching anything:
   the space in order, the plugin's own choice named, and the rows a tune run would write (own choice
   and four configurations of `tiled`, one row of `fixed`, for each of the five cases); without
   --verbose, one line a case. Without --tune, none. */
static void test_tune_validate_lists_configurations(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    link_abi2(dir, sizeof dir);
    klab_result r = KLAB("--validate", "--tune", "--plugin-path", dir, "--ini-dir", KLAB_TEST_DATA "/gpu/ini", "--plugin",
                         "abi2_tuning");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "  case own            shape 2^16         dtypes fp32            tune: 6 rows; configurations: "
                        "tiled fp32 4\n  case t128 ");
    kr_expect_not_in(r.out, "threads=128");
    kr_expect_in(r.out, "  klab --tune: 30 rows (each configuration, and each profile's own choice); every "
                        "configuration: --verbose\n");
    free(r.out);
    r = KLAB("--validate", "--tune", "--verbose", "--plugin-path", dir, "--ini-dir", KLAB_TEST_DATA "/gpu/ini",
             "--plugin", "abi2_tuning");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "  case own            shape 2^16         dtypes fp32           profiles tiled,fixed\n"
                        "    profile tiled fp32: 4 configurations; its own choice threads=256\n"
                        "        0  threads=128\n"
                        "        1  threads=256\n"
                        "        2  threads=48\n"
                        "        3  threads=2048\n"
                        "  case t128 ");
    kr_expect_not_in(r.out, "profile fixed"); /* no tuning space, nothing to list */
    kr_expect_in(r.out, "  10 rows (case x dtype x profile)\n"
                        "  klab --tune: 30 rows (each configuration, and each profile's own choice)\n");
    kr_expect_in(r.out, "1 INI file checked: 0 invalid, 0 plugins refused");
    free(r.out);
    r = KLAB("--validate", "--plugin-path", dir, "--ini-dir", KLAB_TEST_DATA "/gpu/ini", "--plugin", "abi2_tuning");
    assert_int_equal(r.rc, 0);
    kr_expect_not_in(r.out, "configurations");
    kr_expect_not_in(r.out, "klab --tune");
    free(r.out);
}

/* The one case builder: add and triad move three arrays, copy two (its own copy of the builder
   dropped params, and printed copy's bytes for all three). */
static void test_validate_vector_add_bytes(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    kr_mkdir("plugins", dir, sizeof dir);
    kr_link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");
    klab_result r = KLAB("--validate", "--plugin-path", dir, "--config", KLAB_TEST_DATA "/../ini/vector_add.ini");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "case copy-2^28      shape 2^28         dtypes fp32,fp16      profiles naive,vectorized,memcpy, "
                        "2147.5 MB moved at fp32");
    kr_expect_in(r.out, "case add-2^28       shape 2^28         dtypes fp32,fp16      profiles naive,vectorized, "
                        "3221.2 MB moved at fp32");
    kr_expect_in(r.out, "case triad-2^28     shape 2^28         dtypes fp32,fp16      profiles naive,vectorized, "
                        "3221.2 MB moved at fp32");
    free(r.out);
}

/* The worker once called the half-declared work hook of such a plugin and died of SIGSEGV: now the
   hook is absent, the case is described without bytes, and the INI is ok. */
static void test_half_hook_validates(void **state)
{
    (void)state;
    char dir[PATH_MAX], inis[PATH_MAX], ini[PATH_MAX + 32];
    kr_mkdir("plugins", dir, sizeof dir);
    kr_mkdir("ini", inis, sizeof inis);
    kr_link_plugin(dir, KLAB_TEST_PLUGINS "/abi_half_hook.so");
    snprintf(ini, sizeof ini, "%s/abi_half_hook.ini", inis);
    kr_write_file(ini, "[experiment]\nplugin = abi_half_hook\n\n[case 1024]\n");
    klab_result r = KLAB("--validate", "--plugin-path", dir, "--ini-dir", inis, "--plugin", "abi_half_hook");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "profiles only\n");
    kr_expect_not_in(r.out, "MB moved");
    kr_expect_not_in(r.out, "SIGSEGV");
    kr_expect_in(r.out, "1 INI file checked: 0 invalid, 0 plugins refused");
    free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp8_reference),
        cmocka_unit_test(test_int32_reference_reads_raw_integers),
        cmocka_unit_test(test_sampled_reference_fills_the_sample),
        cmocka_unit_test(test_step_reference_after_steps),
        cmocka_unit_test(test_tuning_space_enumerates),
        cmocka_unit_test(test_exact_archs_read),
        KR_TEST(test_list_names_the_new_dtypes),
        KR_TEST(test_validate_abi2_inis),
        KR_TEST(test_tune_validate_lists_configurations),
        KR_TEST(test_validate_vector_add_bytes),
        KR_TEST(test_half_hook_validates),
    };
    KLAB_RUN_TESTS(tests);
}
