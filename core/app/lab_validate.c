/* klab --validate: every selected INI read by klab's reader and checked against its plugin by a
 * worker, with no GPU; --tune also lists each case's configurations. */
#include "app/lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/lab_cases.h"
#include "app/lab_torch.h"
#include "app/lab_worker.h"
#include "app/plugin_select.h"
#include "config/case_json.h"
#include "config/ini_config.h"
#include "host/dtype.h"
#include "util/json_out.h"
#include "worker/selection.h"
#include "util/text.h"

#define VALIDATE_JSON_SCHEMA "klab.validate/1"

/* The cases of cfg the selection keeps, each as libklab_bench writes one (config/case_json.c). */
static void cases_json(json_out *j, const cfg_experiment *cfg, const run_filter *f)
{
    json_array(j, "cases");
    for (int i = 0; i < cfg->ncases; i++)
        if (job_keeps_case(&cfg->cases[i], f))
            case_json(j, &cfg->cases[i], f->dtypes);
    json_end(j);
}

/* One INI's verdict: a line (the text), or an object of the document's "inis" (--json). */
static void verdict(json_out *j, const char *ini, const cfg_experiment *cfg, const run_filter *f, const char *status,
                    const char *why)
{
    if (!j) {
        if (strcmp(status, "ok") == 0)
            text_printf(stdout, "ok      %s\n", ini);
        else
            text_printf(stdout, "%-7s %s\n", strcmp(status, "failed") == 0 ? "FAILED" : "INVALID", why);
        return;
    }
    json_object(j, NULL);
    json_str(j, "file", ini);
    json_str(j, "plugin", cfg ? cfg->plugin : "");
    json_str(j, "status", status);
    json_str(j, "error", why);
    if (cfg && strcmp(status, "ok") == 0)
        cases_json(j, cfg, f);
    json_end(j);
}

/* On success, *tt (for --with-torch's listing) names the plugin, its library and the INI. */
static int validate_one(const cli_opts *o, const char *ini, const discovery *d, int *bad_ini, int *bad_plugin,
                        torch_target *tt, lab_cases *cases, json_out *json)
{
    static cfg_experiment cfg;
    char err[2400];
    if (cfg_load(ini, &cfg, err, sizeof err) != 0 || lab_cases_add(o, &cfg, cases, err, sizeof err) != 0) {
        verdict(json, ini, NULL, NULL, "invalid", err);
        (*bad_ini)++;
        return -1;
    }
    const found_plugin *f = discovery_find(d, cfg.plugin);
    if (!f) {
        snprintf(err, sizeof err, "%s:%d: [experiment] key 'plugin': no plugin '%s' found (see klab --list)", ini,
                 cfg.plugin_line, cfg.plugin);
        verdict(json, ini, &cfg, NULL, "invalid", err);
        (*bad_ini)++;
        return -1;
    }
    job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_VALIDATE;
    j.cfg = &cfg;
    j.filter = o->filter; /* --case, --dtype, --profile select what is listed, as they select what runs */
    j.tune = o->tune;
    j.verbose = o->verbose;
    snprintf(j.plugin_path, sizeof j.plugin_path, "%s", f->path);
    snprintf(j.plugin_name, sizeof j.plugin_name, "%s", f->name);
    job_state s;
    memset(&s, 0, sizeof s);
    s.notes_to_stdout = !json;
    s.notes_dropped = !!json; /* the document lists the cases itself */
    if (!json)
        text_printf(stdout, "%s (%s)\n", ini, cfg.plugin);
    worker_outcome w;
    if (lab_spawn(&j, o, o->timeout_s, &s, &w) != 0)
        return -1;
    char how[128];
    worker_outcome_text(&w, how, sizeof how);
    if (s.refused) {
        int ini_fault = lab_refused_for_ini(&s, ini);
        verdict(json, ini, &cfg, NULL, ini_fault ? "invalid" : "refused", s.refusal);
        (*(ini_fault ? bad_ini : bad_plugin))++;
        return -1;
    }
    if (!s.done) {
        snprintf(err, sizeof err, "%s: the worker %s while checking it", f->path, how[0] ? how : "stopped");
        verdict(json, ini, &cfg, NULL, "failed", err);
        (*bad_plugin)++;
        return -1;
    }
    verdict(json, ini, &cfg, &o->filter, "ok", "");
    snprintf(tt->plugin, sizeof tt->plugin, "%s", f->name);
    snprintf(tt->so, sizeof tt->so, "%s", f->path);
    snprintf(tt->ini, sizeof tt->ini, "%s", ini);
    return 0;
}

