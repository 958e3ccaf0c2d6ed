/* What the lab needs to know about the GPU it measures on, queried in the worker and carried to the
   parent over the wire (so it is plain data). */
#ifndef KLAB_DEVICE_INFO_H
#define KLAB_DEVICE_INFO_H

#include <stddef.h>

#include "klab/plugin.h"

typedef struct device_info {
    int ordinal;
    char name[128];
    int cc;              /* major*10 + minor */
    int sms;
    int clock_khz;       /* peak SM clock */
    int mem_clock_khz;   /* peak memory clock */
    int bus_width_bits;
    int l2_bytes;
    int persisting_l2_max;
    double total_mem_bytes;
    int driver_version;  /* 13000 = 13.0 */
    int runtime_version;
    char uuid[48];       /* "GPU-" and the card's UUID, as nvidia-smi -L prints it */
} device_info;

/* A GPU as a run describes it: its properties, the timer's floors measured on it, and its datasheet
   peaks. The worker sends it (wire.h), meta.ini records it (run_meta.h). */
typedef struct device_desc {
    device_info info;
    double launch_floor_ms, flush_bytes;
    double mem_gbps, tensor_tflops; /* datasheet */
} device_desc;

/* 0 on success; otherwise -1 with one plain sentence in `err` ("no CUDA device: ...",
   "device 3 does not exist: this machine has 1"). The first call initialises CUDA. */
int device_info_query(int ordinal, device_info *out, char *err, size_t errlen);

/* The current device as host->device() gives it to a plugin: the fields out->struct_size holds
   wholly. 0, or -1 with the reason. */
int device_plugin_view(klab_device *out, char *err, size_t errlen);

#endif
