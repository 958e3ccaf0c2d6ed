/* A step subject's raw samples, one file per row beside its plugin's CSV, so a tail can be studied
 * after the run:
 *     <run-dir>/<plugin>.samples/<case>.<dtype>.<profile>.csv     "step,ms", one line a sample
 * The parent writes it from the worker's SAMPLES messages (wire.h) into "<file>.partial" and renames
 * it when the row's last sample has arrived, as the CSV is written: no reader sees half a file. */
#ifndef KLAB_SAMPLES_FILE_H
#define KLAB_SAMPLES_FILE_H

#include <stddef.h>
#include <stdint.h>

/* The file for a row, given its plugin's CSV path. 0, or -1 when it does not fit buf. */
int samples_file_path(const char *csv_path, const char *plugin, const char *kcase, const char *dtype,
                      const char *profile, char *buf, size_t len);

/* Appends one SAMPLES message to its row's file; completes the file with the row's last message.
   0, or -1 with the reason in err (a malformed message, a chunk out of order, a write error). */
int samples_file_add(const char *csv_path, const void *payload, uint32_t length, char *err, size_t errlen);

#endif
