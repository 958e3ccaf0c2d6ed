# core/report: the terminal table, claims, klab compare, the report written
klab_test(test_table SOURCES test_table.c LABELS unit)
klab_test(test_svg SOURCES test_svg.c LABELS unit)
# klab compare: synthetic runs with known noise, judged in the library and through the binary
klab_test(test_compare SOURCES test_compare.c GPU LABELS unit) # GPU: two real runs where there is one
if(KLAB_SANITIZE)
  add_dependencies(test_compare klab) # its GPU test, which runs rmsnorm, skips without one
else()
  add_dependencies(test_compare klab rmsnorm)
endif()
# klab report: the claim grammar and its statuses over CSV fixtures, experiment and decision files
# refused with file:line, the shipped ones loaded; the report written and drawn (test_report)
klab_test(test_claims SOURCES test_claims.c LABELS unit)
klab_test(test_report SOURCES test_report.c LABELS unit)
add_dependencies(test_report klab)
