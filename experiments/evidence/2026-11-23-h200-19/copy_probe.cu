// copy_probe: which 16-byte copy reaches the driver memcpy's DRAM rate on this GPU? (issue 22: torch.compile's
// kernels and cudaMemcpy run 2.5-4 % above klab's copy16; docs/notes/rmsnorm.md open question 1.)
// Every variant is checked against the source, then timed round-robin from a cold L2 (a 256 MiB __ldcg read
// between samples, as klab's read flush), events around each launch. Prints one line a (size, variant):
// median and the 10th/90th percentile in us, GB/s moved (read + written), and the median's ratio to copy16's.
// Usage: copy_probe [rounds] [MiB a side ...]    |    copy_probe --once MiB   (each variant once, for ncu)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <vector>
#include <algorithm>
#include <string>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

enum Ld { LD_NC, LD_PLAIN, LD_NA, LD_L2_256, LD_EF, LD_CG };
enum St { ST_PLAIN, ST_NA, ST_CS, ST_CG, ST_EF };

template <int L> __device__ __forceinline__ uint4 ld(const uint4 *p)
{
    uint4 v;
    if (L == LD_NC) v = __ldg(p);
    else if (L == LD_PLAIN) asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    else if (L == LD_NA) asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    else if (L == LD_L2_256) asm volatile("ld.global.nc.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    else if (L == LD_EF) asm volatile("ld.global.nc.L1::evict_first.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    else v = __ldcg(p);
    return v;
}
template <int S> __device__ __forceinline__ void st(uint4 *p, uint4 v, uint64_t pol)
{
    if (S == ST_PLAIN) *p = v;
    else if (S == ST_NA) asm volatile("st.global.L1::no_allocate.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
    else if (S == ST_CS) __stcs(p, v);
    else if (S == ST_CG) __stcg(p, v);
    else asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(pol) : "memory");
}

// STRIDED: a block's step is THREADS*U vectors, vector k of a thread is base + k*THREADS (klab's copy16).
// CONTIG: a thread's U vectors are adjacent. PERSIST: grid-stride over a resident grid (grid given).
template <int THREADS, int U, int L, int S, bool CONTIG>
__global__ void __launch_bounds__(THREADS) copy_k(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n16)
{
    uint64_t pol = 0;
    if (S == ST_EF) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    const size_t step = (size_t)THREADS * U;
    for (size_t blk = (size_t)blockIdx.x * step; blk < n16; blk += (size_t)gridDim.x * step) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++) {
            size_t i = CONTIG ? blk + (size_t)threadIdx.x * U + k : blk + threadIdx.x + (size_t)k * THREADS;
            if (i < n16) v[k] = ld<L>(src + i);
        }
#pragma unroll
        for (int k = 0; k < U; k++) {
            size_t i = CONTIG ? blk + (size_t)threadIdx.x * U + k : blk + threadIdx.x + (size_t)k * THREADS;
            if (i < n16) st<S>(dst + i, v[k], pol);
        }
    }
}

// Bulk copies (TMA, 1-D): one elected thread a block moves CHUNK bytes global -> shared -> global, STAGES
// chunks in flight, grid-stride over the chunks.
template <int CHUNK, int STAGES>
__global__ void __launch_bounds__(32) bulk_k(const char *src, char *dst, size_t bytes)
{
    extern __shared__ __align__(128) char sm[];
    __shared__ __align__(8) uint64_t bar[STAGES];
    if (threadIdx.x != 0) return;
    for (int s = 0; s < STAGES; s++) {
        uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar[s]);
        asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(b));
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    const size_t nch = bytes / CHUNK;
    uint32_t phase[STAGES];
    for (int s = 0; s < STAGES; s++) phase[s] = 0;
    size_t c = blockIdx.x;
    // prime
    int s = 0;
    for (; s < STAGES; s++) {
        size_t cc = c + (size_t)s * gridDim.x;
        if (cc >= nch) break;
        uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar[s]);
        uint32_t d = (uint32_t)__cvta_generic_to_shared(sm + s * CHUNK);
        asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(b), "r"(CHUNK));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(d), "l"(src + cc * CHUNK), "r"(CHUNK), "r"(b) : "memory");
    }
    for (size_t it = 0;; it++) {
        int st_ = (int)(it % STAGES);
        size_t cc = c + it * gridDim.x;
        if (cc >= nch) break;
        uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar[st_]);
        uint32_t d = (uint32_t)__cvta_generic_to_shared(sm + st_ * CHUNK);
        uint32_t done = 0;
        while (!done)
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(b), "r"(phase[st_]) : "memory");
        phase[st_] ^= 1;
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + cc * CHUNK), "r"(d), "r"(CHUNK) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        size_t nx = cc + (size_t)STAGES * gridDim.x;
        if (nx < nch) {
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); // this stage's smem is free again
            asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(b), "r"(CHUNK));
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(d), "l"(src + nx * CHUNK), "r"(CHUNK), "r"(b) : "memory");
        }
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