int lab_validate(const cli_opts *o)
{
    discovery d;
    lab_discover(o, &d);
    int bad_ini = 0, bad_plugin = 0, checked = 0, nt = 0;
    lab_cases cases = {0};
    static torch_target tt[DISC_MAX_PLUGINS];
    json_out doc, *json = NULL;
    if (o->json) {
        if (json_open_document(&doc, VALIDATE_JSON_SCHEMA) != 0) {
            fprintf(stderr, "klab: out of memory\n");
            return EXIT_USAGE;
        }
        json = &doc;
        json_array(json, "inis");
    }
    int rc = EXIT_OK;
    if (o->config[0]) {
        nt += validate_one(o, o->config, &d, &bad_ini, &bad_plugin, &tt[nt], &cases, json) == 0;
        checked++;
        if (supervise_interrupted())
            rc = lab_interrupted(WORKER_STOPPED);
    } else {
        const found_plugin *sel[DISC_MAX_PLUGINS];
        int n = 0;
        if (lab_select_plugins(o, &d, sel, &n) != 0)
            rc = EXIT_USAGE;
        for (int i = 0; rc == EXIT_OK && i < n; i++) {
            char ini[4200];
            if (discovery_ini(&d, sel[i]->name, ini, sizeof ini) != 0) {
                if (!json)
                    printf("note    %s has no %s.ini: it runs only with --config FILE\n", sel[i]->path, sel[i]->name);
                continue;
            }
            nt += validate_one(o, ini, &d, &bad_ini, &bad_plugin, &tt[nt], &cases, json) == 0;
            checked++;
            if (supervise_interrupted())
                rc = lab_interrupted(WORKER_STOPPED);
        }
    }
    if (rc != EXIT_OK) {
        if (json)
            free(json_close(json));
        return rc;
    }
    char err[2400] = "";
    if (checked && !bad_ini && lab_cases_check(o, &cases, err, sizeof err) != 0) {
        /* counted as an invalid selection of the INIs: what a run would refuse, --validate refuses */
        if (!json)
            text_printf(stdout, "INVALID %s\n", err);
        bad_ini++;
    } else {
        err[0] = 0;
    }
    if (json) {
        json_end(json);
        json_str(json, "selection_error", err);
        json_int(json, "checked", checked);
        json_int(json, "invalid", bad_ini);
        json_int(json, "refused", bad_plugin);
        json_end(json);
        if (json_print(json, stdout) != 0) {
            fprintf(stderr, "klab: the JSON document could not be written\n");
            return EXIT_USAGE;
        }
    } else {
        printf("\n%d INI file%s checked: %d invalid, %d plugin%s refused\n", checked, checked == 1 ? "" : "s",
               bad_ini, bad_plugin, bad_plugin == 1 ? "" : "s");
    }
    /* a selection that names no case has nothing for PyTorch to list either */
    int torch_rc = o->with_torch && nt && !err[0] ? lab_torch(o, tt, nt, NULL) : 0;
    if (supervise_interrupted())
        return torch_rc;
    return bad_ini ? EXIT_USAGE : bad_plugin || torch_rc ? EXIT_FAILED_ROWS : EXIT_OK;
}
