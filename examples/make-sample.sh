#!/usr/bin/env bash
# make-sample.sh — regenerate examples/sample (the job `make run` proves) from
# tests/interop/circuits/multi_public.circom with circom2 and snarkjs 0.7.6
# through tests/interop/fixtures.sh. The fixtures use beacons instead of random
# contributions, so the key, witness and verification key come out byte for
# byte the same; the committed copies save `make run` from needing node.
# Needs `npm ci --prefix tests/js` (make test does it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$root/tests/interop/fixtures.sh" "$work" multi_public
for f in circuit.zkey witness.wtns verification_key.json circuit.r1cs input.json; do
    cp "$work/multi_public/$f" "$root/examples/sample/$f"
done
echo "examples/sample regenerated"
