/* decode_replay on a GPU, through the real klab binary, on tiny stacks (tests/gpu_ini/decode_replay.ini:
 * 2 layers, hidden 256, fixed and dynamic schedules, split and unsplit caches, head dims 64 and 128,
 * B = 1, 2, 3 and 8, the attention alone): every profile verifies its output and its appended KV
 * entries against the float64 reference and is timed as steps (at least 1000 samples, p95 and p99, a
 * samples file); graph_pdl runs on sm_90 and is skipped, saying why, anywhere else. With param.probes = 1
 * and KLAB_DECODE_PROBES set, the probes are written beside the run: enqueue times of every profile
 * and every kernel's stamps. The -mma cases pin the tensor-core attention (attn=mma) at 1, 2, 4 and 8
 * query heads a KV head. `klab --tune` times the attention's three paths (attn=fused, attn=split,
 * attn=mma) in the same rounds, each verified.
 * Speed is not checked here: the targets and what the H200 run must check are in
 * docs/notes/decode_replay.md. Without a GPU the whole program is skipped with the reason (exit 77). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klab_gpu.h"

static int device_cc;

static void expect_steps_rows(const csv *c, int want)
{
    int checked = 0;
    for (int i = 0; i < c->n; i++) {
        const klab_row *r = &c->rows[i];
        if (!strcmp(r->profile, "graph_pdl") && device_cc != 90) {
            expect_status(r, ROW_SKIPPED, "sm_90");
            continue;
        }
        expect_status(r, ROW_PASSED, NULL);
        if (strcmp(r->launch, "steps"))
            fail_msg("%s %s %s: launch %s, expected steps", r->kcase, r->dtype, r->profile, r->launch);
        if (!r->has_err || !(r->rel_l2_err <= r->tol))
            fail_msg("%s %s %s: no error figures within tolerance", r->kcase, r->dtype, r->profile);
        if (r->reps < 1000 || strstr(r->flags, "few-samples"))
            fail_msg("%s %s %s: %d step samples (%s), expected at least 1000", r->kcase, r->dtype, r->profile, r->reps,
                     r->flags);
        if (!(r->p95_ms >= r->median_ms && r->p99_ms >= r->p95_ms && r->max_ms >= r->p99_ms))
            fail_msg("%s %s %s: p50 %.4f p95 %.4f p99 %.4f max %.4f out of order", r->kcase, r->dtype, r->profile,
                     r->median_ms, r->p95_ms, r->p99_ms, r->max_ms);
        if (!r->samples_file[0])
            fail_msg("%s %s %s: no samples file", r->kcase, r->dtype, r->profile);
        printf("# %-14s %s %-16s p50 %.4f p95 %.4f p99 %.4f ms, err %.2e\n", r->kcase, r->dtype, r->profile,
               r->median_ms, r->p95_ms, r->p99_ms, r->rel_l2_err);
        checked++;
    }
    assert_int_equal(checked + (device_cc == 90 ? 0 : c->n / 4), want);
}

static void test_every_profile_verifies_and_steps(void **state)
{
    (void)state;
    USE_PLUGINS("decode_replay");
    klab_result r = RUN("decode", "--plugin", "decode_replay");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("decode", "decode_replay");
    assert_int_equal(c.n, 11 * 2 * 4); /* cases x dtypes x profiles */
    expect_steps_rows(&c, c.n);
    /* the fused attention unless the case pins the split or the mma path */
    for (int i = 0; i < c.n; i++) {
        if (!strcmp(c.rows[i].profile, "graph_pdl") && device_cc != 90)
            continue;
        const char *k = c.rows[i].kcase;
        const char *want = strstr(k, "-splitpath") ? "attn=split" : strstr(k, "-mma") ? "attn=mma" : "attn=fused";
        if (strcmp(c.rows[i].config, want))
            fail_msg("%s %s: config '%s', expected '%s'", c.rows[i].kcase, c.rows[i].profile, c.rows[i].config, want);
    }
    free(c.rows);
    free(r.out);
}

static int lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = 0, ch;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

/* lines of `path` holding `needle` */
static int lines_with(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, needle) != NULL;
    fclose(f);
    return n;
}

