/* abi2_arch.so: exact architectures. `portable` runs anywhere (the plugin declares no archs); `sm90a`
 * has machine code for cc 9.0 only (archs {90, 0}, as sm_90a code is), `sm100a` for cc 10.0 only. On
 * any other device a profile's rows are skipped, saying which code it has and what the device is,
 * never a launch failing with "no kernel image". The kernels compute y = 2 x alike: what is tested is
 * the host's decision, not the instructions. */
#include "abi2.cuh"

static klab_status arch_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    return abi2_setup_xy(ctx, host, k, KLAB_FP32, state);
}

static klab_status arch_run(void *state, const klab_launch *l)
{
    abi2_state *st = (abi2_state *)state;
    abi2_twice_kernel<float><<<abi2_grid(st->n), 256, 0, l->stream>>>((const float *)l->tensors[0],
                                                                      (float *)l->tensors[1], st->n);
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static const int sm90[] = {90, 0};
static const int sm100[] = {100, 0};
static const klab_profile profiles[] = {ABI2_PROFILE("portable", "any device", NULL, NULL),
                                        ABI2_PROFILE("sm90a", "sm_90a code only", sm90, NULL),
                                        ABI2_PROFILE("sm100a", "sm_100a code only", sm100, NULL), ABI2_END};
ABI2_DESCRIPTOR("abi2_arch", "profiles with exact architectures", profiles, KLAB_DTYPE_BIT(KLAB_FP32), 0, 0, arch_setup,
                arch_run, abi2_twice_verify, NULL)
