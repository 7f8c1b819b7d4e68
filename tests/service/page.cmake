# The status page (src/service/www) in a headless Chromium: tests/js/status_page.mjs
# starts `cuzk daemon` on a free port with a token, submits jobs with curl and
# drives the page with playwright-core (tests/js, npm ci) through Debian's
# /usr/bin/chromium (CUZK_CHROMIUM names another), and keeps pictures of the
# page with a job running and done in BUILD/test-artifacts. Skipped (77) without node
# or Chromium, saying which.
find_program(NODE node)
if(NODE)
  add_test(NAME status_page
    COMMAND ${NODE} ${CMAKE_SOURCE_DIR}/tests/js/status_page.mjs
            --cuzk $<TARGET_FILE:cuzk_cli> --source ${CMAKE_SOURCE_DIR}
            --artifacts ${CMAKE_BINARY_DIR}/test-artifacts)
else()
  add_test(NAME status_page COMMAND sh -c
    "echo 'status_page: skipped: node is not installed (make test installs it)'; exit 77")
endif()
set_tests_properties(status_page PROPERTIES LABELS "unit;service" SKIP_RETURN_CODE 77 TIMEOUT 300)
# The same page over a daemon whose store is PostgreSQL (a private server from
# check_store_pg.sh): the cluster section shows it. Skipped (77) without node,
# Chromium or PostgreSQL.
if(NODE)
  add_test(NAME status_page_cluster
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_store_pg.sh ${NODE} ${CMAKE_SOURCE_DIR}
            ${CMAKE_SOURCE_DIR}/tests/js/status_page.mjs --cuzk $<TARGET_FILE:cuzk_cli>
            --source ${CMAKE_SOURCE_DIR} --artifacts ${CMAKE_BINARY_DIR}/test-artifacts --cluster)
  set_tests_properties(status_page_cluster PROPERTIES LABELS "unit;service" SKIP_RETURN_CODE 77
                       TIMEOUT 300)
endif()
