/* hopper_sched.cuh — the tile scheduler of hopper_gemm.cuh in plain C, so the CPU tests check it
 * (tests/unit/plugins/test_matmul_h200.c: every tile and K range covered exactly once, for every raster order).
 *
 * The work of C = A B is units: (cluster tile along M, tile along N, K split). A CTA cluster takes units
 * cluster_id, + clusters, ...; a cluster tile is CLUSTER M-adjacent tiles, one a CTA. Splits are the
 * outermost index; inside a split, `group` tiles along one dimension sweep the other (raster_n = 0:
 * groups of M tiles, each sweeping N), so CTAs that run at once share A rows and B columns in L2. */
#ifndef KLAB_HOPPER_SCHED_CUH
#define KLAB_HOPPER_SCHED_CUH

#ifdef __CUDACC__
#define HG_HD __host__ __device__
#else
#define HG_HD
#endif

typedef struct hg_problem {
    int M, N, K;
    int tiles_m, tiles_n; /* tiles_m counted in clusters of CLUSTER M tiles */
    int splits;           /* K split into this many ranges (1: none) */
    int k_tiles;          /* ceil(K / BK) */
    int group;            /* raster: this many tiles along the grouped dimension before moving on */
    int raster_n;         /* 0: groups of M tiles, sweep N inside; 1: groups of N tiles */
    int units;            /* tiles_m * tiles_n * splits */
} hg_problem;

/* The problem for tiles of bm x bn x bk in clusters of `cluster` along M; splits clamped to 1..k_tiles,
   group to at least 1. */
static inline HG_HD hg_problem hg_problem_of(int M, int N, int K, int bm, int bn, int bk, int cluster, int splits,
                                             int group, int raster_n)
{
    hg_problem p;
    const int tm = (M + bm - 1) / bm;
    p.M = M, p.N = N, p.K = K;
    p.tiles_m = (tm + cluster - 1) / cluster;
    p.tiles_n = (N + bn - 1) / bn;
    p.k_tiles = (K + bk - 1) / bk;
    p.splits = splits < 1 ? 1 : splits > p.k_tiles ? p.k_tiles : splits;
    p.group = group < 1 ? 1 : group;
    p.raster_n = raster_n;
    p.units = p.tiles_m * p.tiles_n * p.splits;
    return p;
}

/* Unit u -> (cluster tile along M, tile along N, split). */
static inline HG_HD void hg_unit_tile(const hg_problem *p, int u, int *tmc, int *tn, int *split)
{
    const int tiles = p->tiles_m * p->tiles_n;
    *split = u / tiles;
    const int r = u - *split * tiles;
    const int major = p->raster_n ? p->tiles_n : p->tiles_m, minor = p->raster_n ? p->tiles_m : p->tiles_n;
    const int per_group = p->group * minor;
    const int g = r / per_group, first = g * p->group;
    const int gs = major - first < p->group ? major - first : p->group;
    const int w = r - g * per_group;
    const int a = first + w % gs, b = w / gs;
    *tmc = p->raster_n ? b : a;
    *tn = p->raster_n ? a : b;
}

/* K tiles [*kb, *ke) of split s: as even as integers allow; every k tile in exactly one split. */
static inline HG_HD void hg_split_range(const hg_problem *p, int s, int *kb, int *ke)
{
    *kb = (int)((long long)s * p->k_tiles / p->splits);
    *ke = (int)((long long)(s + 1) * p->k_tiles / p->splits);
}

/* A ring position (stage, phase: the parity of the wraps so far) moved n stages on: what a ping-pong
   consumer does over the other consumer's unit. Equal to n single steps. */
static inline HG_HD void hg_ring_advance(int *stage, int *phase, int n, int stages)
{
    const int ahead = *stage + n;
    *stage = ahead % stages;
    *phase ^= (ahead / stages) & 1;
}

#endif
