/* decode_replay's tensors on the CPU: which a case has and in what order setup makes them, how a table of
 * them binds to the kernels' arguments, and what each kernel writes. Pure, so the tests can hold every
 * case of the INI files to it: a graph bound to the wrong tensor, or a kernel writing past one, is found
 * without a GPU (the H200 run of 07:42 met both: graphs bound through a table in the wrong order wrote
 * qkv into 'attn' and past its red zone, and with param.part = attn launched on a NULL cursor). */
#include <string.h>

#include "decode_replay.h"

const char *const dr_params[] = {"schedule", "part", "eps", "probes", "stream_stages", "stream_qkv",
                                 "stream_gateup", NULL};
const char *const dr_dims[] = {"batch", "layers", "hidden", "heads", "kv_heads", "head_dim",
                               "inter", "kv", "kv_min", "chunk", NULL};

int dr_tensor_specs(const dr_geom *g, klab_dtype d, dr_tensor_spec spec[DR_T_COUNT])
{
    dr_sizes z;
    dr_tensor_sizes(g, &z);
    const struct {
        const char *name;
        klab_role role;
        int fp32; /* else the case's dtype; the lengths and the cursor are int32 */
        size_t count;
        int present;
    } all[DR_T_COUNT] = {
        [DR_T_X] = {"x", KLAB_INPUT, 0, z.x, 1},
        [DR_T_WQKV] = {"wqkv", KLAB_INPUT, 0, z.wqkv, !g->attn_only},
        [DR_T_WO] = {"wo", KLAB_INPUT, 0, z.wo, !g->attn_only},
        [DR_T_WGU] = {"wgu", KLAB_INPUT, 0, z.wgu, !g->attn_only},
        [DR_T_WD] = {"wd", KLAB_INPUT, 0, z.wd, !g->attn_only},
        [DR_T_GATTN] = {"g_attn", KLAB_INPUT, 0, z.gnorm, !g->attn_only},
        [DR_T_GMLP] = {"g_mlp", KLAB_INPUT, 0, z.gnorm, !g->attn_only},
        [DR_T_COS] = {"cos", KLAB_INPUT, 1, z.table, 1},
        [DR_T_SIN] = {"sin", KLAB_INPUT, 1, z.table, 1},
        [DR_T_LENS] = {"lens", KLAB_INPUT, 0, z.sched, 1},
        [DR_T_KC] = {"k_cache", KLAB_STATE, 0, z.cache, 1},
        [DR_T_VC] = {"v_cache", KLAB_STATE, 0, z.cache, 1},
        [DR_T_CURSOR] = {"cursor", KLAB_STATE, 0, 1, 1},
        [DR_T_Y] = {"y", KLAB_OUTPUT, 0, z.y, 1},
        [DR_T_H] = {"h", KLAB_SCRATCH, 0, z.h, !g->attn_only},
        [DR_T_ACT] = {"act", KLAB_SCRATCH, 0, z.act, !g->attn_only},
        [DR_T_QKV] = {"qkv", KLAB_SCRATCH, 0, z.qkv, !g->attn_only},
        [DR_T_ATTN] = {"attn", KLAB_SCRATCH, 0, z.attn, !g->attn_only},
        [DR_T_OPART] = {"o_part", KLAB_SCRATCH, 1, z.opart, g->splits > 1 || g->fsplits > 1},
        [DR_T_ML] = {"m_l", KLAB_SCRATCH, 1, z.ml, g->splits > 1 || g->fsplits > 1},
    };
    int n = 0;
    for (int i = 0; i < DR_T_COUNT; i++) {
        if (!all[i].present)
            continue;
        const klab_dtype dt = i == DR_T_LENS || i == DR_T_CURSOR ? KLAB_INT32 : all[i].fp32 ? KLAB_FP32 : d;
        spec[n++] = (dr_tensor_spec){i, all[i].name, all[i].role, dt, all[i].count};
    }
    return n;
}

