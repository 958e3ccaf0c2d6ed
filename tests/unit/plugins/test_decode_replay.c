/* decode_replay on the CPU: its float64 reference against values worked by hand (a one-layer stack of
 * width 8 with one head of 8 and identity-like weights, a two-step dynamic schedule whose second step reads
 * the entry the first appended, GQA), the length schedule (seeded, deterministic, within bounds, fixed),
 * the geometry's refusals, the tuning space (attention path x GEMV) and the bytes a step moves. Pure C,
 * linked in from plugins/decode_replay. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "klab_test.h"

#include "plugins/decode_replay/decode_replay.h"
#include "plugins/decode_replay/decode_replay_probes.h"

/* A case of named dims only, as the host builds it. */
typedef struct tcase {
    klab_case k;
    klab_dim d[16];
    klab_param p[4];
} tcase;

static void tcase_init(tcase *t, const char *name, int64_t steps)
{
    memset(t, 0, sizeof *t);
    t->k.struct_size = sizeof t->k;
    t->k.name = name;
    t->k.dtype = KLAB_FP16;
    t->k.named = t->d;
    t->k.params = t->p;
    t->k.steps = steps;
}

static void tdim(tcase *t, const char *n, int64_t v)
{
    t->d[t->k.nnamed++] = (klab_dim){n, v};
}

static void tparam(tcase *t, const char *k, const char *v)
{
    t->p[t->k.nparams++] = (klab_param){k, v};
}

/* hidden 4, one query head and one KV head of 4, inter 2 (dr_geometry takes head_dim 64 or 128 only, so
   the hand-worked references use a geometry built directly) */
static dr_geom tiny_geom(int attn_only, int64_t kv, int64_t steps, int dynamic)
{
    dr_geom g;
    memset(&g, 0, sizeof g);
    g.batch = 1, g.layers = 1, g.hidden = 4, g.heads = 1, g.kv_heads = 1, g.head_dim = 4, g.inter = 2;
    g.kv = kv, g.kv_min = 1, g.steps = steps, g.dynamic = dynamic, g.attn_only = attn_only, g.eps = 0;
    g.nqkv = 3 * 4;
    g.chunk = 64, g.splits = 1;
    return g;
}

/* Attention only, head_dim 4, no rotation (cos 1, sin 0): the new token at position 1 of a 2-long cache
   holding k0 = 0 so its score is 0, and its own k1 = q so its score is |q|^2 / 2 = 1 (|q|^2 = 2,
   sqrt(4) = 2): o = (e^0 v0 + e^1 v1) / (1 + e). */
static void test_attention_by_hand(void **state)
{
    (void)state;
    dr_geom g = tiny_geom(1, 2, 1, 0);
    const double x[12] = {1, 1, 0, 0, /* q */ 1, 1, 0, 0, /* k */ 2, 0, 0, 4 /* v */};
    const double cos_t[4] = {1, 1, 1, 1}, sin_t[4] = {0, 0, 0, 0}, lens[1] = {2};
    double kc[8] = {0, 0, 0, 0, 9, 9, 9, 9}, vc[8] = {1, 2, 3, 4, 9, 9, 9, 9}, y[4];
    const dr_ref_in in = {x, NULL, NULL, NULL, NULL, NULL, NULL, cos_t, sin_t, lens, 0};
    assert_int_equal(dr_reference(NULL, NULL, &g, &in, 1, kc, vc, y), 0);
    const double e = exp(1.0), w0 = 1 / (1 + e), w1 = e / (1 + e);
    const double want[4] = {w0 * 1 + w1 * 2, w0 * 2, w0 * 3, w0 * 4 + w1 * 4};
    for (int i = 0; i < 4; i++)
        assert_float_equal(y[i], want[i], 1e-14);
    /* the append: position 1 holds the new k and v, position 0 untouched */
    const double k1[4] = {1, 1, 0, 0}, v1[4] = {2, 0, 0, 4};
    for (int i = 0; i < 4; i++) {
        assert_float_equal(kc[4 + i], k1[i], 0);
        assert_float_equal(vc[4 + i], v1[i], 0);
        assert_float_equal(kc[i], 0, 0);
    }
}

