/* A claim's rule, as written in an experiment file: its grammar and what it parses into.
 *
 *   rule   := metric OP NUMBER [ "where" cond { "and" cond } ]
 *   metric := COLUMN [ "/" COLUMN ]          a numeric column of CSV schema 2 (row.h), or p50, or a
 *                                            counter column (ncu_metrics: dram_pct, registers, ...)
 *   cond   := COLUMN OP NUMBER               bytes >= 32MiB   (K/M/GiB suffixes and 2^N read)
 *           | COLUMN = V{|V}  | COLUMN != V{|V}   profile = fused, dtype != fp32, flags != launch-bound
 *           | vs = PROFILE{|PROFILE}         speedup columns re-based on that profile's row
 *   OP     := >= | <= | > | <
 *
 * How rows are judged against it is claims.h's; docs/report.md says both. */
#ifndef KLAB_CLAIM_RULE_H
#define KLAB_CLAIM_RULE_H

#include <stddef.h>

#include "evidence/row.h"

#define CLAIM_MAX_CONDS 8
#define CLAIM_MAX_VALS 8
#define CLAIM_NAME 64

typedef enum claim_op { OP_GE, OP_LE, OP_GT, OP_LT, OP_EQ, OP_NE } claim_op;

typedef struct claim_cond {
    int col; /* row_schema index */
    claim_op op;
    double num;     /* numeric conditions */
    int nvals;      /* text conditions: any of these */
    char vals[CLAIM_MAX_VALS][CLAIM_NAME];
} claim_cond;

typedef struct claim_rule {
    int num_col, den_col; /* the metric: num / den; den_col -1 when not a ratio */
    int num_ctr, den_ctr; /* a counter instead (its ncu_metrics index; the _col is then -1), else -1 */
    claim_op op;
    double threshold;
    int nconds;
    claim_cond conds[CLAIM_MAX_CONDS];
    int nvs; /* vs = A|B: the first of these the run has */
    char vs[CLAIM_MAX_VALS][CLAIM_NAME];
} claim_rule;

/* Parses a rule. Returns 0, or -1 with why (naming the word that is wrong). */
int claim_parse(const char *text, claim_rule *r, char *why, size_t whylen);

/* 1 when the rule's metric reads a counter column. */
int claim_uses_counters(const claim_rule *r);

/* The rule's metric as written ("speedup_lo", "p95_ms/median_ms"). */
void claim_metric_name(const claim_rule *r, char *buf, size_t len);

#endif
