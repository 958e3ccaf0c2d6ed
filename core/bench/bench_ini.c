/* libklab_bench's INI files and plugins: an INI read by klab's own reader (cfg_load: its BOM, bounds,
 * messages and line numbers), its cases as a JSON document, and a plugin described by the worker's
 * describe job and asked for a case's work and tolerance by its own hooks. No GPU. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/klab_bench_internal.h"
#include "config/case_build.h"
#include "config/case_json.h"
#include "host/dtype.h"
#include "host/loader.h"
#include "host/verify.h"
#include "worker/jobs.h"

kb_ini *kb_ini_open(const char *path)
{
    kb_ini *ini = kb_calloc(sizeof *ini);
    char err[1200];
    if (!ini)
        return NULL;
    if (cfg_load(path, &ini->e, err, sizeof err) != 0) {
        kb_fail("%s", err);
        free(ini);
        return NULL;
    }
    return ini;
}

int kb_ini_add_case(kb_ini *ini, const char *name)
{
    char err[1200];
    int i = cfg_add_case(&ini->e, name, err, sizeof err);
    if (i < 0)
        kb_fail("%s", err);
    return i;
}

void kb_ini_close(kb_ini *ini)
{
    free(ini);
}

char *kb_ini_json(const kb_ini *ini)
{
    json_out j;
    if (kb_json_open(&j) != 0)
        return NULL;
    const cfg_experiment *e = &ini->e;
    json_object(&j, NULL);
    json_str(&j, "path", e->path);
    json_str(&j, "plugin", e->plugin);
    json_int(&j, "plugin_line", e->plugin_line);
    json_str(&j, "question", e->question);
    json_array(&j, "cases");
    for (int i = 0; i < e->ncases; i++)
        case_json(&j, &e->cases[i], 0);
    json_end(&j);
    json_end(&j);
    return kb_json_close(&j);
}

void kb_case_sampling(const cfg_case *c, int quick, double budget_ms, int *warmup, stop_rule *stop)
{
    *warmup = c->warmup;
    *stop = c->stop;
    stop_rule_for_run(warmup, stop, quick, budget_ms); /* the rule klab's own runs take */
}

static const cfg_case *case_at(const kb_ini *ini, int index)
{
    if (index < 0 || index >= ini->e.ncases) {
        kb_fail("%s: no case %d (it has %d)", ini->e.path, index, ini->e.ncases);
        return NULL;
    }
    return &ini->e.cases[index];
}

int kb_ini_sampling(const kb_ini *ini, int index, int quick, double budget_ms, double out[5])
{
    const cfg_case *c = case_at(ini, index);
    if (!c)
        return -1;
    int warmup;
    stop_rule r;
    kb_case_sampling(c, quick, budget_ms, &warmup, &r);
    out[0] = warmup;
    out[1] = r.min_reps;
    out[2] = r.max_reps;
    out[3] = r.precision;
    out[4] = r.budget_ms;
    return 0;
}

/* ---- plugins ---- */

typedef struct described {
    wire_plugin plugin;
    int have;
    char err[1200];
} described;

static int on_describe(void *user, wire_type type, const void *payload, uint32_t length)
{
    (void)length;
    described *d = user;
    if (type == WIRE_PLUGIN) {
        d->plugin = *(const wire_plugin *)payload;
        d->have = 1;
    } else if (type == WIRE_REFUSED || type == WIRE_FATAL) {
        snprintf(d->err, sizeof d->err, "%s", ((const wire_text *)payload)->text);
    }
    return 0;
}

char *kb_describe(const char *plugin_path)
{
    static job jb; /* large (paths): not on the caller's stack */
    static described d;
    memset(&jb, 0, sizeof jb);
    memset(&d, 0, sizeof d);
    jb.kind = JOB_DESCRIBE;
    snprintf(jb.plugin_path, sizeof jb.plugin_path, "%s", plugin_path);
    job_out out = {on_describe, &d};
    job_execute(&jb, &out); /* the job klab --list runs: the loader's checks, then the description */
    if (!d.have) {
        kb_fail("%s", d.err[0] ? d.err : "the plugin was not described");
        return NULL;
    }
    const wire_plugin *p = &d.plugin;
    json_out j;
    if (kb_json_open(&j) != 0)
        return NULL;
    json_object(&j, NULL);
    json_str(&j, "name", p->name);
    json_str(&j, "version", p->version);
    json_str(&j, "summary", p->summary);
    json_str(&j, "path", p->path);
    json_int(&j, "abi_major", p->abi_major);
    json_int(&j, "abi_minor", p->abi_minor);
    json_array(&j, "profiles");
    for (int i = 0; i < p->nprofiles; i++) {
        json_object(&j, NULL);
        json_str(&j, "name", p->profiles[i]);
        json_str(&j, "summary", p->profile_summary[i]);
        json_str(&j, "archs", p->profile_archs[i]);
        json_int(&j, "tunes", p->profile_tunes[i]);
        json_end(&j);
    }
    json_end(&j);
    json_str(&j, "baseline", p->baseline);
    json_array(&j, "dtypes");
    for (int k = 0; k < KLAB_DTYPE_COUNT; k++)
        if (p->dtypes & KLAB_DTYPE_BIT(k))
            json_str(&j, NULL, dtype_name((klab_dtype)k));
    json_end(&j);
    json_int(&j, "min_cc", p->min_cc);
    json_str(&j, "archs", p->archs);
    json_names(&j, "params", p->params);
    json_names(&j, "dims", p->dims);
    json_end(&j);
    return kb_json_close(&j);
}

char *kb_case_work(const char *plugin_path, const kb_ini *ini, int index, const char *dtype)
{
    const cfg_case *c = case_at(ini, index);
    int d = dtype_parse(dtype);
    if (!c)
        return NULL;
    if (d < 0) {
        kb_fail("kb_case_work: unknown dtype '%s'", dtype);
        return NULL;
    }
    static loaded_plugin lp; /* large (its profiles): not on the caller's stack */
    char err[1200];
    if (loader_open(plugin_path, NULL, &lp, err, sizeof err) != 0) {
        kb_fail("%s", err);
        return NULL;
    }
    built_case bc;
    case_build(&bc, c, (klab_dtype)d, &lp.desc);
    klab_work w = {.struct_size = sizeof w};
    if (lp.desc.work) /* a pure function of the case, as klab --validate calls it */
        lp.desc.work(&bc.kcase, &w);
    json_out j;
    char *text = NULL;
    if (kb_json_open(&j) == 0) {
        json_object(&j, NULL);
        if (lp.desc.work) { /* without the hook the bytes are the tensors', known only after setup */
            json_num(&j, "bytes", w.bytes);
            json_num(&j, "flops", w.flops);
        }
        json_num(&j, "tolerance", verify_case_tol(&lp.desc, &bc.kcase, (klab_dtype)d));
        json_int(&j, "steps", bc.kcase.steps);
        json_end(&j);
        text = kb_json_close(&j);
    }
    loader_close(&lp);
    return text;
}
