/* The exit status of a klab process: the contract scripts and CI read (also in --help). A worker's own
 * exit codes are wire.h's. */
#ifndef KLAB_EXIT_STATUS_H
#define KLAB_EXIT_STATUS_H

enum {
    EXIT_OK = 0,
    EXIT_FAILED_ROWS = 1, /* a row failed, was incorrect or flagged, or a plugin was refused */
    EXIT_USAGE = 2,       /* bad command line or INI */
    EXIT_NO_GPU = 3,      /* no usable GPU for a command that needs one */
    EXIT_SIGNALED = 128   /* + the signal: 130 SIGINT, 143 SIGTERM stopped the command and its worker;
                             a run's rows so far stay in <plugin>.csv.partial, never a final .csv */
};

#endif
