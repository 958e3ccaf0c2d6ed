# core/timing's pure parts (only the CUDA runtime library linked): ceilings, subject order, rounds
klab_test(test_roofline SOURCES test_roofline.c LABELS unit)
klab_test(test_timing_order SOURCES test_timing_order.c LABELS unit)
klab_test(test_rounds SOURCES test_rounds.c LABELS unit)
