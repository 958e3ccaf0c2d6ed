/* decode_replay's probes, which explain a step's tail from the host's side and the device's:
 *   enqueue   the host time of each run() (eager: every kernel's launch; graph profiles: the replay's
 *             cudaGraphLaunch calls), always recorded, written when KLAB_DECODE_PROBES names a folder;
 *   kernels   with param.probes = 1, each kernel's first-CTA start and last-CTA end (%globaltimer) for
 *             the last DR_PROBE_STEPS steps of each profile, so the gaps between kernels (negative: the
 *             overlap programmatic dependent launch buys) and each kernel's span can be read per step.
 * Files, beside the run when the lead points KLAB_DECODE_PROBES at the run folder:
 *   <dir>/decode_replay.probes/<case>.<dtype>.enqueue.csv   profile,run,enqueue_us
 *   <dir>/decode_replay.probes/<case>.<dtype>.kernels.csv   profile,seq,step,kernel,layer,name,start_ns,end_ns,gap_ns
 * (start_ns relative to the step's first kernel's start; gap_ns = start - the previous kernel's end). */
#ifndef DECODE_REPLAY_PROBES_H
#define DECODE_REPLAY_PROBES_H

#include <stddef.h>

#include "decode_replay.h"

#define DR_ENQ_MAX 65536 /* enqueue times kept a profile (the first ones) */

typedef struct dr_probes {
    char dir[1024];                 /* "" : nothing is written */
    double *enq[DR_NPROFILES];      /* microseconds */
    size_t nenq[DR_NPROFILES];
    unsigned long long *dev;        /* DR_NPROFILES rings of DR_PROBE_WORDS(nk) words, or NULL */
    int nk, kpl;
} dr_probes;

/* Reads KLAB_DECODE_PROBES; with stamps, allocates and initialises the device rings on s (which it
   synchronises). Returns 0, or -1 with why. */
int dr_probes_open(dr_probes *p, int stamps, int nk, int kpl, void *stream, char *why, size_t whylen);
/* The device ring of a profile, or NULL without stamps. */
unsigned long long *dr_probes_ring(const dr_probes *p, int profile);
void dr_probes_enqueue(dr_probes *p, int profile, double us);
/* Writes the files (nothing without a folder). Returns 0, or -1 with why. */
int dr_probes_write(const dr_probes *p, const char *kcase, const char *dtype, const char *const *profiles, char *why,
                    size_t whylen);
void dr_probes_close(dr_probes *p);

/* A kernel's name in the step: "qkv", "attn", ... for kernel k of a layer of kpl kernels. */
const char *dr_kernel_name(int kpl, int k);

#endif
