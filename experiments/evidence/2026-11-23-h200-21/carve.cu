// Does a kernel that uses shared memory pay for it after a shared-memory-free flush kernel?
// Plain-mode sequence per sample: flush (read 4x L2) -> event -> subject -> event.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void flush0(const uint4 *b, size_t n, unsigned *sink) {
    unsigned a = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) { uint4 v = __ldcg(b + i); a ^= v.x ^ v.y ^ v.z ^ v.w; }
    if (a == 0x9e3779b9u && threadIdx.x == 0xffffu) *sink = a;
}
__global__ void flushS(const uint4 *b, size_t n, unsigned *sink) { // same, with 128 B of static shared
    __shared__ unsigned s[32];
    unsigned a = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) { uint4 v = __ldcg(b + i); a ^= v.x ^ v.y ^ v.z ^ v.w; }
    if (threadIdx.x < 32) s[threadIdx.x] = a;
    __syncthreads();
    if (s[(threadIdx.x + 1) & 31] == 0x9e3779b9u && threadIdx.x == 0xffffu) *sink = a;
}
__global__ void empty0() {}
__global__ void emptyS(unsigned *sink) { __shared__ unsigned s[32]; s[threadIdx.x & 31] = threadIdx.x; __syncthreads(); if (s[(threadIdx.x + 3) & 31] == 12345u) *sink = 1; }
__global__ void emptyD(unsigned *sink) { extern __shared__ unsigned d[]; d[threadIdx.x & 31] = threadIdx.x; __syncthreads(); if (d[(threadIdx.x + 3) & 31] == 12345u) *sink = 1; }
// a 4 MB in / 4 MB out scale kernel: memory-bound, ~5 us
__global__ void copy0(const uint4 *in, uint4 *out, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) out[i] = in[i];
}
__global__ void copyS(const uint4 *in, uint4 *out, size_t n) {
    __shared__ unsigned s[32];
    if (threadIdx.x < 32) s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    unsigned k = s[threadIdx.x & 31] == 77777u;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) { uint4 v = in[i]; v.x += k; out[i] = v; }
}
__global__ void copyD(const uint4 *in, uint4 *out, size_t n) {
    extern __shared__ unsigned d[];
    if (threadIdx.x < 32) d[threadIdx.x] = threadIdx.x;
    __syncthreads();
    unsigned k = d[threadIdx.x & 31] == 77777u;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) { uint4 v = in[i]; v.x += k; out[i] = v; }
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 300;
    size_t fbytes = 512u << 20, n = fbytes / 16;
    uint4 *fb, *in, *out; unsigned *sink;
    CK(cudaMalloc(&fb, fbytes)); CK(cudaMemset(fb, 1, fbytes)); CK(cudaMalloc(&sink, 64));
    size_t cb = 4u << 20, cn = cb / 16;
    CK(cudaMalloc(&in, cb)); CK(cudaMalloc(&out, cb)); CK(cudaMemset(in, 2, cb));
    cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    const char *subj[] = {"empty0", "emptyS128", "emptyD10k", "emptyD40k", "copy0", "copyS128", "copyD10k", "copyD40k"};
    const char *pre[] = {"flush0", "flushS128", "flush0+carve100", "flush0;copyD10k"};
    const int NS = 8, NP = 4;
    std::vector<float> t[NP][NS];
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    CK(cudaFuncSetAttribute(emptyD, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 << 10));
    CK(cudaFuncSetAttribute(copyD, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 << 10));
    int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int fgrid = sms * 4;
    for (int r = 0; r < reps; r++)
        for (int p = 0; p < NP; p++)
            for (int s = 0; s < NS; s++) {
                if (p == 2) CK(cudaFuncSetAttribute(flush0, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
                if (p == 0 || p == 3) CK(cudaFuncSetAttribute(flush0, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
                if (p == 1) flushS<<<fgrid, 512, 0, st>>>(fb, n, sink); else flush0<<<fgrid, 512, 0, st>>>(fb, n, sink);
                if (p == 3) copyD<<<1, 32, 10 << 10, st>>>(in, out, 32);
                CK(cudaEventRecord(a, st));
                switch (s) {
                case 0: empty0<<<1, 32, 0, st>>>(); break;
                case 1: emptyS<<<1, 32, 0, st>>>(sink); break;
                case 2: emptyD<<<1, 32, 10 << 10, st>>>(sink); break;
                case 3: emptyD<<<1, 32, 40 << 10, st>>>(sink); break;
                case 4: copy0<<<sms * 8, 256, 0, st>>>(in, out, cn); break;
                case 5: copyS<<<sms * 8, 256, 0, st>>>(in, out, cn); break;
                case 6: copyD<<<sms * 8, 256, 10 << 10, st>>>(in, out, cn); break;
                case 7: copyD<<<sms * 8, 256, 40 << 10, st>>>(in, out, cn); break;
                }
                CK(cudaGetLastError());
                CK(cudaEventRecord(b, st));
                CK(cudaEventSynchronize(b));
                float ms; CK(cudaEventElapsedTime(&ms, a, b));
                if (r > 2) t[p][s].push_back(ms * 1e3f);
            }
    printf("median us [p10 p90] of event..event after each preceding sequence\n%-12s", "subject");
    for (int p = 0; p < NP; p++) printf(" %24s", pre[p]);
    printf("\n");
    for (int s = 0; s < NS; s++) {
        printf("%-12s", subj[s]);
        for (int p = 0; p < NP; p++) {
            auto v = t[p][s]; std::sort(v.begin(), v.end()); size_t m = v.size();
            printf("   %6.2f [%6.2f %6.2f]", v[m / 2], v[m / 10], v[m * 9 / 10]);
        }
        printf("\n");
    }
    return 0;
}
