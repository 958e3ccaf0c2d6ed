/* matmul_h200 on a GPU, through the real klab binary (tests/gpu/ini/matmul_h200*.ini):
 *   - every profile, bf16 and fp16, on small and odd shapes (128^3; 200 x 136 x 328 and 1000^3, multiples
 *     of no tile; a skinny 16 x 1024 x 4096 that splits K; 2048^3, whose output is also compared whole
 *     against cuBLAS on the device): passed, each row naming its check (full, sampled, sampled_devfull)
 *     and, when sampled, comparing MM_SAMPLES elements; the wgmma and skinny profiles skipped, saying
 *     why, off sm_90; skinny on its own cases (M = 16, 8, 5, 13, 1) beside cuBLAS, declining M > 16 with the
 *     reason, and N = 200 (no multiple of 64) through v3, whose TMA loads clip the edge;
 *   - the same batched (one CUDA graph of runs on rotated copies: cuBLAS with its own workspace, the TMA
 *     maps built per run from the copy's pointers);
 *   - klab --tune on three shapes: every configuration of every wgmma space verified (a wrong
 *     configuration fails its row), the staged epilogue (epi=tma) among them at odd M and N, and the
 *     fastest cached; a plain run then uses it; every skinny configuration verified on its cases;
 *   - refusals: K = 100 (rows not 16-byte aligned) skipped by every kernel profile with the reason while
 *     cuBLAS runs it; a case without dim.k failed at setup, naming the dim.
 * Speed is not checked here: the targets and what to look for are in docs/notes/matmul_h200.md.
 * Without a GPU the whole program is skipped with the reason (exit 77). */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "klab_gpu.h"

static int device_cc;

/* the profiles whose archs are {90}: the wgmma ones and skinny (its clusters) */
static int sm90_only(const char *profile) { return !strncmp(profile, "wgmma", 5) || !strcmp(profile, "skinny"); }

/* What skinny says declining the case (tests/gpu/ini/matmul_h200.ini), or NULL where it runs it. */
static const char *skinny_declines(const char *kcase)
{
    return strncmp(kcase, "skinny-", 7) && strcmp(kcase, "decode-16") ? "skinny takes M <= 16" : NULL;
}

static const char *check_of(const char *kcase)
{
    if (!strcmp(kcase, "cube-128") || !strcmp(kcase, "odd-200") || !strcmp(kcase, "decode-16") ||
        !strncmp(kcase, "skinny-", 7))
        return "check=full";
    return !strcmp(kcase, "square-2048") || !strcmp(kcase, "short-k-2048") ? "check=sampled_devfull" : "check=sampled";
}

/* M x N of the cases checked in full (tests/gpu/ini/matmul_h200.ini) */
static uint64_t full_elems(const char *kcase)
{
    static const struct {
        const char *name;
        uint64_t elems;
    } full[] = {{"cube-128", 128u * 128u}, {"odd-200", 200u * 136u}, {"decode-16", 16u * 1024u},
                {"skinny-16", 16u * 256u}, {"skinny-8", 8u * 128u},    {"skinny-5", 5u * 192u},
                {"skinny-13", 13u * 128u}, {"skinny-1", 64u},         {"skinny-n200", 8u * 200u}};
    for (size_t i = 0; i < sizeof full / sizeof full[0]; i++)
        if (!strcmp(kcase, full[i].name))
            return full[i].elems;
    return 0u;
}

/* Passed and timed within tolerance, naming the case's check; wgmma* and skinny skipped off sm_90, and
   skinny where it declines the case. Returns the rows that ran. */
static int expect_all_good(const csv *c, const char *launch)
{
    int ran = 0;
    for (int i = 0; i < c->n; i++) {
        const klab_row *r = &c->rows[i];
        if (sm90_only(r->profile) && device_cc != 90) {
            expect_status(r, ROW_SKIPPED, "has machine code for sm_90 only");
            continue;
        }
        if (!strcmp(r->profile, "skinny") && skinny_declines(r->kcase)) {
            expect_status(r, ROW_SKIPPED, skinny_declines(r->kcase));
            continue;
        }
        expect_status(r, ROW_PASSED, NULL);
        if (!r->has_time || !(r->median_ms > 0))
            fail_msg("%s %s %s: passed without a time", r->kcase, r->dtype, r->profile);
        if (!r->has_err || !(r->rel_l2_err <= r->tol))
            fail_msg("%s %s %s: no error figures within tolerance", r->kcase, r->dtype, r->profile);
        if (!strstr(r->config, check_of(r->kcase)))
            fail_msg("%s %s %s: config '%s' does not say %s", r->kcase, r->dtype, r->profile, r->config,
                     check_of(r->kcase));
        /* sampled: 2048 fresh elements a verified run; full: every element (M x N of the case) */
        const int sampled = strstr(r->config, "check=sampled") != NULL;
        if (r->verified_elems != (sampled ? 2048u : full_elems(r->kcase)))
            fail_msg("%s %s %s: %llu elements verified a run", r->kcase, r->dtype, r->profile,
                     (unsigned long long)r->verified_elems);
        if (launch && strcmp(r->launch, launch))
            fail_msg("%s %s %s: launch %s, expected %s", r->kcase, r->dtype, r->profile, r->launch, launch);
        ran++;
    }
    return ran;
}

