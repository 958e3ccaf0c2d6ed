# core/scale: klab merge (cmocka and the binary), --with-profiling's ncu output from fixtures and a
# fake ncu (--shard and --devices' split: worker/test_shard.c; the Slurm script: cli/)
klab_test(test_merge SOURCES test_merge.c LABELS unit)
add_dependencies(test_merge klab)
klab_test(test_profiling SOURCES test_profiling.c LABELS unit)