void dr_tensor_index(const dr_tensor_spec *spec, int n, int idx[DR_T_COUNT])
{
    for (int i = 0; i < DR_T_COUNT; i++)
        idx[i] = -1;
    for (int j = 0; j < n; j++)
        idx[spec[j].id] = j;
}

void dr_bind(const int idx[DR_T_COUNT], void *const *table, unsigned long long *probe, dr_dev *d)
{
#define P(i) (idx[i] >= 0 ? table[idx[i]] : NULL)
    *d = (dr_dev){.x = P(DR_T_X), .wqkv = P(DR_T_WQKV), .wo = P(DR_T_WO), .wgu = P(DR_T_WGU), .wd = P(DR_T_WD),
                  .g_attn = P(DR_T_GATTN), .g_mlp = P(DR_T_GMLP), .cos_t = P(DR_T_COS), .sin_t = P(DR_T_SIN),
                  .lens = P(DR_T_LENS), .kc = P(DR_T_KC), .vc = P(DR_T_VC), .cursor = P(DR_T_CURSOR),
                  .y = P(DR_T_Y), .h = P(DR_T_H), .qkv = P(DR_T_QKV), .attn = P(DR_T_ATTN), .act = P(DR_T_ACT),
                  .opart = P(DR_T_OPART), .ml = P(DR_T_ML), .probe = probe};
#undef P
}

/* As enqueue launches them: the GEMVs write nb x nout, the attention the new entry of each (sequence, KV
   head) in the layer's slice of both caches and, split, a partial o and (m, l) per (sequence, head,
   split) of its path's plan, else o itself; the split path's combine o, the fused path's attention o too
   (its last CTA a head); the cluster path's attention o alone (its splits meet in shared memory); the
   step's last kernel the cursor. */
int dr_layer_writes(const dr_geom *g, int attn, int l, dr_write w[DR_WRITES_PER_LAYER])
{
    const size_t B = (size_t)g->batch, H = (size_t)g->hidden, D = (size_t)g->head_dim, I = (size_t)g->inter;
    const int fused = attn != DR_ATTN_SPLIT; /* fused and mma: one kernel, the fused plan */
    const size_t splits = (size_t)(fused ? g->fsplits : g->splits);
    const size_t qd = (size_t)g->heads * D, per_split = B * (size_t)g->heads * splits;
    const size_t cl = B * (size_t)g->kv_heads * (size_t)g->kv * D;
    const int split = splits > 1 && attn != DR_ATTN_MMA_CLUSTER, last = l == g->layers - 1;
    const int out_t = g->attn_only ? DR_T_Y : DR_T_ATTN;
    const size_t out_off = g->attn_only ? (size_t)l * B * qd : 0;
    const int merger = split && !fused ? DR_K_COMBINE : DR_K_ATTN; /* the kernel that writes o */
    int n = 0;
#define W(k, t, o, c) (w[n++] = (dr_write){(k), (t), (o), (c)})
    if (!g->attn_only)
        W(DR_K_QKV, DR_T_QKV, 0, B * (size_t)g->nqkv);
    W(DR_K_ATTN, DR_T_KC, (size_t)l * cl, cl);
    W(DR_K_ATTN, DR_T_VC, (size_t)l * cl, cl);
    if (split) {
        W(DR_K_ATTN, DR_T_OPART, 0, per_split * D);
        W(DR_K_ATTN, DR_T_ML, 0, per_split * 2);
    }
    W(merger, out_t, out_off, B * qd);
    if (!g->attn_only) {
        W(DR_K_OPROJ, DR_T_H, 0, B * H);
        W(DR_K_GATEUP, DR_T_ACT, 0, B * I);
        W(DR_K_DOWN, last ? DR_T_Y : DR_T_H, 0, B * H);
    }
    if (last)
        W(g->attn_only ? merger : DR_K_DOWN, DR_T_CURSOR, 0, 1);
#undef W
    return n;
}
