#include "host/input_scan.h"

#include <stdlib.h>

#include "host/dtype.h"
#include "host/parallel.h"
#include "util/checksum.h"

typedef struct scan_job {
    klab_dtype d;
    const unsigned char *raw;
    double *wide;
    uint64_t *hash; /* one a chunk, or NULL */
    double *ss;     /* one a chunk, with wide */
} scan_job;

static void scan_chunk(void *arg, size_t begin, size_t end)
{
    const scan_job *j = arg;
    size_t c = begin / INPUT_SCAN_CHUNK, es = klab_dtype_size(j->d);
    if (j->hash)
        j->hash[c] = checksum_update(CHECKSUM_INIT, j->raw + begin * es, (end - begin) * es);
    if (!j->wide)
        return;
    dtype_to_double(j->d, j->raw + begin * es, j->wide + begin, end - begin);
    double s = 0;
    for (size_t e = begin; e < end; e++)
        s += j->wide[e] * j->wide[e];
    j->ss[c] = s;
}

int input_scan(klab_dtype d, const void *raw, size_t count, uint64_t *h, double *wide, double *sumsq)
{
    size_t nc = parallel_chunks(count, INPUT_SCAN_CHUNK);
    uint64_t *hash = h && nc ? malloc(nc * sizeof *hash) : NULL;
    double *part = wide && nc ? malloc(nc * sizeof *part) : NULL;
    if ((h && nc && !hash) || (wide && nc && !part)) {
        free(hash);
        free(part);
        return -1;
    }
    scan_job j = {d, raw, wide, hash, part};
    parallel_for(count, INPUT_SCAN_CHUNK, scan_chunk, &j);
    for (size_t c = 0; c < nc; c++) {
        if (h)
            *h = checksum_update(*h, &hash[c], sizeof hash[c]);
        if (wide)
            *sumsq += part[c];
    }
    free(hash);
    free(part);
    return 0;
}
