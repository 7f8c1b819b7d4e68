# The daemon's HTTP API against its contract, its durability, and its
# systemd unit.
#
# service_api: tests/js/api_conformance.mjs starts `cuzk daemon` (CPU
# backend) on a temporary Unix socket and 127.0.0.1 port, sends every route
# of doc/openapi.json good and bad requests, and checks each answer's status
# code and body against the document (tests/js/openapi_check.mjs) and what
# doc/api.md says it means; proofs are verified by `cuzk groth16 verify` /
# `cuzk verify` and snarkjs. Needs tests/js/node_modules (npm ci; make test
# runs it); skipped (77) only without node.
find_program(NODE node)
if(NODE)
  add_test(NAME service_api
    COMMAND ${NODE} ${CMAKE_SOURCE_DIR}/tests/js/api_conformance.mjs
            --cuzk $<TARGET_FILE:cuzk_cli> --source ${CMAKE_SOURCE_DIR})
else()
  add_test(NAME service_api COMMAND sh -c
    "echo 'service_api: skipped: node is not installed (make test installs it)'; exit 77")
endif()
set_tests_properties(service_api PROPERTIES LABELS "unit;service" SKIP_RETURN_CODE 77 TIMEOUT 600)

# service_durability: tests/service/check_durability.sh, with curl over a Unix
# socket: kill -9 with jobs queued and running, then a restart completes every
# acknowledged job once and leaves the spool empty; SIGTERM drains (503 to
# submissions, exit 0, the rest finished after a restart); results survive
# restarts and go after result_retention_s. About two minutes, most of it
# waiting for the daemon's once-a-minute expiry.
add_test(NAME service_durability
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_durability.sh $<TARGET_FILE:cuzk_cli>
          ${CMAKE_SOURCE_DIR})
set_tests_properties(service_durability PROPERTIES LABELS "unit;service" SKIP_RETURN_CODE 77
  TIMEOUT 900)

# service_unit: contrib/cuzk.service passes `systemd-analyze verify` without a
# word about it (its ExecStart pointed at the built cuzk, since verify wants the
# binary to exist), and its directories are the example configuration's.
# Skipped (77) without systemd-analyze.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/check_unit.sh [=[
unit=$1 cuzk=$2 example=$3
if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "service_unit: skipped: systemd-analyze is not installed"
    exit 77
fi
d=$(mktemp -d /tmp/api-unit-XXXXXX) || exit 1
sed "s|^ExecStart=/usr/local/bin/cuzk |ExecStart=$cuzk |" "$unit" >"$d/cuzk.service"
said=$(systemd-analyze verify "$d/cuzk.service" 2>&1)
rc=$?
rm -rf "$d"
# only what names our unit: verify also loads the units it orders itself
# after, whose own warnings on a given machine are not ours
complaints=$(printf '%s\n' "$said" | grep -F cuzk.service)
if [ -n "$complaints" ] || { [ "$rc" -ne 0 ] && [ -z "$said" ]; }; then
    echo "service_unit: systemd-analyze verify (status $rc):"
    echo "$said"
    exit 1
fi
fails=0
need() {
    if ! grep -qx -- "$2" "$1"; then
        echo "service_unit: $1 has no line $2"
        fails=1
    fi
}
need "$unit" 'Type=simple'
need "$unit" 'ExecStart=/usr/local/bin/cuzk daemon --config /etc/cuzk/cuzk.conf'
need "$unit" 'KillSignal=SIGTERM'
need "$unit" 'RuntimeDirectory=cuzk'
need "$unit" 'StateDirectory=cuzk'
need "$unit" 'LimitMEMLOCK=infinity'
need "$example" 'unix_socket = /run/cuzk/cuzk.sock'
need "$example" 'database = /var/lib/cuzk/cuzk.db'
need "$example" 'spool_dir = /var/lib/cuzk/spool'
[ "$fails" -eq 0 ] && echo "service_unit: fine"
exit "$fails"
]=])
add_test(NAME service_unit
  COMMAND sh ${CMAKE_CURRENT_BINARY_DIR}/check_unit.sh ${CMAKE_SOURCE_DIR}/contrib/cuzk.service
          $<TARGET_FILE:cuzk_cli> ${CMAKE_SOURCE_DIR}/contrib/cuzk.conf.example)
set_tests_properties(service_unit PROPERTIES LABELS "unit;service" SKIP_RETURN_CODE 77)
