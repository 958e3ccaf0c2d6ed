# core/process: the message protocol, samples files (the supervisor itself: cli/test_supervisor.c)
klab_test(test_wire SOURCES test_wire.c LABELS unit)
klab_test(test_samples_file SOURCES test_samples_file.c LABELS unit)
