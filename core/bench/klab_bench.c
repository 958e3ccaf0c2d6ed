#include "bench/klab_bench.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/klab_bench_internal.h"
#include "evidence/csv_sink.h"
#include "evidence/row.h"
#include "evidence/run_meta.h"
#include "host/dtype.h"
#include "report/table.h"
#include "worker/session.h"

/* The phases a unit passes through (session.c announces each), timed while this library runs: the
   caller's own time between two calls (a PyTorch compile, say) is in none of them. */
#define KB_PHASES 8

struct kb_session {
    job j;
    job_out out; /* this handle's own: rows of two handles never mix */
    run_session *rs;
    run_unit *unit;
    int units;   /* begun so far: each unit's number */
    int quick;   /* kb_set_quick: the quick rule, and the flag on every row */
    cfg_experiment e; /* the unit's case, cases[0]: the unit points at it until kb_finish */
    wire_plugin plugin; /* the plugin's descriptor as its WIRE_PLUGIN message gave it: the names kb_begin takes */
    wire_device dev; /* the GPU as its WIRE_DEVICE message gave it: kb_write_meta's [device] */
    int have_dev;
    char started[32]; /* kb_open's time, as klab's run says when it started */
    csv_sink sink;
    klab_row *rows;
    int nrows, cap;
    char phase_name[KB_PHASES][16];
    double phase_ms[KB_PHASES];
    int nphases, phase; /* phase: the one running (an index), -1 none */
    double phase_t0;    /* when this library last entered it */
    char err[1200];
};

static char open_error[1200];

void kb_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(open_error, sizeof open_error, fmt, ap);
    va_end(ap);
}

static void set_err(kb_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void set_err(kb_session *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s ? s->err : open_error, sizeof open_error, fmt, ap);
    va_end(ap);
}

void *kb_calloc(size_t size)
{
    void *p = calloc(1, size);
    if (!p)
        kb_fail("out of memory");
    return p;
}

int kb_abi_version(void)
{
    return KB_ABI_VERSION;
}

void kb_free(void *p)
{
    free(p);
}

int kb_dtype_parse(const char *name)
{
    return dtype_parse(name);
}

const char *kb_dtype_name(int dtype)
{
    return dtype_name((klab_dtype)dtype);
}

/* ---- phases ---- */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Entering and leaving this library: the running phase's clock runs only in between. */
static void phase_enter(kb_session *s)
{
    s->phase_t0 = now_ms();
}

static void phase_leave(kb_session *s)
{
    if (s->phase >= 0)
        s->phase_ms[s->phase] += now_ms() - s->phase_t0;
}

/* A PHASE message: the running phase ends, `name` begins. */
static void phase_switch(kb_session *s, const char *name)
{
    phase_leave(s);
    phase_enter(s);
    s->phase = -1;
    for (int i = 0; i < s->nphases; i++)
        if (strcmp(s->phase_name[i], name) == 0)
            s->phase = i;
    if (s->phase < 0 && s->nphases < KB_PHASES) {
        s->phase = s->nphases++;
        snprintf(s->phase_name[s->phase], sizeof s->phase_name[0], "%s", name);
    }
}

double kb_phase_ms(const kb_session *s, const char *name)
{
    for (int i = 0; i < s->nphases; i++)
        if (strcmp(s->phase_name[i], name) == 0)
            return s->phase_ms[i];
    return 0;
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
    case WIRE_PHASE: phase_switch(s, ((const wire_text *)payload)->text); break;
    case WIRE_ROW: {
        klab_row r = *(const klab_row *)payload;
        if (s->quick) /* every row while quick, failed ones too: none is a measurement to decide on */
            row_add_flag(&r, ROW_FLAG_QUICK);
        csv_sink_row(&s->sink, &r);
        return row_push(&s->rows, &s->nrows, &s->cap, &r);
    }
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
    kb_session *s = kb_calloc(sizeof *s);
    if (!s)
        return NULL;
    s->phase = -1;
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
   n-th item reported as line n of "kb_begin params". */
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
    return 0;
}

/* The unit of the case in s->e.cases[0] and dtype d. As klab refuses such an INI before a GPU run, the
   case is first checked against the plugin: a profile it lacks, a dim or a param it does not take, a
   value its check_param refuses is an error, never dropped on the way to setup. Then it is timed by the case's own rule (kb_case_sampling),
   set up, referenced and verified. Returns 0, 1 (begun and not ready: its rows say why), or -1 (not
   begun: kb_error says why). */
