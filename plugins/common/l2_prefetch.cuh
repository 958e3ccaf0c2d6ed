/* l2_prefetch.cuh — ask L2 for a byte range a later kernel will read, from a kernel that leaves the DRAM
 * idle (sm_90: cp.async.bulk.prefetch.L2; nothing elsewhere). Fire and forget: no shared memory, no
 * register and no barrier holds the bytes, nothing waits for them, so it may be issued before
 * griddepcontrol.wait of data no earlier kernel writes (weights).
 *
 *   l2_prefetch_share(base, bytes, evict_last)
 *       by one thread of every CTA: the CTA's share of [base, base + bytes) (the grid's CTAs in linear
 *       order take consecutive shares of whole 16-byte units), in pieces of PIECE bytes. One thread:
 *       the instruction runs on the uniform datapath, so lanes with addresses of their own are issued
 *       one after another anyway (the SASS of a 32-lane version looped over the lanes). evict_last: the
 *       lines marked evict_last (createpolicy), so the streams that run beside the prefetch (a KV cache
 *       read once) are evicted first. base 16-byte aligned.
 * Used by decode_replay's cluster attention (attn=mma_cluster_l2) for the O projection's weights. */
#ifndef KLAB_COMMON_L2_PREFETCH_CUH
#define KLAB_COMMON_L2_PREFETCH_CUH

#include <stddef.h>
#include <stdint.h>

namespace l2pf {
constexpr unsigned PIECE = 16384; /* bytes a prefetch instruction asks for */
}

__device__ __forceinline__ void l2_prefetch_share(const void *base, size_t bytes, bool evict_last)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const size_t ctas = (size_t)gridDim.x * gridDim.y * gridDim.z;
    const size_t id = blockIdx.x + (size_t)gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z);
    const size_t units = bytes / 16, per = (units + ctas - 1) / ctas * 16;
    const size_t b = id * per, e = b + per < units * 16 ? b + per : units * 16;
    uint64_t policy = 0;
    if (evict_last)
        asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    for (size_t o = b; o < e; o += l2pf::PIECE) {
        const unsigned n = (unsigned)(e - o < l2pf::PIECE ? e - o : l2pf::PIECE);
        const char *p = (const char *)base + o;
        if (evict_last)
            asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;" ::"l"(p), "r"(n), "l"(policy)
                         : "memory");
        else
            asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(n) : "memory");
    }
#else
    (void)base, (void)bytes, (void)evict_last;
#endif
}

#endif
