/* The lab on a GPU, through the real klab binary: the shipped plugins verify and time (streams,
 * batches, cold and hot L2), and every way a kernel can lie is caught (issues "Fault isolation" and
 * "Timing integrity"):
 *
 *   context loss   an out-of-bounds write fails its case with the CUDA error named; the plugin's
 *                  next case runs in a fresh worker and a plugin after it verifies and times
 *   hang           a kernel that never ends is killed by the watchdog, the run goes on
 *   escapes        work on the legacy stream, a private stream or an unbound cuBLAS handle is
 *                  flagged and given no time; the honest profile beside it is timed
 *   cheats         writing nothing, writing zeros, changing the inputs, breaking after the first run,
 *                  and writing past either end of an output (red zones) each fail the row
 *   wrong GPU      a plugin needing a newer GPU is skipped with a sentence saying so
 *   self-test      the timer against spins of known length
 *   ABI 2.0        fp8 in and out; an int32 input the plugin computes, checksummed and refilled from
 *                  its data, compared exactly; sampled verification finding one wrong element across
 *                  runs; exact architectures; a tuning space with a declined and a refused
 *                  configuration; a step plugin whose states are verified (tests/fixtures/plugins/abi2)
 *   tuning         klab --tune times every configuration, caches the fastest, and a plain run uses it
 *
 * Without a GPU the whole program is skipped with the reason (exit 77). Test plugins live in
 * tests/fixtures/plugins/gpu, their INI files in tests/gpu/ini; shapes are small: this checks behaviour, the
 * speed targets live in tools/gpu-run.sh and docs/. */
#include <cuda_runtime.h>
#include <string.h>

#include "config/tune_cache.h"
#include "klab_gpu.h"

static void expect_all_timed(const csv *c)
{
    assert_true(c->n > 0);
    for (int i = 0; i < c->n; i++) {
        const klab_row *r = &c->rows[i];
        expect_status(r, ROW_PASSED, NULL);
        if (!r->has_time || !(r->median_ms > 0) || r->reps < 1)
            fail_msg("%s %s %s: passed without a time", r->kcase, r->dtype, r->profile);
        if (!r->has_err || !(r->rel_l2_err <= r->tol))
            fail_msg("%s %s %s: no error figures within tolerance", r->kcase, r->dtype, r->profile);
    }
}

static void test_shipped_plugins_verify_and_time(void **state)
{
    (void)state;
    USE_PLUGINS("vector_add", "rmsnorm");
    klab_result r = RUN("main", "--plugin", "vector_add,rmsnorm");
    assert_int_equal(r.rc, 0);
    csv va = read_rows("main", "vector_add"), rms = read_rows("main", "rmsnorm");
    expect_all_timed(&va);
    expect_all_timed(&rms);
    assert_int_equal(va.n, 11);
    assert_int_equal(rms.n, 30);
    /* every memory-bound row is measured against klab's copy at its bytes, in the same rounds */
    for (int i = 0; i < rms.n; i++)
        if (!rms.rows[i].has_limit || strcmp(rms.rows[i].limit, "copy") || !(rms.rows[i].limit_gbps > 0))
            fail_msg("rmsnorm %s %s %s: no copy limit", rms.rows[i].kcase, rms.rows[i].dtype, rms.rows[i].profile);
    assert_true(row(&rms, "256x4096", "fp16", "fused")->has_speedup);
    free(va.rows);
    free(rms.rows);
    free(r.out);
}

static void test_batched_runs(void **state)
{
    (void)state;
    USE_PLUGINS("rmsnorm");
    klab_result r = RUN("batched", "--plugin", "rmsnorm", "--dtype", "fp16", "--batched");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("batched", "rmsnorm");
    expect_all_timed(&c);
    for (int i = 0; i < c.n; i++)
        assert_string_equal(c.rows[i].launch, "batched");
    free(c.rows);
    free(r.out);
}

