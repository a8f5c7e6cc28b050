# The Raft example on the simulation kernel (tests/unit/raft/, docs/raft-example.md).
set(RAFT_DIR ${CMAKE_CURRENT_LIST_DIR})
add_library(oxl_raft STATIC
  ${RAFT_DIR}/raft_harness.c ${RAFT_DIR}/raft_storage.c ${RAFT_DIR}/raft_describe.c
  ${RAFT_DIR}/raft_oracle.c ${RAFT_DIR}/raft_client.c ${RAFT_DIR}/raft_scenario.c)
target_link_libraries(oxl_raft PUBLIC oxlrt)
target_include_directories(oxl_raft PUBLIC ${RAFT_DIR})

oxl_tap_test(raft_harness_test SOURCES ${RAFT_DIR}/raft_harness_test.c LIBS oxl_raft LABELS "raft")
# The 200-seed sweep and one test per planted bug.
oxl_tap_test(raft_sim_test SOURCES ${RAFT_DIR}/raft_sim_test.c LIBS oxl_raft LABELS "raft")
# The 2,000-seed sweep.
add_test(NAME raft_sim_long COMMAND raft_sim_test long)
set_tests_properties(raft_sim_long PROPERTIES LABELS "raft-long" TIMEOUT 900)
# Bad OXL_RAFT_* values are refused by name.
add_test(NAME raft_sim_env COMMAND sh ${RAFT_DIR}/raft_env_test.sh $<TARGET_FILE:raft_sim_test>)
set_tests_properties(raft_sim_env PROPERTIES LABELS "raft")
