# core/stats: sample statistics, order-statistic intervals
klab_test(test_stats SOURCES test_stats.c LABELS unit)
klab_test(test_interval SOURCES test_interval.c LABELS unit)
