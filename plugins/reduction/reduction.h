/* reduction: the sum or the max (param.op) of a whole vector (a rank-1 case: one value) or of each row
 * of a matrix (rank 2 or more: one value per row of the last dimension), fp32 accumulation, an fp32
 * output whatever the input dtype, in four strategies that differ only in how the blocks of one row
 * meet (what the seeds call launch/finalisation overhead):
 *   two_pass    each block writes its partial to scratch; a second kernel, one block a row, finishes
 *   last_block  one kernel: each block writes its partial, a fence and an atomic ticket tell the last
 *               block of the row, which finishes and sets the ticket back to 0 (so graphs replay)
 *   atomic      the output is set to the identity in run(), then every block adds (or maxes) its
 *               partial into it atomically: a sum's order, so its last bits, differ run to run
 *   cluster     sm_90: the blocks of a thread-block cluster meet through distributed shared memory,
 *               then the last cluster of the row finishes as last_block does
 * A row one block covers has no finalisation: every strategy writes it directly (the cluster one
 * still splits it over a cluster of 2).
 *
 * The plan (blocks a row, cluster size) is a function of the case alone, never of the device, so the
 * summation order, and the error bound the tolerance is set from, are the same on every GPU. */
#ifndef REDUCTION_H
#define REDUCTION_H

#include <stddef.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* profiles, in the descriptor's order */
enum { RD_TWO_PASS = 0, RD_LAST_BLOCK, RD_ATOMIC, RD_CLUSTER, RD_PROFILES };
enum { RD_SUM = 0, RD_MAX };
/* the input's distribution: uniform in [-1, 1), [0, 1) or [-1, 0) */
enum { RD_SIGNED = 0, RD_POSITIVE, RD_NEGATIVE };

#define RD_THREADS 256
#define RD_UNROLL 4                           /* 16-byte vectors in flight a thread */
#define RD_TILE (RD_THREADS * RD_UNROLL)      /* vectors a block loads in one step */
#define RD_BLOCKS 1024                        /* blocks a case aims at (param.blocks): about one wave of
                                                 8 resident blocks on each of 132 SMs */
#define RD_MAX_CLUSTER 8                      /* the portable limit */

typedef struct reduction_plan {
    size_t rows, cols;
    int splits;  /* blocks a row: each takes every splits-th tile of the row */
    int cluster; /* blocks a cluster (cluster profile; 1 otherwise); divides splits */
    int groups;  /* partials a row to finish: splits / cluster, 1 when none */
} reduction_plan;

typedef struct reduction_case {
    int op, fill;
    int blocks; /* param.blocks, RD_BLOCKS when absent */
    size_t rows, cols;
} reduction_case;

/* The op, fill and shape of a case. Returns 0, or -1 with the reason (naming the case and the limit)
   in why: an unknown op or fill, a sum of signed values (no fixed tolerance can judge one, see
   reduction_tolerance), blocks outside 1..65536. */
int reduction_case_of(const klab_case *kcase, reduction_case *c, char *why, size_t whylen);

/* The plan of `profile` for the case, for inputs of dtype d. Returns 0, or -1 with the reason in why
   when the grid would pass 2^31 - 1 blocks. */
int reduction_plan_of(const reduction_case *c, int profile, klab_dtype d, reduction_plan *p, char *why, size_t whylen);

/* The longest chain of fp32 additions any input element goes through under `p` (atomic: the row's
   partials are added one after the other, in some order). */
double reduction_sum_depth(const reduction_plan *p, int profile, klab_dtype d);

/* The relative tolerance of the case: a sum's rigorous error bound over every profile's plan (see
   reduction_plan.c); a max is exact (a positive tolerance no difference can meet). */
double reduction_tolerance(const klab_case *kcase);

/* Launches one profile: x is rows x cols of d, out rows floats, partial the plan's rows * groups
   floats of scratch, tickets rows zeroed counters (left zeroed). Returns the cudaError_t as int. */
int reduction_launch(int profile, int op, klab_dtype d, const reduction_plan *p, const void *x, float *out,
                     float *partial, unsigned *tickets, klab_stream s);
int reduction_cluster_launch(int op, klab_dtype d, const reduction_plan *p, const void *x, float *out,
                             float *partial, unsigned *tickets, klab_stream s);

/* The float64 result: out[r] = sum or max of row r; on the host's threads (host and ctx: verify()'s; both
   NULL: this thread) with the one-thread loop's bits (reduction_reference.c says how). */
void reduction_reference(const klab_host *host, klab_ctx *ctx, int op, const double *x, size_t rows, size_t cols,
                         double *out);

#ifdef __cplusplus
}
#endif

#endif