static int begin_unit(kb_session *s, const char *who, klab_dtype d, double budget_ms)
{
    cfg_case *c = &s->e.cases[0];
    if (!(s->plugin.dtypes & KLAB_DTYPE_BIT(d))) {
        set_err(s, "%s: the plugin does not support the dtype '%s'", who, dtype_name(d));
        return -1;
    }
    char pbuf[sizeof s->plugin.params], dbuf[sizeof s->plugin.dims], err[1200];
    const char *pnames[CFG_MAX_PARAMS * 4], *dnames[CFG_MAX_DIMS * 4], *profiles[16];
    split_names(s->plugin.params, pbuf, sizeof pbuf, pnames, (int)(sizeof pnames / sizeof *pnames));
    split_names(s->plugin.dims, dbuf, sizeof dbuf, dnames, (int)(sizeof dnames / sizeof *dnames));
    for (int i = 0; i < s->plugin.nprofiles; i++)
        profiles[i] = s->plugin.profiles[i];
    snprintf(s->e.plugin, sizeof s->e.plugin, "%s", s->plugin.name);
    s->e.ncases = 1;
    /* every dtype: the unit's was checked above, and a case's others are not this unit's business */
    if (cfg_check_plugin(&s->e, profiles, s->plugin.nprofiles, ~0u, pnames, dnames, err, sizeof err) != 0 ||
        session_check_params(s->rs, &s->e, err, sizeof err) != 0) {
        set_err(s, "%s: %s", who, err);
        return -1;
    }
    kb_case_sampling(c, s->quick, budget_ms, &c->warmup, &c->stop);
    s->unit = unit_begin(s->rs, s->units++, c, d);
    if (!s->unit) {
        set_err(s, "%s: out of memory", who);
        return -1;
    }
    if (!unit_ready(s->unit)) {
        /* set up or verified badly: its rows say why; the caller goes on with the next case */
        int lost = unit_finish(s->unit);
        s->unit = NULL;
        s->phase = -1;
        set_err(s, "%s: case %s %s did not set up and verify (see its rows)%s", who, c->name, dtype_name(d),
                lost ? "; the CUDA context was lost: end this process" : "");
        return lost ? -1 : 1;
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
    cfg_case *c = &s->e.cases[0];
    cfg_case_defaults(c); /* what an INI's case has where the file says nothing */
    snprintf(s->e.path, sizeof s->e.path, "kb_begin params");
    snprintf(c->name, sizeof c->name, "%s", case_name);
    snprintf(c->shape, sizeof c->shape, "%s", shape ? shape : "");
    char why[256];
    if (c->shape[0] && (c->rank = cfg_parse_shape(c->shape, c->dims, why, sizeof why)) < 0) {
        set_err(s, "kb_begin: %s", why);
        return -1;
    }
    int d = dtype_parse(dtype);
    if (d < 0) {
        set_err(s, "kb_begin: unknown dtype '%s'", dtype);
        return -1;
    }
    c->ndtypes = 1;
    c->dtypes[0] = (klab_dtype)d;
    if (case_keys(s, c, params) != 0)
        return -1;
    phase_enter(s);
    int rc = begin_unit(s, "kb_begin", (klab_dtype)d, budget_ms);
    phase_leave(s);
    return rc;
}

int kb_begin_case(kb_session *s, const kb_ini *ini, int index, const char *dtype, double budget_ms)
{
    if (s->unit) {
        set_err(s, "kb_begin_case: the previous case is not finished");
        return -1;
    }
    if (index < 0 || index >= ini->e.ncases) {
        set_err(s, "kb_begin_case: %s has no case %d", ini->e.path, index);
        return -1;
    }
    const cfg_case *c = &ini->e.cases[index];
    if (strcmp(ini->e.plugin, s->plugin.name) != 0) {
        set_err(s, "kb_begin_case: %s:%d: plugin '%s' is not the one kb_open opened ('%s')", ini->e.path,
                ini->e.plugin_line, ini->e.plugin, s->plugin.name);
        return -1;
    }
    int d = dtype_parse(dtype), listed = 0;
    for (int k = 0; d >= 0 && k < c->ndtypes; k++)
        listed |= c->dtypes[k] == (klab_dtype)d;
    if (!listed) {
        set_err(s, "kb_begin_case: %s: case '%s' has no dtype '%s'", ini->e.path, c->name, dtype);
        return -1;
    }
    snprintf(s->e.path, sizeof s->e.path, "%s", ini->e.path);
    s->e.cases[0] = *c;
    phase_enter(s);
    int rc = begin_unit(s, "kb_begin_case", (klab_dtype)d, budget_ms);
    phase_leave(s);
    return rc;
}

int kb_set_quick(kb_session *s, int on)
{
    s->quick = on != 0;
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
    phase_enter(s); /* its verification: the unit's verify phase */
    int rc = s->unit ? unit_add_external(s->unit, e) : -1;
    phase_leave(s);
    if (rc != 0) {
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
    phase_enter(s);
    int rc = unit_finish(s->unit);
    phase_leave(s);
    s->phase = -1; /* the next unit's setup starts the next phase */
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
