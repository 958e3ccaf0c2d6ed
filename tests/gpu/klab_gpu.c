/* See klab_gpu.h. */
#include "evidence/csv_read.h"
#include "klab_gpu.h"

#include <cuda_runtime.h>
#include <string.h>
#include <unistd.h>

char kg_plugin_dir[PATH_MAX], kg_out_dir[PATH_MAX];

void kg_use_plugins(const char *const *names)
{
    kr_mkdir("plugins", kg_plugin_dir, sizeof kg_plugin_dir);
    snprintf(kg_out_dir, sizeof kg_out_dir, "%s/out", kr_tmp);
    for (; *names; names++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s.so", KLAB_TEST_PLUGINS, *names);
        if (access(path, R_OK) != 0)
            snprintf(path, sizeof path, "%s/plugins/%s.so", KLAB_BINARY_DIR, *names);
        kr_link_plugin(kg_plugin_dir, path);
    }
}

csv read_rows(const char *run_id, const char *plugin)
{
    char path[PATH_MAX + 200], err[1200];
    snprintf(path, sizeof path, "%s/%s/%s.csv", kg_out_dir, run_id, plugin);
    csv c = {NULL, 0};
    c.n = csv_read_rows(path, &c.rows, err, sizeof err);
    if (c.n < 0)
        fail_msg("%s", err);
    return c;
}

const klab_row *row(const csv *c, const char *kcase, const char *dtype, const char *profile)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->rows[i].kcase, kcase) && (!dtype || !strcmp(c->rows[i].dtype, dtype)) &&
            !strcmp(c->rows[i].profile, profile))
            return &c->rows[i];
    if (dtype)
        fail_msg("no row %s %s %s", kcase, dtype, profile);
    else
        fail_msg("no row %s %s", kcase, profile);
    return NULL;
}

void expect_status(const klab_row *r, row_status st, const char *reason_part)
{
    if (r->status != st)
        fail_msg("%s %s %s: status %s (%s), expected %s", r->kcase, r->dtype, r->profile, row_status_name(r->status),
                 r->reason, row_status_name(st));
    if (reason_part && !strstr(r->reason, reason_part))
        fail_msg("%s %s %s: reason \"%s\" lacks \"%s\"", r->kcase, r->dtype, r->profile, r->reason, reason_part);
}

int kg_device_cc(void)
{
    struct cudaDeviceProp p;
    return cudaGetDeviceProperties(&p, 0) == cudaSuccess ? p.major * 10 + p.minor : 0;
}

const char *kg_no_gpu(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess)
        return cudaGetErrorString(e);
    return n == 0 ? "none found" : NULL;
}