__global__ void flush_k(const uint4 *buf, size_t n16, unsigned *sink)
{
    unsigned a = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = __ldcg(buf + i);
        a ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (a == 0x9e3779b9u && threadIdx.x == 0xffffu) *sink = a;
}
__global__ void fill_k(uint32_t *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (uint32_t)(i * 2654435761u) ^ seed;
}
__global__ void diff_k(const uint32_t *a, const uint32_t *b, size_t n, unsigned long long *bad)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c += a[i] != b[i];
    if (c) atomicAdd(bad, c);
}

static int g_sms;
typedef void (*launch_fn)(const void *, void *, size_t, cudaStream_t);

template <int T, int U, int L, int S, bool C> void lk(const void *s, void *d, size_t bytes, cudaStream_t st)
{
    size_t n16 = bytes / 16, per = (size_t)T * U;
    copy_k<T, U, L, S, C><<<(unsigned)((n16 + per - 1) / per), T, 0, st>>>((const uint4 *)s, (uint4 *)d, n16);
}
template <int T, int U, int BPS> void lp(const void *s, void *d, size_t bytes, cudaStream_t st)
{
    copy_k<T, U, LD_NC, ST_PLAIN, false><<<g_sms * BPS, T, 0, st>>>((const uint4 *)s, (uint4 *)d, bytes / 16);
}
template <int CHUNK, int STAGES, int BPS> void lb(const void *s, void *d, size_t bytes, cudaStream_t st)
{
    static bool set = false;
    size_t smem = (size_t)CHUNK * STAGES;
    if (!set) { CK(cudaFuncSetAttribute(bulk_k<CHUNK, STAGES>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)); set = true; }
    size_t nch = bytes / CHUNK, grid = BPS ? (size_t)g_sms * BPS : nch;
    if (grid > nch) grid = nch;
    bulk_k<CHUNK, STAGES><<<(unsigned)grid, 32, smem, st>>>((const char *)s, (char *)d, bytes);
}
void lm(const void *s, void *d, size_t bytes, cudaStream_t st) { CK(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice, st)); }

