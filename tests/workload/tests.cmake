# workload: every object built from upstream's examples goes through the real
# kubectl (client-side dry run against slinky-apiserver for discovery) and a
# structural check of each kind's required fields (examples.sh, check_objects.py).
add_executable(wl_render ${CMAKE_CURRENT_LIST_DIR}/wl_render.c)
target_link_libraries(wl_render PRIVATE slinky_static)
if(TARGET slinky-apiserver)
  add_test(NAME workload/examples
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/examples.sh $<TARGET_FILE:wl_render>)
  set_tests_properties(workload/examples PROPERTIES LABELS integration TIMEOUT 300
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
# slurm-operator#191 with the real Slurm 22.05 (tests/harness/slurm-ci.sh): a NodeSet's Gres
# reaches a dynamic slurmd's node only with the GresTypes libslinky adds (gres_dynamic.sh)
if(TARGET slinkyctl)
  add_test(NAME workload/gres_dynamic
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/gres_dynamic.sh $<TARGET_FILE:slinkyctl>)
  set_tests_properties(workload/gres_dynamic PROPERTIES LABELS integration TIMEOUT 300
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()

# workload: `slinkyctl conf render` and `slinkyctl render` as a user runs them (render_cli.sh),
# and `slinkyctl render --diff` against slinky-apiserver (render_diff.sh).
if(TARGET slinkyctl)
  add_test(NAME workload/render_cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/render_cli.sh $<TARGET_FILE:slinkyctl>)
  set_tests_properties(workload/render_cli PROPERTIES LABELS unit TIMEOUT 300 ENVIRONMENT "${SLINKY_TEST_ENV}")
  if(TARGET slinky-apiserver)
    add_test(NAME workload/render_diff COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/render_diff.sh $<TARGET_FILE:slinkyctl>)
    set_tests_properties(workload/render_diff PROPERTIES LABELS integration TIMEOUT 300
      ENVIRONMENT "${SLINKY_TEST_ENV}")
  endif()
endif()
# `slinkyctl conf render` output checked by the real slurmctld 24.11 (the Debian 13 chroot)
if(TARGET slinkyctl)
  add_test(NAME workload/conf_render_slurm24
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/conf_render_slurm24.sh $<TARGET_FILE:slinkyctl>)
  set_tests_properties(workload/conf_render_slurm24 PROPERTIES LABELS integration TIMEOUT 300
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
