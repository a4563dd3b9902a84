# tests/harness_check: prove tests/harness/*.sh against real daemons (root, loopback only).
foreach(t slurm22 parallel validate)
  add_test(NAME harness_check/${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${t}.sh)
  set_tests_properties(harness_check/${t} PROPERTIES LABELS integration TIMEOUT 180
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endforeach()
# the first run builds the cached Debian 13 chroot (~60 s, needs the Debian mirror apt uses)
add_test(NAME harness_check/slurm24 COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm24.sh)
# RUN_SERIAL: it checks that the chroot's /proc is released when no cluster uses it, which
# only holds while no other test (slurm/, health/, exporter/, workload/) runs one at the same time
set_tests_properties(harness_check/slurm24 PROPERTIES LABELS "integration;slurm24" TIMEOUT 300
  RUN_SERIAL TRUE ENVIRONMENT "${SLINKY_TEST_ENV}")
# the mirror slurm24.sh builds from: taken from apt's configuration (fake roots, no network)
add_test(NAME harness_check/mirror COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/mirror.sh)
set_tests_properties(harness_check/mirror PROPERTIES LABELS unit TIMEOUT 30)
