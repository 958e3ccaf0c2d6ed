#include "report/experiment.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ini_walk.h"

/* ---- what a key's value is ---- */

/* Appends a value (a continuation line joins with a space) to a text field; -1 when it would not fit,
   since a cut sentence would say something the file does not. */
static int put_text(char *dst, size_t cap, const char *v, int continued, const char *key, char *why, size_t whylen)
{
    size_t n = continued ? strlen(dst) : 0;
    if (!continued && dst[0]) {
        snprintf(why, whylen, "key '%s' given twice (an indented line continues the key above it)", key);
        return -1;
    }
    int w = snprintf(dst + n, cap - n, "%s%s", n ? " " : "", v);
    if (w < 0 || (size_t)w >= cap - n) {
        dst[n] = 0;
        snprintf(why, whylen, "key '%s': longer than %zu characters", key, cap - 1);
        return -1;
    }
    return 0;
}

/* A section's prose keys and where each goes. */
typedef struct text_key {
    const char *key;
    char *dst;
    size_t cap;
} text_key;

/* 1 when `key` is one of keys (its value put, the outcome in *rc), 0 when it is none of them. */
static int put_known(const text_key *keys, size_t n, const char *key, const char *v, int continued, char *why,
                     size_t whylen, int *rc)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, keys[i].key) == 0) {
            *rc = put_text(keys[i].dst, keys[i].cap, v, continued, key, why, whylen);
            return 1;
        }
    return 0;
}

static int name_char(char c)
{
    return isalnum((unsigned char)c) || strchr("_-.^@[]+:", c) != NULL;
}

/* A comma list of names into items (each under `size`): continuations add to it. */
static int put_list(char *items, size_t size, int max, int *n, const char *v, int continued, const char *key,
                    char *why, size_t whylen)
{
    if (!continued && *n) {
        snprintf(why, whylen, "key '%s' given twice (an indented line continues the key above it)", key);
        return -1;
    }
    char buf[INI_WALK_LINE + 1];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *tok = buf, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = 0;
        while (isspace((unsigned char)*tok))
            tok++;
        char *end = tok + strlen(tok);
        while (end > tok && isspace((unsigned char)end[-1]))
            *--end = 0;
        if (!*tok) {
            if (next || *n == 0) {
                snprintf(why, whylen, "key '%s': empty item in the list", key);
                return -1;
            }
            continue; /* a trailing comma before a continuation line */
        }
        for (const char *q = tok; *q; q++)
            if (!name_char(*q)) {
                snprintf(why, whylen, "key '%s': '%s' is not a name", key, tok);
                return -1;
            }
        if (strlen(tok) >= size) {
            snprintf(why, whylen, "key '%s': '%s' is longer than %zu characters", key, tok, size - 1);
            return -1;
        }
        for (int i = 0; i < *n; i++)
            if (strcmp(items + (size_t)i * size, tok) == 0) {
                snprintf(why, whylen, "key '%s': '%s' listed twice", key, tok);
                return -1;
            }
        if (*n == max) {
            snprintf(why, whylen, "key '%s': more than %d items", key, max);
            return -1;
        }
        snprintf(items + (size_t)(*n)++ * size, size, "%s", tok);
    }
    return 0;
}

static int put_name(char *dst, size_t cap, const char *v, int continued, const char *key, char *why, size_t whylen)
{
    if (continued) {
        snprintf(why, whylen, "key '%s' is one name: it does not continue", key);
        return -1;
    }
    if (!*v) {
        snprintf(why, whylen, "key '%s': empty", key);
        return -1;
    }
    for (const char *q = v; *q; q++)
        if (!name_char(*q)) {
            snprintf(why, whylen, "key '%s': '%s' is not a name", key, v);
            return -1;
        }
    if (dst[0]) {
        snprintf(why, whylen, "key '%s' given twice", key);
        return -1;
    }
    if (strlen(v) >= cap) {
        snprintf(why, whylen, "key '%s': longer than %zu characters", key, cap - 1);
        return -1;
    }
    snprintf(dst, cap, "%s", v);
    return 0;
}

/* The name of [kind NAME]: 1 and the name in out, 0 when the header is not of that kind. */
static int section_named(const char *section, const char *kind, char *out, size_t len)
{
    size_t k = strlen(kind);
    if (strncmp(section, kind, k) != 0 || (section[k] != ' ' && section[k] != 0))
        return 0;
    const char *n = section + k;
    while (*n == ' ')
        n++;
    snprintf(out, len, "%s", n);
    return 1;
}

