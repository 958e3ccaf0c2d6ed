#include "bench/klab_bench.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evidence/csv_sink.h"
#include "evidence/row.h"
#include "evidence/run_meta.h"
#include "host/dtype.h"
#include "report/table.h"
#include "worker/session.h"

struct kb_session {
    job j;
    job_out out; /* this session's own: rows of two sessions never mix */
    run_session *rs;
    run_unit *unit;
    int units;
    cfg_experiment e; /* the cases begun: a unit keeps pointing at its case until kb_finish */
    wire_plugin plugin; /* the plugin's descriptor as its WIRE_PLUGIN message gave it: the names kb_begin takes */
    wire_device dev; /* the session's GPU as its WIRE_DEVICE message gave it: kb_write_meta's [device] */
    int have_dev;
    char started[32]; /* kb_open's time, as klab's run says when it started */
    csv_sink sink;
    klab_row *rows;
    int nrows, cap;
    char err[1200];
};

static char open_error[1200];

static void set_err(kb_session *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s ? s->err : open_error, sizeof open_error, fmt, ap);
    va_end(ap);
}

static int on_send(void *user, wire_type type, const void *payload, uint32_t length)
{
    (void)length;
    kb_session *s = user;
    switch (type) {
    case WIRE_PLUGIN: s->plugin = *(const wire_plugin *)payload; break;
    case WIRE_DEVICE:
        s->dev = *(const wire_device *)payload;
        s->have_dev = 1;
        break;
    case WIRE_ROW:
        csv_sink_row(&s->sink, payload);
        return row_push(&s->rows, &s->nrows, &s->cap, payload);
    case WIRE_NOTE: fprintf(stderr, "note: %s\n", ((const wire_text *)payload)->text); break;
    case WIRE_REFUSED:
    case WIRE_FATAL: set_err(s, "%s", ((const wire_text *)payload)->text); break;
    default: break;
    }
    return 0;
}

kb_session *kb_open(const char *plugin_path, int device, const char *csv_path, const char *run_id,
                    unsigned long long seed)
{
    kb_session *s = calloc(1, sizeof *s);
    if (!s) {
        set_err(NULL, "out of memory");
        return NULL;
    }
    snprintf(s->e.path, sizeof s->e.path, "kb_begin params");
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(s->started, sizeof s->started, RUN_META_STARTED_FMT, &tm);
    s->j.kind = JOB_RUN;
    s->j.device = device;
    snprintf(s->j.plugin_path, sizeof s->j.plugin_path, "%s", plugin_path);
    snprintf(s->j.run_id, sizeof s->j.run_id, "%s", run_id ? run_id : "bench");
    s->j.topts.throttle = 0.75;
    s->j.topts.seed = seed ? seed : 1;
    s->j.topts.escape_checks = 5;
    char err[1200];
    if (csv_sink_open(&s->sink, csv_path, err, sizeof err) != 0) {
        set_err(NULL, "%s", err);
        free(s);
        return NULL;
    }
    int fatal = 0;
    s->out.send = on_send;
    s->out.user = s;
    s->rs = session_open(&s->j, &s->out, &fatal);
    if (!s->rs) {
        set_err(NULL, "%s", s->err[0] ? s->err : "cannot open the plugin or the device");
        csv_sink_discard(&s->sink);
        free(s);
        return NULL;
    }
    return s;
}

int kb_write_meta(kb_session *s, const char *dir, const char *command, int csv_schema, const char *const *keys,
                  const char *const *values, int n)
{
    char path[4200], err[1200];
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    run_meta_info m = {
        .run_id = s->j.run_id, .started = s->started, .command = command ? command : "",
        .seed = s->j.topts.seed, .csv_schema = csv_schema > 0 ? csv_schema : ROW_SCHEMA,
        .dev = s->have_dev ? &s->dev : NULL, .hot = s->j.topts.mode == TIMING_HOT,
        .batched = s->j.topts.mode == TIMING_BATCHED, .isolated = 0, /* in the caller's process */
        .throttle = s->j.topts.throttle, .extra_keys = keys, .extra_values = values, .nextra = n > 0 ? n : 0,
    };
    if (run_meta_write_info(path, &m, err, sizeof err) != 0) {
        set_err(s, "kb_write_meta: %s", err);
        return -1;
    }
    return 0;
}

