/* What the reference tests (test_references, test_references_swired) share: the inputs they draw. */
#ifndef KLAB_REFERENCES_FIXTURE_H
#define KLAB_REFERENCES_FIXTURE_H

#include <stdint.h>

/* xorshift in [-1, 1): the next draw of state s, a pure function of the seed it started from */
double uniform(uint64_t *s);

#endif
