#include "host/device_info.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

static int attr(enum cudaDeviceAttr a, int dev)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess)
        return 0;
    return v;
}

int device_info_query(int ordinal, device_info *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(err, errlen, "no CUDA device: %s%s", e != cudaSuccess ? cudaGetErrorString(e) : "the driver sees none",
                 e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice
                     ? " (no NVIDIA GPU or no driver on this machine)" : "");
        return -1;
    }
    if (ordinal < 0 || ordinal >= count) {
        snprintf(err, errlen, "device %d does not exist: this machine has %d (0..%d)", ordinal, count,
                 count - 1);
        return -1;
    }
    struct cudaDeviceProp p;
    if ((e = cudaGetDeviceProperties(&p, ordinal)) != cudaSuccess) {
        snprintf(err, errlen, "cannot read device %d: %s", ordinal, cudaGetErrorString(e));
        return -1;
    }
    out->ordinal = ordinal;
    snprintf(out->name, sizeof out->name, "%s", p.name);
    out->cc = p.major * 10 + p.minor;
    out->sms = p.multiProcessorCount;
    out->clock_khz = attr(cudaDevAttrClockRate, ordinal);
    out->mem_clock_khz = attr(cudaDevAttrMemoryClockRate, ordinal);
    out->bus_width_bits = p.memoryBusWidth;
    out->l2_bytes = p.l2CacheSize;
    out->persisting_l2_max = p.persistingL2CacheMaxSize;
    out->total_mem_bytes = (double)p.totalGlobalMem;
    const unsigned char *u = (const unsigned char *)p.uuid.bytes;
    snprintf(out->uuid, sizeof out->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
             u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    cudaDriverGetVersion(&out->driver_version);
    cudaRuntimeGetVersion(&out->runtime_version);
    return 0;
}

/* A field of klab_device the caller's struct_size holds wholly: written; any other: left alone. */
#define PUT(out, field, value)                                            \
    do {                                                                  \
        if (KLAB_HAS_FIELD(klab_device, (out)->struct_size, field))       \
            (out)->field = (value);                                       \
    } while (0)

int device_plugin_view(klab_device *out, char *err, size_t errlen)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "no current CUDA device: %s", cudaGetErrorString(e));
        return -1;
    }
    PUT(out, ordinal, dev);
    PUT(out, cc, attr(cudaDevAttrComputeCapabilityMajor, dev) * 10 + attr(cudaDevAttrComputeCapabilityMinor, dev));
    PUT(out, sm_count, attr(cudaDevAttrMultiProcessorCount, dev));
    PUT(out, max_threads_per_sm, attr(cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    PUT(out, max_threads_per_block, attr(cudaDevAttrMaxThreadsPerBlock, dev));
    PUT(out, regs_per_sm, attr(cudaDevAttrMaxRegistersPerMultiprocessor, dev));
    PUT(out, clock_khz, attr(cudaDevAttrClockRate, dev));
    PUT(out, mem_clock_khz, attr(cudaDevAttrMemoryClockRate, dev));
    PUT(out, mem_bus_bits, attr(cudaDevAttrGlobalMemoryBusWidth, dev));
    PUT(out, cluster_launch, attr(cudaDevAttrClusterLaunch, dev));
    PUT(out, smem_per_block, (size_t)attr(cudaDevAttrMaxSharedMemoryPerBlock, dev));
    PUT(out, smem_per_block_optin, (size_t)attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    PUT(out, smem_per_sm, (size_t)attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    PUT(out, l2_bytes, (size_t)attr(cudaDevAttrL2CacheSize, dev));
    PUT(out, persisting_l2_max, (size_t)attr(cudaDevAttrMaxPersistingL2CacheSize, dev));
    return 0;
}
