/* fused_gated_mlp: the gated half of an LLM MLP,
 *     out (m x f) = act(x · Wg^T) ⊙ (x · Wu^T),    x m x k, Wg and Wu f x k (nn.Linear weights), bf16,
 * act silu (SwiGLU) or gelu (GeGLU), named by the case (param.activation), in three versions:
 *   unfused  two cuBLASLt GEMMs (gate and up, each m x f to memory), then swiglu.so's fused
 *            activation kernel reading both back: what eager PyTorch runs, less its extra silu tensor
 *   packed   one cuBLASLt GEMM over the concatenated [Wg; Wu] (2f x k, made in setup), writing the
 *            m x 2f [gate | up] rows, then swiglu.so's kernel on the packed layout: one launch fewer
 *            and x read once, the intermediate still written and read back
 *   fused    one GEMM on the shared Hopper mainloop (lib/hopper/hopper_gemm.cuh, sm_90a) over Wg and Wu
 *            interleaved in blocks of GM_HALF rows (made in setup), so a 2 GM_HALF-column tile holds
 *            GM_HALF gate then GM_HALF up columns and each thread has a gate and its up side by side
 *            in its accumulators: act(gate) * up is computed in the epilogue and only out is written.
 * Dimensions: dim.m (tokens), dim.k (hidden), dim.f (intermediate). */
#ifndef FUSED_GATED_MLP_H
#define FUSED_GATED_MLP_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* profiles, in the descriptor's order */
enum { GM_UNFUSED = 0, GM_PACKED, GM_FUSED, GM_NPROFILES };

/* The interleave of the fused profile's weight: rows [2 b GM_HALF, (2 b + 1) GM_HALF) are Wg's rows
   [b GM_HALF, (b + 1) GM_HALF), the next GM_HALF Wu's; its tiles are 2 GM_HALF columns wide. */
#define GM_HALF 128
/* activations: activation.cuh's ACT_SILU and ACT_GELU */
enum { GM_SILU = 0, GM_GELU = 1 };

typedef struct gated_mlp_shape {
    int64_t m, k, f;
    int act; /* GM_SILU or GM_GELU */
} gated_mlp_shape;

/* The fused profile's kernel variants (fused_gated_mlp_fused.cu instantiates them in this order) and its
   tuning space: a variant with a grid (one CTA a tile, or persistent: one a resident cluster slot,
   hg::grid_of) and an epilogue (act(gate) * up from registers straight to out, or staged through shared
   memory and written by TMA stores: lib/hopper/hopper_store.cuh; 128 x 256 variants). */
enum { GV_128x256 = 0, GV_128x256_C2, GV_64x256, GV_NVARIANTS };
typedef struct gv_config {
    int variant;
    int persistent;
    int epi; /* 0: epi=direct; 1: epi=tma */
} gv_config;

/* Configuration i (0, 1, ...) or the own choice for the case (-1): 0, or -1 past the last. */
int gv_config_of(const gated_mlp_shape *sh, int index, gv_config *c);
/* The fused profile's configuration hook (klab_profile.config): static names. */
const char *gv_config_hook(const klab_case *kcase, int index);

/* Enqueues out = act(x Wg^T) * (x Wu^T) with w_il the interleaved [Wg; Wu] (2f x k), on configuration c.
   Returns 0; 1 when c cannot do the case (why says so: a skip); -1 on a CUDA error. sm_90a. */
int gv_launch(const gated_mlp_shape *sh, const gv_config *c, const void *x, const void *w_il, void *out, int sms,
              klab_stream s, char *why, size_t whylen);

/* The activation named "silu" or "gelu", or -1. */
int gated_mlp_activation(const char *name);

/* The case's dims and activation (silu when param.activation is absent). 0, or -1 with the reason naming
   the case and the limit: m, k, f from 1 to 2^31 - 1, k and f multiples of 8 (rows of whole 16-byte
   vectors for cuBLASLt and the activation kernel). Pure: setup() and work() use it. */
int gated_mlp_shape_of(const klab_case *kcase, gated_mlp_shape *s, char *why, size_t whylen);

/* act(g) * u in float64. */
double gated_mlp_act(int act, double g, double u);

/* The float64 result: every element of out (m x f) when sample is NULL, else out[j] = element
   sample[j] for j < count. x m x k, wg and wu f x k, row-major. The products on the host's threads (host
   and ctx: verify()'s; both NULL: this thread). Returns 0, -1 when out of memory. */
int gated_mlp_reference(const klab_host *host, klab_ctx *ctx, const gated_mlp_shape *s, const double *x,
                        const double *wg, const double *wu, const size_t *sample, size_t count, double *out);

#ifdef __cplusplus
}
#endif

#endif