static void test_cold_l2_times_slower_than_hot(void **state)
{
    (void)state;
    USE_PLUGINS("vector_add");
    klab_result cold = RUN("cold", "--plugin", "vector_add", "--case", "copy-l2");
    klab_result hot = RUN("hot", "--plugin", "vector_add", "--case", "copy-l2", "--hot");
    assert_int_equal(cold.rc, 0);
    assert_int_equal(hot.rc, 0);
    csv c = read_rows("cold", "vector_add"), h = read_rows("hot", "vector_add");
    const klab_row *rc = row(&c, "copy-l2", "fp32", "vectorized"), *rh = row(&h, "copy-l2", "fp32", "vectorized");
    assert_string_equal(rc->l2, "cold");
    assert_string_equal(rh->l2, "hot");
    /* 8 MiB moved fits in L2: the flushed run must pay HBM, the hot one need not */
    if (!(rc->median_ms > rh->median_ms))
        fail_msg("cold %.5f ms is not slower than hot %.5f ms: the flush does not flush", rc->median_ms, rh->median_ms);
    free(c.rows);
    free(h.rows);
    free(cold.out);
    free(hot.out);
}

static void test_lost_context_costs_one_case(void **state)
{
    (void)state;
    USE_PLUGINS("gpu_oob", "vector_add");
    klab_result r = RUN("oob", "--plugin", "gpu_oob,vector_add");
    assert_int_equal(r.rc, 1);
    csv oob = read_rows("oob", "gpu_oob"), va = read_rows("oob", "vector_add");
    const klab_row *bad = row(&oob, "bad", "fp32", "write");
    expect_status(bad, ROW_FAILED, "CUDA error 700");
    expect_status(bad, ROW_FAILED, "context lost");
    expect_status(row(&oob, "good", "fp32", "write"), ROW_PASSED, NULL); /* in a fresh worker */
    expect_all_timed(&va);
    kr_expect_in(r.out, "FAILED gpu_oob bad fp32 write: failed:");
    free(oob.rows);
    free(va.rows);
    free(r.out);
}

static void test_hung_kernel_is_killed(void **state)
{
    (void)state;
    USE_PLUGINS("gpu_hang", "vector_add");
    klab_result r = RUN("hang", "--plugin", "gpu_hang,vector_add", "--timeout", "5");
    assert_int_equal(r.rc, 1);
    csv h = read_rows("hang", "gpu_hang"), va = read_rows("hang", "vector_add");
    expect_status(row(&h, "forever", "fp32", "spin"), ROW_FAILED, "timed out after 5 s of silence in verify");
    expect_all_timed(&va);
    free(h.rows);
    free(va.rows);
    free(r.out);
}

static void test_escaped_work_is_flagged(void **state)
{
    (void)state;
    USE_PLUGINS("gpu_escape");
    klab_result r = RUN("escape", "--plugin", "gpu_escape");
    assert_int_equal(r.rc, 1);
    csv c = read_rows("escape", "gpu_escape");
    const klab_row *honest = row(&c, "2^26", "fp32", "honest");
    expect_status(honest, ROW_PASSED, NULL);
    assert_true(honest->has_time);
    static const char *const cheats[] = {"stream0", "private", "cublas_unbound"};
    for (int i = 0; i < 3; i++) {
        const klab_row *x = row(&c, "2^26", "fp32", cheats[i]);
        expect_status(x, ROW_FLAGGED, "work outside the timed stream");
        if (x->has_time)
            fail_msg("%s was flagged but still shows a time", cheats[i]);
    }
    free(c.rows);
    free(r.out);
}

static void test_cheating_outputs_fail(void **state)
{
    (void)state;
    USE_PLUGINS("gpu_cheats");
    klab_result r = RUN("cheats", "--plugin", "gpu_cheats");
    assert_int_equal(r.rc, 1);
    csv c = read_rows("cheats", "gpu_cheats");
    expect_status(row(&c, "2^20", "fp32", "nothing"), ROW_INCORRECT, "not finite");
    expect_status(row(&c, "2^20", "fp32", "zeros"), ROW_INCORRECT, "all zeros");
    expect_status(row(&c, "2^20", "fp32", "modifies_input"), ROW_INCORRECT, "input modified");
    expect_status(row(&c, "2^20", "fp32", "breaks_later"), ROW_INCORRECT, "timed repetition");
    expect_status(row(&c, "2^20", "fp32", "overruns"), ROW_INCORRECT, "output 'y': 48 bytes past its end were written");
    expect_status(row(&c, "2^20", "fp32", "underruns"), ROW_INCORRECT,
                  "output 'y': 16 bytes before its start were written");
    for (int i = 0; i < c.n; i++)
        assert_false(c.rows[i].has_time);
    free(c.rows);
    free(r.out);
}

