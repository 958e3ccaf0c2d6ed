#include "host/nvtx_range.h"

#include <nvtx3/nvToolsExt.h>

void nvtx_range_push_timed(void)
{
    nvtxRangePushA(NVTX_RANGE_TIMED);
}

void nvtx_range_pop(void)
{
    nvtxRangePop();
}
