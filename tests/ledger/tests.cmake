# Ledger integration tests written as shell scripts (real slurmdbd/MariaDB, real sshd,
# the project's API server + kubectl).
set(_ledger_sh reprovision seamless_ssh)
if(TARGET slinky-apiserver)
  list(APPEND _ledger_sh kube)
endif()
foreach(t ${_ledger_sh})
  add_test(NAME ledger/${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/itest_${t}.sh)
  set_tests_properties(ledger/${t} PROPERTIES LABELS integration TIMEOUT 900
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endforeach()

# The command-line tools (no daemons).
add_test(NAME ledger/cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli.sh)
set_tests_properties(ledger/cli PROPERTIES LABELS unit TIMEOUT 300 ENVIRONMENT "${SLINKY_TEST_ENV}")
