/* The row plugins on a GPU, through the real klab binary (issue "Row kernels"): every profile of rmsnorm,
 * softmax and rmsnorm_rope verifies against float64 and times on the shapes the row-kernel skeleton
 * must take (1x1, 3x7, 1x262145, 65537x17, ragged tails, the residual form, both RoPE layouts), every
 * path of the skeleton forced through a configuration (rows packed, a cluster, a stream, both, a ring) and named
 * in its row; RoPE geometries the kernels cannot take are refused at setup naming the case and the
 * limit; the shipped INIs and the row sweeps verify (--verify-only) on their real shapes.
 *
 * Without a GPU the whole program is skipped with the reason (exit 77). INI files: tests/gpu/ini
 * (rows_rmsnorm.ini, softmax.ini, rmsnorm_rope.ini, rows_rope_bad.ini). */
#include <string.h>

#include "klab_gpu.h"

static void use_row_plugins(void)
{
    USE_PLUGINS("rmsnorm", "softmax", "rmsnorm_rope");
}

/* Every row passed, within tolerance, timed unless verify-only; fused rows name their configuration. */
static void expect_all_passed(const csv *c, int timed)
{
    assert_true(c->n > 0);
    for (int i = 0; i < c->n; i++) {
        const klab_row *r = &c->rows[i];
        if (r->status != ROW_PASSED)
            fail_msg("%s %s %s: %s (%s)", r->kcase, r->dtype, r->profile, row_status_name(r->status), r->reason);
        if (!r->has_err || !(r->rel_l2_err <= r->tol))
            fail_msg("%s %s %s: no error figures within tolerance", r->kcase, r->dtype, r->profile);
        if (timed && (!r->has_time || !(r->median_ms > 0)))
            fail_msg("%s %s %s: passed without a time", r->kcase, r->dtype, r->profile);
        if (!strcmp(r->profile, "fused") && strncmp(r->config, "cta=", 4))
            fail_msg("%s %s fused: config '%s' does not name a plan", r->kcase, r->dtype, r->config);
    }
}

static void expect_config(const csv *c, const char *kcase, const char *dtype, const char *config)
{
    const klab_row *r = row(c, kcase, dtype, "fused");
    if (strcmp(r->config, config))
        fail_msg("%s %s: ran config '%s', expected '%s'", kcase, dtype, r->config, config);
}

static void test_rmsnorm_rows(void **state)
{
    (void)state;
    use_row_plugins();
    klab_result r = RUN("rms", "--config", KLAB_TEST_DATA "/gpu/ini/rows_rmsnorm.ini");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("rms", "rmsnorm");
    expect_all_passed(&c, 1);
    /* 10 cases in 3 dtypes, ring-ragged in two, 23 forced in one; baseline and fused each */
    assert_int_equal(c.n, (10 * 3 + 2 + 23) * 2);
    /* the plugin's own plan for each path, and the forced ones as asked */
    expect_config(&c, "65537x17", "fp32", "cta=256,tpr=2,vpt=4,cluster=1,stream=0,tile=1");
    expect_config(&c, "65537x17", "fp16", "cta=256,tpr=1,vpt=4,cluster=1,stream=0,tile=1");
    expect_config(&c, "1x262145", "fp32", "cta=512,tpr=512,vpt=8,cluster=16,stream=1");
    expect_config(&c, "1x262145", "fp16", "cta=512,tpr=512,vpt=8,cluster=16,stream=0");
    expect_config(&c, "stream-cluster2", "fp32", "cta=256,tpr=256,vpt=4,cluster=2,stream=1");
    expect_config(&c, "stream-1024x8-steps", "fp16", "cta=1024,tpr=1024,vpt=8,cluster=1,stream=1");
    expect_config(&c, "tpr1", "fp16", "cta=128,tpr=1,vpt=4,cluster=1,stream=0");
    expect_config(&c, "fit4", "fp32", "cta=1024,tpr=1024,vpt=4,cluster=1,stream=0");
    expect_config(&c, "fit4", "fp16", "cta=512,tpr=512,vpt=4,cluster=1,stream=0");
    expect_config(&c, "fit4", "bf16", "cta=256,tpr=256,vpt=8,cluster=1,stream=0");
    /* the ring plan forced on long ragged rows, and with three stages; the residual form's own choice */
    expect_config(&c, "ring-ragged", "fp16", "cta=256,tpr=256,vpt=8,cluster=8,stream=0,ring=2");
    expect_config(&c, "ring-ragged", "bf16", "cta=256,tpr=256,vpt=8,cluster=8,stream=0,ring=2");
    expect_config(&c, "ring-ragged-fp32", "fp32", "cta=256,tpr=256,vpt=8,cluster=16,stream=0,ring=2");
    expect_config(&c, "ring-ragged-fp32-c8", "fp32", "cta=256,tpr=256,vpt=8,cluster=8,stream=0,ring=2");
    expect_config(&c, "residual-ring-shape", "fp16", "cta=256,tpr=256,vpt=8,cluster=8,stream=0");
    expect_config(&c, "ring3", "fp32", "cta=256,tpr=256,vpt=8,cluster=1,stream=0,ring=3");
    expect_config(&c, "small-blocks", "fp16", "cta=64,tpr=8,vpt=2,cluster=1,stream=0");
    expect_config(&c, "whole-rows-fp16", "fp16", "cta=256,tpr=8,vpt=4,cluster=1,stream=0");
    expect_config(&c, "whole-rows-cluster", "fp16", "cta=256,tpr=256,vpt=4,cluster=2,stream=0");
    expect_config(&c, "tile-tpr64", "fp16", "cta=128,tpr=64,vpt=2,cluster=1,stream=0,tile=1");
    expect_config(&c, "tile-fp32", "fp32", "cta=64,tpr=8,vpt=2,cluster=1,stream=0,tile=1");
    free(c.rows);
    free(r.out);
}

