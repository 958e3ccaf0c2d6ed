# core/host: verification, the thread pool, red zones, sampled indices, discovery, the loader
klab_test(test_verify SOURCES test_verify.c LABELS unit)
# verify_compare on the pool: byte for byte the figures of the code before it (verify_v0.c, its copy)
# at 1, 2 and 4 threads; input_scan's checksum, widening and sum of squares at every thread count
klab_test(test_verify_threads SOURCES test_verify_threads.c verify_v0.c LABELS unit)
# the worker's thread pool: its chunks, the same bits at every thread count, fork, KLAB_THREADS
klab_test(test_parallel SOURCES test_parallel.c LABELS unit)
klab_test(test_redzone SOURCES test_redzone.c LABELS unit)
klab_test(test_sample SOURCES test_sample.c LABELS unit)
klab_test(test_discovery SOURCES test_discovery.c LABELS unit)
# the loader's refusals, one test plugin each (fixtures/plugins/abi)
klab_test(test_loader SOURCES test_loader.c LABELS plugins)
add_dependencies(test_loader ${KLAB_ABI_PLUGINS})

# klab_host_bench: the host side of a large rows unit and a 2^27 reduction at several thread counts
# (docs/timing.md "Host-side work"); built so it does not rot, never run by ctest (it times)
add_executable(klab_host_bench ${CMAKE_CURRENT_LIST_DIR}/bench_host.c ${CMAKE_CURRENT_LIST_DIR}/verify_v0.c
               ${PROJECT_SOURCE_DIR}/plugins/reduction/reduction_reference.c)
target_link_libraries(klab_host_bench PRIVATE klab_core klab_lib_row)
target_compile_options(klab_host_bench PRIVATE ${KLAB_C_WARNINGS})
target_compile_definitions(klab_host_bench PRIVATE _XOPEN_SOURCE=700)
target_include_directories(klab_host_bench PRIVATE ${PROJECT_SOURCE_DIR})
# klab/convert.h: the half, bfloat16 and fp8 conversions against known values and the host's widening
klab_test(test_convert SOURCES test_convert.c LABELS unit)
