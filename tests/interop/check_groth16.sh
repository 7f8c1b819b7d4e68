#!/usr/bin/env bash
# check_groth16.sh CUZK_BINARY FIXTUREDIR [CIRCUIT...]
# check_groth16.sh --snarkjs-only FIXTUREDIR [CIRCUIT...]
#
# Both-direction Groth16 interop checks between cuzk and snarkjs 0.7.6 on the
# fixtures that tests/interop/fixtures.sh builds (default: every circuit found
# in FIXTUREDIR). Three judges: snarkjs, a verifier on @noble/curves
# (snarkjs/fixture_tools.mjs verify) and cuzk itself. Per circuit:
#
#   with CUZK_BINARY (needs `cuzk groth16 prove|verify`, `cuzk zkey export
#   verificationkey`, `cuzk wtns check`):
#     - cuzk wtns check accepts witness.wtns and rejects witness_bad.wtns,
#       naming the first unsatisfied constraint (0-based, as snarkjs counts)
#     - cuzk zkey export verificationkey equals snarkjs's verification_key.json
#       (vk_alphabeta_12 compared only when cuzk writes it)
#     - cuzk's proof: public.json equal to snarkjs's; snarkjs, noble and cuzk
#       accept it; a second proof differs (fresh r, s) and verifies too
#     - cuzk accepts snarkjs's proof.json
#     - cuzk rejects every tampered proof/public variant of snarkjs's proof, and
#       snarkjs and cuzk reject the same variants made from cuzk's proof
#     - cuzk groth16 prove refuses witness_bad.wtns: exit status 1..125, a
#       message naming the constraint, and no proof file left behind
#   with --snarkjs-only (the snarkjs_selfcheck test; the fixtures are sane):
#     - snarkjs and noble accept proof.json and reject every variant
#     - snarkjs wtns check and fixture_tools check accept witness.wtns and
#       reject witness_bad.wtns
#
# "Rejects" means an exit status from 1 to 125: a crash (signal, 128+) or a
# missing command (126, 127) is a failure, not a rejection. Prints one line per
# check and "N passed, N failed"; exits 1 when a check failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
jsdir=$here/../js
tools=$here/snarkjs/fixture_tools.mjs
snarkjs=$jsdir/node_modules/.bin/snarkjs
VARIANTS="proof_tampered proof_offcurve proof_notsubgroup public_tampered public_noncanonical public_short"

