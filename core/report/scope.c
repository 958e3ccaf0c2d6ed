#include "report/scope.h"

#include <stdlib.h>
#include <string.h>

#include "report/experiment.h"

static int listed(const char *v, const char *list, size_t stride, int n)
{
    if (n == 0)
        return 1;
    for (int i = 0; i < n; i++)
        if (strcmp(v, list + (size_t)i * stride) == 0)
            return 1;
    return 0;
}

/* The scope but its plugin: an experiment with no lists (a plugin's page) reads nothing of the row */
static int in_lists(const exp_experiment *e, const klab_row *r)
{
    return listed(r->kcase, (const char *)e->cases, sizeof e->cases[0], e->ncases) &&
           listed(r->dtype, (const char *)e->dtypes, sizeof e->dtypes[0], e->ndtypes) &&
           listed(r->profile, (const char *)e->profiles, sizeof e->profiles[0], e->nprofiles);
}

int claims_in_scope(const exp_experiment *e, const klab_row *r)
{
    return strcmp(r->plugin, e->plugin) == 0 && in_lists(e, r);
}

int scope_spans_find(const run_set *runs, scope_spans *out)
{
    memset(out, 0, sizeof *out);
    int cap = 0;
    for (int ri = 0; ri < runs->n; ri++) {
        const run_dir *d = &runs->runs[ri];
        for (int k = 0; k < d->nrows; k++) {
            if (k > 0 && strcmp(d->rows[k].plugin, d->rows[k - 1].plugin) == 0) {
                out->at[out->n - 1].n++;
                continue;
            }
            if (out->n == cap) {
                cap = cap ? 2 * cap : 16;
                scope_span *p = realloc(out->at, (size_t)cap * sizeof *p);
                if (!p) {
                    scope_spans_free(out);
                    return -1;
                }
                out->at = p;
            }
            out->at[out->n++] = (scope_span){ri, k, 1};
        }
    }
    return 0;
}

void scope_spans_free(scope_spans *s)
{
    free(s->at);
    memset(s, 0, sizeof *s);
}

const char *scope_span_plugin(const run_set *runs, const scope_span *sp)
{
    return runs->runs[sp->run].rows[sp->first].plugin;
}

int scope_find(const exp_experiment *e, const run_set *runs, const scope_spans *sp, row_scope *out)
{
    memset(out, 0, sizeof *out);
    int cap = 0;
    for (int i = 0; i < sp->n; i++) {
        const scope_span *s = &sp->at[i];
        if (strcmp(scope_span_plugin(runs, s), e->plugin) != 0)
            continue;
        const klab_row *rows = runs->runs[s->run].rows;
        out->plugin_rows += s->n;
        for (int k = s->first; k < s->first + s->n; k++) {
            if (!in_lists(e, &rows[k])) /* the stretch is the plugin's: its name is not compared again */
                continue;
            if (out->n == cap) {
                cap = cap ? 2 * cap : 64;
                scope_row *p = realloc(out->at, (size_t)cap * sizeof *p);
                if (!p) {
                    scope_free(out);
                    return -1;
                }
                out->at = p;
            }
            out->at[out->n++] = (scope_row){s->run, &rows[k]};
        }
    }
    return 0;
}

void scope_free(row_scope *s)
{
    free(s->at);
    memset(s, 0, sizeof *s);
}

int scope_shown_share(int nruns)
{
    int share = SCOPE_SHOWN_MAX / (nruns > 0 ? nruns : 1);
    return share > 0 ? share : 1; /* more runs than rows shown: the first row of each, up to the bound */
}

int scope_shown(const row_scope *all, int nruns, row_scope *out)
{
    *out = *all;
    if (all->n <= SCOPE_SHOWN_MAX)
        return 0;
    int share = scope_shown_share(nruns);
    out->at = malloc((size_t)SCOPE_SHOWN_MAX * sizeof *out->at);
    if (!out->at) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->n = 0;
    for (int i = 0, run = -1, k = 0; i < all->n; i++) {
        if (all->at[i].run != run)
            run = all->at[i].run, k = 0;
        if (k++ < share && out->n < SCOPE_SHOWN_MAX)
            out->at[out->n++] = all->at[i];
    }
    return 0;
}

void scope_shown_free(const row_scope *all, row_scope *shown)
{
    if (shown->at != all->at)
        free(shown->at);
    memset(shown, 0, sizeof *shown);
}