static void test_wrong_gpu_is_said_plainly(void **state)
{
    (void)state;
    USE_PLUGINS("gpu_future");
    klab_result r = RUN("future", "--plugin", "gpu_future");
    assert_int_equal(r.rc, 0); /* skipped is not failed */
    csv c = read_rows("future", "gpu_future");
    const klab_row *x = row(&c, "small", "fp32", "plain");
    expect_status(x, ROW_SKIPPED, "needs compute capability 12.7; device 0 (");
    free(c.rows);
    free(r.out);
}

/* ---- ABI 2.0 (tests/fixtures/plugins/abi2, tests/gpu/ini/abi2_*.ini) ---- */

static void test_fp8_in_and_out(void **state)
{
    (void)state;
    USE_PLUGINS("abi2_fp8");
    klab_result r = RUN("fp8", "--plugin", "abi2_fp8");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("fp8", "abi2_fp8");
    assert_int_equal(c.n, 4);
    expect_all_timed(&c);
    /* the default tolerance of each fp8 dtype: one rounding */
    assert_true(row(&c, "odd", "fp8e4m3", "scale")->tol == 6.25e-2);
    assert_true(row(&c, "odd", "fp8e5m2", "scale")->tol == 1.25e-1);
    free(c.rows);
    free(r.out);
}

static void test_int32_input_from_the_plugin(void **state)
{
    (void)state;
    USE_PLUGINS("abi2_int32");
    klab_result r = RUN("int32", "--plugin", "abi2_int32");
    assert_int_equal(r.rc, 1);
    csv c = read_rows("int32", "abi2_int32");
    const klab_row *plain = row(&c, "2^16", "int32", "plain");
    expect_status(plain, ROW_PASSED, NULL);
    assert_true(plain->has_time && plain->rel_l2_err == 0 && plain->tol == 0);
    expect_status(row(&c, "2^16", "int32", "off_by_one"), ROW_INCORRECT,
                  "y: 1 of 65536 elements differ (integers compare exactly; first [65535]");
    expect_status(row(&c, "2^16", "int32", "modifies_input"), ROW_INCORRECT, "input modified");
    /* verified after the refill: it passes only if lens came back from the plugin's data */
    expect_status(row(&c, "2^16", "int32", "after"), ROW_PASSED, NULL);
    free(c.rows);
    free(r.out);
}

static void test_sampled_verification_finds_one_element(void **state)
{
    (void)state;
    USE_PLUGINS("abi2_sampled");
    klab_result r = RUN("sampled", "--plugin", "abi2_sampled");
    assert_int_equal(r.rc, 1);
    csv c = read_rows("sampled", "abi2_sampled");
    assert_int_equal(c.n, 32);
    int caught = 0;
    for (int i = 0; i < c.n; i++) {
        const klab_row *x = &c.rows[i];
        if (strcmp(x->profile, "honest") == 0 || x->status == ROW_PASSED) {
            expect_status(x, ROW_PASSED, NULL);
            assert_int_equal(x->verified_elems, 2048); /* half of 4096, as the plugin asked */
            continue;
        }
        /* 4096 / 3: the element one_wrong gets wrong, named by its index, not its place in a sample */
        expect_status(x, ROW_INCORRECT, "1 of 2048 elements off (first [1365] =");
        caught++;
    }
    /* each of the 16 cases samples half the elements at least twice (verified, then a timed round):
       all missing it has a chance of 2^-32 */
    if (caught == 0)
        fail_msg("one_wrong passed in every case: fresh samples never found its wrong element");
    free(c.rows);
    free(r.out);
}

