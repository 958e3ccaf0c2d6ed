#include <string.h>

#include "vector_add.h"

int vector_add_op(const char *name)
{
    static const char *const names[] = {"copy", "add", "triad"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

typedef struct va_job {
    int op;
    const double *a, *b;
    double *c;
} va_job;

static void va_chunk(void *arg, size_t begin, size_t end)
{
    const va_job *j = arg;
    for (size_t i = begin; i < end; i++) {
        switch (j->op) {
        case VA_ADD: j->c[i] = j->a[i] + j->b[i]; break;
        case VA_TRIAD: j->c[i] = j->a[i] + VA_TRIAD_SCALAR * j->b[i]; break;
        default: j->c[i] = j->a[i]; break;
        }
    }
}

/* On the host's threads in chunks of 65536 elements: every element is its own. */
void vector_add_reference(const klab_host *host, klab_ctx *ctx, int op, const double *a, const double *b, double *c,
                          size_t n)
{
    va_job j = {op, a, b, c};
    klab_parallel_for(host, ctx, n, 65536, va_chunk, &j);
}
