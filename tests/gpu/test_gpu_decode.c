/* decode_replay on a GPU, through the real klab binary, on tiny stacks (tests/gpu/ini/decode_replay.ini:
 * 2 layers, hidden 256, fixed and dynamic schedules, split and unsplit caches, head dims 64 and 128,
 * B = 1, 2, 3 and 8, the attention alone): every profile verifies its output and its appended KV
 * entries against the float64 reference and is timed as steps (at least 1000 samples, p95 and p99, a
 * samples file); graph_pdl runs on sm_90 and is skipped, saying why, anywhere else. With param.probes = 1
 * and KLAB_DECODE_PROBES set, the probes are written beside the run: enqueue times of every profile
 * and every kernel's stamps. The -mma cases pin the tensor-core attention (attn=mma) at 1, 2, 4 and 8
 * query heads a KV head; the -stream cases the O and down projections on the TMA weight stream
 * (gemv=stream, sm_90a: skipped, saying why, anywhere else) at widths that are no whole tile of 64, the
 * QKV and gate/up projections with them (param.stream_qkv, param.stream_gateup: their RMSNorm the
 * stream's resident tokens), and its probes; the -cluster cases the cluster attention (attn=mma_cluster,
 * sm_90a: skipped elsewhere).
 * `klab --tune` times every configuration (the attention's four paths, fused, split, mma and mma_cluster,
 * times the GEMV's five: plain, pipe with the down projection split 1, 2, 4 ways, stream) in the same
 * rounds, each verified; `--tune --verify-only` verifies each at B = 1, 3 and 8 at widths that are no
 * whole slab and no whole tile.
 * Speed is not checked here: the targets and what the H200 run must check are in
 * docs/notes/decode_replay.md. Without a GPU the whole program is skipped with the reason (exit 77). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klab_gpu.h"

static int device_cc;

/* A row this device cannot run, skipped saying why: graph_pdl off sm_90, gemv=stream and attn=mma_cluster
   (sm_90a code) too. */
static int skipped_here(const klab_row *r)
{
    if (device_cc == 90)
        return 0;
    if (!strcmp(r->profile, "graph_pdl")) {
        expect_status(r, ROW_SKIPPED, "sm_90");
        return 1;
    }
    if (strstr(r->config, "gemv=stream") || strstr(r->config, "attn=mma_cluster")) {
        expect_status(r, ROW_SKIPPED, "sm_90a");
        return 1;
    }
    return 0;
}

