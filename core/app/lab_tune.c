#include "app/lab_tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

/* `flag` is one of the row's ';'-separated flags. */
static int of_triple(const klab_row *r, const char *kcase, const char *dtype, const char *profile)
{
    return row_has_flag(r, TUNE_FLAG_TRIAL) && !strcmp(r->kcase, kcase) && !strcmp(r->dtype, dtype) &&
           !strcmp(r->profile, profile);
}

static double upper(const klab_row *r)
{
    return r->has_ci ? r->median_hi : INFINITY;
}

/* A row whose time a tune may trust: passed, timed, and stopped by its precision or step count, not by a
   budget that left it few samples. */
static int trustworthy(const klab_row *r)
{
    return r->status == ROW_PASSED && r->has_time && r->median_ms > 0 && !row_has_flag(r, "few-samples");
}

int tune_best(const klab_row *rows, int n, const char *kcase, const char *dtype, const char *profile, int *own)
{
    int best = -1;
    *own = -1;
    for (int i = 0; i < n; i++) {
        const klab_row *r = &rows[i];
        if (!of_triple(r, kcase, dtype, profile))
            continue;
        if (row_has_flag(r, TUNE_FLAG_OWN)) {
            if (*own < 0)
                *own = i;
            continue;
        }
        if (!trustworthy(r))
            continue;
        if (best < 0 || r->median_ms < rows[best].median_ms ||
            (r->median_ms == rows[best].median_ms && upper(r) < upper(&rows[best])))
            best = i;
    }
    return best;
}

static const cfg_case *find_case(const cfg_experiment *cfg, const char *name)
{
    for (int i = 0; i < cfg->ncases; i++)
        if (!strcmp(cfg->cases[i].name, name))
            return &cfg->cases[i];
    return NULL;
}

/* 1 when some trial of the triple other than the own choice ran configuration `config`. */
static int in_space(const klab_row *rows, int n, const klab_row *own)
{
    for (int i = 0; i < n; i++)
        if (of_triple(&rows[i], own->kcase, own->dtype, own->profile) && !row_has_flag(&rows[i], TUNE_FLAG_OWN) &&
            !strcmp(rows[i].config, own->config))
            return 1;
    return 0;
}

int tune_record(tune_cache *c, const klab_row *rows, int n, const tune_run_info *s, FILE *out)
{
    int changed = 0;
    char *done = calloc(n > 0 ? (size_t)n : 1, 1);
    if (!done) {
        fprintf(out, "  out of memory: nothing cached\n");
        return 0;
    }
    for (int i = 0; i < n; i++) {
        const klab_row *r = &rows[i];
        if (done[i] || !row_has_flag(r, TUNE_FLAG_TRIAL))
            continue;
        for (int k = i; k < n; k++)
            if (of_triple(&rows[k], r->kcase, r->dtype, r->profile))
                done[k] = 1;
        const cfg_case *cc = find_case(s->cfg, r->kcase);
        if (!cc)
            continue; /* not a case of this INI: nothing to sign it with */
        int own, best = tune_best(rows, n, r->kcase, r->dtype, r->profile, &own);
        const klab_row *o = own >= 0 && trustworthy(&rows[own]) ? &rows[own] : NULL;
        text_printf(out, "  %s %s %s %s: ", r->plugin, r->kcase, r->dtype, r->profile);
        if (best < 0) {
            fprintf(out, "no configuration passed with a trustworthy time; nothing cached\n");
            continue;
        }
        const klab_row *b = &rows[best];
        /* The own choice is a configuration of the space and beat the best trustworthy trial: its own trial
           row was left out (few samples, or noise put it behind), but the own-choice row timed that same
           configuration trustworthily. Caching the slower best would slow every later run (the H200's
           fp8_gemm tune of 2026-11-22 cached a 0.69x configuration so), so the own choice's is cached. */
        if (o && o->median_ms < b->median_ms && in_space(rows, n, o))
            b = o;
        tune_entry e;
        memset(&e, 0, sizeof e);
        tune_key_make(&e.key, s->gpu, r->plugin, s->version, cc, r->dtype, r->profile);
        if (o && o->median_ms < b->median_ms && !in_space(rows, n, o)) {
            int removed = tune_cache_remove(c, &e.key);
            text_printf(out, "the plugin's own choice %s (%.4g ms) beat every configuration (best %s, %.4g ms); "
                             "it runs without a cache entry%s\n",
                        o->config, o->median_ms, b->config, b->median_ms, removed ? " (the earlier entry removed)" : "");
            changed += removed;
            continue;
        }
        snprintf(e.config, sizeof e.config, "%s", b->config);
        e.median_ms = b->median_ms;
        snprintf(e.run_id, sizeof e.run_id, "%s", s->run_id);
        char err[1200];
        if (strlen(b->config) >= sizeof e.config || tune_cache_put(c, &e, err, sizeof err) != 0) {
            text_printf(out, "%s: not cached: %s\n", b->config,
                        strlen(b->config) >= sizeof e.config ? "a config longer than the cache holds" : err);
            continue;
        }
        changed++;
        text_printf(out, "%s (%.4g ms", b->config, b->median_ms);
        if (o)
            fprintf(out, ", %.2fx the plugin's own choice", o->median_ms / b->median_ms);
        fprintf(out, ")\n");
    }
    free(done);
    return changed;
}
