/* decode_replay's probes: recorded during the run, written at teardown (decode_replay_probes.h). */
#include "decode_replay_probes.h"

#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *dr_kernel_name(int kpl, int k)
{
    static const char *const stack[DR_KPL] = {"qkv", "attn", "combine", "oproj", "gateup", "down"};
    static const char *const attn[DR_KPL_ATTN] = {"attn", "combine"};
    if (k < 0 || k >= kpl)
        return "?";
    return kpl == DR_KPL_ATTN ? attn[k] : stack[k];
}

int dr_probes_open(dr_probes *p, int stamps, int nk, int kpl, void *stream, char *why, size_t whylen)
{
    memset(p, 0, sizeof *p);
    p->nk = nk;
    p->kpl = kpl;
    const char *dir = getenv("KLAB_DECODE_PROBES");
    if (dir && *dir) {
        if (strlen(dir) >= sizeof p->dir - 64) {
            snprintf(why, whylen, "KLAB_DECODE_PROBES is longer than %zu characters", sizeof p->dir - 64);
            return -1;
        }
        strcpy(p->dir, dir);
        /* made now, every level of it: found missing only at teardown, the probes of a whole run
           were lost (H200, 2026-11-22: KLAB_DECODE_PROBES named a folder that did not exist) */
        char path[sizeof p->dir + 32];
        snprintf(path, sizeof path, "%s/decode_replay.probes", p->dir);
        for (char *c = path + 1;; c++)
            if (*c == '/' || !*c) {
                const char end = *c;
                *c = 0;
                if (mkdir(path, 0777) != 0 && errno != EEXIST) {
                    snprintf(why, whylen, "KLAB_DECODE_PROBES: %s: %s", path, strerror(errno));
                    return -1;
                }
                if (!end)
                    break;
                *c = '/';
            }
    }
    if (stamps && !p->dir[0]) {
        snprintf(why, whylen, "param.probes = 1 needs KLAB_DECODE_PROBES set to the folder the probes go to");
        return -1;
    }
    for (int i = 0; i < DR_NPROFILES; i++)
        if (p->dir[0] && !(p->enq[i] = malloc(DR_ENQ_MAX * sizeof *p->enq[i]))) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
    if (!stamps)
        return 0;
    const size_t words = DR_PROBE_WORDS(nk), all = words * DR_NPROFILES;
    unsigned long long *init = malloc(all * sizeof *init);
    if (!init) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    /* every ring: no steps yet, every start ~0 (atomicMin) and end 0 (atomicMax) */
    for (size_t r = 0; r < DR_NPROFILES; r++) {
        unsigned long long *ring = init + r * words;
        ring[0] = 0;
        for (size_t s = 0; s < DR_PROBE_STEPS; s++) {
            unsigned long long *slot = ring + 1 + s * DR_PROBE_WORDS_SLOT(nk);
            slot[0] = slot[1] = 0;
            for (int k = 0; k < nk; k++)
                slot[2 + 2 * k] = ~0ull, slot[3 + 2 * k] = 0;
        }
    }
    cudaError_t e = cudaMalloc((void **)&p->dev, all * sizeof *init);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(p->dev, init, all * sizeof *init, cudaMemcpyHostToDevice, (cudaStream_t)stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize((cudaStream_t)stream);
    free(init);
    if (e != cudaSuccess) {
        snprintf(why, whylen, "probe rings: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

unsigned long long *dr_probes_ring(const dr_probes *p, int profile)
{
    return p->dev ? p->dev + (size_t)profile * DR_PROBE_WORDS(p->nk) : NULL;
}

void dr_probes_enqueue(dr_probes *p, int profile, double us)
{
    if (p->enq[profile] && p->nenq[profile] < DR_ENQ_MAX)
        p->enq[profile][p->nenq[profile]++] = us;
}

static FILE *open_csv(const dr_probes *p, const char *kcase, const char *dtype, const char *what, const char *header,
                      char *why, size_t whylen)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/decode_replay.probes", p->dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    snprintf(path, sizeof path, "%s/decode_replay.probes/%s.%s.%s.csv", p->dir, kcase, dtype, what);
    FILE *f = fopen(path, "w");
    if (!f)
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
    else
        fprintf(f, "%s\n", header);
    return f;
}

static void write_kernels(FILE *f, const unsigned long long *ring, int nk, int kpl, const char *profile)
{
    const unsigned long long n = ring[0], have = n < DR_PROBE_STEPS ? n : DR_PROBE_STEPS;
    for (unsigned long long seq = n - have; seq < n; seq++) {
        const unsigned long long *slot = ring + 1 + (size_t)(seq % DR_PROBE_STEPS) * DR_PROBE_WORDS_SLOT(nk);
        unsigned long long t0 = ~0ull, prev_end = 0;
        for (int k = 0; k < nk; k++)
            if (slot[3 + 2 * k] && slot[2 + 2 * k] < t0)
                t0 = slot[2 + 2 * k];
        for (int k = 0; k < nk; k++) {
            const unsigned long long s = slot[2 + 2 * k], e = slot[3 + 2 * k];
            if (!e) /* a kernel this step did not launch (the combine of an unsplit cache) */
                continue;
            const long long gap = prev_end ? (long long)s - (long long)prev_end : 0;
            fprintf(f, "%s,%llu,%llu,%d,%d,%s,%llu,%llu,%lld\n", profile, seq, slot[0], k, k / kpl,
                    dr_kernel_name(kpl, k % kpl), s - t0, e - t0, gap);
            prev_end = e;
        }
    }
}

int dr_probes_write(const dr_probes *p, const char *kcase, const char *dtype, const char *const *profiles, char *why,
                    size_t whylen)
{
    if (!p->dir[0])
        return 0;
    FILE *f = open_csv(p, kcase, dtype, "enqueue", "profile,run,enqueue_us", why, whylen);
    if (!f)
        return -1;
    for (int i = 0; i < DR_NPROFILES; i++)
        for (size_t r = 0; r < p->nenq[i]; r++)
            fprintf(f, "%s,%zu,%.3f\n", profiles[i], r, p->enq[i][r]);
    if (fclose(f) != 0) {
        snprintf(why, whylen, "writing the enqueue probes: %s", strerror(errno));
        return -1;
    }
    if (!p->dev)
        return 0;
    const size_t words = DR_PROBE_WORDS(p->nk);
    unsigned long long *host = malloc(words * DR_NPROFILES * sizeof *host);
    if (!host) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    cudaError_t e = cudaMemcpy(host, p->dev, words * DR_NPROFILES * sizeof *host, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        free(host);
        snprintf(why, whylen, "reading the probe rings: %s", cudaGetErrorString(e));
        return -1;
    }
    f = open_csv(p, kcase, dtype, "kernels", "profile,seq,step,kernel,layer,name,start_ns,end_ns,gap_ns", why, whylen);
    if (f) {
        for (int i = 0; i < DR_NPROFILES; i++)
            write_kernels(f, host + (size_t)i * words, p->nk, p->kpl, profiles[i]);
        if (fclose(f) != 0) {
            snprintf(why, whylen, "writing the kernel probes: %s", strerror(errno));
            f = NULL;
        }
    }
    free(host);
    return f ? 0 : -1;
}

void dr_probes_close(dr_probes *p)
{
    for (int i = 0; i < DR_NPROFILES; i++)
        free(p->enq[i]);
    if (p->dev)
        cudaFree(p->dev);
    memset(p, 0, sizeof *p);
}
