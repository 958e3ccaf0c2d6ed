#include "timing/roofline.h"

#include <stdio.h>

/* Dense fp16 tensor-core operations per SM per clock (an FMA counts two), by architecture. */
static double tensor_ops_per_sm_clock(int cc)
{
    if (cc >= 100) return 8192; /* Blackwell */
    if (cc >= 90) return 4096;  /* Hopper */
    if (cc == 80) return 2048;  /* A100 */
    if (cc >= 75) return 1024;  /* Turing, GA10x, Ada with fp16 accumulation */
    if (cc >= 70) return 1024;  /* Volta */
    return 256;                 /* no tensor cores: 128 fp32 lanes x FMA, generously */
}

void roofline_from_device(const device_info *d, roofline *out)
{
    out->mem_gbps = 2.0 * d->mem_clock_khz * 1e3 * (d->bus_width_bits / 8.0) / 1e9;
    out->tensor_tflops = d->sms * (d->clock_khz * 1e3) * tensor_ops_per_sm_clock(d->cc) / 1e12;
    double fp16 = out->tensor_tflops;
    for (int k = 0; k < KLAB_DTYPE_COUNT; k++)
        out->dtype_tflops[k] = 0;
    out->dtype_tflops[KLAB_FP32] = out->dtype_tflops[KLAB_FP16] = out->dtype_tflops[KLAB_BF16] = fp16;
    /* fp8 tensor cores (Ada, Hopper, Blackwell) do twice the dense fp16 rate; before them fp8 is
       widened to fp16 and runs at its rate */
    out->dtype_tflops[KLAB_FP8_E4M3] = out->dtype_tflops[KLAB_FP8_E5M2] = d->cc >= 89 ? 2 * fp16 : fp16;
}

roofline roofline_for_dtype(const roofline *r, klab_dtype d)
{
    roofline o = *r;
    o.tensor_tflops = (unsigned)d < KLAB_DTYPE_COUNT ? r->dtype_tflops[d] : 0;
    return o;
}

int roofline_exceeds(const roofline *r, double gbps, double tflops, char *why, size_t whylen)
{
    if (r->mem_gbps > 0 && gbps > r->mem_gbps) {
        snprintf(why, whylen, "exceeds roofline: %.0f GB/s over the datasheet's %.0f GB/s", gbps,
                 r->mem_gbps);
        return 1;
    }
    if (r->tensor_tflops > 0 && tflops > r->tensor_tflops) {
        snprintf(why, whylen, "exceeds roofline: %.1f TFLOP/s over the peak %.1f TFLOP/s", tflops,
                 r->tensor_tflops);
        return 1;
    }
    return 0;
}