/* ---- experiment files ---- */

enum { SEC_NONE, SEC_EXPERIMENT, SEC_CLAIM, SEC_DECISION, SEC_PRIOR };

typedef struct exp_parse {
    exp_experiment *e;
    exp_decision *d;
    int sec;
    unsigned seen; /* sections seen: each once */
} exp_parse;

static int exp_section(void *user, int line, const char *name, char *why, size_t whylen)
{
    exp_parse *p = user;
    exp_experiment *e = p->e;
    char cname[EXP_NAME * 2];
    if (strcmp(name, "experiment") == 0) {
        if (p->seen & 1) {
            snprintf(why, whylen, "[experiment] given twice");
            return -1;
        }
        p->seen |= 1;
        p->sec = SEC_EXPERIMENT;
        return 0;
    }
    if (!section_named(name, "claim", cname, sizeof cname)) {
        snprintf(why, whylen, "unknown section [%s] (known: [experiment], [claim NAME])", name);
        return -1;
    }
    if (!cname[0] || strlen(cname) >= EXP_NAME) {
        snprintf(why, whylen, "[%s]: a claim is [claim NAME], NAME under %d characters", name, EXP_NAME);
        return -1;
    }
    for (const char *q = cname; *q; q++)
        if (!name_char(*q)) {
            snprintf(why, whylen, "[%s]: '%s' is not a name", name, cname);
            return -1;
        }
    for (int i = 0; i < e->nclaims; i++)
        if (strcmp(e->claims[i].name, cname) == 0) {
            snprintf(why, whylen, "[%s]: claim '%s' defined twice (first at line %d)", name, cname, e->claims[i].line);
            return -1;
        }
    if (e->nclaims == EXP_MAX_CLAIMS) {
        snprintf(why, whylen, "[%s]: more than %d claims in one experiment", name, EXP_MAX_CLAIMS);
        return -1;
    }
    exp_claim *c = &e->claims[e->nclaims++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", cname);
    c->line = line;
    p->sec = SEC_CLAIM;
    return 0;
}

static int exp_key(void *user, int line, const char *key, const char *v, int continued, char *why, size_t whylen)
{
    exp_parse *p = user;
    exp_experiment *e = p->e;
    if (p->sec == SEC_CLAIM) {
        exp_claim *c = &e->claims[e->nclaims - 1];
        if (strcmp(key, "says") == 0)
            return put_text(c->says, sizeof c->says, v, continued, key, why, whylen);
        if (strcmp(key, "rule") == 0) {
            if (!continued)
                c->rule_line = line;
            return put_text(c->rule_text, sizeof c->rule_text, v, continued, key, why, whylen);
        }
        snprintf(why, whylen, "[claim %s] unknown key '%s' (known: says, rule)", c->name, key);
        return -1;
    }
    const text_key text[] = {
        {"title", e->title, sizeof e->title},          {"question", e->question, sizeof e->question},
        {"why", e->why, sizeof e->why},                {"run", e->run, sizeof e->run},
        {"boundary", e->boundary, sizeof e->boundary}, {"next", e->next, sizeof e->next},
    };
    int rc;
    if (put_known(text, sizeof text / sizeof text[0], key, v, continued, why, whylen, &rc))
        return rc;
    if (strcmp(key, "plugin") == 0)
        return put_name(e->plugin, sizeof e->plugin, v, continued, key, why, whylen);
    if (strcmp(key, "chart") == 0) {
        if (put_name(e->chart, sizeof e->chart, v, continued, key, why, whylen) != 0)
            return -1;
        if (strcmp(v, "bars") != 0 && strcmp(v, "sweep") != 0) {
            snprintf(why, whylen, "key 'chart': '%s' is not bars or sweep", v);
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "cases") == 0)
        return put_list((char *)e->cases, sizeof e->cases[0], EXP_MAX_LIST, &e->ncases, v, continued, key, why, whylen);
    if (strcmp(key, "dtypes") == 0)
        return put_list((char *)e->dtypes, sizeof e->dtypes[0], EXP_MAX_LIST, &e->ndtypes, v, continued, key, why, whylen);
    if (strcmp(key, "profiles") == 0)
        return put_list((char *)e->profiles, sizeof e->profiles[0], EXP_MAX_LIST, &e->nprofiles, v, continued, key,
                        why, whylen);
    snprintf(why, whylen, "[experiment] unknown key '%s' (known: title, question, why, plugin, cases, dtypes, "
                          "profiles, chart, run, boundary, next)", key);
    return -1;
}

/* The file's name without `suffix`, into name; -1 (reported) when it is not a usable name. */
static int stem(const char *path, const char *suffix, char *name, size_t len, char *err, size_t errlen)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b), s = strlen(suffix);
    if (n > s && strcmp(b + n - s, suffix) == 0)
        n -= s;
    if (n == 0 || n >= len) {
        snprintf(err, errlen, "%s: the file's name is not a usable name (1..%zu characters before %s)", path, len - 1,
                 suffix);
        return -1;
    }
    snprintf(name, len, "%.*s", (int)n, b);
    return 0;
}

