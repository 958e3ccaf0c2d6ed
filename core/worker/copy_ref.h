/* klab's copy at a unit's bytes: the bandwidth ceiling every memory-bound row's "fraction of limit"
 * is measured against, timed as the subject "copy-ref" in the same rounds as the profiles. The host's
 * own kernel (gpu_copy16), not any plugin's: the ceiling does not move when a plugin changes. */
#ifndef KLAB_COPY_REF_H
#define KLAB_COPY_REF_H

#include <stddef.h>
#include <stdint.h>

#include "timing/timing.h"

typedef struct copy_ref copy_ref;

/* A copy moving `bytes` (half read, half written), its source filled from `seed`, run once and
   checked. NULL when it cannot be (the reason in err). */
copy_ref *copy_ref_open(double bytes, uint64_t seed, klab_stream s, char *err, size_t errlen);

void copy_ref_close(copy_ref *c);

/* The timer's view of it: self is the copy_ref. */
extern const subject_ops copy_ref_ops;

#endif