int kb_set_mode(kb_session *s, const char *mode)
{
    if (strcmp(mode, "plain") == 0)
        s->j.topts.mode = TIMING_PLAIN;
    else if (strcmp(mode, "batched") == 0)
        s->j.topts.mode = TIMING_BATCHED;
    else if (strcmp(mode, "hot") == 0)
        s->j.topts.mode = TIMING_HOT;
    else {
        set_err(s, "kb_set_mode: '%s' is not a timing mode (plain, batched, hot)", mode);
        return -1;
    }
    return 0;
}

/* A comma-joined list of the WIRE_PLUGIN message as a NULL-terminated list: pointers into buf. */
static void split_names(const char *joined, char *buf, size_t len, const char **names, int max)
{
    snprintf(buf, len, "%s", joined);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t && n < max - 1; t = strtok_r(NULL, ",", &save))
        names[n++] = t;
    names[n] = NULL;
}

/* The case's keys from kb_begin's `params`, by the INI's rules (cfg_case_set): each item of
   "NAME=V;param.NAME=V;dim.NAME=V" is a param.NAME (with or without its prefix) or a dim.NAME, the
   n-th item reported as line n of "kb_begin params". Then, as klab refuses such an INI before a GPU
   run, the case is checked against the plugin: a dim or a param it does not take is an error, never
   dropped on the way to setup. */
