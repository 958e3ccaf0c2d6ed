/* The wgmma profiles' tuning space (fp8_gemm.h): pure C, so `klab --tune --validate` enumerates it
 * without a GPU and the CPU tests check it. */
#include <stdio.h>

#include "fp8_gemm.h"

/* in fp8_gemm_wgmma.cu's instantiation order; it checks each against its kernel's Config */
const fw_variant fw_variants[FW_NVARIANTS] = {
    [FW_128x256] = {128, 256, 4, 2, 1}, [FW_128x256_C2] = {128, 256, 4, 2, 2}, [FW_128x128] = {128, 128, 6, 2, 1},
    [FW_64x256] = {64, 256, 5, 1, 1},   [FW_64x128] = {64, 128, 8, 1, 1},
};

static const fw_config space[] = {
    {FW_128x256, 0, 1}, {FW_128x256, 1, 1}, {FW_128x256_C2, 0, 1}, {FW_128x256_C2, 1, 1},
    {FW_128x128, 0, 1}, {FW_128x128, 1, 1}, {FW_64x256, 0, 1},     {FW_64x256, 1, 1},
    {FW_64x128, 0, 1},  {FW_64x128, 1, 1},  {FW_64x256, 0, 4},     {FW_64x128, 0, 4},
};
#define NSPACE ((int)(sizeof space / sizeof space[0]))

static char names[NSPACE][64];

/* The own choice: 128 x 256 tiles with the B tile multicast over a pair of CTAs where M fills them;
   64-row tiles for a skinny M, split 4 ways along K when even 64 x 128 tiles leave most SMs idle. Not
   yet measured: `klab --tune` decides per case. */
static int own_choice(const fp8_gemm_shape *sh)
{
    if (sh->m > 128)
        return 2; /* 128x256, cluster 2, one CTA a tile */
    long tiles = (long)((sh->n + 127) / 128);
    return tiles >= 66 ? 8 : 11; /* 64x128: half the SMs busy or more, else split 4 ways */
}

int fw_config_of(const fp8_gemm_shape *sh, int index, fw_config *c)
{
    if (index == -1)
        index = own_choice(sh);
    if (index < 0 || index >= NSPACE)
        return -1;
    *c = space[index];
    return 0;
}

const char *fw_config_name(int index)
{
    if (index < 0 || index >= NSPACE)
        return NULL;
    if (!names[index][0]) {
        const fw_config *c = &space[index];
        const fw_variant *v = &fw_variants[c->variant];
        snprintf(names[index], sizeof names[index], "tile=%dx%d,cluster=%d,persistent=%d,splits=%d", v->bm, v->bn,
                 v->cluster, c->persistent, c->splits);
    }
    return names[index];
}

const char *fw_config_hook(const klab_case *k, int index)
{
    if (index != -1)
        return fw_config_name(index);
    char why[512];
    fp8_gemm_shape sh;
    if (fp8_gemm_shape_of(k, &sh, why, sizeof why) != 0)
        return fw_config_name(0); /* setup refuses the case and says why */
    return fw_config_name(own_choice(&sh));
}

size_t fw_workspace_bytes(const fp8_gemm_shape *sh, const fw_config *c)
{
    return c->splits > 1 ? (size_t)c->splits * (size_t)sh->m * (size_t)sh->n * sizeof(float) : 0;
}
