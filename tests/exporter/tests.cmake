# slinky-exporter against a real Slurm 24.11 slurmrestd, scraped by a real Prometheus
# (the `prometheus` package); checks the dashboards/ expressions on it.
if(TARGET slinky-exporter AND TARGET slinky-health)
  add_test(NAME exporter/prometheus COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider
    ${CMAKE_CURRENT_LIST_DIR}/test_prometheus.py)
  set_tests_properties(exporter/prometheus PROPERTIES LABELS integration TIMEOUT 600
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
