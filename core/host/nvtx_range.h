/* The NVTX range a worker opens around the launches --with-profiling's ncu pass measures (ncu
 * --nvtx-include NVTX_RANGE_TIMED/). nvtx3 is header-only: without a tool attached the calls cost
 * next to nothing. */
#ifndef KLAB_NVTX_RANGE_H
#define KLAB_NVTX_RANGE_H

#define NVTX_RANGE_TIMED "klab-timed"

void nvtx_range_push_timed(void);
void nvtx_range_pop(void);

#endif
