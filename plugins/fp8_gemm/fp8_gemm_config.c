/* The wgmma profiles' tuning spaces (fp8_gemm.h): pure C, so `klab --tune --validate` enumerates them
 * without a GPU and the CPU tests check them. */
#include <stdio.h>

#include "fp8_gemm.h"

/* in fp8_gemm_wgmma.cu's instantiation order; it checks each against its kernel's Config */
const fw_variant fw_variants[FW_NVARIANTS] = {
    [FW_128x256] = {128, 256, 4, 2, 1, 0},  [FW_128x256_C2] = {128, 256, 4, 2, 2, 0},
    [FW_128x128] = {128, 128, 6, 2, 1, 0},  [FW_64x256] = {64, 256, 5, 1, 1, 0},
    [FW_64x128] = {64, 128, 8, 1, 1, 0},    [FW_128x128_B] = {128, 128, 6, 2, 1, 1},
    [FW_64x128_B] = {64, 128, 8, 1, 1, 1},  [FW_64x64] = {64, 64, 12, 1, 1, 0},
};

/* the staged epilogue after the direct configurations of the same tiles; then split-K summed in the
   GEMM's own launch (serial), and at 2 splits by a second kernel too, so the tune compares the two sums;
   then 64 x 64 tiles (12 stages), twice the CTAs of 64 x 128 for a skinny M without a split */
static const fw_config tensor_space[] = {
    {FW_128x256, 0, 1, 0, 0}, {FW_128x256, 1, 1, 0, 0}, {FW_128x256_C2, 0, 1, 0, 0}, {FW_128x256_C2, 1, 1, 0, 0},
    {FW_128x128, 0, 1, 0, 0}, {FW_128x128, 1, 1, 0, 0}, {FW_64x256, 0, 1, 0, 0},     {FW_64x256, 1, 1, 0, 0},
    {FW_64x128, 0, 1, 0, 0},  {FW_64x128, 1, 1, 0, 0},  {FW_64x256, 0, 4, 0, 0},     {FW_64x128, 0, 4, 0, 0},
    {FW_128x256, 0, 1, 1, 0}, {FW_128x256, 1, 1, 1, 0}, {FW_128x256_C2, 1, 1, 1, 0}, {FW_64x128, 0, 2, 0, 1},
    {FW_64x128, 0, 2, 0, 0},  {FW_64x128, 0, 4, 0, 1},  {FW_64x256, 0, 4, 0, 1},     {FW_64x256, 0, 2, 0, 1},
    {FW_64x64, 0, 1, 0, 0},   {FW_64x64, 1, 1, 0, 0},
};
static const fw_config block_space[] = {
    {FW_128x128_B, 0, 1, 0, 0}, {FW_128x128_B, 1, 1, 0, 0}, {FW_64x128_B, 0, 1, 0, 0}, {FW_64x128_B, 1, 1, 0, 0},
};
#define NTENSOR ((int)(sizeof tensor_space / sizeof tensor_space[0]))
#define NBLOCK ((int)(sizeof block_space / sizeof block_space[0]))

static char names[2][NTENSOR][80];

/* The SMs the own choice fills: the H200's (132), a constant so the space and the own
   choice are functions of the case alone (the persistent grids read the device at run time). */
#define FW_SMS 132
/* a split's K range: at least this many 128-K tiles, or the ring's first fill is most of its work */
#define FW_MIN_SPLIT_KTILES 4

/* The own choice (`klab --tune` decides per case). Per tensor, where M fills 128-row tiles: 128 x 256 in
   2-CTA clusters, persistent, with the staged TMA-store epilogue: the H200 tune's best at 4096^3 (96.9 us
   against cuBLASLt's 95.1 in the same rounds) and at 8192^3 (722.5 against 713.7), 2026-11-22
   (docs/measurements/2026-11-22-h200-gemm-2.md; cluster 2 ran at ~0.6x before the fenced cross-CTA arrive
   was fixed). The staged epilogue's output map needs 16-byte rows of D (n a multiple of 8): for any other
   n the same tiles write directly (a case fp8_gemm takes, which epi=tma would decline). For a skinny M,
   64 x 64 tiles, persistent, unsplit, where they fill at least half the SMs: at 64x7168x4096 (112 tiles)
   the H200 tune's best, 14.50 us against cuBLASLt's 13.73 plain, 12.00 against 10.89 batched, where
   64 x 128 unsplit took 15.04 / 12.62 and 2 splits of it 19.42 / 15.84 summed by a second kernel,
   20.2-20.5 / 17.0 in the same launch (docs/measurements/2026-11-23-h200-16.md; 4 splits, two waves, ran at
   0.58x in docs/measurements/2026-11-22-h200-gemm-2.md). Fewer tiles: 64 x 128 split into the most ranges (4,
   then 2) that still run in one wave with at least 4 K tiles each, summed by a second kernel (it beat the
   serial sum at both 2 splits here and 4 splits on matmul_h200's decode-16). Block scales: 128 x 128 tiles,
   64 x 128 for a skinny M. */