static void test_exact_architectures(void **state)
{
    (void)state;
    struct cudaDeviceProp p;
    assert_int_equal(cudaGetDeviceProperties(&p, 0), cudaSuccess);
    int cc = p.major * 10 + p.minor;
    USE_PLUGINS("abi2_arch");
    klab_result r = RUN("arch", "--plugin", "abi2_arch");
    assert_int_equal(r.rc, 0); /* skipped is not failed */
    csv c = read_rows("arch", "abi2_arch");
    expect_status(row(&c, "2^16", "fp32", "portable"), ROW_PASSED, NULL);
    static const struct {
        const char *profile;
        int cc;
    } exact[] = {{"sm90a", 90}, {"sm100a", 100}};
    for (int i = 0; i < 2; i++) {
        const klab_row *x = row(&c, "2^16", "fp32", exact[i].profile);
        if (cc == exact[i].cc) {
            expect_status(x, ROW_PASSED, NULL);
            continue;
        }
        char want[300];
        snprintf(want, sizeof want, "has machine code for sm_%d only; device 0 (%s) is %d.%d", exact[i].cc, p.name,
                 p.major, p.minor);
        expect_status(x, ROW_SKIPPED, want);
    }
    free(c.rows);
    free(r.out);
}

static void test_tuning_space(void **state)
{
    (void)state;
    USE_PLUGINS("abi2_tuning");
    klab_result r = RUN("tuning", "--plugin", "abi2_tuning");
    assert_int_equal(r.rc, 1);
    csv c = read_rows("tuning", "abi2_tuning");
    const klab_row *own = row(&c, "own", "fp32", "tiled");
    expect_status(own, ROW_PASSED, NULL);
    assert_string_equal(own->config, "threads=256"); /* the plugin's own choice, named */
    const klab_row *t128 = row(&c, "t128", "fp32", "tiled");
    expect_status(t128, ROW_PASSED, NULL);
    assert_string_equal(t128->config, "threads=128");
    expect_status(row(&c, "t48", "fp32", "tiled"), ROW_SKIPPED, "threads=48 is not a multiple of the warp size");
    expect_status(row(&c, "t2048", "fp32", "tiled"), ROW_FAILED, "cudaGetLastError(): CUDA error"); /* the driver names it invalid configuration or invalid argument */
    expect_status(row(&c, "t64", "fp32", "tiled"), ROW_FAILED,
                  "config 'threads=64' is not in the tuning space of profile 'tiled'");
    /* a profile without a tuning space runs its own way in every case */
    static const char *const cases[] = {"own", "t128", "t48", "t2048", "t64"};
    for (int i = 0; i < 5; i++) {
        const klab_row *f = row(&c, cases[i], "fp32", "fixed");
        expect_status(f, ROW_PASSED, NULL);
        assert_string_equal(f->config, "");
    }
    free(c.rows);
    free(r.out);
}

/* The rows of (case, dtype, profile) in CSV order, at most max. */
static int rows_of(const csv *c, const char *kcase, const char *profile, const klab_row **out, int max)
{
    int n = 0;
    for (int i = 0; i < c->n && n < max; i++)
        if (!strcmp(c->rows[i].kcase, kcase) && !strcmp(c->rows[i].profile, profile))
            out[n++] = &c->rows[i];
    return n;
}

static const tune_entry *cached(const tune_cache *tc, const char *kcase, const char *profile)
{
    for (int i = 0; i < tc->n; i++)
        if (!strcmp(tc->e[i].key.kcase, kcase) && !strcmp(tc->e[i].key.profile, profile))
            return &tc->e[i];
    return NULL;
}

/* klab --tune times every configuration of `tiled` (the plugin's own choice too) in the same rounds: the
   invalid one skipped with the plugin's reason, the refused launch failed with the CUDA error, the rest
   passed, each row naming its configuration. The fastest goes into out/tune-cache.ini; a plain run then
   runs it (flag tuned) where the case names no config, and the case's config wins where it does. A
   stale entry and a malformed cache are notes, and the plugin's own choice runs. */
