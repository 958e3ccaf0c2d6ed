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
 * 32-byte atoms (0: none). hopper_tma_nd: the same of rank 2 to 5, any strides. Elements outside the
 * matrix read as zero, so tiles past the edge of an odd shape (4000 x 4000) need no masking on the load
 * side. Returns 0, or -1 with the reason in why
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

/* A rank-dimensional tensor (rank 2 to 5): dims[0] contiguous elements, dims[i] (i >= 1) strides[i - 1] bytes
   apart; a box of box[0] x ... x box[rank - 1] lands densely, innermost first. Returns 0, or -1 with why. */
static inline int hopper_tma_nd(CUtensorMap *map, const void *base, hopper_tma_elem elem, int rank,
                                const uint64_t *dims, const uint64_t *strides, const uint32_t *box, int swizzle_bytes,
                                char *why, size_t whylen)
{
    const size_t es = hopper_tma_elem_size(elem);
    int aligned = ((uintptr_t)base & 15u) == 0;
    for (int i = 0; i + 1 < rank; i++)
        aligned = aligned && strides[i] % 16 == 0;
    if (!aligned) {
        snprintf(why, whylen, "TMA needs 16-byte aligned rows: base %p, row stride %llu bytes", base,
                 (unsigned long long)strides[0]);
        return -1;
    }
    int boxes_ok = rank >= 2 && rank <= 5 && !(swizzle_bytes && box[0] * es > (size_t)swizzle_bytes);
    for (int i = 0; i < rank && boxes_ok; i++)
        boxes_ok = box[i] >= 1 && box[i] <= 256;
    if (!boxes_ok) {
        snprintf(why, whylen, "TMA box %u x %u (rank %d) of %zu-byte elements does not fit swizzle %d",
                 rank >= 2 ? box[1] : 1u, rank >= 1 ? box[0] : 0u, rank, es, swizzle_bytes);
        return -1;
    }
    hopper_encode_tiled_fn enc = hopper_encode_tiled(why, whylen);
    if (!enc)
        return -1;
    static const CUtensorMapDataType types[] = {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                                CU_TENSOR_MAP_DATA_TYPE_UINT8, CU_TENSOR_MAP_DATA_TYPE_FLOAT32};
    cuuint64_t d[5], st[4];
    cuuint32_t bx[5], estrides[5];
    for (int i = 0; i < rank; i++) {
        d[i] = dims[i], bx[i] = box[i], estrides[i] = 1;
        if (i + 1 < rank)
            st[i] = strides[i];
    }
    const CUtensorMapSwizzle sw = swizzle_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                  : swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                  : swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                        : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUresult r = enc(map, types[elem], (cuuint32_t)rank, (void *)base, d, st, bx, estrides,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        snprintf(why, whylen, "cuTensorMapEncodeTiled failed (CUresult %d) for %llu x %llu (rank %d), box %u x %u",
                 (int)r, (unsigned long long)d[1], (unsigned long long)d[0], rank, bx[1], bx[0]);
        return -1;
    }
    return 0;
}

static inline int hopper_tma_2d(CUtensorMap *map, const void *base, hopper_tma_elem elem, uint64_t inner,
                                uint64_t outer, uint64_t row_bytes, uint32_t box_inner, uint32_t box_outer,
                                int swizzle_bytes, char *why, size_t whylen)
{
    const uint64_t dims[2] = {inner, outer};
    const uint32_t box[2] = {box_inner, box_outer};
    return hopper_tma_nd(map, base, elem, 2, dims, &row_bytes, box, swizzle_bytes, why, whylen);
}

#endif
