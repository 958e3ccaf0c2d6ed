# core/util: checksums, text escaped for the terminal
klab_test(test_checksum SOURCES test_checksum.c LABELS unit)
klab_test(test_text SOURCES test_text.c LABELS unit)