/* RoPE at position 1 by a quarter turn (cos 0, sin 1) on the half layout: (a, b) -> (-b, a) per pair
   (i, i + 2); a cache of length 1, so o = v whatever the score, and the appended k shows the rotation. */
static void test_rope_in_the_append(void **state)
{
    (void)state;
    dr_geom g = tiny_geom(1, 2, 1, 0);
    const double x[12] = {0, 0, 0, 0, /* q */ 1, 2, 3, 4, /* k */ 5, 6, 7, 8 /* v */};
    const double cos_t[4] = {1, 1, 0, 0}, sin_t[4] = {0, 0, 1, 1}, lens[1] = {2};
    double kc[8] = {0}, vc[8] = {0}, y[4];
    const dr_ref_in in = {x, NULL, NULL, NULL, NULL, NULL, NULL, cos_t, sin_t, lens, 0};
    assert_int_equal(dr_reference(NULL, NULL, &g, &in, 1, kc, vc, y), 0);
    const double k1[4] = {-3, -4, 1, 2};
    for (int i = 0; i < 4; i++)
        assert_float_equal(kc[4 + i], k1[i], 1e-15);
    /* q = 0: equal weights over v0 = 0 and v1 */
    for (int i = 0; i < 4; i++)
        assert_float_equal(y[i], 0.5 * (5 + i), 1e-15);
}

/* Two dynamic steps from cursor 1 of a 2-step schedule: the first runs row 1 (length 1: attends to its
   own entry at 0, o = v), the second row 0 (length 2: reads the entry the first step wrote at 0 and its
   own at 1). With q = 0 the second step's o is the mean of the two v's, so it sees the first step's. */
static void test_steps_read_earlier_appends(void **state)
{
    (void)state;
    dr_geom g = tiny_geom(1, 2, 2, 1);
    const double x[12] = {0, 0, 0, 0, 1, 0, 0, 0, 2, 4, 6, 8};
    const double cos_t[4] = {1, 1, 1, 1}, sin_t[4] = {0}, lens[2] = {2, 1};
    double kc[8] = {0}, vc[8] = {-7, -7, -7, -7, -7, -7, -7, -7}, y[4];
    const dr_ref_in in = {x, NULL, NULL, NULL, NULL, NULL, NULL, cos_t, sin_t, lens, 1};
    assert_int_equal(dr_reference(NULL, NULL, &g, &in, 1, kc, vc, y), 0);
    for (int i = 0; i < 4; i++)
        assert_float_equal(y[i], 2.0 * (i + 1), 0); /* step 1 alone: o = v */
    double kc2[8] = {0}, vc2[8] = {-7, -7, -7, -7, -7, -7, -7, -7};
    assert_int_equal(dr_reference(NULL, NULL, &g, &in, 2, kc2, vc2, y), 0);
    for (int i = 0; i < 4; i++) {
        assert_float_equal(vc2[i], 2.0 * (i + 1), 0);     /* written by the first step */
        assert_float_equal(vc2[4 + i], 2.0 * (i + 1), 0); /* and by the second */
        assert_float_equal(y[i], 2.0 * (i + 1), 1e-15);   /* mean of two equal v's, not of -7 */
    }
}

/* The whole stack, hidden 4, inter 2, weights that pick components: every step of the formula checked.
   x = (1, 1, 1, 1): rms 1, eps 0, gains 1, so a = x. Wqkv picks q = (a0, 0, 0, 0), k = 0, v = (1, 2, 3, 4);
   with one position, o = v. Wo = identity: h = x + o
   = (2, 3, 4, 5). m = h / rms(h) (rms = sqrt(54/4)). Wgu: gate row picks m0, up row picks m1, the second
   pair zero; act0 = silu(m0) m1. Wd: column 0 to output 3: y = h + (0, 0, 0, act0). */
