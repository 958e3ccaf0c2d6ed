#include "worker/worker.h"

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "host/dtype.h"
#include "host/gpu_kernels.h"
#include "timing/roofline.h"

#define MAX_ROWS_PER_RUN 20000

int worker_text(const job_out *out, wire_type t, const char *fmt, ...)
{
    wire_text m;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m.text, sizeof m.text, fmt, ap);
    va_end(ap);
    return out->send(out->user, t, &m, sizeof m);
}

/* {90, 80, 0} as "9.0,8.0"; NULL: "" */
static void archs_text(const int *archs, char *buf, size_t len)
{
    buf[0] = 0;
    for (const int *a = archs; a && *a; a++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%d.%d", buf[0] ? "," : "", *a / 10, *a % 10);
}

static void describe(const loaded_plugin *lp, wire_plugin *w)
{
    memset(w, 0, sizeof *w);
    const klab_plugin *d = &lp->desc;
    snprintf(w->name, sizeof w->name, "%s", d->name);
    snprintf(w->version, sizeof w->version, "%s", d->version ? d->version : "");
    snprintf(w->summary, sizeof w->summary, "%s", d->summary ? d->summary : "");
    snprintf(w->path, sizeof w->path, "%s", lp->path);
    w->abi_major = d->abi_major;
    w->abi_minor = d->abi_minor;
    for (int i = 0; i < lp->nprofiles && i < 16; i++) {
        snprintf(w->profiles[i], sizeof w->profiles[i], "%s", d->profiles[i].name);
        snprintf(w->profile_summary[i], sizeof w->profile_summary[i], "%s",
                 d->profiles[i].summary ? d->profiles[i].summary : "");
        w->nprofiles = i + 1;
    }
    snprintf(w->baseline, sizeof w->baseline, "%s", d->baseline ? d->baseline : "");
    w->dtypes = d->dtypes;
    w->min_cc = d->min_cc;
    for (const char *const *p = d->params; p && *p; p++)
        snprintf(w->params + strlen(w->params), sizeof w->params - strlen(w->params), "%s%s",
                 w->params[0] ? "," : "", *p);
    for (const char *const *p = d->dims; p && *p; p++)
        snprintf(w->dims + strlen(w->dims), sizeof w->dims - strlen(w->dims), "%s%s", w->dims[0] ? "," : "", *p);
    archs_text(d->archs, w->archs, sizeof w->archs);
    for (int i = 0; i < w->nprofiles; i++) {
        archs_text(lp->profiles[i].archs, w->profile_archs[i], sizeof w->profile_archs[i]);
        w->profile_tunes[i] = lp->profiles[i].config != NULL;
    }
}

int worker_load(const job *j, const job_out *out, loaded_plugin *lp)
{
    char err[1200];
    if (loader_open(j->plugin_path, j->plugin_name[0] ? j->plugin_name : NULL, lp, err, sizeof err) != 0) {
        worker_text(out, WIRE_REFUSED, "%s", err);
        return -1;
    }
    wire_plugin w;
    describe(lp, &w);
    out->send(out->user, WIRE_PLUGIN, &w, sizeof w);
    return 0;
}

int worker_check_config(const job *j, const job_out *out, const loaded_plugin *lp)
{
    const char *names[LOADER_MAX_PROFILES];
    for (int i = 0; i < lp->nprofiles; i++)
        names[i] = lp->desc.profiles[i].name;
    char err[1200];
    if (cfg_check_plugin(j->cfg, names, lp->nprofiles, lp->desc.dtypes, lp->desc.params, lp->desc.dims, err,
                         sizeof err) != 0 ||
        cfg_check_params(j->cfg, lp->desc.check_param, err, sizeof err) != 0) {
        worker_text(out, WIRE_REFUSED, "%s", err);
        return -1;
    }
    long rows = cfg_row_count(j->cfg, lp->nprofiles);
    if (rows > MAX_ROWS_PER_RUN) {
        worker_text(out, WIRE_REFUSED, "%s: asks for %ld case x dtype x profile rows; more than %d is surely a mistake",
                    j->cfg->path, rows, MAX_ROWS_PER_RUN);
        return -1;
    }
    return 0;
}

int worker_init_device(const job *j, const job_out *out, device_info *dev, timing_env *env)
{
    char err[600];
    if (device_info_query(j->device, dev, err, sizeof err) != 0 ||
        timing_env_init(env, dev, err, sizeof err) != 0) {
        worker_text(out, WIRE_FATAL, "%s", err);
        return -1;
    }
    wire_device wd;
    memset(&wd, 0, sizeof wd);
    wd.info = *dev;
    wd.launch_floor_ms = env->launch_floor_ms;
    wd.flush_bytes = (double)env->flush_bytes;
    roofline r;
    roofline_from_device(dev, &r);
    wd.mem_gbps = r.mem_gbps;
    wd.tensor_tflops = r.tensor_tflops;
    out->send(out->user, WIRE_DEVICE, &wd, sizeof wd);
    return 0;
}
