/* The gated kernels' launch plans (gated.h): the own choice and swiglu's fused tuning space, pure C so
 * the config hook (run without a GPU by `klab --tune --validate`) and the launcher agree. */
#include <stdio.h>

#include "gated/gated.h"

static const int ctas[] = {128, 256, 512};
static const int unrolls[] = {1, 2, 4, 8};
enum { HINTS = 3, SPACE = 3 * 4 * HINTS };

/* The vectorized kernel takes the case: split tensors (each starts on a 256-byte boundary), or a
   packed row whose up half starts on a 16-byte boundary. */
static int vectorized(const swiglu_shape *s, size_t elem)
{
    return s->layout == SW_SPLIT || s->n * elem % 16 == 0;
}

swiglu_plan swiglu_plan_choose(void)
{
    swiglu_plan p = {256, 1, 0};
    return p;
}

const char *swiglu_plan_config(const swiglu_shape *s, size_t elem, int index, swiglu_plan *out)
{
    static char ring[8][48];
    static unsigned next;
    if (!vectorized(s, elem) || index >= SPACE)
        return NULL;
    swiglu_plan p = swiglu_plan_choose();
    if (index >= 0)
        p = (swiglu_plan){ctas[index / (4 * HINTS)], unrolls[index / HINTS % 4], index % HINTS};
    if (out)
        *out = p;
    char *buf = ring[next++ % 8];
    snprintf(buf, sizeof ring[0], "cta=%d,unroll=%d,hint=%d", p.cta, p.unroll, p.hint);
    return buf;
}
