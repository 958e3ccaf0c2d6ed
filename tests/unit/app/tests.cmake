# core/app: --with-torch and --resume
# klab --with-torch: the command built for tools/torch_rows.py, and through the binary a failing, a
# missing and a fake interpreter, and the real torch_rows.py --dry-run (no torch, no GPU)
if(NOT KLAB_SANITIZE) # softmax, Python and libklab_bench: the normal build's (CMakeLists.txt)
klab_test(test_lab_torch SOURCES test_lab_torch.c GPU LABELS unit) # GPU: its runs time on one where there is one
add_dependencies(test_lab_torch klab vector_add softmax)
endif()
# klab --resume: an interrupted CSV cut back to its last whole unit (fixtures), the selection stored in
# meta.ini read back, and the refusals (commit, INI, schema, options, no meta.ini) through the binary
klab_test(test_resume SOURCES test_resume.c LABELS unit)
add_dependencies(test_resume klab vector_add)
