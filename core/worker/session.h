/* A plugin loaded on a device with its timer, and its units one at a time (session.c). A run job is
 * this loop over the INI's units (jobs.c); libklab_bench drives it from Python with external
 * subjects (PyTorch) added to a unit. */
#ifndef KLAB_SESSION_H
#define KLAB_SESSION_H

#include "process/wire.h"
#include "worker/job.h"
#include "worker/subjects.h"

/* A plugin loaded on a device with its timing environment, and one unit of it at a time:
     unit_begin   sets up the case, computes the reference, verifies each selected profile
     unit_tensor  a tensor of the unit, for an external subject to compute on the same data
     unit_add_external  verifies an external subject and adds it to the unit's timing
     unit_finish  times every verified subject in interleaved rounds, sends the rows, tears down;
                  -1 when the CUDA context was lost (the process must end)
   job_execute(JOB_RUN) is this loop over the INI's units; libklab_bench drives it from Python. */
typedef struct run_session run_session;
typedef struct run_unit run_unit;
run_session *session_open(const job *j, const job_out *out, int *fatal);
void session_close(run_session *s);
klab_stream run_session_stream(const run_session *s);
/* e's parameters put to the plugin's check_param (ABI 2.1), as a run's worker does before any case:
   -1 with file:line: key 'param.X' in err where the plugin refuses one */
int session_check_params(const run_session *s, const cfg_experiment *e, char *err, size_t errlen);
run_unit *unit_begin(run_session *s, int unit, const cfg_case *c, klab_dtype dtype);
int unit_ready(const run_unit *u); /* set up, referenced and verified */
int unit_tensor(const run_unit *u, const char *name, void **dev, klab_dtype *dtype, size_t *count);
int unit_add_external(run_unit *u, const external_subject *e);
int unit_finish(run_unit *u);

#endif
