// sdk21_cxx.so: a plugin in C++20, its descriptor and profiles filled by field name (KLAB_DESCRIPTOR_HEADER,
// KLAB_PROFILE_TABLE) and klab/convert.h used from C++; built with -Wall -Wextra -Werror (less g++'s
// missing-field-initializers, which names every field left out). Its twin,
// sdk21_cxx_misordered.cpp, names two fields out of order and must not compile.
#include <cstdlib>

#include "klab/convert.h"
#include "klab/plugin.h"

#define CXX_PROFILES(X)                                               \
    X(CXX_ONLY, .name = "only", .summary = "y = x rounded through fp16") \
    X(CXX_FLAGGED, .name = "flagged", .summary = "the same", .flags = KLAB_PROFILE_FIXED_TENSORS)
enum { KLAB_PROFILE_IDS(CXX_PROFILES) CXX_PROFILE_COUNT };
static_assert(CXX_FLAGGED == 1 && CXX_PROFILE_COUNT == 2, "the enumeration follows the list");

static klab_status cxx_setup(klab_ctx *, const klab_host *, const klab_case *, void **state)
{
    *state = nullptr;
    return KLAB_OK;
}

static klab_status cxx_run(void *, klab_ctx *, const klab_host *, const klab_launch *)
{
    return KLAB_OK;
}

static klab_status cxx_verify(void *, klab_ctx *, const klab_host *, const klab_case *, const klab_verify_io *io)
{
    for (size_t k = 0; k < io->out_count[0]; k++)
        io->out[0][k] = klab_fp16_to_float(klab_float_to_fp16(static_cast<float>(io->in[0][k])));
    return KLAB_OK;
}

static void cxx_teardown(void *) {}

static const klab_profile profiles[] = {KLAB_PROFILE_TABLE(CXX_PROFILES)};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "sdk21_cxx",
    .version = "1",
    .summary = "a C++20 descriptor by field name",
    .profiles = profiles,
    .baseline = "only",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP16),
    .setup = cxx_setup,
    .teardown = cxx_teardown,
    .run_host = cxx_run,
    .verify_host = cxx_verify,
};

KLAB_PLUGIN_ENTRY(descriptor)
