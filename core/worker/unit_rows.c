#include "worker/unit_rows.h"

#include <stdio.h>
#include <string.h>

#include "host/dtype.h"
#include "worker/case_instance.h"
#include "worker/worker.h"

void unit_rows_init(unit_rows *ur, const job *j, const loaded_plugin *lp, const device_info *dev,
                    const cfg_case *c, klab_dtype dtype)
{
    ur->j = j;
    ur->lp = lp;
    ur->dev = dev;
    ur->c = c;
    ur->dtype = dtype;
    ur->n = 0;
    snprintf(ur->label, sizeof ur->label, "%s %s %s", lp->desc.name, c->name, dtype_name(dtype));
}

klab_row *unit_row_new(unit_rows *ur, const char *profile)
{
    const job *j = ur->j;
    klab_row *r = &ur->rows[ur->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->run_id, sizeof r->run_id, "%s", j->run_id);
    snprintf(r->plugin, sizeof r->plugin, "%s", ur->lp->desc.name);
    snprintf(r->kcase, sizeof r->kcase, "%s", ur->c->name);
    snprintf(r->shape, sizeof r->shape, "%s", ur->c->shape);
    snprintf(r->dtype, sizeof r->dtype, "%s", dtype_name(ur->dtype));
    snprintf(r->profile, sizeof r->profile, "%s", profile);
    snprintf(r->l2, sizeof r->l2, "%s", j->topts.mode == TIMING_HOT ? "hot" : "cold");
    snprintf(r->launch, sizeof r->launch, "%s", j->topts.mode == TIMING_BATCHED ? "batched" : "stream");
    r->seed = j->topts.seed;
    row_set_gpu(r, ur->dev->ordinal, ur->dev->name, ur->dev->uuid);
    if (j->quick)
        row_add_flag(r, ROW_FLAG_QUICK);
    return r;
}

void unit_rows_for_entries(unit_rows *ur, const unit_entry *e, int ne)
{
    for (int i = 0; i < ne; i++) {
        klab_row *r = unit_row_new(ur, ur->lp->desc.profiles[e[i].prof].name);
        if (e[i].trial)
            row_add_flag(r, TUNE_FLAG_TRIAL);
        if (e[i].trial && e[i].config < 0)
            row_add_flag(r, TUNE_FLAG_OWN);
    }
}

int unit_row_open(const klab_row *r)
{
    return r->status == ROW_PASSED && !r->reason[0];
}

int unit_rows_open(const unit_rows *ur)
{
    int open = 0;
    for (int i = 0; i < ur->n; i++)
        open += unit_row_open(&ur->rows[i]);
    return open;
}

void unit_rows_fail_open(unit_rows *ur, row_status st, const char *fmt, const char *reason)
{
    for (int i = 0; i < ur->n; i++)
        if (unit_row_open(&ur->rows[i]))
            row_fail(&ur->rows[i], st, fmt, reason);
}

void unit_rows_skip_for_device(unit_rows *ur, const unit_entry *e, int ne)
{
    const device_info *dev = ur->dev;
    const klab_plugin *d = &ur->lp->desc;
    char msg[400];
    if (d->min_cc > dev->cc) {
        snprintf(msg, sizeof msg, "needs compute capability %d.%d; device %d (%s) is %d.%d", d->min_cc / 10,
                 d->min_cc % 10, dev->ordinal, dev->name, dev->cc / 10, dev->cc % 10);
        unit_rows_fail_open(ur, ROW_SKIPPED, "%s", msg);
        return;
    }
    for (int i = 0; i < ne; i++) {
        const int *archs = loader_profile_archs(ur->lp, e[i].prof);
        if (loader_arch_admits(archs, dev->cc))
            continue;
        char list[200];
        loader_archs_text(archs, list, sizeof list);
        row_fail(&ur->rows[i], ROW_SKIPPED, "has machine code for %s only; device %d (%s) is %d.%d", list,
                 dev->ordinal, dev->name, dev->cc / 10, dev->cc % 10);
    }
}