usage() { echo "usage: check_groth16.sh CUZK_BINARY|--snarkjs-only FIXTUREDIR [CIRCUIT...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
cuzk=$1
fix=$2
shift 2
if [ "$cuzk" != --snarkjs-only ]; then
    [ -x "$cuzk" ] || { echo "check_groth16.sh: $cuzk is not an executable" >&2; exit 2; }
    cuzk=$(cd "$(dirname "$cuzk")" && pwd)/$(basename "$cuzk")
fi
[ -d "$fix" ] || { echo "check_groth16.sh: no fixture folder $fix (run tests/interop/fixtures.sh)" >&2; exit 2; }
fix=$(cd "$fix" && pwd)
[ -x "$snarkjs" ] || { echo "check_groth16.sh: $snarkjs missing: run npm ci --prefix tests/js" >&2; exit 2; }
if [ $# -eq 0 ]; then
    for s in "$fix"/*/.stamp; do [ -f "$s" ] && set -- "$@" "$(basename "$(dirname "$s")")"; done
fi
[ $# -gt 0 ] || { echo "check_groth16.sh: no built circuit in $fix" >&2; exit 2; }

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $c: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $c: $1"; [ -s "$last" ] && sed 's/^/       | /' "$last" | tail -n 12; }
last=$(mktemp)
trap 'rm -f "$last"' EXIT

# accepts DESC CMD...: the command must exit 0.
accepts() {
    local desc=$1
    shift
    "$@" >"$last" 2>&1
    local rc=$?
    if [ $rc -eq 0 ]; then ok "$desc"; else bad "$desc (exit $rc, expected 0)"; fi
}
# rejects DESC CMD...: the command must exit 1..125.
rejects() {
    local desc=$1
    shift
    "$@" >"$last" 2>&1
    local rc=$?
    if [ $rc -ge 1 ] && [ $rc -le 125 ]; then ok "$desc (exit $rc)"; else bad "$desc (exit $rc, expected 1..125)"; fi
}
# same_json DESC A B [KEY...]: A and B hold equal JSON values (only KEYs, for objects,
# when given; a KEY missing from B is skipped when it is vk_alphabeta_12).
same_json() {
    local desc=$1 a=$2 b=$3
    shift 3
    if node -e '
      const fs = require("fs");
      const [a, b, ...keys] = process.argv.slice(1);
      let A = JSON.parse(fs.readFileSync(a)), B = JSON.parse(fs.readFileSync(b));
      if (keys.length) {
        const pick = (o, ks) => Object.fromEntries(ks.map((k) => [k, o[k]]));
        const ks = keys.filter((k) => !(k === "vk_alphabeta_12" && !(k in B)));
        A = pick(A, ks); B = pick(B, ks);
      }
      const sa = JSON.stringify(A), sb = JSON.stringify(B);
      if (sa !== sb) {
        for (const k of Object.keys(A)) if (JSON.stringify(A[k]) !== JSON.stringify(B[k])) console.log("differs: " + k);
        console.log(sa.slice(0, 300)); console.log(sb.slice(0, 300)); process.exit(1);
      }' "$a" "$b" "$@" >"$last" 2>&1; then ok "$desc"; else bad "$desc"; fi
}
variant_args() { # VARIANT [PREFIX]: the public and proof files of a variant
    case $1 in
        public_*) echo "${2:-}$1.json ${2:-}proof.json" ;;
        *) echo "${2:-}public.json ${2:-}$1.json" ;;
    esac
}

for c in "$@"; do
    d=$fix/$c
    if [ ! -f "$d/.stamp" ]; then
        bad "fixtures missing in $d (fixtures.sh did not finish)"
        continue
    fi
    cd "$d" || exit 2
    vk=verification_key.json
    first=$(node -p 'require("./witness_bad.json").first_unsatisfied')

    if [ "$cuzk" = --snarkjs-only ]; then
        accepts "snarkjs verifies proof.json" "$snarkjs" groth16 verify $vk public.json proof.json
        accepts "noble verifies proof.json" node "$tools" verify $vk public.json proof.json
        for v in $VARIANTS; do
            # shellcheck disable=SC2046
            rejects "snarkjs rejects $v" "$snarkjs" groth16 verify $vk $(variant_args "$v")
            # shellcheck disable=SC2046
            rejects "noble rejects $v" node "$tools" verify $vk $(variant_args "$v")
        done
        accepts "snarkjs wtns check accepts witness.wtns" "$snarkjs" wtns check circuit.r1cs witness.wtns
        rejects "snarkjs wtns check rejects witness_bad.wtns" "$snarkjs" wtns check circuit.r1cs witness_bad.wtns
        accepts "fixture_tools check accepts witness.wtns" node "$tools" check circuit.r1cs witness.wtns
        rejects "fixture_tools check rejects witness_bad.wtns" node "$tools" check circuit.r1cs witness_bad.wtns
        continue
    fi

    # ---- cuzk against the fixtures ----
    rm -rf cuzk cuzk2
    mkdir -p cuzk cuzk2

    accepts "cuzk wtns check accepts witness.wtns" "$cuzk" wtns check circuit.r1cs witness.wtns
    rejects "cuzk wtns check rejects witness_bad.wtns" "$cuzk" wtns check circuit.r1cs witness_bad.wtns
    if grep -Eiq "constraint[^0-9]*\b$first\b" "$last"; then ok "cuzk wtns check names constraint $first"
    else bad "cuzk wtns check does not name constraint $first"; fi

    accepts "cuzk zkey export verificationkey" "$cuzk" zkey export verificationkey circuit.zkey cuzk/vk.json
    [ -s cuzk/vk.json ] && same_json "cuzk's verification key equals snarkjs's" $vk cuzk/vk.json \
        protocol curve nPublic vk_alpha_1 vk_beta_2 vk_gamma_2 vk_delta_2 IC vk_alphabeta_12

    accepts "cuzk groth16 prove" "$cuzk" groth16 prove circuit.zkey witness.wtns cuzk/proof.json cuzk/public.json
    if [ -s cuzk/proof.json ]; then
        same_json "cuzk's public.json equals snarkjs's" public.json cuzk/public.json
        accepts "snarkjs verifies cuzk's proof" "$snarkjs" groth16 verify $vk cuzk/public.json cuzk/proof.json
        accepts "noble verifies cuzk's proof" node "$tools" verify $vk cuzk/public.json cuzk/proof.json
        accepts "cuzk verifies cuzk's proof" "$cuzk" groth16 verify $vk cuzk/public.json cuzk/proof.json
        [ -s cuzk/vk.json ] &&
            accepts "cuzk verifies cuzk's proof with cuzk's key" "$cuzk" groth16 verify cuzk/vk.json cuzk/public.json cuzk/proof.json

        accepts "cuzk groth16 prove (second proof)" "$cuzk" groth16 prove circuit.zkey witness.wtns cuzk2/proof.json cuzk2/public.json
        if [ -s cuzk2/proof.json ] && ! cmp -s cuzk/proof.json cuzk2/proof.json; then ok "two proofs differ (fresh r, s)"
        else bad "the second proof is missing or equal to the first (r, s not random?)"; fi
        [ -s cuzk2/proof.json ] && accepts "snarkjs verifies the second proof" "$snarkjs" groth16 verify $vk cuzk2/public.json cuzk2/proof.json

        node "$tools" tamper cuzk/proof.json cuzk/public.json cuzk >"$last" 2>&1 || bad "tampering cuzk's proof failed"
        for v in $VARIANTS; do
            # shellcheck disable=SC2046
            rejects "snarkjs rejects $v of cuzk's proof" "$snarkjs" groth16 verify $vk $(variant_args "$v" cuzk/)
            # shellcheck disable=SC2046
            rejects "cuzk rejects $v of cuzk's proof" "$cuzk" groth16 verify $vk $(variant_args "$v" cuzk/)
        done
    fi

    accepts "cuzk verifies snarkjs's proof" "$cuzk" groth16 verify $vk public.json proof.json
    for v in $VARIANTS; do
        # shellcheck disable=SC2046
        rejects "cuzk rejects $v" "$cuzk" groth16 verify $vk $(variant_args "$v")
    done

    rejects "cuzk groth16 prove refuses witness_bad.wtns" \
        "$cuzk" groth16 prove circuit.zkey witness_bad.wtns cuzk/bad_proof.json cuzk/bad_public.json
    if grep -Eiq "constraint[^0-9]*\b$first\b" "$last"; then ok "the refusal names constraint $first"
    else bad "the refusal does not name constraint $first"; fi
    if [ -s cuzk/bad_proof.json ]; then bad "a refused proof left cuzk/bad_proof.json behind"
    else ok "no proof left behind for witness_bad.wtns"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