static void test_stack_by_hand(void **state)
{
    (void)state;
    dr_geom g = tiny_geom(0, 1, 1, 0);
    const double x[4] = {1, 1, 1, 1}, gn[4] = {1, 1, 1, 1};
    double wqkv[12 * 4] = {0}, wo[16] = {0}, wgu[4 * 4] = {0}, wd[4 * 2] = {0};
    wqkv[0 * 4 + 0] = 1; /* q0 = a0 */
    for (int i = 0; i < 4; i++)
        wqkv[(8 + i) * 4 + 0] = i + 1; /* v_i = (i + 1) a0 */
    for (int i = 0; i < 4; i++)
        wo[i * 4 + i] = 1;
    wgu[0 * 4 + 0] = 1;             /* gate 0 = m0 */
    wgu[2 * 4 + 1] = 1;             /* up 0 = m1 */
    wd[3 * 2 + 0] = 1;              /* y3 += act0 */
    const double cos_t[2] = {1, 1}, sin_t[2] = {0, 0}, lens[1] = {1};
    double kc[4] = {0}, vc[4] = {0}, y[4];
    const dr_ref_in in = {x, wqkv, wo, wgu, wd, gn, gn, cos_t, sin_t, lens, 0};
    assert_int_equal(dr_reference(NULL, NULL, &g, &in, 1, kc, vc, y), 0);
    const double r = sqrt(54.0 / 4), m0 = 2 / r, m1 = 3 / r, act = m0 / (1 + exp(-m0)) * m1;
    const double want[4] = {2, 3, 4, 5 + act};
    for (int i = 0; i < 4; i++)
        assert_float_equal(y[i], want[i], 1e-14);
    for (int i = 0; i < 4; i++)
        assert_float_equal(vc[i], i + 1, 1e-15);
}

static void test_schedule(void **state)
{
    (void)state;
    tcase t;
    tcase_init(&t, "s", 500);
    tdim(&t, "batch", 3);
    tdim(&t, "kv", 1000);
    tdim(&t, "kv_min", 10);
    tparam(&t, "schedule", "dynamic");
    dr_geom g;
    char why[256];
    assert_int_equal(dr_geometry(&t.k, &g, why, sizeof why), 0);
    const size_t n = 500 * 3;
    int32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    dr_schedule(&g, 42, a);
    dr_schedule(&g, 42, b);
    dr_schedule(&g, 43, c);
    assert_memory_equal(a, b, n * sizeof *a);
    int differ = 0, lo = 0, hi = 0;
    double mean = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(a[i] >= 10 && a[i] <= 1000);
        differ += a[i] != c[i];
        lo += a[i] < 100, hi += a[i] > 900;
        mean += a[i];
    }
    mean /= (double)n;
    assert_true(differ > (int)n / 2); /* another seed, another schedule */
    assert_true(lo > 0 && hi > 0);    /* it spans its range */
    assert_true(fabs(mean - 505) < 30);
    /* fixed: every step at kv */
    t.p[0].value = "fixed";
    assert_int_equal(dr_geometry(&t.k, &g, why, sizeof why), 0);
    dr_schedule(&g, 42, a);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(a[i], 1000);
    free(a);
    free(b);
    free(c);
}

static void expect_refused(tcase *t, const char *part)
{
    dr_geom g;
    char why[256] = "";
    assert_int_equal(dr_geometry(&t->k, &g, why, sizeof why), -1);
    if (!strstr(why, part))
        fail_msg("refusal '%s' does not say '%s'", why, part);
}

