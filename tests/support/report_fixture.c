#include "report_fixture.h"

#include "klab_test.h"

#include <stdlib.h>
#include <string.h>

#include "evidence/counters.h"
#include "evidence/csv_sink.h"

klab_row fx_row(const char *kcase, const char *dtype, const char *profile, double m, double h, double s, double f)
{
    klab_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.run_id, sizeof r.run_id, "fixture");
    snprintf(r.plugin, sizeof r.plugin, "fx");
    snprintf(r.kcase, sizeof r.kcase, "%s", kcase);
    int big = strcmp(kcase, "big") == 0;
    if (big)
        snprintf(r.shape, sizeof r.shape, "4096x8192");
    else
        snprintf(r.shape, sizeof r.shape, "64x%s", kcase[0] == 'n' ? kcase + 1 : "1024");
    snprintf(r.dtype, sizeof r.dtype, "%s", dtype);
    snprintf(r.profile, sizeof r.profile, "%s", profile);
    snprintf(r.l2, sizeof r.l2, "cold");
    snprintf(r.launch, sizeof r.launch, "stream");
    r.batch = 1;
    r.status = ROW_PASSED;
    r.has_time = 1;
    r.reps = 100;
    r.median_ms = m;
    r.has_ci = h > 0;
    r.median_lo = m * (1 - h);
    r.median_hi = m * (1 + h);
    r.p95_ms = m * 1.02;
    r.bytes = big ? 64.0 * 1048576 : 1048576;
    r.gbps = r.bytes / m / 1e6;
    r.has_limit = f > 0;
    snprintf(r.limit, sizeof r.limit, "copy");
    r.limit_gbps = f > 0 ? r.gbps / f : 0;
    r.frac_limit = f;
    r.has_speedup = s > 0;
    r.speedup = s;
    r.has_speedup_ci = s > 0 && h > 0;
    r.speedup_lo = s * (1 - 2 * h);
    r.speedup_hi = s * (1 + 2 * h);
    if (strncmp(profile, "torch", 5) == 0)
        row_add_flag(&r, "external");
    return r;
}

void fx_write(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        fail_msg("cannot write %s", path);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

void fx_write_run(const char *dir, const char *name, const klab_row *rows, int n, const char *id)
{
    char err[512], path[4200];
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    csv_sink s;
    if (csv_sink_open(&s, path, err, sizeof err) != 0)
        fail_msg("%s", err);
    for (int i = 0; i < n; i++)
        assert_int_equal(csv_sink_row(&s, &rows[i]), 0);
    if (csv_sink_commit(&s, err, sizeof err) != 0)
        fail_msg("%s", err);
    char meta[300];
    snprintf(meta, sizeof meta, "[run]\nid = %s\ncommit = abc123\n[device]\nname = Test GPU\n", id);
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    fx_write(path, meta);
}

void fx_kernel(ncu_result *r, const char *name, const char *dram, const char *occ, const char *regs)
{
    assert_true(r->nkernels < NCU_MAX_KERNELS);
    ncu_kernel *k = &r->k[r->nkernels++];
    memset(k, 0, sizeof *k);
    r->status = NCU_MEASURED;
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->grid, sizeof k->grid, "(64, 1, 1)");
    snprintf(k->block, sizeof k->block, "(256, 1, 1)");
    const char *cols[3] = {"dram_pct", "achieved_occupancy_pct", "registers"}, *vals[3] = {dram, occ, regs};
    for (int m = 0; m < NCU_NMETRICS; m++)
        for (int j = 0; j < 3; j++)
            if (strcmp(ncu_metrics[m].column, cols[j]) == 0 && vals[j])
                snprintf(k->value[m], sizeof k->value[m], "%s", vals[j]);
}

void fx_write_counters(const char *dir, const char *plugin, const klab_row *rows, ncu_result *const *res, int n)
{
    char err[512];
    csv_sink s;
    if (counters_open(&s, dir, plugin, err, sizeof err) != 0)
        fail_msg("%s", err);
    for (int i = 0; i < n; i++)
        if (res[i])
            assert_int_equal(counters_add(&s, &rows[i], res[i]), 0);
    if (csv_sink_commit(&s, err, sizeof err) != 0)
        fail_msg("%s", err);
}
