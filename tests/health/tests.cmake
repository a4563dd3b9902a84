# slinky-health against a real Slurm 24.11 cluster (drain, resume, admin drains left alone,
# timeouts, config refusals).
if(TARGET slinky-health)
  add_test(NAME health/slurm24 COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider
    ${CMAKE_CURRENT_LIST_DIR}/test_health.py)
  set_tests_properties(health/slurm24 PROPERTIES LABELS integration TIMEOUT 600
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