static void test_every_profile_small_and_odd(void **state)
{
    (void)state;
    USE_PLUGINS("matmul_h200");
    klab_result r = RUN("mm", "--plugin", "matmul_h200");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("mm", "matmul_h200");
    /* cases x dtypes x profiles, and skinny's 6 cases x 2 dtypes x (cublas, skinny); ran: all but skinny
       declining 5 cases (and off sm_90 only cuBLAS and tiled) */
    assert_int_equal(c.n, 6 * 2 * 6 + 6 * 2 * 2);
    assert_int_equal(expect_all_good(&c, "stream"), device_cc == 90 ? 96 - 5 * 2 : 6 * 2 * 2 + 6 * 2);
    free(c.rows);
    free(r.out);
}

static void test_batched_graphs(void **state)
{
    (void)state;
    USE_PLUGINS("matmul_h200");
    /* skinny-1 and skinny-n200: v3's own choice, a cluster of 2 captured in the graph, its tensor maps
       built per run from the rotated copy's pointers */
    klab_result r = RUN("mmb", "--plugin", "matmul_h200", "--batched", "--case",
                        "cube-128,odd-200,decode-16,skinny-1,skinny-n200");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("mmb", "matmul_h200");
    assert_int_equal(c.n, 3 * 2 * 6 + 2 * 2 * 2);
    expect_all_good(&c, "batched");
    free(c.rows);
    free(r.out);
}

/* Every configuration of every space, verified: odd-200 for the edges, decode-16 for the splits,
   short-k-2048 for persistent ping-pong over many units shorter than the ring (and every one of its
   configurations compared whole against cuBLAS at setup). A case and dtype time at most 64 entries, so the
   spaces go in two tunes that each fit (wgmma_persistent's 57 alone, the others' 52 at most): one tune of
   every profile left splitk's configurations out once skinny's joined at decode-16. Returns the rows. */
static csv tune_every_configuration(const char *id, const char *profiles, char **out)
{
    char vid[32];
    snprintf(vid, sizeof vid, "%sv", id);
    klab_result r = RUN(id, "--plugin", "matmul_h200", "--tune", "--case", "odd-200,decode-16,short-k-2048", "--dtype",
                        "bf16", "--profile", profiles);
    assert_int_equal(r.rc, 0);
    if (r.out && strstr(r.out, "configurations left out"))
        fail_msg("%s: the tune left configurations out", id);
    csv c = read_rows(id, "matmul_h200");
    /* as many rows as `klab --tune --validate` says the run makes (the spaces differ by case) */
    klab_result v = RUN(vid, "--plugin", "matmul_h200", "--tune", "--validate", "--case",
                        "odd-200,decode-16,short-k-2048", "--dtype", "bf16", "--profile", profiles);
    const char *at = v.out ? strstr(v.out, "klab --tune: ") : NULL;
    if (!at)
        fail_msg("klab --tune --validate printed no row count");
    assert_int_equal(c.n, atoi(at + strlen("klab --tune: ")));
    free(v.out);
    *out = r.out;
    return c;
}

static void test_tune_verifies_every_configuration(void **state)
{
    (void)state;
    if (device_cc != 90)
        skip(); /* the spaces are the wgmma profiles' */
    USE_PLUGINS("matmul_h200");
    int staged = 0, splitk_cached = -1;
    static const char *const runs[2][2] = {{"mmtune", "wgmma_persistent"},
                                           {"mmtune2", "cublas,tiled,wgmma,wgmma_splitk"}};
    for (int t = 0; t < 2; t++) {
        char *said = NULL;
        csv c = tune_every_configuration(runs[t][0], runs[t][1], &said);
        /* the tune caches a configuration only when it beat the own choice (lab_tune.c) */
        const char *at = said ? strstr(said, "matmul_h200 decode-16 bf16 wgmma_splitk: ") : NULL;
        if (t == 1) {
            if (!at)
                fail_msg("the tune said nothing of decode-16 bf16 wgmma_splitk");
            splitk_cached = strncmp(at + strlen("matmul_h200 decode-16 bf16 wgmma_splitk: "), "bm=", 3) == 0;
        }
        free(said);
        for (int i = 0; i < c.n; i++) {
            const klab_row *x = &c.rows[i];
            /* 16 splits of a 4 Mi-element output pass the 32 Mi-float workspace: declined, saying so */
            if (!strcmp(x->kcase, "short-k-2048") && strstr(x->config, "splits=16,"))
                expect_status(x, ROW_SKIPPED, "fp32 partials pass the");
            else
                expect_status(x, ROW_PASSED, NULL);
            /* the staged epilogue (TMA stores clipped at M = 200, N = 136; ping-pong over many units at
               short-k-2048, compared whole against cuBLAS there) */
            staged += x->status == ROW_PASSED && strstr(x->config, ",epi=tma,") != NULL && !strstr(x->flags, "own-choice");
        }
        free(c.rows);
    }
    /* each case: wgmma 128 x 256 at 3 rasters, persistent 7 variants at 4 (two of them column-split; the
       own-choice rows, staged where M passes 128, are not counted: they repeat a configuration of the space) */
    assert_int_equal(staged, 3 * (3 + 7 * 4));
    klab_result r;
    csv c;
    r = RUN("mmafter", "--plugin", "matmul_h200", "--case", "decode-16", "--dtype", "bf16");
    assert_int_equal(r.rc, 0);
    c = read_rows("mmafter", "matmul_h200");
    const klab_row *s = row(&c, "decode-16", "bf16", "wgmma_splitk");
    expect_status(s, ROW_PASSED, NULL);
    /* the plain run takes the cached configuration when the tune cached one, else its own choice */
    if ((strstr(s->flags, "tuned") != NULL) != splitk_cached)
        fail_msg("decode-16 wgmma_splitk: flags '%s', but the tune %s a configuration", s->flags,
                 splitk_cached ? "cached" : "cached no");
    free(c.rows);
    free(r.out);
}