static void expect_steps_rows(const csv *c, int want)
{
    int checked = 0, skipped = 0;
    for (int i = 0; i < c->n; i++) {
        const klab_row *r = &c->rows[i];
        if (skipped_here(r)) {
            skipped++;
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
    assert_int_equal(checked + skipped, want);
    if (device_cc == 90)
        assert_int_equal(skipped, 0);
}

static void test_every_profile_verifies_and_steps(void **state)
{
    (void)state;
    USE_PLUGINS("decode_replay");
    klab_result r = RUN("decode", "--plugin", "decode_replay");
    assert_int_equal(r.rc, 0);
    csv c = read_rows("decode", "decode_replay");
    assert_int_equal(c.n, 18 * 2 * 4); /* cases x dtypes x profiles */
    expect_steps_rows(&c, c.n);
    /* the own choice (mma, plain; graph_pdl's the cluster attention with the stream, the plain GEMV with
       param.part = attn) unless the case pins a configuration */
    for (int i = 0; i < c.n; i++) {
        if (device_cc != 90 && (!strcmp(c.rows[i].profile, "graph_pdl") || strstr(c.rows[i].kcase, "-stream") ||
                                strstr(c.rows[i].kcase, "-cluster")))
            continue;
        const char *k = c.rows[i].kcase;
        const char *want = strstr(k, "-splitpath")   ? "attn=split,gemv=plain"
                           : strstr(k, "-mma")         ? "attn=mma,gemv=plain"
                           : strstr(k, "-cluster")     ? "attn=mma_cluster,gemv=plain"
                           : !strcmp(k, "odd-b3-pipe") ? "attn=fused,gemv=pipe,ksplit=4"
                           : !strcmp(k, "odd-b8-pipe") ? "attn=split,gemv=pipe,ksplit=1"
                           : !strcmp(k, "odd-b1-stream") ? "attn=mma,gemv=stream"
                           : !strcmp(k, "odd-b8-stream") ? "attn=split,gemv=stream"
                           : strcmp(c.rows[i].profile, "graph_pdl") ? "attn=mma,gemv=plain"
                           : strstr(k, "attn")                       ? "attn=mma_cluster,gemv=plain"
                                                                     : "attn=mma_cluster,gemv=stream";
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

/* kernels.csv: every kernel's start no later than its end, and (eager, graph: serial kernels) each kernel of
   a step ending after the one before it, so every kernel stamped both its ends in its own slot */
static void expect_ends_ordered(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s: not written", path);
    char line[512], prof[32], name[32], last_prof[32] = "";
    unsigned long long seq, step, start, end, last_seq = ~0ull, last_end = 0;
    int k, layer, n = 0;
    long long gap;
    if (!fgets(line, sizeof line, f))
        fail_msg("%s: empty", path);
    while (fgets(line, sizeof line, f)) {
        for (char *c = line; *c; c++)
            if (*c == ',')
                *c = ' ';
        if (sscanf(line, "%31s %llu %llu %d %d %31s %llu %llu %lld", prof, &seq, &step, &k, &layer, name, &start, &end,
                   &gap) != 9)
            fail_msg("%s: unreadable line '%s'", path, line);
        if (start > end)
            fail_msg("%s: %s step %llu %s (layer %d) starts at %llu after its end %llu", path, prof, seq, name, layer,
                     start, end);
        const int serial = !strcmp(prof, "eager") || !strcmp(prof, "graph");
        if (serial && !strcmp(prof, last_prof) && seq == last_seq && end < last_end)
            fail_msg("%s: %s step %llu %s (layer %d) ends at %llu, before the kernel before it (%llu)", path, prof, seq,
                     name, layer, end, last_end);
        snprintf(last_prof, sizeof last_prof, "%s", prof);
        last_seq = seq, last_end = end;
        n++;
    }
    fclose(f);
    if (n == 0)
        fail_msg("%s: no stamps", path);
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
                       "dim.chunk = 64\nparam.schedule = dynamic\n"
                       "[case probed-stream]\ndim.batch = 2\ndim.kv = 200\ndim.chunk = 64\nparam.schedule = dynamic\n"
                       "param.stream_qkv = 1\nparam.stream_gateup = 1\nconfig = attn=fused,gemv=stream\n");
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
    /* gemv=stream: its QKV, O, gate/up and down kernels stamp their slots (the policy's step control), and
       its down, the step's last kernel, advances the ring: the steps are there at all. Its start stamp is its first
       epilogue's (decode_replay_stream.cuh), so only the end is checked against the next kernel. */
    if (device_cc == 90) {
        snprintf(ker, sizeof ker, "%s/decode_replay.probes/probed-stream.fp16.kernels.csv", dir);
        if (lines_with(ker, "graph,") < 6 * 2 || lines_with(ker, "graph_pdl,") < 6 * 2 ||
            lines_with(ker, "eager,") < 6 * 2)
            fail_msg("%s: too few kernel stamps (graph %d, graph_pdl %d, eager %d lines)", ker,
                     lines_with(ker, "graph,"), lines_with(ker, "graph_pdl,"), lines_with(ker, "eager,"));
        if (lines_with(ker, ",qkv,") < 2 || lines_with(ker, ",oproj,") < 2 || lines_with(ker, ",gateup,") < 2 ||
            lines_with(ker, ",down,") < 2)
            fail_msg("%s: the stream kernels' stamps are missing", ker);
        expect_ends_ordered(ker);
    }
    free(r.out);
}

/* The tuning space as the plugin names it (decode_replay.h: configuration attn * 5 + gemv), for the rows'
   config column. */
static const char *const configs[] = {
    "attn=fused,gemv=plain",        "attn=fused,gemv=pipe,ksplit=1", "attn=fused,gemv=pipe,ksplit=2",
    "attn=fused,gemv=pipe,ksplit=4", "attn=fused,gemv=stream",       "attn=split,gemv=plain",
    "attn=split,gemv=pipe,ksplit=1", "attn=split,gemv=pipe,ksplit=2", "attn=split,gemv=pipe,ksplit=4",
    "attn=split,gemv=stream",       "attn=mma,gemv=plain",          "attn=mma,gemv=pipe,ksplit=1",
    "attn=mma,gemv=pipe,ksplit=2",  "attn=mma,gemv=pipe,ksplit=4",  "attn=mma,gemv=stream",
    "attn=mma_cluster,gemv=plain",  "attn=mma_cluster,gemv=pipe,ksplit=1", "attn=mma_cluster,gemv=pipe,ksplit=2",
    "attn=mma_cluster,gemv=pipe,ksplit=4", "attn=mma_cluster,gemv=stream",
};
#define NCONFIGS (int)(sizeof configs / sizeof configs[0])
#define OWN 10 /* configs[OWN]: the own choice, mma with the plain GEMV (decode_replay.h: DR_ATTN_OWN) */
#define OWN_PDL 19 /* graph_pdl's at these cases: the cluster attention, the stream (8 stages: hidden < 4096) */

/* Profiles configs[k] runs on here: gemv=stream and attn=mma_cluster none off sm_90 */
static int runs_here(int k, int profiles)
{
    return device_cc != 90 && (strstr(configs[k], "gemv=stream") || strstr(configs[k], "attn=mma_cluster")) ? 0
                                                                                                          : profiles;
}

/* Row w counted by its configuration: a trial in seen[its index], the own choice (flag own-choice) in *own,
   which must be configs[OWN] (graph_pdl's configs[OWN_PDL]); a name outside the space fails the test. */
static void count_config(const klab_row *w, int seen[NCONFIGS], int *own)
{
    int k = 0;
    while (k < NCONFIGS && strcmp(w->config, configs[k]))
        k++;
    if (k == NCONFIGS)
        fail_msg("%s %s %s: config '%s' is none of the space's", w->kcase, w->dtype, w->profile, w->config);
    const int want = !strcmp(w->profile, "graph_pdl") ? OWN_PDL : OWN;
    if (!strstr(w->flags, "own-choice"))
        seen[k]++;
    else if (k == want)
        (*own)++;
    else
        fail_msg("%s %s %s: own choice '%s', expected '%s'", w->kcase, w->dtype, w->profile, w->config, configs[want]);
}

/* Every configuration counted `units` times a profile it runs on here (a unit: a case and dtype), and the
   own choice once a unit and profile; rows this device cannot run were skipped, saying why. */
static void expect_config_counts(const int seen[NCONFIGS], int own, int units)
{
    const int profiles = device_cc == 90 ? 4 : 3;
    assert_int_equal(own, units * profiles);
    for (int k = 0; k < NCONFIGS; k++)
        if (seen[k] != units * runs_here(k, profiles))
            fail_msg("%s: %d rows, expected %d (one a unit and profile it runs on here)", configs[k], seen[k],
                     units * runs_here(k, profiles));
}

/* klab --tune (verify_only: --tune --verify-only) on `text` as the INI, in a folder and run `name` of its
   own with a tuning cache there. */
static klab_result run_tune(const char *name, const char *text, int verify_only)
{
    char dir[PATH_MAX], ini[PATH_MAX + 32], cache[PATH_MAX + 32];
    kr_mkdir(name, dir, sizeof dir);
    snprintf(ini, sizeof ini, "%s/%s.ini", dir, name);
    snprintf(cache, sizeof cache, "%s/tune-cache.ini", dir);
    kr_write_file(ini, text);
    if (verify_only)
        return RUN(name, "--config", ini, "--tune", "--verify-only", "--tune-cache", cache);
    return RUN(name, "--config", ini, "--tune", "--tune-cache", cache);
}

/* klab --tune times every configuration of every profile in the same rounds (the attention's four paths
   times the GEMV's five, and the own choice, mma and plain): every row verified, each naming its
   configuration. This is how the H200 run times old against new. */
static void test_tune_times_every_configuration(void **state)
{
    (void)state;
    USE_PLUGINS("decode_replay");
    /* 84 subjects share the case's budget (it is a bound: they stop once each has its 1000 steps) */
    klab_result r = run_tune("tune",
                             "[experiment]\nplugin = decode_replay\n[defaults]\ndtypes = fp16\nbudget_ms = 60000\n"
                             "steps = 6\ndim.layers = 2\ndim.hidden = 256\ndim.heads = 8\ndim.kv_heads = 2\n"
                             "dim.head_dim = 128\ndim.inter = 512\n[case both]\ndim.batch = 2\ndim.kv = 300\n"
                             "dim.chunk = 64\nparam.schedule = dynamic\n",
                             0);
    assert_int_equal(r.rc, 0);
    csv c = read_rows("tune", "decode_replay");
    int seen[NCONFIGS] = {0}, own = 0;
    for (int i = 0; i < c.n; i++) {
        const klab_row *w = &c.rows[i];
        if (skipped_here(w))
            continue;
        expect_status(w, ROW_PASSED, NULL);
        if (w->reps < 1000 || strstr(w->flags, "few-samples"))
            fail_msg("%s %s: %d step samples (%s), expected at least 1000", w->profile, w->config, w->reps, w->flags);
        count_config(w, seen, &own);
        printf("# %-16s %-30s p50 %.4f ms\n", w->profile, w->config, w->median_ms);
    }
    expect_config_counts(seen, own, 1);
    free(c.rows);
    free(r.out);
}

/* Every configuration verified against the float64 reference at B = 1, 3 and 8 on widths that are no
   whole slab of either GEMV (hidden 264 and 136: 33 and 17 vectors; inter 520: 65; inter 4104: 513, five
   slabs of 128 vectors, so the down projection's K split over 4 warps gives them 2, 1, 1 and 1) and no
   whole tile of gemv=stream's 64 (hidden 264: 5 column tiles, the last 8 wide; 136: 3, the last 8; inter
   520: 9 K tiles over 8 ranks of a cluster, the last 8 deep; 4104: 65 over 8), both dtypes: `--tune
   --verify-only`, nothing timed, no cache written. 6 cases x 2 dtypes, 84 entries each (--tune's cap: 96). */
static void test_every_configuration_verifies(void **state)
{
    (void)state;
    USE_PLUGINS("decode_replay");
    klab_result r = run_tune("verify",
                             "[experiment]\nplugin = decode_replay\n[defaults]\ndtypes = fp16, bf16\nsteps = 4\n"
                             "dim.layers = 2\ndim.heads = 4\ndim.kv_heads = 2\ndim.head_dim = 64\ndim.kv = 70\n"
                             "dim.chunk = 32\nparam.schedule = dynamic\n"
                             "[case odd-b1]\ndim.batch = 1\ndim.hidden = 264\ndim.inter = 520\n"
                             "[case odd-b3]\ndim.batch = 3\ndim.hidden = 264\ndim.inter = 520\n"
                             "[case odd-b8]\ndim.batch = 8\ndim.hidden = 264\ndim.inter = 520\n"
                             "[case long-b1]\ndim.batch = 1\ndim.hidden = 136\ndim.inter = 4104\n"
                             "[case long-b3]\ndim.batch = 3\ndim.hidden = 136\ndim.inter = 4104\n"
                             "[case long-b8]\ndim.batch = 8\ndim.hidden = 136\ndim.inter = 4104\n",
                             1);
    assert_int_equal(r.rc, 0);
    csv c = read_rows("verify", "decode_replay");
    int seen[NCONFIGS] = {0}, own = 0, verified = 0;
    for (int i = 0; i < c.n; i++) {
        const klab_row *w = &c.rows[i];
        if (skipped_here(w))
            continue;
        expect_status(w, ROW_PASSED, NULL);
        if (!strstr(w->flags, "verify-only") || !w->has_err || !(w->rel_l2_err <= w->tol))
            fail_msg("%s %s %s %s: not verified within tolerance (flags %s)", w->kcase, w->dtype, w->profile, w->config,
                     w->flags);
        count_config(w, seen, &own);
        verified++;
    }
    expect_config_counts(seen, own, 6 * 2); /* 6 cases x 2 dtypes */
    printf("# %d rows: every configuration, B = 1, 3, 8, fp16 and bf16, %d verified on this device\n",
           6 * 2 * 4 * (NCONFIGS + 1), verified);
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
        KR_TEST(test_tune_times_every_configuration),
        KR_TEST(test_every_configuration_verifies),
    };
    KLAB_RUN_TESTS(tests);
}
