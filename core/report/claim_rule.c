#include "report/claim_rule.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/ncu_csv.h"

#define TOK_MAX 32

typedef struct lexer {
    char tok[TOK_MAX][CLAIM_NAME];
    int n, at;
} lexer;

static int op_char(char c)
{
    return c == '<' || c == '>' || c == '=' || c == '!' || c == '/' || c == '|';
}

static int lex(const char *s, lexer *lx, char *why, size_t whylen)
{
    memset(lx, 0, sizeof *lx);
    while (*s) {
        if (isspace((unsigned char)*s)) {
            s++;
            continue;
        }
        size_t len;
        if (op_char(*s))
            len = (s[1] == '=' && strchr("<>!=", *s)) ? 2 : 1;
        else
            for (len = 0; s[len] && !isspace((unsigned char)s[len]) && !op_char(s[len]); len++)
                ;
        if (lx->n == TOK_MAX) {
            snprintf(why, whylen, "more than %d words", TOK_MAX);
            return -1;
        }
        if (len >= CLAIM_NAME) {
            snprintf(why, whylen, "'%.*s' is longer than %d characters", (int)len, s, CLAIM_NAME - 1);
            return -1;
        }
        snprintf(lx->tok[lx->n++], CLAIM_NAME, "%.*s", (int)len, s);
        s += len;
    }
    return 0;
}

static const char *peek(const lexer *lx)
{
    return lx->at < lx->n ? lx->tok[lx->at] : "";
}

static const char *next(lexer *lx)
{
    return lx->at < lx->n ? lx->tok[lx->at++] : "";
}

static int parse_op(const char *t, claim_op *op)
{
    static const struct {
        const char *s;
        claim_op op;
    } ops[] = {{">=", OP_GE}, {"<=", OP_LE}, {">", OP_GT}, {"<", OP_LT}, {"=", OP_EQ}, {"==", OP_EQ}, {"!=", OP_NE}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(t, ops[i].s) == 0) {
            *op = ops[i].op;
            return 0;
        }
    return -1;
}

