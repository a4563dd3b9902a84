# slinky-health against a real Slurm 24.11 cluster: by hand (drain, resume, admin drains left
# alone, timeouts, config refusals) and as slurmd's own HealthCheckProgram.
if(TARGET slinky-health)
  foreach(t slurm24:test_health.py hcp:test_hcp.py)
    string(REPLACE ":" ";" p "${t}")
    list(GET p 0 name)
    list(GET p 1 file)
    add_test(NAME health/${name} COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider
      ${CMAKE_CURRENT_LIST_DIR}/${file})
    set_tests_properties(health/${name} PROPERTIES LABELS integration TIMEOUT 600
      ENVIRONMENT "${SLINKY_TEST_ENV}")
  endforeach()
endif()
