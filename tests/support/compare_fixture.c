#include "compare_fixture.h"

#include <string.h>

#include "evidence/csv_sink.h"
#include "klab_run.h"
#include "klab_test.h"
#include "stats/stats.h"

static uint64_t rng = 1;

/* uniform in [0, 1): splitmix64 */
static double uniform(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* A passed row of `n` samples around median_ms, each within +-spread (relative), as a run reports it. */
klab_row row_of(const char *kcase, const char *profile, double median_ms, double spread, int n, uint64_t seed)
{
    klab_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.run_id, sizeof r.run_id, "synthetic-%llu", (unsigned long long)seed);
    snprintf(r.plugin, sizeof r.plugin, "rmsnorm");
    snprintf(r.kcase, sizeof r.kcase, "%s", kcase);
    snprintf(r.shape, sizeof r.shape, "%s", kcase);
    snprintf(r.dtype, sizeof r.dtype, "fp16");
    snprintf(r.profile, sizeof r.profile, "%s", profile);
    snprintf(r.l2, sizeof r.l2, "cold");
    snprintf(r.launch, sizeof r.launch, "stream");
    r.batch = 1;
    r.seed = seed;
    rng = seed;
    double s[2000];
    assert_true(n <= 2000);
    for (int i = 0; i < n; i++)
        s[i] = median_ms * (1 + spread * (2 * uniform() - 1));
    stats st;
    assert_int_equal(stats_compute(s, (size_t)n, &st), 0);
    r.status = ROW_PASSED;
    r.has_time = 1;
    r.reps = n;
    r.median_ms = st.median;
    r.has_ci = st.has_ci;
    r.median_lo = st.median_lo;
    r.median_hi = st.median_hi;
    r.p95_ms = st.p95;
    r.p99_ms = st.p99;
    r.min_ms = st.min;
    r.max_ms = st.max;
    r.mean_ms = st.mean;
    r.noise = st.noise;
    r.precision = st.precision;
    return r;
}

/* Three rows, two profiles and a tuned one, all at the same relative noise; `scale` multiplies every
   median (1.10: a 10 % slowdown). */
void three_rows(klab_row *r, double scale, double spread, int n, uint64_t seed)
{
    r[0] = row_of("4096x4096", "fused", 0.0188 * scale, spread, n, seed);
    r[1] = row_of("4096x4096", "baseline", 0.0235 * scale, spread, n, seed + 1);
    r[2] = row_of("4096x8192", "fused", 0.0330 * scale, spread, n, seed + 2);
    snprintf(r[2].config, sizeof r[2].config, "threads=256,vec=8");
}

void write_csv(const char *dir, const char *name, const klab_row *rows, int n)
{
    char path[PATH_MAX + 300], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    csv_sink s;
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(csv_sink_row(&s, &rows[i]), 0);
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);
}

char dir_a[PATH_MAX], dir_b[PATH_MAX];
const cmp_opts opts = {.threshold = CMP_DEFAULT_THRESHOLD};

void make_runs(double scale_b, double spread)
{
    kr_mkdir("out", dir_a, sizeof dir_a);
    kr_mkdir("out/run-a", dir_a, sizeof dir_a);
    kr_mkdir("out/run-b", dir_b, sizeof dir_b);
    klab_row a[3], b[3];
    three_rows(a, 1.0, spread, 500, 11);
    three_rows(b, scale_b, spread, 500, 97);
    write_csv(dir_a, "rmsnorm.csv", a, 3);
    write_csv(dir_b, "rmsnorm.csv", b, 3);
    /* PyTorch's session of the same plugin: its own file, matched with its own */
    write_csv(dir_a, "rmsnorm.torch.csv", a, 1);
    write_csv(dir_b, "rmsnorm.torch.csv", b, 1);
    /* a plugin only B ran */
    write_csv(dir_b, "softmax.csv", b, 1);
    /* an interrupted file is not evidence */
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/swiglu.csv.partial", dir_a);
    kr_write_file(path, "run_id\n");
    /* --with-profiling's counters beside the rows: ncu's kernels, no rows to compare */
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/rmsnorm.counters.csv", i ? dir_b : dir_a);
        kr_write_file(path, "run_id,plugin,case,dtype,profile,config,gpu,gpu_uuid,kernel_index\nr,rmsnorm,c,fp16,fused,,0,u,0\n");
    }
}
