# `make run`'s demo end to end (scripts/demo.sh), with stdin not a terminal so
# it stops after the proof: the daemon starts, the client proves the sample
# through it and the proof verifies.
add_test(NAME service_demo
         COMMAND sh -c "exec bash ${CMAKE_SOURCE_DIR}/scripts/demo.sh ${CMAKE_BINARY_DIR} < /dev/null")
# (its backend auto takes a GPU where there is one: one at a time with the GPU tests)
set_tests_properties(service_demo PROPERTIES LABELS "unit;service" TIMEOUT 300
                     RESOURCE_LOCK "cuzk_demo_state;cuzk_gpu_device")
