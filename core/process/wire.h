/* The protocol between the parent (which alone writes files) and a worker process (which alone
 * touches CUDA and plugins). One pipe, worker to parent; each message is a header and a payload of
 * plain data. Both ends are the same executable today (the worker is a fork), but the protocol is
 * versioned like the plugin ABI so that a worker started another way (one per GPU for --devices) can
 * be refused when it speaks another version.
 *
 *   HELLO   first message: the version
 *   PLUGIN  a descriptor summary (list, validate and run jobs)
 *   REFUSED the plugin could not be loaded: why
 *   DEVICE  the GPU and the timer's floors (probe and run jobs)
 *   UNIT    a (case, dtype) begins: a crash from here on is charged to it
 *   PHASE   which step of the unit is running (setup, reference, verify, timing, teardown)
 *   ROW     one result row
 *   NOTE    a line for the terminal (validation results, warnings)
 *   FATAL   the job cannot go on (no GPU, bad device): one sentence
 *   DONE    the job ended normally
 *   LOST    the CUDA context is lost: the worker's last message, sent just before it exits with
 *           WIRE_EXIT_CONTEXT_LOST (an exit status alone cannot say it: a plugin may call exit(10))
 *   SAMPLES a step subject's raw samples, for its row's samples file (variable length)
 * A worker whose CUDA context is lost sends its rows, then LOST; the parent starts a fresh worker at
 * the next unit. Every message restarts the parent's watchdog (it times silence). Every type but
 * SAMPLES has one payload size (wire_payload_size); the parent refuses any other, and SAMPLES must be
 * exactly its header plus the samples it declares. */
#ifndef KLAB_WIRE_H
#define KLAB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "evidence/row.h"
#include "host/device_info.h"

#define WIRE_MAGIC 0x6b6c6162u /* "klab" */
#define WIRE_VERSION 3 /* 2: LOST, and every payload checked against its type's size; 3: archs, dims and
                          tuning spaces in wire_plugin */
#define WIRE_EXIT_CONTEXT_LOST 10 /* after LOST; without LOST, status 10 is only a status */
#define WIRE_EXIT_SEND_FAILED 11  /* the worker could not write to its parent (gone): it stops */

typedef enum wire_type {
    WIRE_HELLO = 1,
    WIRE_PLUGIN,
    WIRE_REFUSED,
    WIRE_DEVICE,
    WIRE_UNIT,
    WIRE_PHASE,
    WIRE_ROW,
    WIRE_NOTE,
    WIRE_FATAL,
    WIRE_DONE,
    WIRE_LOST,
    WIRE_SAMPLES
} wire_type;

typedef struct wire_header {
    uint32_t magic;
    uint16_t version;
    uint16_t type;
    uint32_t length; /* payload bytes */
} wire_header;

typedef struct wire_plugin {
    char name[64], version[64], summary[256], path[4096];
    unsigned abi_major, abi_minor;
    int nprofiles;
    char profiles[16][64];
    char profile_summary[16][160];
    char baseline[64];
    uint32_t dtypes;
    int min_cc;
    char params[512]; /* comma-joined */
    char dims[512];   /* comma-joined names the INI may set as dim.NAME */
    char archs[96];   /* the plugin's exact machine code, "9.0,8.0"; "" any */
    char profile_archs[16][48]; /* a profile's own, where it narrows the plugin's */
    unsigned char profile_tunes[16]; /* the profile names configurations (klab_profile.config): a tuning
                                        space per case, listed by klab --tune --validate */
} wire_plugin;

typedef device_desc wire_device; /* DEVICE's payload */

/* Where a job's messages go: a pipe to the parent in a worker, the parent's handler with --no-isolate. */
typedef struct job_out {
    int (*send)(void *user, wire_type type, const void *payload, uint32_t length);
    void *user;
} job_out;

typedef struct wire_unit {
    int unit;
    char kcase[64], dtype[8], shape[64];
    int nprofiles;
    char profiles[16][64];
} wire_unit;

typedef struct wire_text {
    char text[1024];
} wire_text;

/* "ROW", "UNIT", ...; NULL for a type this version does not have. */
const char *wire_type_name(unsigned type);

/* The payload bytes a message of this type carries; -1 for a type this version does not have, -2 for
   SAMPLES (variable: its header plus the samples it declares). */
long wire_payload_size(unsigned type);

/* 0 if h is a message of this protocol version with its type's exact payload size; else -1 and one
   phrase in err ("sent a ROW of 12 bytes, expected 2632"). */
int wire_check(const wire_header *h, char *err, size_t errlen);


/* SAMPLES: this header, then n wire_sample. A row's samples travel in messages of at most
   WIRE_SAMPLES_CHUNK (each must fit the parent's receive buffer); the parent checks that a message's
   length is exactly the header plus n samples. */
typedef struct wire_samples {
    char plugin[64], kcase[64], dtype[8], profile[64]; /* the row */
    uint32_t first; /* index of this message's first sample in the row */
    uint32_t n;     /* samples in this message */
    uint32_t total; /* samples of the row: the file is complete with the message that reaches it */
    uint32_t reserved;
} wire_samples;

typedef struct wire_sample {
    int64_t step; /* the step of the sequence it timed */
    double ms;
} wire_sample;

#define WIRE_SAMPLES_CHUNK 900 /* 216 + 900 x 16 bytes: under the parent's 16 KiB buffer */

typedef int (*wire_send_fn)(void *user, wire_type type, const void *payload, uint32_t length);

/* Sends a row's samples (ms[i] timed step steps[i]) as SAMPLES messages through send; a row with no
   samples sends one empty message (its file then has only the header). 0, or -1 (out of memory, or
   send failed). */
int wire_send_samples(wire_send_fn send, void *user, const char *plugin, const char *kcase, const char *dtype,
                      const char *profile, const double *ms, const int64_t *steps, size_t n);

/* A received SAMPLES payload: 0 with *head and *samples pointing into it, or -1 when its length is not
   the header plus head->n samples (or the chunk is past the row's total). */
int wire_samples_parse(const void *payload, uint32_t length, const wire_samples **head,
                       const wire_sample **samples);

/* Writes one message; 0 or -1 with errno set (EPIPE: the parent is gone). */
int wire_send(int fd, wire_type type, const void *payload, uint32_t length);

/* Reads one message into buf (at most cap bytes), refusing it before its payload is read when
   wire_check does. 1 = a message, 0 = end of stream, -1 = broken (why in err). */
int wire_recv(int fd, wire_header *h, void *buf, size_t cap, char *err, size_t errlen);

#endif