void unit_rows_pick_configs(unit_rows *ur, unit_entry *e, int ne, const klab_case *kcase,
                            const tune_cache *cache, const job_out *out)
{
    const loaded_plugin *lp = ur->lp;
    const cfg_case *c = ur->c;
    for (int i = 0; i < ne; i++) {
        unit_entry *en = &e[i];
        const klab_profile *pr = &lp->profiles[en->prof];
        klab_row *r = &ur->rows[i];
        if (!pr->config || (!en->trial && !unit_row_open(r)))
            continue; /* no tuning space: nothing to pick or name */
        if (!en->trial) {
            const tune_entry *cached = NULL;
            if (cache) {
                tune_key k;
                tune_key_make(&k, ur->dev->name, lp->desc.name, lp->desc.version, c, dtype_name(ur->dtype), pr->name);
                cached = tune_cache_find(cache, &k);
            }
            int n;
            switch (unit_entry_config(pr, kcase, c->config, cached ? cached->config : NULL, &en->config, &n)) {
            case CONFIG_NOT_IN_SPACE:
                snprintf(r->config, sizeof r->config, "%s", c->config);
                row_fail(r, ROW_FAILED, "config '%s' is not in the tuning space of profile '%s' (%d configurations)",
                         c->config, pr->name, n);
                continue;
            case CONFIG_STALE:
                worker_text(out, WIRE_NOTE,
                            "%s %s: the tuning cache's config '%s' is not in the tuning space any more (%d "
                            "configurations): a stale entry of %s, not used; the plugin's own choice runs "
                            "(klab --tune finds a new one)",
                            ur->label, pr->name, cached->config, n, cache->path);
                break;
            case CONFIG_CACHE: row_add_flag(r, TUNE_FLAG_TUNED); break;
            case CONFIG_OWN: case CONFIG_CASE: break;
            }
        }
        const char *d = pr->config(kcase, en->config);
        snprintf(r->config, sizeof r->config, "%s", d ? d : "");
    }
}

/* What inputs changed by a run make of its row (changed > 0: said as `what`; < 0: why it could not
   tell). Returns 1 when they were kept. */
static int inputs_kept(klab_row *r, int changed, const char *what, const char *why)
{
    if (changed == 0)
        return 1;
    row_fail(r, changed > 0 ? ROW_INCORRECT : ROW_FAILED, "%s", changed > 0 ? what : why);
    return 0;
}

int unit_row_verified(klab_row *r, int rc, const char *err, const verify_result *last, uint64_t elems,
                      int changed, const char *why)
{
    if (rc == INST_ERROR) {
        row_fail(r, ROW_FAILED, "%s", err);
        return 0;
    }
    if (rc == INST_REFUSED) {
        row_fail(r, ROW_REFUSED, "%s", err);
        return 0;
    }
    r->has_err = 1;
    r->rel_l2_err = last->rel_l2_err;
    r->max_abs_err = last->max_abs_err;
    r->tol = last->tol;
    r->verified_elems = elems;
    if (rc == INST_MISMATCH) {
        row_fail(r, ROW_INCORRECT, "%s%s", err, changed > 0 ? "; and it changed its inputs" : "");
        return 0;
    }
    return inputs_kept(r, changed, "input modified: run changed its inputs (checksum differs after one run)", why);
}

int unit_row_timed(klab_row *r, const subject *sb, int changed, const char *why)
{
    if (sb->state != SUBJ_OK) {
        row_fail(r, sb->state == SUBJ_INCORRECT ? ROW_INCORRECT : sb->state == SUBJ_ESCAPED ? ROW_FLAGGED : ROW_FAILED,
                 "%s", sb->why);
        return 0;
    }
    return inputs_kept(r, changed, "input modified during timing (checksum differs after the timed runs)", why);
}
