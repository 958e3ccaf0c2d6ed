# core/evidence: the row, the CSV writer and reader, meta.ini, run folders read back
klab_test(test_csv_sink SOURCES test_csv_sink.c LABELS unit)
klab_test(test_row SOURCES test_row.c LABELS unit)
# meta.ini: klab's runs and libklab_bench's sessions through one writer (core/run_meta.c)
# and [phases]: the parent's clock over a worker's messages (lab_on_message), PyTorch's phases file,
# the section rewritten at the end of a run; --quick and --budget-ms in [method], quick parent rows
klab_test(test_run_meta SOURCES test_run_meta.c LABELS unit)
# the one CSV reader (csv_read.c) against damaged files: cell counts, quotes, NUL, cut and over-long
# cells, unknown statuses, files that are not regular ones; a byte order mark and CRLF accepted
klab_test(test_csv_read SOURCES test_csv_read.c LABELS unit)
# run folders read back for klab report: a large run's counters joined to its rows, and a run folder
# whose meta.ini and samples files are FIFOs, /dev/zero or outside the folder (the report is written)
klab_test(test_run_set SOURCES test_run_set.c LABELS unit)
add_dependencies(test_run_set klab)
# golden files: every fixtures/csv_sink/*.rows (rows and records with quotes, commas, line breaks,
# NaN and infinities, empty and full-length cells) written by csv_sink, its bytes against
# <name>.rows.expected; after an intended change: build/tests/csv_golden tests/fixtures/csv_sink --write
klab_test(csv_golden SOURCES csv_golden.c LABELS unit ARGS ${KLAB_TESTS_DIR}/fixtures/csv_sink)
