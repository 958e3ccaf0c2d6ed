/* The fused profile's tuning space (fused_gated_mlp.h): pure C, enumerated without a GPU. */
#include <stdio.h>

#include "fused_gated_mlp.h"

/* the staged epilogue last, beside the direct configurations of the same tiles */
static const gv_config space[] = {
    {GV_128x256, 0, 0}, {GV_128x256, 1, 0}, {GV_128x256_C2, 0, 0}, {GV_128x256_C2, 1, 0}, {GV_64x256, 0, 0},
    {GV_64x256, 1, 0},  {GV_128x256, 0, 1}, {GV_128x256, 1, 1},    {GV_128x256_C2, 1, 1},
};
#define NSPACE ((int)(sizeof space / sizeof space[0]))
static const char *const names[NSPACE] = {
    "tile=128x256,cluster=1,persistent=0,epi=direct", "tile=128x256,cluster=1,persistent=1,epi=direct",
    "tile=128x256,cluster=2,persistent=0,epi=direct", "tile=128x256,cluster=2,persistent=1,epi=direct",
    "tile=64x256,cluster=1,persistent=0,epi=direct",  "tile=64x256,cluster=1,persistent=1,epi=direct",
    "tile=128x256,cluster=1,persistent=0,epi=tma",    "tile=128x256,cluster=1,persistent=1,epi=tma",
    "tile=128x256,cluster=2,persistent=1,epi=tma",
};

/* The own choice (`klab --tune` decides per case): 64-row tiles for decode and small batches, where a
   128-row tile would compute mostly padding; else 128 x 256 in 2-CTA clusters, persistent, with the staged
   TMA-store epilogue: the H200 tune's best at 4096 tokens (1242.8 us against unfused's 1297.7 in the same
   rounds, 2026-11-22, docs/measurements/2026-11-22-h200-gemm-2.md). */
static int own_choice(const gated_mlp_shape *sh)
{
    return sh->m <= 64 ? 4 : 8;
}

int gv_config_of(const gated_mlp_shape *sh, int index, gv_config *c)
{
    if (index == -1)
        index = own_choice(sh);
    if (index < 0 || index >= NSPACE)
        return -1;
    *c = space[index];
    return 0;
}

const char *gv_config_hook(const klab_case *k, int index)
{
    if (index != -1)
        return index >= 0 && index < NSPACE ? names[index] : NULL;
    char why[512];
    gated_mlp_shape sh;
    return names[gated_mlp_shape_of(k, &sh, why, sizeof why) == 0 ? own_choice(&sh) : 0];
}