static fw_config own_config(const fp8_gemm_shape *sh, fw_scaling sc)
{
    if (sc == FW_BLOCK)
        return (fw_config){sh->m > 64 ? FW_128x128_B : FW_64x128_B, 0, 1, 0, 0};
    if (sh->m > 128) /* the staged epilogue where D's rows are 16-byte multiples, else direct stores */
        return (fw_config){FW_128x256_C2, 1, 1, sh->n % 8 == 0, 0};
    const long rows = (long)((sh->m + 63) / 64), ktiles = (long)((sh->k + 127) / 128);
    if (rows * (long)((sh->n + 63) / 64) * 2 >= FW_SMS)
        return (fw_config){FW_64x64, 1, 1, 0, 0};
    const long tiles = rows * (long)((sh->n + 127) / 128);
    if (tiles * 4 <= FW_SMS && ktiles >= 4 * FW_MIN_SPLIT_KTILES)
        return (fw_config){FW_64x128, 0, 4, 0, 0};
    if (tiles * 2 <= FW_SMS && ktiles >= 2 * FW_MIN_SPLIT_KTILES)
        return (fw_config){FW_64x128, 0, 2, 0, 0};
    return (fw_config){FW_64x128, 0, 1, 0, 0};
}

static const fw_config *space_of(fw_scaling sc, int *n)
{
    *n = sc == FW_BLOCK ? NBLOCK : NTENSOR;
    return sc == FW_BLOCK ? block_space : tensor_space;
}

/* The own choice's place in the space: it is stated as a configuration and found by its fields, so a
   reordered space cannot make it another one (-1 if the space lacks it: fw_config_of then fails) */
static int own_choice(const fp8_gemm_shape *sh, fw_scaling sc)
{
    int n;
    const fw_config *space = space_of(sc, &n);
    const fw_config w = own_config(sh, sc);
    for (int i = 0; i < n; i++) {
        const fw_config *c = &space[i];
        if (c->variant == w.variant && c->persistent == w.persistent && c->splits == w.splits && c->epi == w.epi &&
            c->serial == w.serial)
            return i;
    }
    return -1;
}

int fw_config_of(const fp8_gemm_shape *sh, fw_scaling sc, int index, fw_config *c)
{
    int n;
    const fw_config *space = space_of(sc, &n);
    if (index == -1)
        index = own_choice(sh, sc);
    if (index < 0 || index >= n)
        return -1;
    *c = space[index];
    return 0;
}

const char *fw_config_name(fw_scaling sc, int index)
{
    int n;
    const fw_config *space = space_of(sc, &n);
    if (index < 0 || index >= n)
        return NULL;
    char *name = names[sc][index];
    if (!name[0]) {
        const fw_config *c = &space[index];
        const fw_variant *v = &fw_variants[c->variant];
        int at = snprintf(name, sizeof names[0][0], "tile=%dx%d,cluster=%d,persistent=%d,splits=%d,epi=%s", v->bm,
                          v->bn, v->cluster, c->persistent, c->splits, c->epi ? "tma" : "direct");
        if (c->splits > 1)
            snprintf(name + at, sizeof names[0][0] - (size_t)at, ",reduce=%s", c->serial ? "serial" : "kernel");
    }
    return name;
}

static const char *hook(const klab_case *k, int index, fw_scaling sc)
{
    if (index != -1)
        return fw_config_name(sc, index);
    char why[512];
    fp8_gemm_shape sh;
    if (fp8_gemm_shape_of(k, &sh, why, sizeof why) != 0)
        return fw_config_name(sc, 0); /* setup refuses the case and says why */
    return fw_config_name(sc, own_choice(&sh, sc));
}

const char *fw_config_hook(const klab_case *k, int index)
{
    return hook(k, index, FW_TENSOR);
}

const char *fw_block_config_hook(const klab_case *k, int index)
{
    return hook(k, index, FW_BLOCK);
}

size_t fw_workspace_bytes(const fp8_gemm_shape *sh, const fw_config *c)
{
    return c->splits > 1 ? (size_t)c->splits * (size_t)sh->m * (size_t)sh->n * sizeof(float) : 0;
}

size_t fw_tickets(const fp8_gemm_shape *sh)
{
    return 2 * (size_t)((sh->m + 63) / 64) * (size_t)((sh->n + 127) / 128);
}
