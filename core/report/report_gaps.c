#include "report/report_gaps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAP_NAMED 4 /* cases a line names, and a command selects with --case, at most */

/* One remedy for one plugin: the cases that lack it. */
typedef struct gap_entry {
    claim_gap gap;
    const char *plugin;
    const char *vs; /* GAP_PAIR: the profile missing beside the rows */
    int n;          /* instances (claims, for a claim with none) */
    int ncases, cap;
    char (*cases)[64]; /* the distinct cases, malloc'd: a line counts them and names a few */
    int all_cases;     /* the remedy is for the whole plugin: no --case */
} gap_entry;

typedef struct gap_list {
    gap_entry *e;
    int n, cap;
} gap_list;

int report_dec_exps(const report *r, const report_dec *d, const report_exp **xs)
{
    int n = 0;
    for (int k = 0; k < d->d->nexps; k++) {
        const report_exp *x = report_find(r, d->d->exps[k]);
        if (x)
            xs[n++] = x;
    }
    return n;
}

/* 1 when a claim of the experiment is judged against, or picks, PyTorch's rows: a run for it needs
   --with-torch. */
static int needs_torch(const report *r, const exp_experiment *e)
{
    for (int k = 0; k < e->nclaims; k++) {
        const claim_rule *rule = &e->claims[k].rule;
        for (int v = 0; v < rule->nvs; v++)
            if (claims_torch_profile(r->runs, rule->vs[v]))
                return 1;
        for (int c = 0; c < rule->nconds; c++)
            if (rule->conds[c].op == OP_EQ && strcmp(row_schema[rule->conds[c].col].name, "profile") == 0)
                for (int v = 0; v < rule->conds[c].nvals; v++)
                    if (claims_torch_profile(r->runs, rule->conds[c].vals[v]))
                        return 1;
    }
    return 0;
}

static int needs_counters(const exp_experiment *e)
{
    for (int k = 0; k < e->nclaims; k++)
        if (claim_uses_counters(&e->claims[k].rule))
            return 1;
    return 0;
}

/* The entry for (gap, plugin, vs), added when new; NULL when out of memory. */
static gap_entry *entry(gap_list *l, claim_gap gap, const char *plugin, const char *vs)
{
    for (int i = 0; i < l->n; i++)
        if (l->e[i].gap == gap && strcmp(l->e[i].plugin, plugin) == 0 &&
            strcmp(l->e[i].vs ? l->e[i].vs : "", vs ? vs : "") == 0)
            return &l->e[i];
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        gap_entry *p = realloc(l->e, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        l->e = p;
        l->cap = cap;
    }
    gap_entry *g = &l->e[l->n++];
    memset(g, 0, sizeof *g);
    g->gap = gap;
    g->plugin = plugin;
    g->vs = vs;
    return g;
}

static void add_case(gap_entry *g, const char *kcase)
{
    for (int i = 0; i < g->ncases; i++)
        if (strcmp(g->cases[i], kcase) == 0)
            return;
    if (g->ncases == g->cap) {
        int cap = g->cap ? 2 * g->cap : 8;
        char(*p)[64] = realloc(g->cases, (size_t)cap * sizeof *p);
        if (!p)
            return; /* out of memory: the line names fewer cases, the command none past them */
        g->cases = p;
        g->cap = cap;
    }
    snprintf(g->cases[g->ncases++], sizeof g->cases[0], "%s", kcase);
}

static void gap_list_free(gap_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->e[i].cases);
    free(l->e);
    memset(l, 0, sizeof *l);
}

/* A claim's `case = A|B` condition, where it has one: the cases a run for it selects. */
static void claim_cases(const claim_rule *rule, gap_entry *g)
{
    for (int c = 0; c < rule->nconds; c++)
        if (rule->conds[c].op == OP_EQ && strcmp(row_schema[rule->conds[c].col].name, "case") == 0) {
            for (int v = 0; v < rule->conds[c].nvals; v++)
                add_case(g, rule->conds[c].vals[v]);
            return;
        }
    g->all_cases = 1;
}