static void test_geometry(void **state)
{
    (void)state;
    tcase t;
    tcase_init(&t, "llama", 64);
    dr_geom g;
    char why[256];
    assert_int_equal(dr_geometry(&t.k, &g, why, sizeof why), 0); /* the defaults: a llama8b layer */
    assert_int_equal(g.nqkv, (32 + 16) * 128);
    assert_int_equal(g.splits * g.chunk >= g.kv, 1);
    assert_true(g.kv_heads * g.batch * g.splits <= 264 + 8);
    /* the cluster path: 16 splits of 256 at kv 4096, one cluster a KV head; graph_pdl's own choice there
       the cluster attention with the stream, its ring 16 stages at hidden 4096 and 8 below */
    assert_int_equal(g.cchunk, 256);
    assert_int_equal(g.csplits, 16);
    assert_int_equal(dr_cluster_fits(&g), 1);
    assert_string_equal(dr_config_name(dr_pdl_own_config(&g)), "attn=mma_cluster,gemv=stream");
    assert_int_equal(dr_stream_stages(&g), 16);
    assert_int_equal(g.stream_stages, 16);
    g.hidden = 2048;
    assert_string_equal(dr_config_name(dr_pdl_own_config(&g)), "attn=mma_cluster,gemv=stream");
    assert_int_equal(dr_stream_stages(&g), 8);
    g.hidden = 4096, g.attn_only = 1;
    assert_string_equal(dr_config_name(dr_pdl_own_config(&g)), "attn=mma_cluster,gemv=plain");
    tcase t8;
    tcase_init(&t8, "llama-b8", 64);
    tdim(&t8, "batch", 8); /* 64 (sequence, KV head) pairs: clusters of 8, not 16 */
    dr_geom g8;
    assert_int_equal(dr_geometry(&t8.k, &g8, why, sizeof why), 0);
    assert_int_equal(g8.csplits, 8);
    assert_int_equal(g8.cchunk, 512);
    /* small-16l's cache (kv 1024, 4 KV heads): 16 splits would be 64 positions, one tile a warp: never fewer
       than 128 at D = 128 (8 splits), 256 at D = 64 */
    tcase ts;
    tcase_init(&ts, "small", 64);
    tdim(&ts, "kv", 1024);
    tdim(&ts, "kv_heads", 4);
    tdim(&ts, "heads", 16);
    dr_geom gsm;
    assert_int_equal(dr_geometry(&ts.k, &gsm, why, sizeof why), 0);
    assert_int_equal(gsm.cchunk, 128);
    assert_int_equal(gsm.csplits, 8);
    tdim(&ts, "head_dim", 64);
    assert_int_equal(dr_geometry(&ts.k, &gsm, why, sizeof why), 0);
    assert_int_equal(gsm.cchunk, 256);
    assert_int_equal(gsm.csplits, 4);
    g.attn_only = 0, g.csplits = 17; /* a dim.chunk past a cluster: the other profiles' own choice */
    assert_int_equal(dr_cluster_fits(&g), 0);
    assert_string_equal(dr_config_name(dr_pdl_own_config(&g)), dr_config_name(-1));
    tdim(&t, "batch", 9);
    expect_refused(&t, "dim.batch = 9");
    tcase_init(&t, "d", 64);
    tdim(&t, "head_dim", 96);
    expect_refused(&t, "64 or 128");
    tcase_init(&t, "g", 64);
    tdim(&t, "heads", 12);
    tdim(&t, "kv_heads", 8);
    expect_refused(&t, "whole number");
    tcase_init(&t, "g3", 64);
    tdim(&t, "heads", 24);
    tdim(&t, "kv_heads", 8);
    expect_refused(&t, "1, 2, 4 or 8");
    tcase_init(&t, "m", 64);
    tdim(&t, "kv", 100);
    tdim(&t, "kv_min", 101);
    expect_refused(&t, "dim.kv_min = 101");
    tcase_init(&t, "s", 64);
    tparam(&t, "schedule", "random");
    expect_refused(&t, "param.schedule = random: fixed or dynamic");
    tcase_init(&t, "p", 64);
    tparam(&t, "part", "mlp");
    expect_refused(&t, "param.part = mlp: stack or attn");
    tcase_init(&t, "ss", 64);
    tparam(&t, "stream_stages", "12");
    expect_refused(&t, "param.stream_stages = 12: 8 or 16");
    tcase_init(&t, "ss8", 64);
    tparam(&t, "stream_stages", "8");
    dr_geom gs;
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_stages, 8);
    tcase_init(&t, "ssdef", 64);
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_stages, 16); /* hidden 4096: the plan's */
    tdim(&t, "hidden", 2048);
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_stages, 8);
    /* gemv=stream's QKV: streamed where its resident tokens fit beside a ring of 16 stages (hidden 4096:
       64 KB of tokens; hidden 8192: 128 KB, at 8 stages only), the case may say 0, or 1 where they fit */
    assert_int_equal(gs.stream_qkv, 0); /* hidden 2048: 8 stages */
    assert_int_equal(dr_stream_tokens_fit(&gs), 1);
    tparam(&t, "stream_qkv", "1");
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_qkv, 1);
    tcase_init(&t, "sq", 64);
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_qkv, 1);
    tparam(&t, "stream_qkv", "0");
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_qkv, 0);
    tcase_init(&t, "sq8k", 64);
    tdim(&t, "hidden", 8192);
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_stages, 16);
    assert_int_equal(gs.stream_qkv, 0);
    tparam(&t, "stream_qkv", "1");
    expect_refused(&t, "param.stream_qkv = 1: 0, or 1 where its tokens fit (hidden 8192 at 16 stages do not)");
    tcase_init(&t, "sq8k8", 64);
    tdim(&t, "hidden", 8192);
    tparam(&t, "stream_stages", "8");
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_qkv, 0); /* fits, but 8 stages */
    tparam(&t, "stream_qkv", "1");
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_qkv, 1);
    /* gemv=stream's gate/up: streamed at B > 1 or at 16 stages (hidden >= 4096), where its tokens fit */
    tcase_init(&t, "sgu", 64);
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_gateup, 1); /* B = 1, hidden 4096: 16 stages */
    tparam(&t, "stream_gateup", "0");
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_gateup, 0);
    tcase_init(&t, "sgu-b8", 64);
    tdim(&t, "batch", 8);
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_gateup, 1);
    tparam(&t, "stream_gateup", "0");
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_gateup, 0);
    tcase_init(&t, "sgu-2048", 64);
    tdim(&t, "hidden", 2048);
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_gateup, 0); /* B = 1, 8 stages */
    tdim(&t, "batch", 2);
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_gateup, 1);
    tcase_init(&t, "sgu-8k-b8", 64);
    tdim(&t, "hidden", 8192);
    tdim(&t, "batch", 8);
    assert_int_equal(dr_geometry(&t.k, &gs, why, sizeof why), 0);
    assert_int_equal(gs.stream_gateup, 0); /* 16 stages: the tokens do not fit */
    tcase_init(&t, "sgu8k", 64);
    tdim(&t, "hidden", 8192);
    tparam(&t, "stream_gateup", "1");
    expect_refused(&t, "param.stream_gateup = 1: 0, or 1 where its tokens fit (hidden 8192 at 16 stages do not)");
    tcase_init(&t, "sqx", 64);
    tparam(&t, "stream_qkv", "yes");
    expect_refused(&t, "param.stream_qkv = yes");
    tcase_init(&t, "pa", 64);
    tparam(&t, "part", "attn");
    tparam(&t, "schedule", "dynamic");
    assert_int_equal(dr_geometry(&t.k, &g, why, sizeof why), 0);
    assert_int_equal(g.attn_only, 1);
    assert_int_equal(g.dynamic, 1);
}

