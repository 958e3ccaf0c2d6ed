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
 * A worker whose CUDA context is lost sends its rows, then LOST; the parent starts a fresh worker at
 * the next unit. Every message restarts the parent's watchdog (it times silence). Every type has one
 * payload size (wire_payload_size); the parent refuses any other. */
#ifndef KLAB_WIRE_H
#define KLAB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "device_info.h"
#include "row.h"

#define WIRE_MAGIC 0x6b6c6162u /* "klab" */
#define WIRE_VERSION 2 /* 2: LOST, and every payload checked against its type's size */
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
    WIRE_LOST
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
} wire_plugin;

typedef struct wire_device {
    device_info info;
    double launch_floor_ms, flush_bytes;
    double mem_gbps, tensor_tflops; /* datasheet */
} wire_device;

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

/* The payload bytes a message of this type carries; -1 for a type this version does not have. */
long wire_payload_size(unsigned type);

/* 0 if h is a message of this protocol version with its type's exact payload size; else -1 and one
   phrase in err ("sent a ROW of 12 bytes, expected 2632"). */
int wire_check(const wire_header *h, char *err, size_t errlen);

/* Writes one message; 0 or -1 with errno set (EPIPE: the parent is gone). */
int wire_send(int fd, wire_type type, const void *payload, uint32_t length);

/* Reads one message into buf (at most cap bytes), refusing it before its payload is read when
   wire_check does. 1 = a message, 0 = end of stream, -1 = broken (why in err). */
int wire_recv(int fd, wire_header *h, void *buf, size_t cap, char *err, size_t errlen);

#endif
