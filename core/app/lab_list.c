/* klab --list: every plugin found, described by a worker (a plugin that crashes while loading is a
 * refusal, not the end of the listing). */
#include "app/lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/lab_worker.h"
#include "app/plugin_select.h"
#include "host/dtype.h"
#include "util/json_out.h"
#include "util/text.h"

#define LIST_JSON_SCHEMA "klab.list/1"

/* One plugin as --list --json describes it (klab.list/1, docs/outputs.md). */
static void plugin_json(json_out *j, const wire_plugin *p, const found_plugin *f, const char *ini)
{
    char abi[32];
    snprintf(abi, sizeof abi, "%u.%u", p->abi_major, p->abi_minor);
    json_object(j, NULL);
    json_str(j, "name", p->name);
    json_str(j, "refused", "");
    json_str(j, "version", p->version);
    json_str(j, "abi", abi);
    json_str(j, "summary", p->summary);
    json_str(j, "file", p->path);
    json_str(j, "ini", ini);
    json_str(j, "baseline", p->baseline);
    json_array(j, "profiles");
    for (int k = 0; k < p->nprofiles; k++) {
        json_object(j, NULL);
        json_str(j, "name", p->profiles[k]);
        json_str(j, "summary", p->profile_summary[k]);
        json_bool(j, "tunes", p->profile_tunes[k]);
        json_names(j, "archs", p->profile_archs[k][0] ? p->profile_archs[k] : p->archs);
        json_end(j);
    }
    json_end(j);
    json_array(j, "dtypes");
    for (int k = 0; k < KLAB_DTYPE_COUNT; k++)
        if (p->dtypes & KLAB_DTYPE_BIT(k))
            json_str(j, NULL, dtype_name((klab_dtype)k));
    json_end(j);
    json_int(j, "min_cc", p->min_cc);
    json_names(j, "archs", p->archs);
    json_names(j, "params", p->params);
    json_names(j, "dims", p->dims);
    json_str(j, "shadows", f->shadows);
    json_end(j);
}

/* One plugin as --list prints it. */
static void plugin_text(const wire_plugin *p, const found_plugin *f, const char *ini)
{
    text_printf(stdout, "\n  %-14s %s  (plugin ABI %u.%u)\n      %s\n", p->name, p->version, p->abi_major,
                p->abi_minor, p->summary);
    for (int k = 0; k < p->nprofiles; k++) {
        char tags[160] = "";
        if (strcmp(p->profiles[k], p->baseline) == 0)
            snprintf(tags, sizeof tags, "  [baseline]");
        if (p->profile_tunes[k])
            snprintf(tags + strlen(tags), sizeof tags - strlen(tags), "  [configurations: klab --tune --validate]");
        if (p->profile_archs[k][0] && strcmp(p->profile_archs[k], p->archs) != 0)
            snprintf(tags + strlen(tags), sizeof tags - strlen(tags), "  [machine code for cc %s only]",
                     p->profile_archs[k]);
        text_printf(stdout, "      profile %-12s %s%s\n", p->profiles[k], p->profile_summary[k], tags);
    }
    printf("      dtypes:");
    for (int k = 0; k < KLAB_DTYPE_COUNT; k++)
        if (p->dtypes & KLAB_DTYPE_BIT(k))
            printf(" %s", dtype_name((klab_dtype)k));
    if (p->min_cc)
        printf("   needs compute capability %d.%d or newer", p->min_cc / 10, p->min_cc % 10);
    if (p->archs[0])
        text_printf(stdout, "   machine code for cc %s", p->archs);
    if (p->params[0])
        text_printf(stdout, "   params: %s", p->params);
    if (p->dims[0])
        text_printf(stdout, "   dims: %s", p->dims);
    text_printf(stdout, "\n      file: %s\n      ini:  %s\n", p->path,
                ini[0] ? ini : "(none: it runs only with --config FILE)");
    if (f->shadows[0])
        text_printf(stdout, "      shadows: %s\n", f->shadows);
}

int lab_list(const cli_opts *o)
{
    discovery d;
    lab_discover(o, &d);
    json_out j; /* --json: one document on stdout, and no text */
    if (o->json) {
        if (json_open_document(&j, LIST_JSON_SCHEMA) != 0) {
            fprintf(stderr, "klab: out of memory\n");
            return EXIT_USAGE;
        }
        json_array(&j, "plugin_dirs");
        for (int i = 0; i < d.ndirs; i++)
            json_str(&j, NULL, d.dirs[i]);
        json_end(&j);
        json_array(&j, "plugins");
    } else {
        printf("plugin folders searched:");
        for (int i = 0; i < d.ndirs; i++)
            printf(" %s", d.dirs[i]);
        printf("\n%s", d.nplugins ? "" : "no plugins found\n");
    }
    const found_plugin *sel[DISC_MAX_PLUGINS];
    int n = 0, refused = 0;
    if (d.nplugins && lab_select_plugins(o, &d, sel, &n) != 0) {
        if (o->json)
            free(json_close(&j));
        return EXIT_USAGE;
    }
    for (int i = 0; i < n; i++) {
        job jb;
        memset(&jb, 0, sizeof jb);
        jb.kind = JOB_DESCRIBE;
        snprintf(jb.plugin_path, sizeof jb.plugin_path, "%s", sel[i]->path);
        snprintf(jb.plugin_name, sizeof jb.plugin_name, "%s", sel[i]->name);
        job_state s;
        memset(&s, 0, sizeof s);
        worker_outcome w;
        if (lab_spawn(&jb, o, o->timeout_s, &s, &w) != 0) {
            if (o->json)
                free(json_close(&j));
            return supervise_interrupted() ? lab_interrupted(WORKER_STOPPED) : EXIT_FAILED_ROWS;
        }
        char how[128];
        worker_outcome_text(&w, how, sizeof how);
        if (!s.have_plugin || s.refused || !s.done) {
            refused++;
            const char *why = s.refused ? s.refusal : how[0] ? how : "the worker ended without describing it";
            int crashed = how[0] && s.refused == 0;
            if (o->json) {
                json_object(&j, NULL);
                json_str(&j, "file", sel[i]->path);
                json_str(&j, "refused", why);
                json_bool(&j, "crashed", crashed);
                json_end(&j);
                continue;
            }
            text_printf(stdout, "\n  REFUSED %s: %s\n", sel[i]->path, why);
            if (crashed)
                printf("          (it crashed while loading: its library constructor or %s)\n", KLAB_ENTRY_SYMBOL);
            continue;
        }
        char ini[4200];
        if (discovery_ini(&d, s.plugin.name, ini, sizeof ini) != 0)
            ini[0] = 0;
        if (o->json)
            plugin_json(&j, &s.plugin, sel[i], ini);
        else
            plugin_text(&s.plugin, sel[i], ini);
    }
    if (o->json) {
        json_end(&j);
        json_int(&j, "refused", refused);
        json_end(&j);
        if (json_print(&j, stdout) != 0) {
            fprintf(stderr, "klab: the JSON document could not be written\n");
            return EXIT_USAGE;
        }
    } else {
        printf("\n%d plugin%s, %d refused\n", n - refused, n - refused == 1 ? "" : "s", refused);
    }
    if (d.nplugins == 0)
        return EXIT_FAILED_ROWS;
    return refused ? EXIT_FAILED_ROWS : EXIT_OK;
}
