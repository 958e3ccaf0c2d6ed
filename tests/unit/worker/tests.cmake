# core/worker: a row's arithmetic, a unit's entries under --tune (and the parent's choice of the best),
# the selection's shards
klab_test(test_results SOURCES test_results.c LABELS unit)
klab_test(test_tune SOURCES test_tune.c LABELS unit)
# --shard and --devices' split of the units
klab_test(test_shard SOURCES test_shard.c LABELS unit)
add_dependencies(test_shard klab vector_add)
