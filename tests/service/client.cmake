# The daemon's client (tools/cuzk: http_client.c, client_cmd.c, stress_cmd.c):
# tests/service/check_client.sh starts `cuzk daemon` (CPU backend, the sample
# circuit and a small bellman circuit as keys) on a temporary Unix socket and
# a TCP port with a token, drives submit, await, prove --addr, cancel, jobs,
# status and bench stress against it, and verifies every proof they write.
add_test(NAME service_client
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_client.sh $<TARGET_FILE:cuzk_cli>
          ${CMAKE_SOURCE_DIR})
set_tests_properties(service_client PROPERTIES LABELS "unit;service" TIMEOUT 300)
