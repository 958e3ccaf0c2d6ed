/* The reduction's case, its plan, and the tolerance that plan implies. Pure C: the plugin's setup(),
 * work() and tolerance() use it, and so do the CPU tests.
 *
 * Why a sum's inputs are not signed. A tolerance is one number per case, relative to the reference. The
 * sum of 2^28 values uniform in [-1, 1) is about N(0, 9459): it can land near 0, and then any honest
 * rounding error is a large fraction of it, while with the same tolerance a kernel that drops a whole
 * block (a partial of about 291) passes whenever the sum is large. No fixed number separates the two.
 * With inputs of one sign the sum is sum |x|, and the classical bound (Higham, Accuracy and Stability
 * of Numerical Algorithms, 2nd ed., eq. 4.4) holds relative to the reference itself:
 *
 *     |computed - exact| <= gamma_d * sum |x|,   gamma_d = d u / (1 - d u),  u = 2^-24 (fp32),
 *
 * d being the longest chain of additions any element goes through (reduction_sum_depth). 2^28 fp32
 * values with 1024 blocks: d = 1292 (the atomic profile's 1024 partials added one after another
 * dominate), gamma_d = 7.7e-5, while a dropped block removes about 1/1024 = 9.8e-4 of the sum: 12 times
 * the bound. Honest kernels sit far inside it (rounding errors mostly cancel; the bound assumes none
 * does). The float64 reference's own error, cols * 2^-53, is added. A max is exact: the fp32 output of
 * fp32, fp16 or bf16 inputs must equal the reference. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduction.h"

static int parse_op(const char *s)
{
    return !strcmp(s, "sum") ? RD_SUM : !strcmp(s, "max") ? RD_MAX : -1;
}

static int parse_fill(const char *s)
{
    return !strcmp(s, "signed") ? RD_SIGNED : !strcmp(s, "positive") ? RD_POSITIVE : !strcmp(s, "negative") ? RD_NEGATIVE : -1;
}

int reduction_case_of(const klab_case *k, reduction_case *c, char *why, size_t whylen)
{
    const char *op = klab_case_param(k, "op"), *fill = klab_case_param(k, "fill"), *blocks = klab_case_param(k, "blocks");
    memset(c, 0, sizeof *c);
    c->op = op ? parse_op(op) : RD_SUM;
    if (c->op < 0) {
        snprintf(why, whylen, "case '%s': param.op is '%s'; it must be sum or max", k->name, op);
        return -1;
    }
    c->fill = fill ? parse_fill(fill) : c->op == RD_SUM ? RD_POSITIVE : RD_SIGNED;
    if (c->fill < 0) {
        snprintf(why, whylen, "case '%s': param.fill is '%s'; it must be signed, positive or negative", k->name, fill);
        return -1;
    }
    if (c->op == RD_SUM && c->fill == RD_SIGNED) {
        snprintf(why, whylen,
                 "case '%s': a sum of signed values (param.fill = signed) can come out near 0, where no fixed relative "
                 "tolerance tells rounding from a dropped block; use positive or negative",
                 k->name);
        return -1;
    }
    c->blocks = RD_BLOCKS;
    if (blocks) {
        char *end;
        errno = 0;
        long v = strtol(blocks, &end, 10);
        if (errno || end == blocks || *end || v < 1 || v > 65536) {
            snprintf(why, whylen, "case '%s': param.blocks is '%s'; it must be a whole number from 1 to 65536", k->name,
                     blocks);
            return -1;
        }
        c->blocks = (int)v;
    }
    if (k->rank < 1) {
        snprintf(why, whylen, "case '%s': reduction needs a shape (N for a whole vector, ROWSxCOLS for rows)", k->name);
        return -1;
    }
    c->cols = (size_t)k->dims[k->rank - 1];
    c->rows = 1;
    for (int i = 0; i < k->rank - 1; i++)
        c->rows *= (size_t)k->dims[i];
    return 0;
}

static size_t per_vector(klab_dtype d)
{
    size_t e = klab_dtype_size(d);
    return e ? 16 / e : 4;
}

/* 16-byte vectors a row can hold, at most (a row that starts unaligned holds one fewer). */
static size_t row_tiles(size_t cols, klab_dtype d)
{
    size_t nv = (cols + per_vector(d) - 1) / per_vector(d);
    size_t t = (nv + RD_TILE - 1) / RD_TILE;
    return t ? t : 1;
}

int reduction_plan_of(const reduction_case *c, int profile, klab_dtype d, reduction_plan *p, char *why, size_t whylen)
{
    memset(p, 0, sizeof *p);
    p->rows = c->rows;
    p->cols = c->cols;
    size_t tiles = row_tiles(c->cols, d), want = ((size_t)c->blocks + c->rows - 1) / c->rows;
    size_t s = want < tiles ? want : tiles;
    s = s ? s : 1;
    size_t cl = 1;
    if (profile == RD_CLUSTER) {
        s = s < 2 ? 2 : s;
        while (cl < s && cl < RD_MAX_CLUSTER)
            cl *= 2;
        s = (s + cl - 1) / cl * cl;
    }
    if (c->rows > 0x7fffffffu / s) {
        snprintf(why, whylen, "%zu rows of %zu blocks pass the grid's limit of 2^31 - 1 blocks", c->rows, s);
        return -1;
    }
    p->splits = (int)s;
    p->cluster = (int)cl;
    p->groups = (int)(s / cl);
    return 0;
}

static double log2_ceil(double v)
{
    double l = 0;
    while (v > 1) {
        v /= 2;
        l++;
    }
    return l;
}

double reduction_sum_depth(const reduction_plan *p, int profile, klab_dtype d)
{
    size_t tiles = row_tiles(p->cols, d), splits = (size_t)p->splits, groups = (size_t)p->groups;
    double vectors = (double)((tiles + splits - 1) / splits * RD_UNROLL); /* a thread's, at most */
    double block = log2_ceil(32) + log2_ceil(RD_THREADS / 32);           /* warp shuffles, then warps */
    /* a thread's vectors, each summed as a tree first; the row's unaligned head and tail elements;
       the block */
    double depth = vectors + log2_ceil((double)per_vector(d)) + 2 + block;
    /* finishing a row's partials: a thread's share one after another, then the block */
    double finish = (double)((groups + RD_THREADS - 1) / RD_THREADS) + block;
    if (profile == RD_CLUSTER)
        depth += log2_ceil(32) + (groups > 1 ? finish : 0); /* the cluster's partials meet in one warp */
    else if (splits > 1)
        depth += profile == RD_ATOMIC ? (double)splits : finish;
    return depth;
}

#define RD_EXACT 1e-300 /* a positive tolerance (0 means the host's default) that no difference meets */

double reduction_tolerance(const klab_case *k)
{
    char why[512];
    reduction_case c;
    if (reduction_case_of(k, &c, why, sizeof why) != 0)
        return 0; /* setup refuses the case */
    if (c.op == RD_MAX)
        return RD_EXACT;
    const double u = 1.0 / (1 << 24);
    double worst = 0;
    for (int prof = 0; prof < RD_PROFILES; prof++) {
        reduction_plan p;
        if (reduction_plan_of(&c, prof, k->dtype, &p, why, sizeof why) != 0)
            continue;
        double dd = reduction_sum_depth(&p, prof, k->dtype);
        worst = dd > worst ? dd : worst;
    }
    return worst * u / (1 - worst * u) + (double)c.cols / 9007199254740992.0;
}
