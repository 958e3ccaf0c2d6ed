/* abi_interpose_a.so and abi_interpose_b.so: valid plugins that also export, with default
 * visibility, functions named like the host's own (core/stats.c, core/checksum.c) that compute
 * nonsense, and a probe that calls the plugin's own stats_compute through the PLT.
 *
 * Loaded with RTLD_LOCAL (loader.c), none of this may leak: the host's stats_compute and
 * checksum_update stay the host's, and a second plugin exporting the same names binds its own.
 * Built twice (tests/plugins.cmake) with ABI_PLUGIN_NAME and INTERPOSE_MARK, which each plugin's
 * stats_compute returns so the test can tell whose function ran. */
#include "../stub_hooks.h"

/* The host's struct stats, laid out alike: only its first fields are written here. */
typedef struct fake_stats {
    size_t n;
    double median, p95, min, max, mean, noise;
} fake_stats;

KLAB_EXPORT int stats_compute(const double *samples, size_t n, fake_stats *out);
KLAB_EXPORT uint64_t checksum_update(uint64_t h, const void *data, size_t n);
KLAB_EXPORT int abi_interpose_probe(void);

/* Wrong on purpose: says every sample set has a median of -1, and returns the plugin's mark. */
int stats_compute(const double *samples, size_t n, fake_stats *out)
{
    (void)samples;
    out->n = n;
    out->median = out->p95 = out->min = out->max = out->mean = -1;
    out->noise = 0;
    return INTERPOSE_MARK;
}

/* Wrong on purpose: every input hashes to the same value. */
uint64_t checksum_update(uint64_t h, const void *data, size_t n)
{
    (void)h;
    (void)data;
    (void)n;
    return UINT64_C(0x0123456789abcdef);
}

/* Calls this plugin's stats_compute (default visibility, so through the PLT: the dynamic linker picks
   the definition) and returns what it returned. */
int abi_interpose_probe(void)
{
    double x[3] = {3, 1, 2};
    fake_stats s;
    return stats_compute(x, 3, &s);
}

STUB_ENTRY(ABI_PLUGIN_NAME, "exports functions named like the host's", (void)0)