static void test_tune_then_run_uses_the_cache(void **state)
{
    (void)state;
    USE_PLUGINS("abi2_tuning");
    klab_result r = RUN("tune", "--plugin", "abi2_tuning", "--tune");
    assert_int_equal(r.rc, 1); /* threads=2048 fails in every case */
    csv c = read_rows("tune", "abi2_tuning");
    assert_int_equal(c.n, 5 * 6); /* each case: tiled's own choice and 4 configurations, fixed once */
    const klab_row *t[8];
    assert_int_equal(rows_of(&c, "own", "tiled", t, 8), 5);
    static const char *const configs[] = {"threads=256", "threads=128", "threads=256", "threads=48", "threads=2048"};
    for (int i = 0; i < 5; i++) {
        assert_string_equal(t[i]->config, configs[i]);
        assert_non_null(strstr(t[i]->flags, "tune-trial"));
        assert_true((strstr(t[i]->flags, "own-choice") != NULL) == (i == 0));
    }
    expect_status(t[0], ROW_PASSED, NULL);
    expect_status(t[1], ROW_PASSED, NULL);
    expect_status(t[2], ROW_PASSED, NULL);
    expect_status(t[3], ROW_SKIPPED, "threads=48 is not a multiple of the warp size");
    expect_status(t[4], ROW_FAILED, "CUDA error");
    for (int i = 0; i < 3; i++)
        assert_true(t[i]->has_time && t[i]->median_ms > 0);
    const klab_row *f = row(&c, "own", "fp32", "fixed");
    expect_status(f, ROW_PASSED, NULL);
    assert_null(strstr(f->flags, "tune-trial"));
    const klab_row *best = t[1]->median_ms < t[2]->median_ms ||
                                   (t[1]->median_ms == t[2]->median_ms && t[1]->median_hi <= t[2]->median_hi)
                               ? t[1]
                               : t[2];
    char line[200];
    snprintf(line, sizeof line, "abi2_tuning own fp32 tiled: %s (", best->config);
    kr_expect_in(r.out, line);
    char path[PATH_MAX + 32], err[1200];
    snprintf(path, sizeof path, "%s/tune-cache.ini", kg_out_dir);
    kr_expect_in(r.out, path);
    free(r.out);

    tune_cache tc;
    if (tune_cache_load(path, &tc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(tc.n, 5); /* tiled in each case: a tune run times the space whatever config a case pins */
    const tune_entry *e = cached(&tc, "own", "tiled");
    assert_non_null(e);
    assert_string_equal(e->config, best->config);
    assert_string_equal(e->key.signature, "65536");
    assert_string_equal(e->key.dtype, "fp32");
    assert_string_equal(e->run_id, "tune");
    assert_null(cached(&tc, "own", "fixed"));
    char want[128];
    snprintf(want, sizeof want, "%s", e->config);
    free(c.rows);

    /* a plain run uses it where the case names no config */
    r = RUN("after", "--plugin", "abi2_tuning");
    assert_int_equal(r.rc, 1); /* t2048 and t64 fail as they always do */
    c = read_rows("after", "abi2_tuning");
    assert_int_equal(c.n, 10);
    const klab_row *own = row(&c, "own", "fp32", "tiled");
    expect_status(own, ROW_PASSED, NULL);
    assert_string_equal(own->config, want);
    assert_non_null(strstr(own->flags, "tuned"));
    const klab_row *t128 = row(&c, "t128", "fp32", "tiled");
    assert_string_equal(t128->config, "threads=128"); /* the case's config wins */
    assert_null(strstr(t128->flags, "tuned"));
    assert_null(strstr(row(&c, "own", "fp32", "fixed")->flags, "tuned"));
    free(c.rows);
    free(r.out);

    /* an entry the space no longer has: a note, and the plugin's own choice */
    tune_entry *mut = (tune_entry *)cached(&tc, "own", "tiled");
    snprintf(mut->config, sizeof mut->config, "threads=999");
    if (tune_cache_save(&tc, err, sizeof err) != 0)
        fail_msg("%s", err);
    tune_cache_free(&tc);
    r = RUN("stale", "--plugin", "abi2_tuning", "--case", "own");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "the tuning cache's config 'threads=999' is not in the tuning space any more");
    c = read_rows("stale", "abi2_tuning");
    own = row(&c, "own", "fp32", "tiled");
    expect_status(own, ROW_PASSED, NULL);
    assert_string_equal(own->config, "threads=256");
    assert_null(strstr(own->flags, "tuned"));
    free(c.rows);
    free(r.out);

    /* a cache that cannot be read: a note, never a crash, and it is left for the user */
    kr_write_file(path, "[entry 1]\ngpu = x\nbogus = 1\n");
    r = RUN("malformed", "--plugin", "abi2_tuning", "--case", "own");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "tuning cache not used: ");
    kr_expect_in(r.out, "unknown key 'bogus'");
    c = read_rows("malformed", "abi2_tuning");
    assert_string_equal(row(&c, "own", "fp32", "tiled")->config, "threads=256");
    free(c.rows);
    free(r.out);
    r = RUN("malformed-tune", "--plugin", "abi2_tuning", "--case", "own", "--tune");
    kr_expect_in(r.out, "tuning cache not updated: ");
    free(r.out);
}

