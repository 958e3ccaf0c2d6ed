/* swiglu and reduction on a GPU, through the real klab binary, on small odd shapes
 * (tests/gpu/ini/swiglu.ini, reduction.ini): every profile verifies against float64 in every dtype
 * and is timed, plain and batched (a batch replays its runs in one graph: the reduction's tickets must
 * be back at 0 after every run); every configuration of swiglu's fused space verifies (--tune
 * --verify-only); an odd packed [gate | up] width fails its case at setup, naming the
 * case and the limit; the cluster profile runs on sm_90 and is skipped, saying why, anywhere else.
 * Speed is not checked here: the targets are in docs/notes/swiglu.md and reduction.md.
 *
 * Without a GPU the whole program is skipped with the reason (exit 77). */
#include <cuda_runtime.h>
#include <string.h>

#include "klab_gpu.h"

static int device_cc;

static void use_plugins(void)
{
    USE_PLUGINS("swiglu", "reduction");
}

/* Passed, timed and within tolerance; the cluster profile skipped off sm_90. Returns rows checked. */
static int expect_all_good(const csv *c, const char *launch)
{
    int checked = 0;
    for (int i = 0; i < c->n; i++) {
        const klab_row *r = &c->rows[i];
        if (!strcmp(r->profile, "cluster") && device_cc != 90) {
            expect_status(r, ROW_SKIPPED, "has machine code for sm_90 only");
            continue;
        }
        expect_status(r, ROW_PASSED, NULL);
        if (!r->has_time || !(r->median_ms > 0))
            fail_msg("%s %s %s: passed without a time", r->kcase, r->dtype, r->profile);
        if (!r->has_err || !(r->rel_l2_err <= r->tol))
            fail_msg("%s %s %s: no error figures within tolerance", r->kcase, r->dtype, r->profile);
        if (strcmp(r->launch, launch))
            fail_msg("%s %s %s: launch %s, expected %s", r->kcase, r->dtype, r->profile, r->launch, launch);
        if (!r->has_limit || strcmp(r->limit, "copy"))
            fail_msg("%s %s %s: not measured against klab's copy", r->kcase, r->dtype, r->profile);
        checked++;
    }
    return checked;
}

static void test_swiglu_every_profile(void **state)
{
    (void)state;
    use_plugins();
    klab_result r = RUN("swiglu", "--plugin", "swiglu");
    assert_int_equal(r.rc, 1); /* the odd packed width fails its case */
    csv c = read_rows("swiglu", "swiglu");
    csv good = {NULL, 0};
    good.rows = calloc((size_t)c.n, sizeof *good.rows);
    int odd = 0;
    for (int i = 0; i < c.n; i++) {
        if (strcmp(c.rows[i].kcase, "packed-odd")) {
            good.rows[good.n++] = c.rows[i];
            continue;
        }
        expect_status(&c.rows[i], ROW_FAILED,
                      "case 'packed-odd': the packed [gate | up] width is 7, which is odd; it must be a multiple of 2");
        odd++;
    }
    assert_int_equal(odd, 6); /* 3 dtypes x 2 profiles */
    assert_int_equal(expect_all_good(&good, "stream"), 7 * 3 * 2);
    free(good.rows);
    free(c.rows);
    free(r.out);
}

/* The fused profile's tuning space (swiglu_plan_config: 3 block sizes x 4 vectors in flight x 3 cache
   hints), every configuration and the own choice verified against float64 on a flat vector with a
   3-element tail and on packed rows of whole vectors: `--tune --verify-only`, nothing timed. */
static void test_fused_space_verifies(void **state)
{
    (void)state;
    use_plugins();
    klab_result r = RUN("space", "--plugin", "swiglu", "--profile", "fused", "--tune", "--verify-only", "--case",
                        "5x1048579,packed-256x16384");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("space", "swiglu");
    int verified = 0;
    for (int i = 0; i < c.n; i++) {
        const klab_row *w = &c.rows[i];
        expect_status(w, ROW_PASSED, NULL);
        if (!strstr(w->flags, "verify-only") || !w->has_err || !(w->rel_l2_err <= w->tol) || strncmp(w->config, "cta=", 4))
            fail_msg("%s %s %s: not verified within tolerance (flags %s)", w->kcase, w->dtype, w->config, w->flags);
        verified++;
    }
    assert_int_equal(verified, 2 * 3 * (36 + 1)); /* 2 cases x 3 dtypes x (the space and the own choice) */
    free(c.rows);
    free(r.out);
}

static void test_reduction_every_profile(void **state)
{
    (void)state;
    use_plugins();
    klab_result r = RUN("reduction", "--plugin", "reduction");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("reduction", "reduction");
    assert_int_equal(c.n, 11 * 3 * 4);
    expect_all_good(&c, "stream");
    free(c.rows);
    free(r.out);
}

/* N runs replayed in one graph, each on its own copy: a ticket left non-zero by one run would leave
   the next run's row unfinished, its output poisoned. */
static void test_batched_graphs_replay(void **state)
{
    (void)state;
    use_plugins();
    klab_result r = RUN("batched", "--plugin", "reduction,swiglu", "--batched", "--case",
                        "sum-1048579,rowsum-5x1048579,rowmax-neg-5x1048579,3x7,packed-256x16384");
    assert_int_equal(r.rc, 0);
    csv rd = read_rows("batched", "reduction"), sw = read_rows("batched", "swiglu");
    assert_int_equal(expect_all_good(&rd, "batched") + (device_cc == 90 ? 0 : 9), 3 * 3 * 4);
    assert_int_equal(expect_all_good(&sw, "batched"), 2 * 3 * 2);
    free(rd.rows);
    free(sw.rows);
    free(r.out);
}

int main(void)
{
    KLAB_SKIP_WITHOUT_GPU();
    KLAB_DEVICE_CC(device_cc);
    const struct CMUnitTest tests[] = {
        KR_TEST(test_swiglu_every_profile),
        KR_TEST(test_fused_space_verifies),
        KR_TEST(test_reduction_every_profile),
        KR_TEST(test_batched_graphs_replay),
    };
    KLAB_RUN_TESTS(tests);
}