/* Every remedy the claims of xs call for: their open instances, and the claims with none. */
static void collect(const report_exp *const *xs, int nx, gap_list *l)
{
    for (int i = 0; i < nx; i++) {
        const exp_experiment *e = xs[i]->e;
        for (int k = 0; k < e->nclaims; k++) {
            const claim_result *c = &xs[i]->claims[k];
            if (c->n == 0) {
                gap_entry *g = entry(l, c->none_gap, e->plugin, NULL);
                if (!g)
                    return;
                g->n++;
                if (c->none_gap == GAP_PLUGIN)
                    g->all_cases = 1;
                else
                    claim_cases(&e->claims[k].rule, g);
                continue;
            }
            for (int j = 0; j < c->n; j++) {
                const claim_instance *in = &c->inst[j];
                if (in->verdict != VERDICT_OPEN)
                    continue;
                gap_entry *g = entry(l, in->gap, e->plugin, in->gap == GAP_PAIR ? e->claims[k].rule.vs[0] : NULL);
                if (!g)
                    return;
                g->n++;
                add_case(g, in->row->kcase);
            }
        }
    }
}

/* "a, b and c", or "a, b, c, d and 5 more cases" */
static void case_list(const gap_entry *g, char *buf, size_t len)
{
    buf[0] = 0;
    int named = g->ncases < GAP_NAMED ? g->ncases : GAP_NAMED, rest = g->ncases - named;
    for (int i = 0; i < named; i++) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s%s", i == 0 ? "" : i == named - 1 && !rest ? " and " : ", ", g->cases[i]);
    }
    if (rest) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, " and %d more case%s", rest, rest == 1 ? "" : "s");
    }
}

