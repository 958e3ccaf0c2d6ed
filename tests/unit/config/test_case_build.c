/* case_build: the one place an INI case becomes the klab_case a plugin sees. Only the params and named
 * dims the descriptor lists reach the plugin; steps are the INI's or the step plugin's default, and 1
 * for any other plugin; the struct says its own size. The case's signature (the tuning cache's key) is
 * what the problem is, in order. */
#include "klab_test.h"

#include <string.h>

#include "config/case_build.h"

static cfg_case sample_case(void)
{
    cfg_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "decode");
    c.rank = 2;
    c.dims[0] = 4096;
    c.dims[1] = 128;
    c.nparams = 2;
    snprintf(c.param_key[0], sizeof c.param_key[0], "eps");
    snprintf(c.param_val[0], sizeof c.param_val[0], "1e-6");
    snprintf(c.param_key[1], sizeof c.param_key[1], "stray");
    snprintf(c.param_val[1], sizeof c.param_val[1], "1");
    c.ndims_named = 2;
    snprintf(c.dim_key[0], sizeof c.dim_key[0], "heads");
    c.dim_val[0] = 32;
    snprintf(c.dim_key[1], sizeof c.dim_key[1], "layers");
    c.dim_val[1] = 80;
    return c;
}

static const char *const params[] = {"eps", NULL};
static const char *const dims[] = {"layers", "head_dim", NULL};

static void test_case_as_the_plugin_sees_it(void **state)
{
    (void)state;
    cfg_case c = sample_case();
    klab_plugin d = {.params = params, .dims = dims};
    built_case b;
    case_build(&b, &c, KLAB_BF16, &d);
    const klab_case *k = &b.kcase;
    assert_int_equal(k->struct_size, sizeof(klab_case));
    assert_string_equal(k->name, "decode");
    assert_int_equal(k->rank, 2);
    assert_true(k->dims[0] == 4096 && k->dims[1] == 128);
    assert_int_equal(k->dtype, KLAB_BF16);
    assert_int_equal(k->nparams, 1);
    assert_string_equal(klab_case_param(k, "eps"), "1e-6");
    assert_null(klab_case_param(k, "stray"));
    assert_int_equal(k->nnamed, 1);
    assert_int_equal(klab_case_dim(k, "layers", -1), 80);
    assert_int_equal(klab_case_dim(k, "heads", -1), -1); /* not declared: does not reach the plugin */
    assert_int_equal(klab_case_dim(k, "head_dim", 64), 64);
    assert_int_equal(klab_case_elements(k), 4096 * 128);
    assert_int_equal(k->steps, 1);
}

static void test_steps(void **state)
{
    (void)state;
    cfg_case c = sample_case();
    klab_plugin d = {.flags = KLAB_PLUGIN_STEPS, .default_steps = 16};
    built_case b;
    case_build(&b, &c, KLAB_FP16, &d);
    assert_int_equal(b.kcase.steps, 16); /* the plugin's default */
    c.steps = 128;
    case_build(&b, &c, KLAB_FP16, &d);
    assert_int_equal(b.kcase.steps, 128); /* the INI's */
    klab_plugin plain = {.default_steps = 16};
    case_build(&b, &c, KLAB_FP16, &plain);
    assert_int_equal(b.kcase.steps, 1); /* not a step plugin: one run a verified sequence */
    assert_int_equal(b.kcase.nparams, 0);
    assert_int_equal(b.kcase.nnamed, 0);
}

/* A case of named dims only: rank 0, one element, klab_case_dim finding them. */
static void test_named_dims_only(void **state)
{
    (void)state;
    cfg_case c = sample_case();
    c.rank = 0;
    klab_plugin d = {.dims = dims};
    built_case b;
    case_build(&b, &c, KLAB_FP32, &d);
    assert_int_equal(b.kcase.rank, 0);
    assert_int_equal(klab_case_elements(&b.kcase), 1);
    assert_int_equal(klab_case_dim(&b.kcase, "layers", 0), 80);
}

