# The job queue that daemons on many machines share (src/service/store_pg.c),
# against a private PostgreSQL server that check_store_pg.sh starts with
# scripts/pg-test-server.sh and removes afterwards. Skipped (77) where
# PostgreSQL's server binaries are not installed.
add_executable(test_store_pg ${CMAKE_CURRENT_SOURCE_DIR}/test_store_pg.c)
target_include_directories(test_store_pg PRIVATE ${CUZK_INTERNAL_INCLUDES}
                           ${CMAKE_SOURCE_DIR}/tests)
target_link_libraries(test_store_pg PRIVATE cuzk_service cuzk_api)
add_test(NAME service_store_pg
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_store_pg.sh
                 $<TARGET_FILE:test_store_pg> ${CMAKE_SOURCE_DIR})
set_tests_properties(service_store_pg PROPERTIES LABELS "unit;service" SKIP_RETURN_CODE 77
                     TIMEOUT 300)
# Three daemons sharing one PostgreSQL queue (check_cluster.sh): partitions
# spread, kill -9, SIGSTOP past the lease, a rejoin, a cancel, the database
# restarted, two daemons migrating at once. Skipped (77) without PostgreSQL.
add_test(NAME service_cluster
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_cluster.sh $<TARGET_FILE:cuzk_cli>
                 ${CMAKE_SOURCE_DIR})
set_tests_properties(service_cluster PROPERTIES LABELS "unit;service" SKIP_RETURN_CODE 77
                     TIMEOUT 300)
