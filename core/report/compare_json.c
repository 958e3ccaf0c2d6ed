/* `klab compare --json`: the comparison as one document, schema klab.compare/1 (docs/outputs.md). The
 * caller opens the document's object and closes it; these write its members. */
#include <math.h>
#include <string.h>

#include "report/compare_internal.h"

static void side_json(json_out *j, const char *key, const char *path, const char *gpu)
{
    json_object(j, key);
    json_str(j, "path", path);
    json_str(j, "gpu", gpu);
    json_end(j);
}

void cmp_json_head(json_out *j, const char *a, const char *ga, const char *b, const char *gb, double t)
{
    side_json(j, "a", a, ga);
    side_json(j, "b", b, gb);
    json_num(j, "threshold", t);
    json_array(j, "rows");
}

/* One side's median and its interval, in microseconds as the terminal shows them; null when untimed. */
static void median_json(json_out *j, const char *key, const klab_row *r)
{
    if (!r || !r->has_time || !(r->median_ms > 0)) {
        json_num(j, key, NAN); /* null: the document is finite_only */
        return;
    }
    json_object(j, key);
    json_num(j, "median_us", r->median_ms * 1e3);
    json_num(j, "lo_us", r->has_ci ? r->median_lo * 1e3 : NAN);
    json_num(j, "hi_us", r->has_ci ? r->median_hi * 1e3 : NAN);
    json_str(j, "status", row_status_name(r->status));
    json_str(j, "config", r->config);
    json_end(j);
}

void cmp_json_pair(json_out *j, const char *name, const cmp_pair *p)
{
    const klab_row *r = p->a ? p->a : p->b;
    json_object(j, NULL);
    json_str(j, "file", name);
    json_str(j, "plugin", r->plugin);
    json_str(j, "case", r->kcase);
    json_str(j, "shape", r->shape);
    json_str(j, "dtype", r->dtype);
    json_str(j, "profile", r->profile);
    json_str(j, "l2", r->l2);
    json_str(j, "launch", r->launch);
    median_json(j, "a", p->a);
    median_json(j, "b", p->b);
    json_num(j, "ratio", p->has_ratio ? p->ratio : NAN);
    json_num(j, "ratio_lo", p->has_bounds ? p->lo : NAN);
    json_num(j, "ratio_hi", p->has_bounds ? p->hi : NAN);
    json_str(j, "verdict", cmp_verdict_name(p->v));
    json_bool(j, "regression", p->regression);
    json_bool(j, "config_changed", p->config_changed);
    json_str(j, "why", p->why);
    json_end(j);
}

void cmp_json_tail(json_out *j, const cmp_opts *o, const cmp_totals *tot)
{
    json_end(j); /* rows */
    json_object(j, "totals");
    for (int v = CMP_SAME; v <= CMP_ONLY_B; v++)
        json_int(j, cmp_verdict_name((cmp_verdict)v), tot->n[v]);
    json_int(j, "regressions", tot->regressions);
    json_int(j, "config_changed", tot->config_changed);
    json_int(j, "files", tot->files);
    json_end(j);
    json_object(j, "gate");
    json_bool(j, "failed", tot->gate_failed);
    json_bool(j, "allow_missing", o->allow_missing);
    json_bool(j, "allow_config_change", o->allow_config_change);
    json_end(j);
}