struct Var { const char *name; launch_fn f; };
static const Var vars[] = {
    {"copy16 (256x4 strided, nc, plain st)", lk<256, 4, LD_NC, ST_PLAIN, false>},
    {"memcpy", lm},
    {"256x4 ld plain", lk<256, 4, LD_PLAIN, ST_PLAIN, false>},
    {"256x4 ld L1::no_allocate", lk<256, 4, LD_NA, ST_PLAIN, false>},
    {"256x4 ld L2::256B", lk<256, 4, LD_L2_256, ST_PLAIN, false>},
    {"256x4 ld L1::evict_first", lk<256, 4, LD_EF, ST_PLAIN, false>},
    {"256x4 ld .cg", lk<256, 4, LD_CG, ST_PLAIN, false>},
    {"256x4 st L1::no_allocate", lk<256, 4, LD_NC, ST_NA, false>},
    {"256x4 st .cg", lk<256, 4, LD_NC, ST_CG, false>},
    {"256x4 st L2 evict_first", lk<256, 4, LD_NC, ST_EF, false>},
    {"256x4 contig", lk<256, 4, LD_NC, ST_PLAIN, true>},
    {"256x2 contig", lk<256, 2, LD_NC, ST_PLAIN, true>},
    {"128x1", lk<128, 1, LD_NC, ST_PLAIN, false>},
    {"256x1", lk<256, 1, LD_NC, ST_PLAIN, false>},
    {"512x1", lk<512, 1, LD_NC, ST_PLAIN, false>},
    {"1024x1", lk<1024, 1, LD_NC, ST_PLAIN, false>},
    {"128x2", lk<128, 2, LD_NC, ST_PLAIN, false>},
    {"256x2", lk<256, 2, LD_NC, ST_PLAIN, false>},
    {"512x2", lk<512, 2, LD_NC, ST_PLAIN, false>},
    {"128x4", lk<128, 4, LD_NC, ST_PLAIN, false>},
    {"512x4", lk<512, 4, LD_NC, ST_PLAIN, false>},
    {"1024x4", lk<1024, 4, LD_NC, ST_PLAIN, false>},
    {"256x8", lk<256, 8, LD_NC, ST_PLAIN, false>},
    {"512x8", lk<512, 8, LD_NC, ST_PLAIN, false>},
    {"persistent 256x4 x8/SM", lp<256, 4, 8>},
    {"persistent 1024x4 x2/SM", lp<1024, 4, 2>},
    {"bulk 16K one chunk a CTA", lb<16384, 1, 0>},
    {"bulk 32K x4 stages x1/SM", lb<32768, 4, 1>},
    {"bulk 16K x4 stages x3/SM", lb<16384, 4, 3>},
    {"bulk 8K x4 stages x6/SM", lb<8192, 4, 6>},
};
static const Var vars2[] = {
    {"copy16 (256x4 strided, nc, plain st)", lk<256, 4, LD_NC, ST_PLAIN, false>},
    {"memcpy", lm},
    {"32x1", lk<32, 1, LD_NC, ST_PLAIN, false>},
    {"32x4", lk<32, 4, LD_NC, ST_PLAIN, false>},
    {"64x1", lk<64, 1, LD_NC, ST_PLAIN, false>},
    {"64x2", lk<64, 2, LD_NC, ST_PLAIN, false>},
    {"64x4", lk<64, 4, LD_NC, ST_PLAIN, false>},
    {"128x1", lk<128, 1, LD_NC, ST_PLAIN, false>},
    {"128x2", lk<128, 2, LD_NC, ST_PLAIN, false>},
    {"128x4", lk<128, 4, LD_NC, ST_PLAIN, false>},
    {"256x1", lk<256, 1, LD_NC, ST_PLAIN, false>},
    {"256x2", lk<256, 2, LD_NC, ST_PLAIN, false>},
};
static const Var *VT = vars;
static int NV = sizeof vars / sizeof vars[0];