static int case_keys(kb_session *s, cfg_case *c, const char *params)
{
    char buf[2048], key[CFG_NAME + 8], err[1200];
    snprintf(buf, sizeof buf, "%s", params ? params : "");
    char *save = NULL;
    int item = 0;
    for (char *kv = strtok_r(buf, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        item++;
        char *eq = strchr(kv, '=');
        if (!eq) {
            set_err(s, "kb_begin: parameter '%s' is not key=value", kv);
            return -1;
        }
        *eq = 0;
        int prefixed = strncmp(kv, "dim.", 4) == 0 || strncmp(kv, "param.", 6) == 0;
        snprintf(key, sizeof key, "%s%s", prefixed ? "" : "param.", kv);
        if (cfg_case_set(&s->e, c, key, eq + 1, item, err, sizeof err) != 0) {
            set_err(s, "kb_begin: %s", err);
            return -1;
        }
    }
    if (c->rank == 0 && c->ndims_named == 0) {
        set_err(s, "kb_begin: case '%s' has no shape and no dim.NAME", c->name);
        return -1;
    }
    char pbuf[sizeof s->plugin.params], dbuf[sizeof s->plugin.dims];
    const char *pnames[CFG_MAX_PARAMS * 4], *dnames[CFG_MAX_DIMS * 4];
    split_names(s->plugin.params, pbuf, sizeof pbuf, pnames, (int)(sizeof pnames / sizeof *pnames));
    split_names(s->plugin.dims, dbuf, sizeof dbuf, dnames, (int)(sizeof dnames / sizeof *dnames));
    snprintf(s->e.plugin, sizeof s->e.plugin, "%s", s->plugin.name);
    s->e.ncases = s->units + 1; /* the cases before it passed this check */
    int rc = cfg_check_plugin(&s->e, NULL, 0, ~0u, pnames, dnames, err, sizeof err); /* dtype: kb_begin's */
    s->e.ncases = s->units;
    if (rc != 0) {
        set_err(s, "kb_begin: %s", err);
        return -1;
    }
    return 0;
}

int kb_begin(kb_session *s, const char *case_name, const char *shape, const char *dtype, const char *params,
             double budget_ms)
{
    if (s->unit) {
        set_err(s, "kb_begin: the previous case is not finished");
        return -1;
    }
    if (s->units == CFG_MAX_CASES) {
        set_err(s, "kb_begin: more than %d cases in one session", CFG_MAX_CASES);
        return -1;
    }
    cfg_case *c = &s->e.cases[s->units];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", case_name);
    snprintf(c->shape, sizeof c->shape, "%s", shape ? shape : "");
    char why[256];
    if (c->shape[0] && (c->rank = cfg_parse_shape(c->shape, c->dims, why, sizeof why)) < 0) {
        set_err(s, "kb_begin: %s", why);
        return -1;
    }
    int d = dtype_parse(dtype);
    if (d < 0 || !(s->plugin.dtypes & KLAB_DTYPE_BIT(d))) {
        set_err(s, "kb_begin: %s dtype '%s'", d < 0 ? "unknown" : "the plugin does not support the", dtype);
        return -1;
    }
    c->ndtypes = 1;
    c->dtypes[0] = (klab_dtype)d;
    if (case_keys(s, c, params) != 0)
        return -1;
    c->warmup = 10;
    c->stop = (stop_rule){20, 5000, 0.005, budget_ms > 0 ? budget_ms : 1500};
    s->unit = unit_begin(s->rs, s->units, c, (klab_dtype)d);
    s->units++;
    s->e.ncases = s->units;
    if (!s->unit) {
        set_err(s, "kb_begin: out of memory");
        return -1;
    }
    if (!unit_ready(s->unit)) {
        /* set up or verified badly: its rows say why; the session goes on with the next case */
        int lost = unit_finish(s->unit);
        s->unit = NULL;
        set_err(s, "kb_begin: case %s %s did not set up and verify (see its rows)%s", case_name, dtype,
                lost ? "; the CUDA context was lost: end this process" : "");
        return -1;
    }
    return 0;
}

void *kb_tensor(kb_session *s, const char *name, int *dtype, size_t *count)
{
    void *dev = NULL;
    klab_dtype d;
    if (!s->unit || unit_tensor(s->unit, name, &dev, &d, count) != 0) {
        set_err(s, "kb_tensor: no tensor '%s' in a case that was set up and verified", name);
        return NULL;
    }
    *dtype = (int)d;
    return dev;
}

void *kb_stream(kb_session *s)
{
    return run_session_stream(s->rs);
}

static int add_external(kb_session *s, const external_subject *e)
{
    if (!s->unit || unit_add_external(s->unit, e) != 0) {
        set_err(s, "kb_add_external: no case ready, or more than %d external subjects", MAX_EXTERNAL);
        return -1;
    }
    return 0;
}

int kb_add_external(kb_session *s, const char *label, kb_launch_fn launch, kb_result_fn result, void *user)
{
    external_subject e;
    memset(&e, 0, sizeof e);
    snprintf(e.label, sizeof e.label, "%s", label);
    e.launch = (int (*)(void *, klab_stream))launch;
    e.result = result;
    e.user = user;
    return add_external(s, &e);
}

int kb_add_external_rotating(kb_session *s, const char *label, kb_launch_copy_fn launch, kb_result_fn result,
                             kb_replicate_fn replicate, void *user)
{
    external_subject e;
    memset(&e, 0, sizeof e);
    snprintf(e.label, sizeof e.label, "%s", label);
    e.launch_copy = (int (*)(void *, klab_stream, int))launch;
    e.result = result;
    e.replicate = replicate;
    e.user = user;
    return add_external(s, &e);
}

int kb_finish(kb_session *s)
{
    if (!s->unit) {
        set_err(s, "kb_finish: no case begun");
        return -1;
    }
    int first = s->nrows;
    int rc = unit_finish(s->unit);
    s->unit = NULL;
    if (s->nrows > first)
        table_print(stdout, s->rows[first].kcase, s->rows + first, s->nrows - first);
    fflush(stdout);
    if (rc != 0) {
        set_err(s, "the CUDA context was lost: end this process");
        return -1;
    }
    return 0;
}

int kb_close(kb_session *s)
{
    char err[1200];
    int rc = 0;
    if (s->unit)
        unit_finish(s->unit);
    session_close(s->rs);
    if (csv_sink_commit(&s->sink, err, sizeof err) != 0) {
        fprintf(stderr, "kb_close: %s\n", err);
        rc = -1;
    }
    free(s->rows);
    free(s);
    return rc;
}

const char *kb_error(const kb_session *s)
{
    return s ? s->err : open_error;
}
