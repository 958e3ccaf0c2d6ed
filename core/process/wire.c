#include "process/wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
    const char *name;
    long size;
} types[] = {
    [WIRE_HELLO] = {"HELLO", sizeof(int)},
    [WIRE_PLUGIN] = {"PLUGIN", sizeof(wire_plugin)},
    [WIRE_REFUSED] = {"REFUSED", sizeof(wire_text)},
    [WIRE_DEVICE] = {"DEVICE", sizeof(wire_device)},
    [WIRE_UNIT] = {"UNIT", sizeof(wire_unit)},
    [WIRE_PHASE] = {"PHASE", sizeof(wire_text)},
    [WIRE_ROW] = {"ROW", sizeof(klab_row)},
    [WIRE_NOTE] = {"NOTE", sizeof(wire_text)},
    [WIRE_FATAL] = {"FATAL", sizeof(wire_text)},
    [WIRE_DONE] = {"DONE", sizeof(int)},
    [WIRE_LOST] = {"LOST", 0},
    [WIRE_SAMPLES] = {"SAMPLES", -2}, /* variable: the header plus the samples it declares */
};

const char *wire_type_name(unsigned type)
{
    return type < sizeof types / sizeof types[0] ? types[type].name : NULL;
}

long wire_payload_size(unsigned type)
{
    return wire_type_name(type) ? types[type].size : -1;
}

/* SAMPLES: at least its header, at most a full chunk; wire_samples_parse checks the exact count. */
static int samples_length_ok(uint32_t length)
{
    return length >= sizeof(wire_samples) && length <= sizeof(wire_samples) + WIRE_SAMPLES_CHUNK * sizeof(wire_sample);
}

int wire_check(const wire_header *h, char *err, size_t errlen)
{
    if (h->magic != WIRE_MAGIC) {
        snprintf(err, errlen, "sent something that is not a klab message (magic 0x%08x)", (unsigned)h->magic);
        return -1;
    }
    if (h->version != WIRE_VERSION) {
        snprintf(err, errlen, "speaks protocol version %u, this klab %d", (unsigned)h->version, WIRE_VERSION);
        return -1;
    }
    long want = wire_payload_size(h->type);
    if (want == -1) {
        snprintf(err, errlen, "sent a message of unknown type %u", (unsigned)h->type);
        return -1;
    }
    if (want == -2) {
        if (samples_length_ok(h->length))
            return 0;
        snprintf(err, errlen, "sent a %s of %lu bytes, outside %zu..%zu", wire_type_name(h->type),
                 (unsigned long)h->length, sizeof(wire_samples),
                 sizeof(wire_samples) + WIRE_SAMPLES_CHUNK * sizeof(wire_sample));
        return -1;
    }
    if ((long)h->length != want) {
        snprintf(err, errlen, "sent a %s of %lu bytes, expected %ld", wire_type_name(h->type),
                 (unsigned long)h->length, want);
        return -1;
    }
    return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, c + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

int wire_send(int fd, wire_type type, const void *payload, uint32_t length)
{
    wire_header h = {WIRE_MAGIC, WIRE_VERSION, (uint16_t)type, length};
    if (write_all(fd, &h, sizeof h) != 0)
        return -1;
    return length ? write_all(fd, payload, length) : 0;
}

int wire_recv(int fd, wire_header *h, void *buf, size_t cap, char *err, size_t errlen)
{
    int rc = read_all(fd, h, sizeof *h);
    if (rc < 0)
        snprintf(err, errlen, "ended in the middle of a message header");
    if (rc <= 0)
        return rc;
    if (wire_check(h, err, errlen) != 0)
        return -1;
    if (h->length > cap) {
        snprintf(err, errlen, "sent a %s of %lu bytes, more than the reader's %zu", wire_type_name(h->type),
                 (unsigned long)h->length, cap);
        return -1;
    }
    if (h->length && read_all(fd, buf, h->length) != 1) {
        snprintf(err, errlen, "ended in the middle of a %s", wire_type_name(h->type));
        return -1;
    }
    return 1;
}

_Static_assert(sizeof(wire_samples) % 8 == 0, "the samples after the header must stay 8-byte aligned");

int wire_send_samples(wire_send_fn send, void *user, const char *plugin, const char *kcase, const char *dtype,
                      const char *profile, const double *ms, const int64_t *steps, size_t n)
{
    if (n > UINT32_MAX)
        return -1;
    size_t cap = n < WIRE_SAMPLES_CHUNK ? n : WIRE_SAMPLES_CHUNK;
    wire_samples *h = malloc(sizeof *h + cap * sizeof(wire_sample));
    if (!h)
        return -1;
    memset(h, 0, sizeof *h);
    snprintf(h->plugin, sizeof h->plugin, "%s", plugin);
    snprintf(h->kcase, sizeof h->kcase, "%s", kcase);
    snprintf(h->dtype, sizeof h->dtype, "%s", dtype);
    snprintf(h->profile, sizeof h->profile, "%s", profile);
    h->total = (uint32_t)n;
    wire_sample *out = (wire_sample *)(h + 1);
    size_t first = 0;
    int rc = 0;
    do {
        size_t k = n - first < cap ? n - first : cap;
        h->first = (uint32_t)first;
        h->n = (uint32_t)k;
        for (size_t i = 0; i < k; i++) {
            out[i].step = steps ? steps[first + i] : (int64_t)(first + i);
            out[i].ms = ms[first + i];
        }
        rc = send(user, WIRE_SAMPLES, h, (uint32_t)(sizeof *h + k * sizeof *out));
        first += k;
    } while (rc == 0 && first < n);
    free(h);
    return rc == 0 ? 0 : -1;
}

int wire_samples_parse(const void *payload, uint32_t length, const wire_samples **head,
                       const wire_sample **samples)
{
    if (length < sizeof(wire_samples))
        return -1;
    const wire_samples *h = payload;
    if (h->n > WIRE_SAMPLES_CHUNK || length != sizeof *h + (size_t)h->n * sizeof(wire_sample) ||
        (uint64_t)h->first + h->n > h->total)
        return -1;
    *head = h;
    *samples = (const wire_sample *)(h + 1);
    return 0;
}
