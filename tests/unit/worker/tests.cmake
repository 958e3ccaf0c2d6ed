# core/worker: a row's arithmetic, a unit's entries under --tune (and the parent's choice of the best),
# the selection's shards
klab_test(test_results SOURCES test_results.c LABELS unit)
klab_test(test_tune SOURCES test_tune.c LABELS unit)
# --shard and --devices' split of the units
klab_test(test_shard SOURCES test_shard.c LABELS unit)
add_dependencies(test_shard klab vector_add)
# a unit's rows without a GPU (unit_rows.c): what each entry's row carries, skips for the device,
# configurations from the case and the tuning cache, every verdict of a verified run and a timed subject
klab_test(test_unit_rows SOURCES test_unit_rows.c LABELS unit)
# the jobs a worker runs that need no GPU (jobs.c), in this process: describe, validate, --tune's
# listing, refusals, and a run job stopped by one before its device
klab_test(test_jobs SOURCES test_jobs.c LABELS unit)
add_dependencies(test_jobs abi_good abi_no_entry abi_major3)