static void test_softmax_rows(void **state)
{
    (void)state;
    use_row_plugins();
    klab_result r = RUN("smx", "--plugin", "softmax");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("smx", "softmax");
    expect_all_passed(&c, 1);
    assert_int_equal(c.n, (8 * 3 + 2 + 13) * 2); /* 8 cases in 3 dtypes, ring-ragged in two, 13 forced in one */
    expect_config(&c, "cluster4", "bf16", "cta=128,tpr=128,vpt=2,cluster=4,stream=0");
    expect_config(&c, "stream", "fp16", "cta=128,tpr=128,vpt=4,cluster=1,stream=1");
    expect_config(&c, "ring-ragged", "fp16", "cta=256,tpr=256,vpt=8,cluster=8,stream=0,ring=2");
    expect_config(&c, "ring-ragged-fp32", "fp32", "cta=256,tpr=256,vpt=8,cluster=16,stream=0,ring=2");
    expect_config(&c, "ring3", "fp32", "cta=256,tpr=256,vpt=8,cluster=1,stream=0,ring=3");
    expect_config(&c, "tile-tpr64", "bf16", "cta=128,tpr=64,vpt=2,cluster=1,stream=0,tile=1");
    /* the same long ragged rows unforced: the register plan (the ring measured slower, row_plan.c) */
    expect_config(&c, "long-ragged", "fp16", "cta=256,tpr=256,vpt=8,cluster=8,stream=0");
    expect_config(&c, "long-ragged", "fp32", "cta=256,tpr=256,vpt=8,cluster=16,stream=0");
    /* the fused kernel is one pass where the row fits: faster than four kernels on 7x50257 */
    const klab_row *f = row(&c, "7x50257", "fp16", "fused");
    assert_true(f->has_speedup && f->speedup > 1);
    free(c.rows);
    free(r.out);
}

static void test_rope_rows(void **state)
{
    (void)state;
    use_row_plugins();
    klab_result r = RUN("rope", "--plugin", "rmsnorm_rope");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("rope", "rmsnorm_rope");
    expect_all_passed(&c, 1);
    assert_int_equal(c.n, 7 * 3 * 2 + 2);
    expect_config(&c, "tpr32", "fp16", "cta=128,tpr=32,vpt=1,cluster=1,stream=0");
    free(c.rows);
    free(r.out);
}

static void test_rope_refusals(void **state)
{
    (void)state;
    use_row_plugins();
    klab_result r = RUN("bad", "--config", KLAB_TEST_DATA "/gpu/ini/rows_rope_bad.ini");
    assert_int_equal(r.rc, 1);
    csv c = read_rows("bad", "rmsnorm_rope");
    static const struct {
        const char *kcase, *reason;
    } want[] = {{"odd-head", "case odd-head: dim.head_dim = 7 is odd"},
                {"short-cache", "case short-cache: dim.cache = 5 is shorter than the sequence (8 positions)"}};
    for (int i = 0; i < 2; i++)
        for (int p = 0; p < 2; p++) {
            const klab_row *x = row(&c, want[i].kcase, "fp16", p ? "fused" : "baseline");
            if (x->status != ROW_FAILED || !strstr(x->reason, want[i].reason))
                fail_msg("%s %s: %s (%s), expected failed with \"%s\"", x->kcase, x->profile,
                         row_status_name(x->status), x->reason, want[i].reason);
            assert_false(x->has_time);
        }
    free(c.rows);
    free(r.out);
}

/* The shipped cases and the sweeps on their real shapes, verified only (timing is tools/gpu-run.sh's). */
static void test_shipped_and_sweeps_verify(void **state)
{
    (void)state;
    use_row_plugins();
    static const struct {
        const char *plugin, *ini, *id;
    } runs[] = {{"rmsnorm", "/../ini/rmsnorm.ini", "v-rms"},
                {"softmax", "/../ini/softmax.ini", "v-smx"},
                {"rmsnorm_rope", "/../ini/rmsnorm_rope.ini", "v-rope"},
                {"rmsnorm", "/../experiments/rowsweep_rmsnorm.ini", "v-sweep-rms"},
                {"softmax", "/../experiments/rowsweep_softmax.ini", "v-sweep-smx"}};
    for (int i = 0; i < 5; i++) {
        char ini[PATH_MAX];
        snprintf(ini, sizeof ini, "%s%s", KLAB_TEST_DATA, runs[i].ini);
        klab_result r = RUN(runs[i].id, "--config", ini, "--verify-only");
        if (r.rc != 0)
            fail_msg("%s: klab exited %d", runs[i].ini, r.rc);
        csv c = read_rows(runs[i].id, runs[i].plugin);
        expect_all_passed(&c, 0);
        free(c.rows);
        free(r.out);
    }
}

int main(void)
{
    KLAB_SKIP_WITHOUT_GPU();
    const struct CMUnitTest tests[] = {
        KR_TEST(test_rmsnorm_rows),
        KR_TEST(test_softmax_rows),
        KR_TEST(test_rope_rows),
        KR_TEST(test_rope_refusals),
        KR_TEST(test_shipped_and_sweeps_verify),
    };
    KLAB_RUN_TESTS(tests);
}