/* The fused attention's plan: chunk ~ sqrt(kv * grp) (a CTA's K/V load against the last CTA's merge of
   every split), raised to at most ~264 CTAs, in 32-position tiles; for every length the active splits
   cover [0, len) and the last of them holds the new position (its CTA appends), those past it start at
   or past len (they exit); dim.chunk forces both paths' chunks. */
static void expect_plan(tcase *t, int64_t chunk, int64_t splits)
{
    dr_geom g;
    char why[256];
    if (dr_geometry(&t->k, &g, why, sizeof why) != 0)
        fail_msg("%s", why);
    if (g.fchunk != chunk || g.fsplits != splits)
        fail_msg("case %s: fused plan %lld x %lld, expected %lld x %lld", t->k.name, (long long)g.fchunk,
                 (long long)g.fsplits, (long long)chunk, (long long)splits);
    for (int len = 1; len <= g.kv; len++) {
        const int nact = dr_active_splits(len, (int)g.fchunk);
        if (!(nact >= 1 && nact <= g.fsplits && (nact - 1) * g.fchunk <= len - 1 && len - 1 < nact * g.fchunk))
            fail_msg("case %s len %d: %d active splits of %lld", t->k.name, len, nact, (long long)g.fchunk);
    }
}

static void test_fused_plan(void **state)
{
    (void)state;
    tcase t;
    tcase_init(&t, "llama8b-4l", 64); /* 32/8 heads, kv 4096: 128 x 32, 256 CTAs as the split path */
    expect_plan(&t, 128, 32);
    tcase_init(&t, "small-16l", 64); /* 16/4 heads, kv 1024: 64 x 16 */
    tdim(&t, "hidden", 2048);
    tdim(&t, "heads", 16);
    tdim(&t, "kv_heads", 4);
    tdim(&t, "kv", 1024);
    expect_plan(&t, 64, 16);
    tcase_init(&t, "b8", 64); /* 64 (sequence, KV head) pairs: 1024 x 4, 256 CTAs */
    tdim(&t, "batch", 8);
    expect_plan(&t, 1024, 4);
    tcase_init(&t, "long-kv", 64); /* sqrt(32768 x 4) = 362 would give 728 CTAs: 1024 x 32 */
    tdim(&t, "kv", 32768);
    expect_plan(&t, 1024, 32);
    tcase_init(&t, "tiny", 64); /* kv 48, 2 heads a KV head: one tile of 32, two splits */
    tdim(&t, "heads", 4);
    tdim(&t, "kv_heads", 2);
    tdim(&t, "head_dim", 64);
    tdim(&t, "kv", 48);
    expect_plan(&t, 32, 2);
    tdim(&t, "chunk", 20);
    expect_plan(&t, 20, 3);
    /* the kernels hold the chunk in an int (split * chunk + chunk): past 2^24 it is refused, not wrapped
       (the case's dim.chunk, the last dim set, changed in place: the first of a name is the one read) */
    klab_dim *chunk = &t.d[t.k.nnamed - 1];
    chunk->value = (int64_t)1 << 24;
    expect_plan(&t, (int64_t)1 << 24, 1);
    chunk->value = ((int64_t)1 << 24) + 1;
    expect_refused(&t, "dim.chunk = 16777217: 1 to 2^24 positions");
    chunk->value = (int64_t)3 << 30;
    expect_refused(&t, "dim.chunk = 3221225472");
    tcase_init(&t, "tickets", 64);
    tdim(&t, "batch", 8);
    tdim(&t, "heads", 1024);
    tdim(&t, "kv_heads", 1024);
    expect_refused(&t, "fused attention's tickets");
}