static void test_step_plugin_states_verified(void **state)
{
    (void)state;
    USE_PLUGINS("abi2_steps");
    klab_result r = RUN("steps", "--plugin", "abi2_steps");
    assert_int_equal(r.rc, 1);
    csv c = read_rows("steps", "abi2_steps");
    const klab_row *plain = row(&c, "2^16", "fp32", "plain");
    expect_status(plain, ROW_PASSED, NULL);
    assert_int_equal(plain->verified_elems, 2 * 65536 + 1); /* acc, count and y, all of them */
    expect_status(row(&c, "2^16", "fp32", "wrong_last"), ROW_INCORRECT, "state acc: ");
    free(c.rows);
    free(r.out);
}

static void test_verify_only_times_nothing(void **state)
{
    (void)state;
    USE_PLUGINS("rmsnorm");
    klab_result r = RUN("verify", "--plugin", "rmsnorm", "--verify-only");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("verify", "rmsnorm");
    assert_int_equal(c.n, 30);
    for (int i = 0; i < c.n; i++) {
        expect_status(&c.rows[i], ROW_PASSED, NULL);
        assert_false(c.rows[i].has_time);
        assert_non_null(strstr(c.rows[i].flags, "verify-only"));
        assert_true(c.rows[i].has_err);
    }
    free(c.rows);
    free(r.out);
}

static void test_timer_self_test(void **state)
{
    (void)state;
    klab_result r = KLAB("--self-test");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "self-test passed");
    free(r.out);
}

int main(void)
{
    KLAB_SKIP_WITHOUT_GPU();
    const struct CMUnitTest tests[] = {
        KR_TEST(test_shipped_plugins_verify_and_time),
        KR_TEST(test_batched_runs),
        KR_TEST(test_cold_l2_times_slower_than_hot),
        KR_TEST(test_lost_context_costs_one_case),
        KR_TEST(test_hung_kernel_is_killed),
        KR_TEST(test_escaped_work_is_flagged),
        KR_TEST(test_cheating_outputs_fail),
        KR_TEST(test_wrong_gpu_is_said_plainly),
        KR_TEST(test_fp8_in_and_out),
        KR_TEST(test_int32_input_from_the_plugin),
        KR_TEST(test_sampled_verification_finds_one_element),
        KR_TEST(test_exact_architectures),
        KR_TEST(test_tuning_space),
        KR_TEST(test_tune_then_run_uses_the_cache),
        KR_TEST(test_step_plugin_states_verified),
        KR_TEST(test_verify_only_times_nothing),
        KR_TEST(test_timer_self_test),
    };
    KLAB_RUN_TESTS(tests);
}