int main(int argc, char **argv)
{
    int dev = 0;
    CK(cudaSetDevice(dev));
    cudaDeviceProp pr;
    CK(cudaGetDeviceProperties(&pr, dev));
    g_sms = pr.multiProcessorCount;
    if (getenv("PROBE_SET") && atoi(getenv("PROBE_SET")) == 2) { VT = vars2; NV = sizeof vars2 / sizeof vars2[0]; }
    if (argc > 2 && !strcmp(argv[1], "--offsets")) { // dst placed at src + bytes + off in one allocation
        size_t bytes = (size_t)atoi(argv[2]) << 20;
        const size_t offs[] = {0, 256, 4096, 65536, 1u << 20, (2u << 20) + 4096, 3u << 20, (7u << 20) + 768, 16u << 20, 32u << 20};
        const int NO = sizeof offs / sizeof offs[0];
        char *base; void *fl; unsigned *sink;
        const size_t FL = 256u << 20;
        CK(cudaMalloc(&base, 2 * bytes + (48u << 20))); CK(cudaMalloc(&fl, FL)); CK(cudaMalloc(&sink, 4));
        fill_k<<<1024, 256>>>((uint32_t *)base, bytes / 4, 0x1234567u);
        cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
        const Var ov[] = {{"256x4", lk<256, 4, LD_NC, ST_PLAIN, false>}, {"128x2", lk<128, 2, LD_NC, ST_PLAIN, false>}, {"memcpy", lm}};
        std::vector<float> t[NO][3];
        for (int r = 0; r < 100; r++)
            for (int j = 0; j < NO * 3; j++) {
                int k = (j + r) % (NO * 3), o = k / 3, v = k % 3;
                flush_k<<<g_sms * 4, 512, 0, st>>>((const uint4 *)fl, FL / 16, sink);
                CK(cudaEventRecord(e0, st));
                ov[v].f(base, base + bytes + offs[o], bytes, st);
                CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1));
                float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); t[o][v].push_back(ms * 1000.f);
            }
        printf("MiB_a_side,dst_offset_bytes,variant,median_us,GBps\n");
        for (int o = 0; o < NO; o++) for (int v = 0; v < 3; v++) {
            std::sort(t[o][v].begin(), t[o][v].end()); double med = t[o][v][t[o][v].size() / 2];
            printf("%zu,%zu,%s,%.2f,%.0f\n", bytes >> 20, offs[o], ov[v].name, med, 2.0 * bytes / med / 1e3);
        }
        return 0;
    }
    bool once = argc > 1 && !strcmp(argv[1], "--once");
    int rounds = once ? 1 : argc > 1 ? atoi(argv[1]) : 200;
    std::vector<size_t> sizes;
    for (int a = 2; a < argc; a++) sizes.push_back((size_t)atoi(argv[a]) << 20);
    if (sizes.empty()) sizes = {16u << 20, 64u << 20, 128u << 20, 256u << 20};
    size_t most = *std::max_element(sizes.begin(), sizes.end());
    void *src, *dst, *fl;
    unsigned *sink;
    unsigned long long *bad;
    const size_t FL = 256u << 20;
    CK(cudaMalloc(&src, most)); CK(cudaMalloc(&dst, most)); CK(cudaMalloc(&fl, FL));
    CK(cudaMalloc(&sink, 4)); CK(cudaMalloc(&bad, 8));
    fill_k<<<1024, 256>>>((uint32_t *)src, most / 4, 0x1234567u);
    fill_k<<<1024, 256>>>((uint32_t *)fl, FL / 4, 0x7654321u);
    CK(cudaDeviceSynchronize());
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    printf("# %s, %d SMs; %d rounds, read flush of %zu MiB between samples\n", pr.name, g_sms, rounds, FL >> 20);
    printf("MiB_a_side,variant,median_us,p10_us,p90_us,GBps,ratio_to_copy16\n");
    for (size_t bytes : sizes) {
        // correctness first: each variant on a poisoned destination
        for (int v = 0; v < NV; v++) {
            CK(cudaMemsetAsync(dst, 0xA5, bytes, st));
            VT[v].f(src, dst, bytes, st);
            CK(cudaGetLastError());
            CK(cudaMemsetAsync(bad, 0, 8, st));
            diff_k<<<1024, 256, 0, st>>>((const uint32_t *)src, (const uint32_t *)dst, bytes / 4, bad);
            unsigned long long nb = 0;
            CK(cudaMemcpyAsync(&nb, bad, 8, cudaMemcpyDeviceToHost, st));
            CK(cudaStreamSynchronize(st));
            if (nb) { fprintf(stderr, "variant %s wrong at %zu MiB: %llu words\n", VT[v].name, bytes >> 20, nb); return 1; }
        }
        if (once) {
            for (int v = 0; v < NV; v++) { VT[v].f(src, dst, bytes, st); CK(cudaStreamSynchronize(st)); }
            continue;
        }
        std::vector<std::vector<float>> t(NV);
        for (int r = 0; r < rounds; r++)
            for (int j = 0; j < NV; j++) {
                int v = (j + r) % NV; // rotate the order every round
                flush_k<<<g_sms * 4, 512, 0, st>>>((const uint4 *)fl, FL / 16, sink);
                CK(cudaEventRecord(e0, st));
                VT[v].f(src, dst, bytes, st);
                CK(cudaEventRecord(e1, st));
                CK(cudaEventSynchronize(e1));
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                t[v].push_back(ms * 1000.f);
            }
        double base = 0;
        for (int v = 0; v < NV; v++) {
            std::sort(t[v].begin(), t[v].end());
            size_t n = t[v].size();
            double med = t[v][n / 2], p10 = t[v][n / 10], p90 = t[v][n * 9 / 10];
            if (v == 0) base = med;
            printf("%zu,%s,%.2f,%.2f,%.2f,%.0f,%.4f\n", bytes >> 20, VT[v].name, med, p10, p90, 2.0 * bytes / med / 1e3, base / med);
        }
        fflush(stdout);
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
