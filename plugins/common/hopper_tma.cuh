/* hopper_tma.cuh — tensor maps for the Hopper bulk tensor copy engine (TMA), built on the host.
 *
 * cuTensorMapEncodeTiled is a driver API function. Plugins link only the runtime (libcudart), so the
 * function is fetched once through cudaGetDriverEntryPointByVersion (no -lcuda, no libcuda.so.1 at
 * link time); <cuda.h> is included for its types only.
 *
 *   int hopper_tma_2d(CUtensorMap *map, const void *base, hopper_tma_elem elem, uint64_t inner,
 *                     uint64_t outer, uint64_t row_bytes, uint32_t box_inner, uint32_t box_outer,
 *                     int swizzle_bytes, char *why, size_t whylen);
 *
 * A 2-D row-major matrix of `outer` rows of `inner` elements, rows `row_bytes` apart; a box of
 * box_outer rows of box_inner elements lands in shared memory densely, swizzled in 128-, 64- or
 * 32-byte atoms (0: none). Elements outside the matrix read as zero, so tiles past the edge of an odd
 * shape (4000 x 4000) need no masking on the load side. Returns 0, or -1 with the reason in why
 * (base not 16-byte aligned, row_bytes not a multiple of 16, a box past 256 or wider than the swizzle).
 */
#ifndef KLAB_HOPPER_TMA_CUH
#define KLAB_HOPPER_TMA_CUH

#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

typedef enum hopper_tma_elem {
    HOPPER_TMA_BF16 = 0,
    HOPPER_TMA_FP16,
    HOPPER_TMA_FP8, /* e4m3 or e5m2: the copy engine moves bytes */
    HOPPER_TMA_FP32
} hopper_tma_elem;

typedef CUresult (*hopper_encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                           const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                           const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                           CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* The driver's cuTensorMapEncodeTiled (ABI of CUDA 12.0, unchanged since), or NULL with the reason. */
static inline hopper_encode_tiled_fn hopper_encode_tiled(char *why, size_t whylen)
{
    static hopper_encode_tiled_fn fn; /* a plugin runs in one worker thread: no race on first use */
    if (fn)
        return fn;
    void *p = NULL;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !p) {
        snprintf(why, whylen, "cuTensorMapEncodeTiled not found in the driver (CUDA error %d, query %d)", (int)e,
                 (int)q);
        return NULL;
    }
    fn = (hopper_encode_tiled_fn)p;
    return fn;
}

static inline size_t hopper_tma_elem_size(hopper_tma_elem e)
{
    return e == HOPPER_TMA_FP8 ? 1 : e == HOPPER_TMA_FP32 ? 4 : 2;
}

static inline int hopper_tma_2d(CUtensorMap *map, const void *base, hopper_tma_elem elem, uint64_t inner,
                                uint64_t outer, uint64_t row_bytes, uint32_t box_inner, uint32_t box_outer,
                                int swizzle_bytes, char *why, size_t whylen)
{
    const size_t es = hopper_tma_elem_size(elem);
    if (((uintptr_t)base & 15u) != 0 || row_bytes % 16 != 0) {
        snprintf(why, whylen, "TMA needs 16-byte aligned rows: base %p, row stride %llu bytes", base,
                 (unsigned long long)row_bytes);
        return -1;
    }
    if (box_inner == 0 || box_outer == 0 || box_inner > 256 || box_outer > 256 ||
        (swizzle_bytes && box_inner * es > (size_t)swizzle_bytes)) {
        snprintf(why, whylen, "TMA box %u x %u of %zu-byte elements does not fit swizzle %d", box_outer, box_inner,
                 es, swizzle_bytes);
        return -1;
    }
    hopper_encode_tiled_fn enc = hopper_encode_tiled(why, whylen);
    if (!enc)
        return -1;
    static const CUtensorMapDataType types[] = {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                                CU_TENSOR_MAP_DATA_TYPE_UINT8, CU_TENSOR_MAP_DATA_TYPE_FLOAT32};
    const cuuint64_t dims[2] = {inner, outer};
    const cuuint64_t strides[1] = {row_bytes};
    const cuuint32_t box[2] = {box_inner, box_outer};
    const cuuint32_t estrides[2] = {1, 1};
    const CUtensorMapSwizzle sw = swizzle_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                  : swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                  : swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                        : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUresult r = enc(map, types[elem], 2, (void *)base, dims, strides, box, estrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                     sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        snprintf(why, whylen, "cuTensorMapEncodeTiled failed (CUresult %d) for %llu x %llu, box %u x %u", (int)r,
                 (unsigned long long)outer, (unsigned long long)inner, box_outer, box_inner);
        return -1;
    }
    return 0;
}

#endif