/* llama8b-4l at fp16: 4 x 218.1 M weights, 4 x 8 x 4095 x 128 x 2 KV read, 4 x 8 x 128 x 2 written */
static void test_bytes(void **state)
{
    (void)state;
    tcase t;
    tcase_init(&t, "llama8b-4l", 64);
    tdim(&t, "layers", 4);
    dr_geom g;
    char why[256];
    assert_int_equal(dr_geometry(&t.k, &g, why, sizeof why), 0);
    double w, r, wr;
    dr_step_bytes_parts(&g, 2, &w, &r, &wr);
    const double per_layer = 4096.0 * 6144 + 4096.0 * 4096 + 2 * 14336.0 * 4096 + 14336.0 * 4096 + 2 * 4096;
    assert_float_equal(w, 4 * per_layer * 2, 0);
    assert_float_equal(r, 4.0 * 8 * 4095 * 128 * 2 * 2, 0);
    assert_float_equal(wr, 4.0 * 8 * 128 * 2 * 2, 0);
    const double all = dr_step_bytes(&g, 2);
    assert_true(all > w + r + wr && all < w + r + wr + 1e5);
    /* dynamic: the mean length */
    tparam(&t, "schedule", "dynamic");
    assert_int_equal(dr_geometry(&t.k, &g, why, sizeof why), 0);
    dr_step_bytes_parts(&g, 2, &w, &r, &wr);
    assert_float_equal(r, 4.0 * 8 * (0.5 * 4097 - 1) * 128 * 2 * 2, 1e-6);
}