/* The command that would supply a remedy: klab --plugin P [--case ...] [--with-torch] [--with-profiling] */
static void command(const report *r, const report_exp *const *xs, int nx, const gap_entry *g, char *buf, size_t len)
{
    int torch = g->gap == GAP_TORCH, counters = g->gap == GAP_PROFILING || g->gap == GAP_NCU;
    /* a plugin's first run, or a run of cases no row has yet, brings whatever its claims read */
    if (g->gap == GAP_PLUGIN || g->gap == GAP_ROWS)
        for (int i = 0; i < nx; i++)
            if (strcmp(xs[i]->e->plugin, g->plugin) == 0) {
                torch |= needs_torch(r, xs[i]->e);
                counters |= needs_counters(xs[i]->e);
            }
    int n = snprintf(buf, len, "`klab --plugin %s", g->plugin);
    if (!g->all_cases && g->ncases <= GAP_NAMED && g->ncases > 0) {
        n += snprintf(buf + n, len - (size_t)n, " --case ");
        for (int i = 0; i < g->ncases && (size_t)n < len; i++)
            n += snprintf(buf + n, len - (size_t)n, "%s%s", i ? "," : "", g->cases[i]);
    }
    if ((size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "%s%s`", torch ? " --with-torch" : "", counters ? " --with-profiling" : "");
}

/* A remedy in a few words, for a roll-up. */
static void gap_short(const gap_entry *g, char *buf, size_t len)
{
    switch (g->gap) {
    case GAP_PLUGIN: snprintf(buf, len, "plugin %s missing from the runs (`klab --plugin %s`)", g->plugin, g->plugin); return;
    case GAP_ROWS: snprintf(buf, len, "no row of %s that the claim picks", g->plugin); return;
    case GAP_TORCH: snprintf(buf, len, "PyTorch rows missing (`--with-torch`)"); return;
    case GAP_PAIR: snprintf(buf, len, "no %s row beside them", g->vs ? g->vs : "paired"); return;
    case GAP_PROFILING: snprintf(buf, len, "counters missing (`--with-profiling`)"); return;
    case GAP_NCU: snprintf(buf, len, "ncu gave no counters"); return;
    case GAP_SAMPLES: snprintf(buf, len, "too few samples or too noisy (more samples)"); return;
    case GAP_QUICK: snprintf(buf, len, "quick run (a full run decides)"); return;
    case GAP_ROW: snprintf(buf, len, "rows that did not pass"); return;
    case GAP_UNTIMED: snprintf(buf, len, "not timed (verify-only)"); return;
    case GAP_VALUE: snprintf(buf, len, "no value of the metric"); return;
    default: buf[0] = 0; return;
    }
}

/* What is missing, and the run that supplies it, in a line. */
static void gap_line(const report *r, const report_exp *const *xs, int nx, const gap_entry *g, char *buf, size_t len)
{
    char cases[600], cmd[600];
    case_list(g, cases, sizeof cases);
    command(r, xs, nx, g, cmd, sizeof cmd);
    int n = g->n;
    const char *s = n == 1 ? "" : "s", *p = g->plugin;
    switch (g->gap) {
    case GAP_PLUGIN: snprintf(buf, len, "No row of plugin %s in the runs: %s", p, cmd); return;
    case GAP_ROWS:
        if (cases[0])
            snprintf(buf, len, "No row of %s that %d claim%s pick%s (%s): %s", p, n, s, n == 1 ? "s" : "", cases, cmd);
        else
            snprintf(buf, len, "No row of %s that %d claim%s pick%s: %s", p, n, s, n == 1 ? "s" : "", cmd);
        return;
    case GAP_TORCH: snprintf(buf, len, "PyTorch rows missing beside %d row%s of %s (%s): %s", n, s, p, cases, cmd); return;
    case GAP_PAIR:
        snprintf(buf, len, "No %s row beside %d row%s of %s in the same run (%s): run the profile with them, %s",
                 g->vs ? g->vs : "paired", n, s, p, cases, cmd);
        return;
    case GAP_PROFILING: snprintf(buf, len, "Counters missing for %d row%s of %s (%s): %s", n, s, p, cases, cmd); return;
    case GAP_NCU:
        snprintf(buf, len, "ncu gave no counters for %d row%s of %s (%s; the page says why): %s where ncu may read "
                           "the GPU's counters", n, s, p, cases, cmd);
        return;
    case GAP_SAMPLES:
        snprintf(buf, len, "Too few samples or too noisy at %d row%s of %s (%s): more samples (a larger budget_ms in "
                           "the INI) on a quiet GPU, %s", n, s, p, cases, cmd);
        return;
    case GAP_QUICK:
        snprintf(buf, len, "%d row%s of %s only a quick run has (%s): a full run, %s without --quick", n, s, p, cases,
                 cmd);
        return;
    case GAP_ROW:
        snprintf(buf, len, "%d row%s of %s did not pass (%s; flagged, incorrect or failed: the page says "
                           "why): the fix, then %s", n, s, p, cases, cmd);
        return;
    case GAP_UNTIMED:
        snprintf(buf, len, "%d row%s of %s not timed (%s): a timed run, %s without --verify-only", n, s, p, cases,
                 cmd);
        return;
    case GAP_VALUE:
        snprintf(buf, len, "No value of the metric in %d row%s of %s (%s; a speedup needs the baseline profile in the "
                           "same run): %s", n, s, p, cases, cmd);
        return;
    default: buf[0] = 0; return;
    }
}

void report_rollup(const report *r, const report_exp *const *xs, int nx, evidence_status s, char *buf, size_t len)
{
    (void)r; /* the roll-up reads its experiments' verdicts alone; r keeps the family's signature */
    int n = 0, met = 0, rows = 0, none = 0;
    for (int i = 0; i < nx; i++) {
        rows += xs[i]->rows;
        for (int k = 0; k < xs[i]->e->nclaims; k++) {
            n += xs[i]->claims[k].n;
            met += xs[i]->claims[k].met;
            none += xs[i]->claims[k].n == 0;
        }
    }
    const char *name = evidence_status_name(s);
    if (s == EV_MEASURED) {
        snprintf(buf, len, "%s — %d row%s", name, rows, rows == 1 ? "" : "s");
        return;
    }
    int w = s == EV_NO_EVIDENCE ? snprintf(buf, len, "%s", name)
                                : snprintf(buf, len, "%s — %d of %d case%s", name, met, n, n == 1 ? "" : "s");
    if (s != EV_NO_EVIDENCE && s != EV_UNDECIDED && !none)
        return;
    /* No evidence and Undecided name what is missing; a Caveated or Rejected roll-up names what its
       claims without a row lack */
    gap_list l = {0};
    if (s == EV_NO_EVIDENCE || s == EV_UNDECIDED) {
        collect(xs, nx, &l);
    } else {
        for (int i = 0; i < nx; i++)
            for (int k = 0; k < xs[i]->e->nclaims; k++)
                if (xs[i]->claims[k].n == 0) {
                    gap_entry *g = entry(&l, xs[i]->claims[k].none_gap, xs[i]->e->plugin, NULL);
                    if (g)
                        g->n++;
                }
    }
    const char *sep = s == EV_NO_EVIDENCE ? " — " : s == EV_UNDECIDED ? ": " : "; a claim without evidence: ";
    for (int i = 0; i < l.n && w > 0 && (size_t)w < len; i++) {
        char g[400];
        gap_short(&l.e[i], g, sizeof g);
        int dup = 0; /* one "PyTorch rows missing" for several plugins */
        for (int j = 0; j < i && !dup; j++) {
            char o[400];
            gap_short(&l.e[j], o, sizeof o);
            dup = strcmp(o, g) == 0;
        }
        if (dup)
            continue;
        w += snprintf(buf + w, len - (size_t)w, "%s%s", sep, g);
        sep = "; ";
    }
    gap_list_free(&l);
}

/* The cases not met, farthest from the number first: the first few a caveat names say by how much the
   claim misses at worst, not only that it does. Equal distances keep the runs' order. */
static void worst_first(const claim_result *c, double t, int *order, int n)
{
    for (int i = 1; i < n; i++) { /* insertion sort: stable, and n is a claim's instances */
        int j = i, v = order[i];
        double d = fabs(c->inst[v].value - t);
        while (j > 0 && fabs(c->inst[order[j - 1]].value - t) < d) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
}

void report_caveat(const report *r, const report_exp *const *xs, int nx, int max, report_line_fn fn, void *arg)
{
    char line[1200], label[300];
    int said = 0, n = 0, met = 0;
    for (int i = 0; i < nx; i++) {
        const exp_experiment *e = xs[i]->e;
        char from[EXP_NAME + 8] = "";
        if (nx > 1)
            snprintf(from, sizeof from, " (%s)", e->name);
        for (int k = 0; k < e->nclaims; k++) {
            const claim_result *c = &xs[i]->claims[k];
            n += c->n;
            met += c->met;
            if (c->n == 0) {
                char g[400];
                gap_entry one = {.gap = c->none_gap, .plugin = e->plugin};
                gap_short(&one, g, sizeof g);
                snprintf(line, sizeof line, "`%s`%s: no evidence — %s", e->claims[k].name, from, g);
                fn(arg, 0, line);
                said = 1;
                continue;
            }
            static const struct {
                claim_verdict v;
                const char *what;
            } parts[] = {{VERDICT_FAILED, "not met"}, {VERDICT_OPEN, "undecided"}};
            for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
                int count = parts[p].v == VERDICT_FAILED ? c->failed : c->open;
                if (!count)
                    continue;
                snprintf(line, sizeof line, "`%s`%s, %s in %d of %d case%s:", e->claims[k].name, from, parts[p].what,
                         count, c->n, c->n == 1 ? "" : "s");
                fn(arg, 0, line);
                said = 1;
                int *order = malloc((size_t)count * sizeof *order);
                if (!order)
                    return;
                int m = 0;
                for (int j = 0; j < c->n; j++)
                    if (c->inst[j].verdict == parts[p].v)
                        order[m++] = j;
                if (parts[p].v == VERDICT_FAILED)
                    worst_first(c, e->claims[k].rule.threshold, order, m);
                for (int j = 0; j < m && j < max; j++) {
                    const claim_instance *in = &c->inst[order[j]];
                    report_row_label(r, in->run, in->row, label, sizeof label);
                    snprintf(line, sizeof line, "%s: %s", label, in->why);
                    fn(arg, 1, line);
                }
                free(order);
                if (count > max) {
                    snprintf(line, sizeof line, "and %d more: the experiment's page lists every one", count - max);
                    fn(arg, 1, line);
                }
            }
        }
    }
    if (said)
        return;
    if (n)
        snprintf(line, sizeof line, "None: every case of every claim is met (%d of %d).", met, n);
    else
        snprintf(line, sizeof line, "None: no claim is judged here; the figures are measured.");
    fn(arg, 0, line);
}

void report_next(const report *r, const report_exp *const *xs, int nx, report_line_fn fn, void *arg)
{
    gap_list l = {0};
    collect(xs, nx, &l);
    char line[1600];
    for (int i = 0; i < l.n; i++) {
        gap_line(r, xs, nx, &l.e[i], line, sizeof line);
        fn(arg, 0, line);
    }
    if (l.n == 0) {
        int failed = 0, n = 0;
        for (int i = 0; i < nx; i++)
            for (int k = 0; k < xs[i]->e->nclaims; k++) {
                failed += xs[i]->claims[k].failed;
                n += xs[i]->claims[k].n;
            }
        fn(arg, 0, failed ? "Nothing missing: every case is decided. The cases not met are findings: a faster kernel "
                            "there, or a narrower call."
                   : n ? "Nothing missing: every case is decided and met."
                       : "Nothing missing for a claim: none is judged here.");
    }
    gap_list_free(&l);
}
