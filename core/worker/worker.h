/* What the worker's files (jobs.c, session.c) share: sending text, loading and describing the plugin,
 * checking the INI against it, starting the device. Internal to the worker; job.h, session.h and jobs.h are its face. */
#ifndef KLAB_WORKER_H
#define KLAB_WORKER_H

#include "host/device_info.h"
#include "host/loader.h"
#include "process/wire.h"
#include "timing/timing.h"
#include "worker/job.h"

/* A WIRE_NOTE, WIRE_PHASE, WIRE_REFUSED or WIRE_FATAL line. */
int worker_text(const job_out *out, wire_type t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Loads the job's plugin and sends its description (WIRE_PLUGIN), or WIRE_REFUSED and -1. */
int worker_load(const job *j, const job_out *out, loaded_plugin *lp);

/* Checks the job's INI against the plugin; WIRE_REFUSED and -1 when it asks for what it lacks. */
int worker_check_config(const job *j, const job_out *out, const loaded_plugin *lp);

/* Opens the device and the timer and sends WIRE_DEVICE, or WIRE_FATAL and -1. */
int worker_init_device(const job *j, const job_out *out, device_info *dev, timing_env *env);

#endif
