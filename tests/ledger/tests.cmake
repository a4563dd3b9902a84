# Ledger integration tests written as shell scripts (real slurmdbd/MariaDB, real sshd).
foreach(t reprovision seamless_ssh)
  add_test(NAME ledger/${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/itest_${t}.sh)
  set_tests_properties(ledger/${t} PROPERTIES LABELS integration TIMEOUT 900
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endforeach()