static void test_probes_written(void **state)
{
    (void)state;
    USE_PLUGINS("decode_replay");
    char dir[PATH_MAX], ini[PATH_MAX + 32];
    kr_mkdir("probes", dir, sizeof dir);
    snprintf(ini, sizeof ini, "%s/probes.ini", dir);
    kr_write_file(ini, "[experiment]\nplugin = decode_replay\n[defaults]\ndtypes = fp16\nbudget_ms = 5000\nsteps = 6\n"
                       "param.probes = 1\ndim.layers = 2\ndim.hidden = 256\ndim.heads = 4\ndim.kv_heads = 2\n"
                       "dim.head_dim = 64\ndim.inter = 512\n[case probed]\ndim.batch = 2\ndim.kv = 200\n"
                       "dim.chunk = 64\nparam.schedule = dynamic\n");
    setenv("KLAB_DECODE_PROBES", dir, 1);
    klab_result r = RUN("probes", "--config", ini);
    unsetenv("KLAB_DECODE_PROBES");
    assert_int_equal(r.rc, 0);
    char enq[PATH_MAX + 64], ker[PATH_MAX + 64];
    snprintf(enq, sizeof enq, "%s/decode_replay.probes/probed.fp16.enqueue.csv", dir);
    snprintf(ker, sizeof ker, "%s/decode_replay.probes/probed.fp16.kernels.csv", dir);
    if (lines(enq) < 1000)
        fail_msg("%s: %d lines, expected an enqueue time a run", enq, lines(enq));
    if (lines_with(ker, "graph,") < 6 * 2 || lines_with(ker, "eager,") < 6 * 2)
        fail_msg("%s: too few kernel stamps (graph %d, eager %d lines)", ker, lines_with(ker, "graph,"),
                 lines_with(ker, "eager,"));
    /* a step of 2 layers: qkv, attn, oproj, gateup, down each layer; the fused attention (the own
       choice) merges its splits itself: no combine */
    if (lines_with(ker, ",attn,") < 2 || lines_with(ker, ",down,") < 2)
        fail_msg("%s: kernels missing", ker);
    if (lines_with(ker, ",combine,") != 0)
        fail_msg("%s: a combine kernel ran beside the fused attention", ker);
    free(r.out);
}

/* klab --tune times the attention's paths of every profile in the same rounds (configuration 0 fused,
   1 split, 2 mma, and the own choice, fused): every row verified, each naming its path. This is how the
   H200 run times old against new. */
static void test_tune_times_every_path(void **state)
{
    (void)state;
    USE_PLUGINS("decode_replay");
    char dir[PATH_MAX], ini[PATH_MAX + 32], cache[PATH_MAX + 32];
    kr_mkdir("tune", dir, sizeof dir);
    snprintf(ini, sizeof ini, "%s/tune.ini", dir);
    snprintf(cache, sizeof cache, "%s/tune-cache.ini", dir);
    /* 16 subjects share the case's budget (it is a bound: they stop once each has its 1000 steps) */
    kr_write_file(ini, "[experiment]\nplugin = decode_replay\n[defaults]\ndtypes = fp16\nbudget_ms = 27000\nsteps = 6\n"
                       "dim.layers = 2\ndim.hidden = 256\ndim.heads = 8\ndim.kv_heads = 2\ndim.head_dim = 128\n"
                       "dim.inter = 512\n[case both]\ndim.batch = 2\ndim.kv = 300\ndim.chunk = 64\n"
                       "param.schedule = dynamic\n");
    klab_result r = RUN("tune", "--config", ini, "--tune", "--tune-cache", cache);
    assert_int_equal(r.rc, 0);
    csv c = read_rows("tune", "decode_replay");
    int fused = 0, split = 0, mma = 0;
    for (int i = 0; i < c.n; i++) {
        const klab_row *w = &c.rows[i];
        if (!strcmp(w->profile, "graph_pdl") && device_cc != 90)
            continue;
        expect_status(w, ROW_PASSED, NULL);
        if (w->reps < 1000 || strstr(w->flags, "few-samples"))
            fail_msg("%s %s: %d step samples (%s), expected at least 1000", w->profile, w->config, w->reps, w->flags);
        fused += !strcmp(w->config, "attn=fused");
        split += !strcmp(w->config, "attn=split");
        mma += !strcmp(w->config, "attn=mma");
        printf("# %-16s %-10s p50 %.4f ms\n", w->profile, w->config, w->median_ms);
    }
    const int profiles = device_cc == 90 ? 4 : 3;
    assert_int_equal(fused, 2 * profiles); /* configuration 0 and the own choice */
    assert_int_equal(split, profiles);
    assert_int_equal(mma, profiles);
    free(c.rows);
    free(r.out);
}

int main(void)
{
    KLAB_SKIP_WITHOUT_GPU();
    KLAB_DEVICE_CC(device_cc);
    const struct CMUnitTest tests[] = {
        KR_TEST(test_every_profile_verifies_and_steps),
        KR_TEST(test_probes_written),
        KR_TEST(test_tune_times_every_path),
    };
    KLAB_RUN_TESTS(tests);
}