int exp_load_experiment(const char *path, exp_experiment *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    exp_parse p = {.e = e};
    static const ini_walk_ops ops = {exp_section, exp_key};
    if (stem(path, ".exp.ini", e->name, sizeof e->name, err, errlen) != 0 || ini_walk(path, &ops, &p, 0, err, errlen) != 0)
        return -1;
    if (!(p.seen & 1) || !e->plugin[0]) {
        snprintf(err, errlen, "%s: no plugin named: add [experiment] with plugin = NAME", path);
        return -1;
    }
    if (!e->question[0]) {
        snprintf(err, errlen, "%s: no question: an experiment says what it asks ([experiment] question = ...)", path);
        return -1;
    }
    if (!e->title[0])
        snprintf(e->title, sizeof e->title, "%s", e->name);
    if (!e->chart[0])
        snprintf(e->chart, sizeof e->chart, "bars");
    for (int i = 0; i < e->nclaims; i++) {
        exp_claim *c = &e->claims[i];
        if (!c->rule_text[0]) {
            snprintf(err, errlen, "%s:%d: [claim %s] has no rule (rule = METRIC OP NUMBER [where ...])", path, c->line,
                     c->name);
            return -1;
        }
        char why[512];
        if (claim_parse(c->rule_text, &c->rule, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s:%d: [claim %s] key 'rule': %s", path, c->rule_line, c->name, why);
            return -1;
        }
        if (!c->says[0])
            snprintf(c->says, sizeof c->says, "%s", c->rule_text);
    }
    return 0;
}

/* ---- decision files ---- */

/* A word of v that names a file: a file's ending, a path from the root or from here, two folders
   deep, or under the lab's own folders ("TFLOP/s" and "PyTorch/cuBLAS" are not). A prior study is
   cited by what it was: a path means nothing to a reader of the report. 1 and the word, else 0. */
static int cites_file(const char *v, char *word, size_t len)
{
    static const char *const ends[] = {".txt", ".md", ".csv", ".ini", ".json", ".log", ".html"};
    static const char *const starts[] = {"/", "./", "../", "docs/", "experiments/", "out/", "tools/", "tests/"};
    for (const char *w = v; *w;) {
        w += strspn(w, " (\"'");
        size_t n = strcspn(w, " ");
        while (n && strchr(",;:.)(\"'", w[n - 1]))
            n--; /* "(see a.txt)," reads as a.txt */
        int slashes = 0;
        for (size_t i = 0; i < n; i++)
            slashes += w[i] == '/';
        int hit = slashes >= 2;
        for (size_t i = 0; !hit && i < sizeof ends / sizeof ends[0]; i++) {
            size_t e = strlen(ends[i]);
            hit = n > e && strncmp(w + n - e, ends[i], e) == 0;
        }
        for (size_t i = 0; !hit && i < sizeof starts / sizeof starts[0]; i++)
            hit = n > strlen(starts[i]) && strncmp(w, starts[i], strlen(starts[i])) == 0;
        if (hit) {
            snprintf(word, len, "%.*s", (int)n, w);
            return 1;
        }
        w += strcspn(w, " ");
    }
    return 0;
}

static int dec_section(void *user, int line, const char *name, char *why, size_t whylen)
{
    (void)line;
    exp_parse *p = user;
    unsigned bit = strcmp(name, "decision") == 0 ? 1 : strcmp(name, "prior") == 0 ? 2 : 0;
    if (!bit) {
        snprintf(why, whylen, "unknown section [%s] (known: [decision], [prior]%s)", name,
                 strcmp(name, "seed") == 0 ? "; the prior study's call is [prior]" : "");
        return -1;
    }
    if (p->seen & bit) {
        snprintf(why, whylen, "[%s] given twice", name);
        return -1;
    }
    p->seen |= bit;
    p->sec = bit == 1 ? SEC_DECISION : SEC_PRIOR;
    return 0;
}

static int dec_key(void *user, int line, const char *key, const char *v, int continued, char *why, size_t whylen)
{
    exp_parse *p = user;
    exp_decision *d = p->d;
    char word[128];
    if (p->sec == SEC_PRIOR) {
        if (strcmp(key, "status") == 0) {
            static const char *const ok[] = {"Supported", "Measured", "Caveated", "Rejected"};
            int found = 0;
            for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
                found |= strcmp(v, ok[i]) == 0;
            if (!found) {
                snprintf(why, whylen, "[prior] key 'status': '%s' is not Supported, Measured, Caveated or Rejected", v);
                return -1;
            }
            return put_name(d->prior_status, sizeof d->prior_status, v, continued, key, why, whylen);
        }
        if (strcmp(key, "figure") != 0 && strcmp(key, "study") != 0) {
            snprintf(why, whylen, "[prior] unknown key '%s' (known: status, figure, study)", key);
            return -1;
        }
        if (cites_file(v, word, sizeof word)) {
            snprintf(why, whylen, "[prior] key '%s': '%s' is a file: cite the study by what it was (study = ...)", key,
                     word);
            return -1;
        }
        if (strcmp(key, "figure") == 0)
            return put_text(d->prior_figure, sizeof d->prior_figure, v, continued, key, why, whylen);
        return put_text(d->prior_study, sizeof d->prior_study, v, continued, key, why, whylen);
    }
    /* A typed caveat or next step drifts from the evidence the day a run changes it: the report derives
       both from the claims' cases (report_gaps.h), so the keys are refused rather than ignored. */
    if (strcmp(key, "caveat") == 0 || strcmp(key, "next") == 0) {
        snprintf(why, whylen, "[decision] key '%s' is not read: a decision's caveat and next evidence come from its "
                              "claims' cases (docs/report.md); say it as a claim of an experiment", key);
        return -1;
    }
    const text_key text[] = {
        {"domain", d->domain, sizeof d->domain},
        {"title", d->title, sizeof d->title},
        {"call", d->call, sizeof d->call},
    };
    int rc;
    if (put_known(text, sizeof text / sizeof text[0], key, v, continued, why, whylen, &rc))
        return rc;
    if (strcmp(key, "experiments") == 0) {
        if (!continued)
            d->exps_line = line;
        return put_list((char *)d->exps, sizeof d->exps[0], EXP_MAX_DECISION_EXPS, &d->nexps, v, continued, key, why,
                        whylen);
    }
    snprintf(why, whylen, "[decision] unknown key '%s' (known: domain, title, call, experiments)", key);
    return -1;
}

int exp_load_decision(const char *path, exp_decision *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    exp_parse p = {.d = d};
    static const ini_walk_ops ops = {dec_section, dec_key};
    if (stem(path, ".ini", d->name, sizeof d->name, err, errlen) != 0 || ini_walk(path, &ops, &p, 0, err, errlen) != 0)
        return -1;
    const char *missing = !(p.seen & 1) ? "[decision]" : !d->domain[0] ? "domain" : !d->title[0] ? "title"
                        : !d->call[0] ? "call" : d->nexps == 0 ? "experiments" : NULL;
    if (missing) {
        snprintf(err, errlen, "%s: no %s: a decision names its domain, title, call and experiments", path, missing);
        return -1;
    }
    missing = !(p.seen & 2) ? NULL : !d->prior_status[0] ? "status" : !d->prior_figure[0] ? "figure"
            : !d->prior_study[0] ? "study" : NULL;
    if (missing) {
        snprintf(err, errlen, "%s: [prior] has no %s: the prior study's call is its status, figure and study", path,
                 missing);
        return -1;
    }
    return 0;
}