/* 1.05, 0.95, 32MiB, 1GiB, 2^25: a number, with binary size suffixes for bytes. */
static int parse_number(const char *t, double *out)
{
    char *end;
    errno = 0;
    if (t[0] == '2' && t[1] == '^') {
        long e = strtol(t + 2, &end, 10);
        if (*end || e < 0 || e > 62 || !isdigit((unsigned char)t[2]))
            return -1;
        *out = ldexp(1.0, (int)e);
        return 0;
    }
    double v = strtod(t, &end);
    if (end == t || errno || !isfinite(v))
        return -1;
    static const struct {
        const char *s;
        double m;
    } suf[] = {{"", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
    for (size_t i = 0; i < sizeof suf / sizeof suf[0]; i++)
        if (strcmp(end, suf[i].s) == 0) {
            *out = v * suf[i].m;
            return 0;
        }
    return -1;
}

static int numeric_column(int col)
{
    row_kind k = row_schema[col].kind;
    return k == COL_INT || k == COL_NUM || k == COL_COUNT || k == COL_U64;
}

/* A column by name (p50: the median); -1 when the schema has none. */
static int column(const char *name)
{
    return strcmp(name, "p50") == 0 ? row_column_index("median_ms") : row_column_index(name);
}

static int counter_column(const char *name)
{
    for (int m = 0; m < NCU_NMETRICS; m++)
        if (strcmp(ncu_metrics[m].column, name) == 0)
            return m;
    return -1;
}

static int parse_metric_column(const char *t, int *col, int *ctr, char *why, size_t whylen)
{
    *col = column(t);
    *ctr = *col < 0 ? counter_column(t) : -1;
    if (*ctr < 0 && (*col < 0 || !numeric_column(*col))) {
        snprintf(why, whylen, "'%s' is not a numeric column of the CSV (median_ms, p50, p95_ms, gbps, frac_limit, "
                              "speedup_lo, ...; README.md lists them) nor a counter (dram_pct, registers, ...)", t);
        return -1;
    }
    return 0;
}

static int parse_values(lexer *lx, char (*vals)[CLAIM_NAME], int *n, char *why, size_t whylen)
{
    *n = 0;
    for (;;) {
        const char *v = next(lx);
        if (!*v || op_char(*v)) {
            snprintf(why, whylen, "a name is missing after '=' or '|'");
            return -1;
        }
        if (*n == CLAIM_MAX_VALS) {
            snprintf(why, whylen, "more than %d names joined by '|'", CLAIM_MAX_VALS);
            return -1;
        }
        snprintf(vals[(*n)++], CLAIM_NAME, "%s", v);
        if (strcmp(peek(lx), "|") != 0)
            return 0;
        next(lx);
    }
}

static int parse_cond(lexer *lx, claim_rule *r, char *why, size_t whylen)
{
    const char *name = next(lx);
    claim_op op;
    char optok[CLAIM_NAME];
    snprintf(optok, sizeof optok, "%s", next(lx));
    if (parse_op(optok, &op) != 0) {
        snprintf(why, whylen, "'%s %s': a condition is COLUMN OP VALUE (>=, <=, >, <, =, !=)", name, optok);
        return -1;
    }
    if (strcmp(name, "vs") == 0) {
        if (op != OP_EQ || r->nvs) {
            snprintf(why, whylen, "'vs' is given once, as vs = PROFILE[|PROFILE]");
            return -1;
        }
        return parse_values(lx, r->vs, &r->nvs, why, whylen);
    }
    if (r->nconds == CLAIM_MAX_CONDS) {
        snprintf(why, whylen, "more than %d conditions", CLAIM_MAX_CONDS);
        return -1;
    }
    claim_cond *c = &r->conds[r->nconds];
    memset(c, 0, sizeof *c);
    c->col = column(name);
    c->op = op;
    if (c->col < 0) {
        snprintf(why, whylen, "'%s' is not a column of the CSV (nor vs)", name);
        return -1;
    }
    if (op == OP_EQ || op == OP_NE) {
        if (numeric_column(c->col)) {
            snprintf(why, whylen, "'%s' is a number: compare it with >=, <=, > or <", name);
            return -1;
        }
        if (parse_values(lx, c->vals, &c->nvals, why, whylen) != 0)
            return -1;
    } else {
        const char *v = next(lx);
        if (!numeric_column(c->col)) {
            snprintf(why, whylen, "'%s' is text: compare it with = or !=", name);
            return -1;
        }
        if (parse_number(v, &c->num) != 0) {
            snprintf(why, whylen, "'%s' is not a number (1.05, 32MiB, 2^25)", v);
            return -1;
        }
    }
    r->nconds++;
    return 0;
}

int claim_parse(const char *text, claim_rule *r, char *why, size_t whylen)
{
    memset(r, 0, sizeof *r);
    r->den_col = r->num_ctr = r->den_ctr = -1;
    lexer lx;
    if (lex(text, &lx, why, whylen) != 0)
        return -1;
    if (parse_metric_column(next(&lx), &r->num_col, &r->num_ctr, why, whylen) != 0)
        return -1;
    if (strcmp(peek(&lx), "/") == 0) {
        next(&lx);
        if (parse_metric_column(next(&lx), &r->den_col, &r->den_ctr, why, whylen) != 0)
            return -1;
    }
    const char *op = next(&lx);
    if (parse_op(op, &r->op) != 0 || r->op == OP_EQ || r->op == OP_NE) {
        snprintf(why, whylen, "'%s': the metric is compared with >=, <=, > or <", op);
        return -1;
    }
    const char *num = next(&lx);
    if (parse_number(num, &r->threshold) != 0) {
        snprintf(why, whylen, "'%s' is not a number (1.05, 32MiB, 2^25)", num);
        return -1;
    }
    if (lx.at == lx.n)
        return 0;
    if (strcmp(next(&lx), "where") != 0) {
        snprintf(why, whylen, "'%s': after the number comes 'where' and the conditions", lx.tok[lx.at - 1]);
        return -1;
    }
    for (;;) {
        if (parse_cond(&lx, r, why, whylen) != 0)
            return -1;
        if (lx.at == lx.n)
            return 0;
        const char *t = next(&lx);
        if (strcmp(t, "and") != 0) {
            snprintf(why, whylen, "'%s': conditions are joined by 'and'", t);
            return -1;
        }
    }
}

int claim_uses_counters(const claim_rule *r)
{
    return r->num_ctr >= 0 || r->den_ctr >= 0;
}

static const char *metric_name(int col, int ctr)
{
    return ctr >= 0 ? ncu_metrics[ctr].column : row_schema[col].name;
}

void claim_metric_name(const claim_rule *r, char *buf, size_t len)
{
    if (r->den_col >= 0 || r->den_ctr >= 0)
        snprintf(buf, len, "%s/%s", metric_name(r->num_col, r->num_ctr), metric_name(r->den_col, r->den_ctr));
    else
        snprintf(buf, len, "%s", metric_name(r->num_col, r->num_ctr));
}