/* Every skinny configuration of its cases verified (bf16 and fp16: the two MMA and pack instantiations),
   one row each and the own choice: M = 16, 8, 5, 13, 1 at 1, 2 and 4 splits; v2 at each (warps, ring) of
   (4, 8, 16) x (4, 8, 16) it has, some with fewer steps a warp than its ring (skinny-16: 1 to 8), v1
   at 8 and 16 warps, unroll 2 and 4, and v3 at stages 4, 8, 16, with and without the L2 prefetch
   (skinny-16: 8 K tiles, a rank's range shorter than its ring; skinny-n200: N past the last 64-column
   tile). */
static void test_skinny_verifies_every_configuration(void **state)
{
    (void)state;
    if (device_cc != 90)
        skip(); /* sm_90: its clusters */
    USE_PLUGINS("matmul_h200");
    const char *cases = "skinny-16,skinny-8,skinny-5,skinny-13,skinny-1,decode-16,skinny-n200";
    klab_result r = RUN("mmsk", "--plugin", "matmul_h200", "--tune", "--verify-only", "--profile", "skinny", "--case",
                        cases);
    assert_int_equal(r.rc, 0);
    csv c = read_rows("mmsk", "matmul_h200");
    /* (1 + 21, 1 + 26, 1 + 25, 1 + 25, 1 + 26, 1 + 26, 1 + 0) rows of v1 and v2 a dtype and 18 of v3 a case
       (skinny-n200: v3 only): matmul_h200_config.c's fits */
    assert_int_equal(c.n, 2 * (156 + 7 * 18));
    klab_result v = RUN("mmskv", "--plugin", "matmul_h200", "--tune", "--validate", "--profile", "skinny", "--case",
                        cases);
    const char *at = v.out ? strstr(v.out, "klab --tune: ") : NULL;
    if (!at)
        fail_msg("klab --tune --validate printed no row count");
    assert_int_equal(c.n, atoi(at + strlen("klab --tune: ")));
    free(v.out);
    for (int i = 0; i < c.n; i++) {
        const klab_row *x = &c.rows[i];
        expect_status(x, ROW_PASSED, NULL);
        if (!x->has_err || !(x->rel_l2_err <= x->tol))
            fail_msg("%s %s %s: no error figures within tolerance", x->kcase, x->dtype, x->config);
        if (x->verified_elems != full_elems(x->kcase))
            fail_msg("%s %s %s: %llu elements verified", x->kcase, x->dtype, x->config,
                     (unsigned long long)x->verified_elems);
    }
    free(c.rows);
    free(r.out);
}

static void test_refusals(void **state)
{
    (void)state;
    USE_PLUGINS("matmul_h200");
    klab_result r = RUN("mmbad", "--config", KLAB_TEST_DATA "/gpu/ini/matmul_h200_bad.ini"); /* names its plugin */
    assert_int_equal(r.rc, 1); /* no-k fails */
    csv c = read_rows("mmbad", "matmul_h200");
    expect_status(row(&c, "k-odd", "bf16", "cublas"), ROW_PASSED, NULL);
    expect_status(row(&c, "k-odd", "bf16", "tiled"), ROW_SKIPPED, "K = 100 and N = 64 must be multiples of 8");
    if (device_cc == 90)
        expect_status(row(&c, "k-odd", "bf16", "wgmma"), ROW_SKIPPED, "K = 100 and N = 64 must be multiples of 8");
    expect_status(row(&c, "no-k", "bf16", "cublas"), ROW_FAILED, "dim.k is -1");
    free(c.rows);
    free(r.out);
}

int main(void)
{
    KLAB_SKIP_WITHOUT_GPU();
    KLAB_DEVICE_CC(device_cc);
    const struct CMUnitTest tests[] = {
        KR_TEST(test_every_profile_small_and_odd),
        KR_TEST(test_batched_graphs),
        KR_TEST(test_tune_verifies_every_configuration),
        KR_TEST(test_skinny_verifies_every_configuration),
        KR_TEST(test_refusals),
    };
    KLAB_RUN_TESTS(tests);
}
