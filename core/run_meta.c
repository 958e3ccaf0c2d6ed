#include "run_meta.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checksum.h"
#include "csv_sink.h"
#include "row.h"
#include "version.h"

void run_meta_ini_hash(const char *path, char *buf, size_t len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(buf, len, "unreadable");
        return;
    }
    uint64_t h = CHECKSUM_INIT;
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
        h = checksum_update(h, chunk, n);
    int bad = ferror(fp);
    fclose(fp);
    if (bad)
        snprintf(buf, len, "unreadable");
    else
        snprintf(buf, len, "%016llx", (unsigned long long)h);
}

void run_meta_run_id(const char *given, const struct tm *utc, char *buf, size_t len)
{
    if (given[0]) {
        snprintf(buf, len, "%s", given);
        return;
    }
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", utc);
    snprintf(buf, len, "%s-%.7s", stamp, KLAB_GIT_COMMIT);
}

int run_meta_write(const char *path, const char *run_id, const char *started, const cli_opts *o,
                   uint64_t seed, const wire_device *dev, const cfg_experiment *cfgs, int ncfgs, char *err,
                   size_t errlen)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    fprintf(fp, "; written by klab %s; the CSV columns are described in README.md\n", KLAB_VERSION);
    fprintf(fp, "[run]\nid = %s\nstarted = %s\ncommand = %s\nklab_version = %s\ncommit = %s\ncsv_schema = %d\n"
                "seed = %llu\n",
            run_id, started, o->command_line, KLAB_VERSION, KLAB_GIT_COMMIT, ROW_SCHEMA,
            (unsigned long long)seed);
    if (o->filter.shard_n)
        fprintf(fp, "shard = %d/%d\n", o->filter.shard_k, o->filter.shard_n);
    if (ncfgs > 0) {
        fprintf(fp, "\n[inis]\n");
        for (int i = 0; i < ncfgs; i++) {
            char h[32];
            run_meta_ini_hash(cfgs[i].path, h, sizeof h);
            fprintf(fp, "%s = %s\n", cfgs[i].plugin, h);
        }
        fprintf(fp, "\n[ini_paths]\n");
        for (int i = 0; i < ncfgs; i++)
            fprintf(fp, "%s = %s\n", cfgs[i].plugin, cfgs[i].path);
    }
    if (dev) {
        const device_info *d = &dev->info;
        fprintf(fp, "\n[device]\nordinal = %d\nname = %s\nuuid = %s\ncompute_capability = %d.%d\nsms = %d\n"
                    "sm_clock_peak_mhz = %.0f\nmem_clock_peak_mhz = %.0f\nbus_width_bits = %d\nl2_mib = %.1f\n"
                    "memory_gib = %.1f\ndatasheet_gbps = %.0f\ntensor_peak_tflops = %.1f\n"
                    "driver = %d.%d\nruntime = %d.%d\n",
                d->ordinal, d->name, d->uuid, d->cc / 10, d->cc % 10, d->sms, d->clock_khz / 1e3, d->mem_clock_khz / 1e3,
                d->bus_width_bits, d->l2_bytes / 1048576.0, d->total_mem_bytes / 1073741824.0, dev->mem_gbps,
                dev->tensor_tflops, d->driver_version / 1000, d->driver_version % 1000 / 10,
                d->runtime_version / 1000, d->runtime_version % 1000 / 10);
        fprintf(fp, "\n[method]\n");
        if (o->hot)
            fprintf(fp, "l2 = hot: each sample right after an untimed run of the same subject, no flush\n");
        else
            fprintf(fp, "l2 = cold: before each sample a kernel reads %.0f MiB (at least 4x the L2), leaving only clean lines\n",
                    dev->flush_bytes / 1048576.0);
        if (o->verify_only)
            fprintf(fp, "verify_only = yes: nothing was timed\n");
        fprintf(fp, "launch = %s\ntimer = CUDA events around each sample, profiles interleaved in rounds\n"
                    "launch_floor_us = %.2f\nthrottle = %.2f\nisolated = %s\n",
                o->batched ? "batched: N runs per sample (one graph, or queued), N copies rotated, time / N"
                           : "stream",
                dev->launch_floor_ms * 1e3, o->throttle, o->isolate ? "yes" : "no");
    }
    if (file_commit(fp, tmp, path) != 0) {
        snprintf(err, errlen, "cannot complete %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