/* KLAB_DECODE_PROBES naming a folder that does not exist yet: made at setup, every level of it (a whole
   H200 run's probes were lost when it was found missing only at teardown); a folder that cannot be made
   is refused at setup, saying which. */
static void test_probes_folder_made(void **state)
{
    (void)state;
    char dir[] = "/tmp/klab-probes-XXXXXX", nested[128], probes[192], why[256];
    assert_non_null(mkdtemp(dir));
    snprintf(nested, sizeof nested, "%s/a/b", dir);
    setenv("KLAB_DECODE_PROBES", nested, 1);
    dr_probes p;
    if (dr_probes_open(&p, 0, 4, 4, NULL, why, sizeof why) != 0)
        fail_msg("%s", why);
    snprintf(probes, sizeof probes, "%s/decode_replay.probes", nested);
    struct stat st;
    assert_int_equal(stat(probes, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    dr_probes_close(&p);
    setenv("KLAB_DECODE_PROBES", "/proc/klab-no/such", 1);
    assert_int_equal(dr_probes_open(&p, 0, 4, 4, NULL, why, sizeof why), -1);
    assert_non_null(strstr(why, "/proc/klab-no"));
    dr_probes_close(&p);
    unsetenv("KLAB_DECODE_PROBES");
}

/* The tuning space: the attention path times the GEMV (plain, pipe split 1, 2, 4, stream: 4 x 5 = 20, and
   the own choice: 21 a profile, 84 entries over the four profiles, within --tune's cap), every configuration named
   once and parsed back to the paths its name says, the own choice DR_ATTN_OWN (mma) and DR_GEMV_OWN, nothing
   past the last; the down projection's K split of each GEMV. */
static void test_config_space(void **state)
{
    (void)state;
    assert_string_equal(dr_config_name(0), "attn=fused,gemv=plain");
    assert_string_equal(dr_config_name(1), "attn=fused,gemv=pipe,ksplit=1");
    assert_string_equal(dr_config_name(3), "attn=fused,gemv=pipe,ksplit=4");
    assert_string_equal(dr_config_name(4), "attn=fused,gemv=stream");
    assert_string_equal(dr_config_name(5), "attn=split,gemv=plain");
    assert_string_equal(dr_config_name(7), "attn=split,gemv=pipe,ksplit=2");
    assert_string_equal(dr_config_name(14), "attn=mma,gemv=stream");
    assert_string_equal(dr_config_name(15), "attn=mma_cluster,gemv=plain");
    assert_string_equal(dr_config_name(19), "attn=mma_cluster,gemv=stream");
    assert_int_equal(DR_NCONFIGS, 20);
    assert_true(4 * (DR_NCONFIGS + 1) <= 96); /* klab's UNIT_MAX_ENTRIES: one --tune run times them all */
    assert_null(dr_config_name(DR_NCONFIGS));
    assert_null(dr_config_name(-2));
    assert_string_equal(dr_config_name(-1), dr_config_name(DR_ATTN_OWN * DR_NGEMV + DR_GEMV_OWN));
    assert_string_equal(dr_config_name(-1), "attn=mma,gemv=plain");
    int attn = -9, gemv = -9;
    assert_int_equal(dr_config_paths(-1, &attn, &gemv), 0);
    assert_int_equal(attn, DR_ATTN_MMA);
    assert_int_equal(gemv, DR_GEMV_OWN);
    assert_int_equal(dr_config_paths(DR_NCONFIGS, &attn, &gemv), -1);
    assert_int_equal(dr_config_paths(-2, &attn, &gemv), -1);
    for (int c = 0; c < DR_NCONFIGS; c++) {
        assert_int_equal(dr_config_paths(c, &attn, &gemv), 0);
        const char *name = dr_config_name(c);
        /* the name says the paths: the attention axis' name first, then the GEMV and its split */
        const char *an = dr_attn_config(attn);
        assert_non_null(an);
        assert_memory_equal(name, an, strlen(an));
        const int ks = dr_gemv_ksplit(gemv);
        char want[64];
        if (gemv == DR_GEMV_STREAM)
            snprintf(want, sizeof want, "%s,gemv=stream", an);
        else if (ks == 0)
            snprintf(want, sizeof want, "%s,gemv=plain", an);
        else
            snprintf(want, sizeof want, "%s,gemv=pipe,ksplit=%d", an, ks);
        assert_string_equal(name, want);
        for (int d = 0; d < c; d++)
            assert_string_not_equal(dr_config_name(d), name);
    }
    assert_int_equal(dr_gemv_ksplit(DR_GEMV_PLAIN), 0);
    assert_int_equal(dr_gemv_ksplit(DR_GEMV_PIPE), 1);
    assert_int_equal(dr_gemv_ksplit(DR_GEMV_PIPE_K2), 2);
    assert_int_equal(dr_gemv_ksplit(DR_GEMV_PIPE_K4), 4);
    assert_int_equal(dr_gemv_ksplit(DR_GEMV_STREAM), 0); /* its register GEMVs (QKV, gate/up) are plain */
    assert_int_equal(dr_gemv_ksplit(DR_NGEMV), -1);
    assert_int_equal(dr_gemv_ksplit(-1), -1);
}

/* gemv=stream's plan: the K splits that make ceil(N / 64) column tiles fill the SMs once, 1 to 8 (the
   portable cluster), no more than the K tiles of 64. */
static void test_stream_splits(void **state)
{
    (void)state;
    /* llama8b on an H200 (132 SMs): 64 column tiles, 2 splits, 128 CTAs, for O (K 4096) and down (14336) */
    assert_int_equal(dr_stream_splits(4096, 4096, 132), 2);
    assert_int_equal(dr_stream_splits(4096, 14336, 132), 2);
    /* small-16l: 32 column tiles, 4 splits */
    assert_int_equal(dr_stream_splits(2048, 2048, 132), 4);
    assert_int_equal(dr_stream_splits(2048, 8192, 132), 4);
    /* few columns: the cluster's 8 at most; few K tiles: no more splits than tiles */
    assert_int_equal(dr_stream_splits(264, 4104, 132), 8);
    assert_int_equal(dr_stream_splits(264, 256, 132), 4);
    assert_int_equal(dr_stream_splits(136, 64, 132), 1);
    assert_int_equal(dr_stream_splits(136, 72, 132), 2); /* 72 of K: a whole tile and a clipped one */
    /* more column tiles than SMs: one split */
    assert_int_equal(dr_stream_splits(16384, 4096, 132), 1);
    assert_int_equal(dr_stream_splits(4096, 4096, 0), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention_by_hand),   cmocka_unit_test(test_rope_in_the_append),
        cmocka_unit_test(test_steps_read_earlier_appends), cmocka_unit_test(test_stack_by_hand),
        cmocka_unit_test(test_schedule),            cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_bytes),             cmocka_unit_test(test_probes_folder_made),
        cmocka_unit_test(test_fused_plan),          cmocka_unit_test(test_config_space),
        cmocka_unit_test(test_stream_splits),
    };
    KLAB_RUN_TESTS(tests);
}
