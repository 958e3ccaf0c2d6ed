/* decode_replay's tensors (plugins/decode_replay/decode_replay_tensors.c) for every case of
 * ini/decode_replay.ini and tests/gpu/ini/decode_replay.ini, built as a run builds them: each binding of a
 * kernel argument lands on the tensor of that name (the graphs bound through a table in the wrong order
 * wrote qkv into 'attn' and, with param.part = attn, launched on a NULL cursor: the H200 run of 07:42),
 * every kernel's write extent lies within its tensor, nothing writes an input, the cursor is written
 * once a step, and every kernel has a probe slot of its own within the ring. Pure C, no GPU. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "klab_test.h"

#include "plugins/decode_replay/decode_replay.h"
#include "config/case_build.h"
#include "config/ini_config.h"

static const char *const inis[] = {KLAB_TEST_DATA "/../ini/decode_replay.ini",
                                   KLAB_TEST_DATA "/gpu/ini/decode_replay.ini"};

/* A fake device address for position j of the table: distinct, never NULL. */
static void *fake(int j)
{
    return (void *)(uintptr_t)(0x100000u * (unsigned)(j + 1));
}

/* The fake address of the tensor called name, or NULL when the case has none. */
static const void *named(const dr_tensor_spec *spec, int n, const char *name)
{
    for (int j = 0; j < n; j++)
        if (!strcmp(spec[j].name, name))
            return fake(j);
    return NULL;
}