/* The tuning cache's key for a case: what the problem is, in the INI's order; never cut into a
   collision. */
static void test_signature(void **state)
{
    (void)state;
    cfg_case c = sample_case();
    char sig[512], other[512];
    case_signature(&c, sig, sizeof sig);
    assert_string_equal(sig, "4096x128;eps=1e-6;stray=1;dim.heads=32;dim.layers=80");
    c.steps = 64;
    case_signature(&c, sig, sizeof sig);
    assert_string_equal(sig, "4096x128;eps=1e-6;stray=1;dim.heads=32;dim.layers=80;steps=64");

    /* params in another order are another case */
    cfg_case swapped = sample_case();
    snprintf(swapped.param_key[0], sizeof swapped.param_key[0], "stray");
    snprintf(swapped.param_val[0], sizeof swapped.param_val[0], "1");
    snprintf(swapped.param_key[1], sizeof swapped.param_key[1], "eps");
    snprintf(swapped.param_val[1], sizeof swapped.param_val[1], "1e-6");
    case_signature(&swapped, other, sizeof other);
    assert_string_equal(other, "4096x128;stray=1;eps=1e-6;dim.heads=32;dim.layers=80");

    /* a named dim, a shape, a param value each change it; the name, timing keys and config do not */
    cfg_case d = sample_case();
    case_signature(&d, sig, sizeof sig);
    d.dim_val[1] = 81;
    case_signature(&d, other, sizeof other);
    assert_string_not_equal(sig, other);
    d = sample_case();
    d.dims[1] = 256;
    case_signature(&d, other, sizeof other);
    assert_string_equal(other, "4096x256;eps=1e-6;stray=1;dim.heads=32;dim.layers=80");
    d = sample_case();
    snprintf(d.name, sizeof d.name, "renamed");
    snprintf(d.config, sizeof d.config, "threads=128");
    d.warmup = 99;
    d.stop.budget_ms = 5;
    case_signature(&d, other, sizeof other);
    assert_string_equal(other, sig);

    /* named dims only: no leading ';' (a cache value may not begin with one) */
    d = sample_case();
    d.rank = 0;
    d.nparams = 0;
    case_signature(&d, other, sizeof other);
    assert_string_equal(other, "dim.heads=32;dim.layers=80");
}

static void test_long_signature_is_hashed_not_cut(void **state)
{
    (void)state;
    cfg_case a = sample_case(), b = sample_case();
    a.nparams = b.nparams = CFG_MAX_PARAMS;
    for (int i = 0; i < CFG_MAX_PARAMS; i++) {
        snprintf(a.param_key[i], sizeof a.param_key[i], "p%d", i);
        memset(a.param_val[i], 'v', 100);
        a.param_val[i][100] = 0;
        memcpy(b.param_key[i], a.param_key[i], sizeof a.param_key[i]);
        memcpy(b.param_val[i], a.param_val[i], sizeof a.param_val[i]);
    }
    b.param_val[CFG_MAX_PARAMS - 1][99] = 'w'; /* differs only past what a key can hold */
    char sa[512], sb[512];
    case_signature(&a, sa, sizeof sa);
    case_signature(&b, sb, sizeof sb);
    assert_int_equal(strlen(sa), sizeof sa - 1);
    assert_int_equal(sa[sizeof sa - 18], '~');
    assert_memory_equal(sa, sb, sizeof sa - 18); /* the same beginning */
    assert_string_not_equal(sa, sb);             /* told apart by the hash */
    char again[512];
    case_signature(&a, again, sizeof again);
    assert_string_equal(sa, again); /* and the same case, the same key */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_as_the_plugin_sees_it),
        cmocka_unit_test(test_steps),
        cmocka_unit_test(test_named_dims_only),
        cmocka_unit_test(test_signature),
        cmocka_unit_test(test_long_signature_is_hashed_not_cut),
    };
    KLAB_RUN_TESTS(tests);
}
