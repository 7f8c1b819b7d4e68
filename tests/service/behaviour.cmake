# The daemon's behaviour under many clients and bad ones:
# tests/service/check_daemon.sh starts `cuzk daemon` (CPU backend, one worker,
# request_timeout_s 2, max_body_bytes 256K) and checks that priorities are
# honoured, concurrent submissions all complete with distinct ids, queued and
# running jobs cancel, malformed and oversized requests are 4xx while the
# daemon serves on, stalled connections are closed, `cuzk bench stress` via
# POST /v1/jobs and POST /v1/prove, and that GET /metrics passes a strict
# Prometheus text-format checker (tests/service/prom_check.py). Every proof
# is verified. Skipped (77) without python3 or curl.
add_test(NAME service_behaviour
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_daemon.sh $<TARGET_FILE:cuzk_cli>
          ${CMAKE_SOURCE_DIR})
set_tests_properties(service_behaviour PROPERTIES LABELS "unit;service" TIMEOUT 300
                     SKIP_RETURN_CODE 77)
