#include "report/report_json.h"

#include <string.h>

#include "report/report_gaps.h"
#include "util/json_out.h"

static const char *const fail_on_name[] = {"", "rejected", "caveated"};

static void runs_json(json_out *j, const run_set *runs)
{
    json_array(j, "runs");
    for (int i = 0; i < runs->n; i++) {
        const run_dir *d = &runs->runs[i];
        json_object(j, NULL);
        json_str(j, "label", d->id);
        json_str(j, "path", d->path);
        json_str(j, "started", d->started);
        json_str(j, "commit", d->commit);
        json_str(j, "gpu", d->gpu);
        json_int(j, "rows", d->nrows);
        json_end(j);
    }
    json_end(j);
}

static void claim_json(json_out *j, const exp_claim *c, const claim_result *cr)
{
    json_object(j, NULL);
    json_str(j, "name", c->name);
    json_str(j, "says", c->says);
    json_str(j, "rule", c->rule_text);
    json_str(j, "status", evidence_status_name(cr->status));
    json_int(j, "cases", cr->n);
    json_int(j, "met", cr->met);
    json_int(j, "not_met", cr->failed);
    json_int(j, "undecided", cr->open);
    json_end(j);
}

static void experiments_json(json_out *j, const report *r)
{
    json_array(j, "experiments");
    for (int i = 0; r && i < r->set->nexps; i++) {
        const report_exp *x = &r->exps[i];
        json_object(j, NULL);
        json_str(j, "name", x->e->name);
        json_str(j, "title", x->e->title);
        json_str(j, "plugin", x->e->plugin);
        json_str(j, "file", x->e->path);
        json_str(j, "status", evidence_status_name(x->status));
        json_int(j, "rows", x->rows);
        json_array(j, "claims");
        for (int c = 0; c < x->e->nclaims; c++)
            claim_json(j, &x->e->claims[c], &x->claims[c]);
        json_end(j);
        json_end(j);
    }
    json_end(j);
}

int report_fails_on(report_fail_on f, evidence_status s)
{
    return (f >= REPORT_FAIL_REJECTED && s == EV_REJECTED) || (f >= REPORT_FAIL_CAVEATED && s == EV_CAVEATED);
}

/* Returns whether any decision fails --fail-on. */
static int decisions_json(json_out *j, const report *r, report_fail_on fail_on)
{
    int failed = 0;
    json_array(j, "decisions");
    for (int i = 0; r && i < r->set->ndecs; i++) {
        const report_dec *rd = &r->decs[i];
        const exp_decision *d = rd->d;
        const report_exp *xs[EXP_MAX_DECISION_EXPS];
        char roll[3000];
        int nx = report_dec_exps(r, rd, xs);
        report_rollup(r, xs, nx, rd->status, roll, sizeof roll);
        json_object(j, NULL);
        json_str(j, "name", d->name);
        json_str(j, "domain", d->domain);
        json_str(j, "title", d->title);
        json_str(j, "call", d->call);
        json_str(j, "status", evidence_status_name(rd->status));
        json_str(j, "summary", roll);
        json_int(j, "rows", rd->rows);
        json_array(j, "experiments");
        for (int k = 0; k < d->nexps; k++)
            json_str(j, NULL, d->exps[k]);
        json_end(j);
        json_str(j, "prior_status", d->prior_status);
        json_bool(j, "fails_gate", report_fails_on(fail_on, rd->status));
        failed |= report_fails_on(fail_on, rd->status);
        json_end(j);
    }
    json_end(j);
    return failed;
}

int report_json_print(FILE *fp, const report *r, const run_set *runs, const char *const *dirs, int ndirs,
                      const char *out, report_fail_on fail_on)
{
    json_out j;
    if (json_open_document(&j, REPORT_JSON_SCHEMA) != 0)
        return -1;
    runs_json(&j, runs);
    json_array(&j, "experiment_dirs");
    for (int i = 0; i < ndirs; i++)
        json_str(&j, NULL, dirs[i]);
    json_end(&j);
    json_str(&j, "out_dir", r ? out : "");
    experiments_json(&j, r);
    int failed = decisions_json(&j, r, fail_on);
    json_object(&j, "gate");
    json_str(&j, "fail_on", fail_on_name[fail_on]);
    json_bool(&j, "failed", failed);
    json_end(&j);
    json_end(&j);
    return json_print(&j, fp);
}