static void check_binding(const char *label, const dr_tensor_spec *spec, int n, const int idx[DR_T_COUNT])
{
    void *table[DR_T_COUNT];
    for (int j = 0; j < n; j++)
        table[j] = fake(j);
    unsigned long long ring;
    dr_dev d;
    memset(&d, 0xff, sizeof d);
    dr_bind(idx, table, &ring, &d);
    const struct { const void *got; const char *name; } want[] = {
        {d.x, "x"},          {d.wqkv, "wqkv"},   {d.wo, "wo"},         {d.wgu, "wgu"},       {d.wd, "wd"},
        {d.g_attn, "g_attn"}, {d.g_mlp, "g_mlp"}, {d.cos_t, "cos"},     {d.sin_t, "sin"},     {d.lens, "lens"},
        {d.kc, "k_cache"},   {d.vc, "v_cache"},  {d.cursor, "cursor"}, {d.y, "y"},           {d.h, "h"},
        {d.qkv, "qkv"},      {d.attn, "attn"},   {d.act, "act"},       {d.opart, "o_part"},  {d.ml, "m_l"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (want[i].got != named(spec, n, want[i].name))
            fail_msg("%s: the kernels' '%s' is bound to %p, the tensor of that name is %p", label, want[i].name,
                     want[i].got, named(spec, n, want[i].name));
    if (d.probe != &ring)
        fail_msg("%s: the probe ring was not passed through", label);
    /* gemv=stream's maps are the caller's to attach (setup's or eager's): none left from an earlier bind */
    if (d.stream)
        fail_msg("%s: dr_bind left maps (%p) in the binding", label, (const void *)d.stream);
}

static void check_writes(const char *label, const dr_geom *g, int attn, const dr_tensor_spec *spec,
                         const int idx[DR_T_COUNT])
{
    const int nk = (int)g->layers * dr_kernels_per_layer(g);
    char *slot_used = calloc((size_t)nk, 1);
    assert_non_null(slot_used);
    int cursor_writes = 0;
    for (int l = 0; l < g->layers; l++) {
        dr_write w[DR_WRITES_PER_LAYER];
        const int nw = dr_layer_writes(g, attn, l, w);
        assert_true(nw > 0 && nw <= DR_WRITES_PER_LAYER);
        int seen_k[DR_KPL] = {0};
        for (int i = 0; i < nw; i++) {
            const int j = idx[w[i].t];
            if (j < 0)
                fail_msg("%s layer %d: kernel %d writes tensor %d, which the case does not make", label, l,
                         w[i].kernel, w[i].t);
            if (spec[j].role == KLAB_INPUT)
                fail_msg("%s layer %d: kernel %d writes input '%s'", label, l, w[i].kernel, spec[j].name);
            if (w[i].n == 0 || w[i].off + w[i].n > spec[j].count)
                fail_msg("%s layer %d: kernel %d writes '%s' [%zu, %zu) of %zu elements", label, l, w[i].kernel,
                         spec[j].name, w[i].off, w[i].off + w[i].n, spec[j].count);
            cursor_writes += w[i].t == DR_T_CURSOR;
            const int k = w[i].kernel;
            assert_true(k >= 0 && k < DR_KPL);
            if (seen_k[k]++)
                continue;
            const int s = dr_kernel_index(g, l, k);
            if (s < 0 || s >= nk || slot_used[s]++)
                fail_msg("%s layer %d: kernel %d has probe slot %d of %d (or a slot already taken)", label, l, k, s,
                         nk);
        }
    }
    if (cursor_writes != 1)
        fail_msg("%s: the cursor is written %d times a step", label, cursor_writes);
    free(slot_used);
}

static void test_every_case(void **state)
{
    (void)state;
    cfg_experiment *e = malloc(sizeof *e);
    assert_non_null(e);
    const klab_plugin desc = {.params = dr_params, .dims = dr_dims, .flags = KLAB_PLUGIN_STEPS,
                              .default_steps = DR_DEFAULT_STEPS};
    int checked = 0, attn_only = 0, split = 0;
    for (size_t f = 0; f < sizeof inis / sizeof inis[0]; f++) {
        char err[512];
        if (cfg_load(inis[f], e, err, sizeof err) != 0)
            fail_msg("%s", err);
        for (int c = 0; c < e->ncases; c++)
            for (int t = 0; t < e->cases[c].ndtypes; t++) {
                built_case b;
                case_build(&b, &e->cases[c], e->cases[c].dtypes[t], &desc);
                char label[160], why[400];
                snprintf(label, sizeof label, "%s [case %s]", inis[f], e->cases[c].name);
                dr_geom g;
                if (dr_geometry(&b.kcase, &g, why, sizeof why) != 0)
                    fail_msg("%s: %s", label, why);
                dr_tensor_spec spec[DR_T_COUNT];
                const int n = dr_tensor_specs(&g, b.kcase.dtype, spec);
                int idx[DR_T_COUNT];
                dr_tensor_index(spec, n, idx);
                dr_sizes z;
                dr_tensor_sizes(&g, &z);
                for (int j = 0; j < n; j++) {
                    assert_int_equal(idx[spec[j].id], j);
                    assert_true(spec[j].count > 0);
                }
                /* the sizes the kernels assume of the split-KV scratch, which serves both paths' plans */
                if (g.splits > 1 || g.fsplits > 1) {
                    assert_int_equal(spec[idx[DR_T_OPART]].count, z.opart);
                    assert_int_equal(spec[idx[DR_T_OPART]].dtype, KLAB_FP32);
                    assert_int_equal(spec[idx[DR_T_ML]].count, z.ml);
                }
                check_binding(label, spec, n, idx);
                check_writes(label, &g, DR_ATTN_SPLIT, spec, idx);
                check_writes(label, &g, DR_ATTN_FUSED, spec, idx);
                check_writes(label, &g, DR_ATTN_MMA, spec, idx);
                check_writes(label, &g, DR_ATTN_MMA_CLUSTER, spec, idx);
                checked++;
                attn_only += g.attn_only;
                split += g.splits > 1;
            }
    }
    free(e);
    /* both files' cases, the attention alone and split caches among them */
    assert_true(checked >= 2 * (10 + 5));
    assert_true(attn_only >= 2 * 3 && split >= 2 * 5);
}

/* The binding is by position in the order of making, whatever the ids: with param.part = attn (no weights,
   no stack scratch) positions and ids differ, and a table read by id would hand the kernels the wrong
   tensors. */
static void test_attn_only_positions(void **state)
{
    (void)state;
    dr_geom g;
    memset(&g, 0, sizeof g);
    g.batch = 1, g.layers = 2, g.hidden = 256, g.heads = 4, g.kv_heads = 2, g.head_dim = 64, g.inter = 512;
    g.kv = 100, g.kv_min = 1, g.steps = 6, g.attn_only = 1, g.nqkv = 8 * 64, g.chunk = 32, g.splits = 4;
    dr_tensor_spec spec[DR_T_COUNT];
    const int n = dr_tensor_specs(&g, KLAB_FP16, spec);
    const char *const order[] = {"x", "cos", "sin", "lens", "k_cache", "v_cache", "cursor", "y", "o_part", "m_l"};
    assert_int_equal(n, 10);
    for (int j = 0; j < n; j++)
        assert_string_equal(spec[j].name, order[j]);
    int idx[DR_T_COUNT];
    dr_tensor_index(spec, n, idx);
    assert_int_equal(idx[DR_T_CURSOR], 6);
    assert_int_equal(idx[DR_T_WQKV], -1);
    check_binding("attn-only", spec, n, idx);
    /* the combine, not the attention, is the step's last kernel, and the probes number the layer's two
       kernels 0 and 1 */
    dr_write w[DR_WRITES_PER_LAYER];
    const int nw = dr_layer_writes(&g, DR_ATTN_SPLIT, 1, w);
    assert_int_equal(w[nw - 1].t, DR_T_CURSOR);
    assert_int_equal(w[nw - 1].kernel, DR_K_COMBINE);
    assert_int_equal(dr_kernel_index(&g, 1, DR_K_ATTN), 2);
    assert_int_equal(dr_kernel_index(&g, 1, DR_K_COMBINE), 3);
    check_writes("attn-only", &g, DR_ATTN_SPLIT, spec, idx);
}

/* The fused path: no combine; its attention writes the caches' new entries, its plan's partials and o,
   and, the step's last kernel with param.part = attn, the cursor. Its partials may need more room than
   the split path's (a finer plan): o_part and m_l are sized for the larger. */
static void test_fused_writes(void **state)
{
    (void)state;
    dr_geom g;
    memset(&g, 0, sizeof g);
    g.batch = 2, g.layers = 2, g.hidden = 256, g.heads = 4, g.kv_heads = 2, g.head_dim = 64, g.inter = 512;
    g.kv = 100, g.kv_min = 1, g.steps = 6, g.attn_only = 1, g.nqkv = 8 * 64;
    g.chunk = 100, g.splits = 1, g.fchunk = 32, g.fsplits = 4;
    dr_tensor_spec spec[DR_T_COUNT];
    const int n = dr_tensor_specs(&g, KLAB_FP16, spec);
    int idx[DR_T_COUNT];
    dr_tensor_index(spec, n, idx);
    assert_true(idx[DR_T_OPART] >= 0 && idx[DR_T_ML] >= 0); /* unsplit on the split path, split on the fused */
    assert_int_equal(spec[idx[DR_T_OPART]].count, 2 * 4 * 4 * 64);
    assert_int_equal(spec[idx[DR_T_ML]].count, 2 * 4 * 4 * 2);
    dr_write w[DR_WRITES_PER_LAYER];
    const int nw = dr_layer_writes(&g, DR_ATTN_FUSED, 1, w);
    for (int i = 0; i < nw; i++)
        assert_int_equal(w[i].kernel, DR_K_ATTN);
    assert_int_equal(w[nw - 1].t, DR_T_CURSOR);
    assert_int_equal(w[nw - 2].t, DR_T_Y);
    assert_int_equal(w[nw - 2].off, 1 * 2 * 4 * 64);
    assert_int_equal(w[2].t, DR_T_OPART);
    assert_int_equal(w[2].n, 2 * 4 * 4 * 64);
    check_writes("fused attn-only", &g, DR_ATTN_FUSED, spec, idx);
    /* the split path of the same case: unsplit, the attention writes o and the cursor */
    const int ns = dr_layer_writes(&g, DR_ATTN_SPLIT, 1, w);
    assert_int_equal(ns, 4);
    assert_int_equal(w[ns - 1].kernel, DR_K_ATTN);
    /* the stack: the fused path writes o from the attention, the split one from the combine */
    g.attn_only = 0, g.splits = 4, g.chunk = 32;
    const int n2 = dr_tensor_specs(&g, KLAB_FP16, spec);
    dr_tensor_index(spec, n2, idx);
    const int nf = dr_layer_writes(&g, DR_ATTN_FUSED, 0, w);
    int attn_writes_o = 0, combine = 0;
    for (int i = 0; i < nf; i++) {
        attn_writes_o += w[i].kernel == DR_K_ATTN && w[i].t == DR_T_ATTN;
        combine += w[i].kernel == DR_K_COMBINE;
    }
    assert_int_equal(attn_writes_o, 1);
    assert_int_equal(combine, 0);
    const int nsp = dr_layer_writes(&g, DR_ATTN_SPLIT, 0, w);
    combine = 0;
    for (int i = 0; i < nsp; i++)
        combine += w[i].kernel == DR_K_COMBINE && w[i].t == DR_T_ATTN;
    assert_int_equal(combine, 1);
    check_writes("fused stack", &g, DR_ATTN_FUSED, spec, idx);
    check_writes("split stack", &g, DR_ATTN_SPLIT, spec, idx);
    /* the mma path is the fused one on tensor cores: its plan, its writes, at every layer */
    for (int l = 0; l < g.layers; l++) {
        dr_write wm[DR_WRITES_PER_LAYER];
        const int nl = dr_layer_writes(&g, DR_ATTN_FUSED, l, w), nm = dr_layer_writes(&g, DR_ATTN_MMA, l, wm);
        assert_int_equal(nm, nl);
        for (int i = 0; i < nl; i++) {
            assert_int_equal(wm[i].kernel, w[i].kernel);
            assert_int_equal(wm[i].t, w[i].t);
            assert_int_equal(wm[i].off, w[i].off);
            assert_int_equal(wm[i].n, w[i].n);
        }
        /* the cluster path: o by the attention, no partials */
        const int nc = dr_layer_writes(&g, DR_ATTN_MMA_CLUSTER, l, wm);
        int partials = 0, o = 0;
        for (int i = 0; i < nc; i++) {
            partials += wm[i].t == DR_T_OPART || wm[i].t == DR_T_ML;
            o += wm[i].kernel == DR_K_ATTN && wm[i].t == DR_T_ATTN;
        }
        assert_int_equal(partials, 0);
        assert_int_equal(o, 1);
    }
}

/* The attention axis of the tuning space: the fused path value 0, the split path 1, the mma path 2, the
   cluster path 3 and the own choice, nothing past it. */
static void test_attn_configs(void **state)
{
    (void)state;
    assert_string_equal(dr_attn_config(-1), "attn=mma");
    assert_string_equal(dr_attn_config(0), "attn=fused");
    assert_string_equal(dr_attn_config(1), "attn=split");
    assert_string_equal(dr_attn_config(2), "attn=mma");
    assert_string_equal(dr_attn_config(3), "attn=mma_cluster");
    assert_null(dr_attn_config(4));
    assert_null(dr_attn_config(-2));
    assert_int_equal(dr_attn_of_config(-1), DR_ATTN_MMA);
    assert_int_equal(dr_attn_of_config(1), DR_ATTN_SPLIT);
    assert_int_equal(dr_attn_of_config(2), DR_ATTN_MMA);
    assert_int_equal(dr_attn_of_config(3), DR_ATTN_MMA_CLUSTER);
    assert_int_equal(dr_attn_of_config(4), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_case),
        cmocka_unit_test(test_attn_only_positions),
        cmocka_unit_test(test_fused_writes),
        cmocka_unit_test(test_attn_configs),
    };
    KLAB_RUN_TESTS(tests);
}
