pragma circom 2.1.0;

// Several public inputs and outputs, a few hundred constraints.
// Public signals (circom order: outputs first, then public inputs):
//   [h, lt, x, y, z].
// What it exercises: full-size coefficients and constants (the round
// constants), signals absent from B (infinity B points), bit wires from
// Num2Bits, a field inverse inside IsZero, 5 IC points, and a public input
// equal to r - 1 (input z). With 36 rounds it has 250 constraints, so the
// 250 + 6 rows (one per public signal and the constant one) fill the 2^8
// domain exactly: the boundary of "n > m + nPublic".
// tests/interop/snarkjs/fixture_tools.mjs (expected) models it: keep the two
// in step.
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// x^5 in three constraints.
template Pow5() {
    signal input in;
    signal output out;
    signal s2;
    signal s4;
    s2 <== in * in;
    s4 <== s2 * s2;
    out <== s4 * in;
}

template MultiPublic(ROUNDS) {
    signal input x;      // public, < 2^32
    signal input y;      // public, < 2^32
    signal input z;      // public
    signal input k[2];   // private; k[0] < 2^64
    signal output h;     // MiMC-style chain over x, y, z, k
    signal output lt;    // (x < y) and (k[1] != z)

    // A MiMC-like permutation: s <- (s + key_i + c_i)^5, with constants
    // c_i spread over the whole field by a linear congruence mod r.
    component p[ROUNDS];
    signal s[ROUNDS + 1];
    var c = 0x3141592653589793238462643383279502884197169399375105820974944592;
    s[0] <== x + 7 * y - z;
    for (var i = 0; i < ROUNDS; i++) {
        c = c * 0x2718281828459045235360287471352662497757247093699959574966967627 + 0x1618033988749894848204586834365638117720309179805762862135448622;
        p[i] = Pow5();
        if (i % 3 == 0) {
            p[i].in <== s[i] + k[0] + c;
        } else if (i % 3 == 1) {
            p[i].in <== s[i] + k[1] - c;
        } else {
            p[i].in <== s[i] + z * 5 + c;
        }
        s[i + 1] <== p[i].out;
    }
    h <== s[ROUNDS];

    // k[0] fits in 64 bits: 64 bit wires.
    component bits = Num2Bits(64);
    bits.in <== k[0];

    component less = LessThan(32);
    less.in[0] <== x;
    less.in[1] <== y;

    component same = IsZero();
    same.in <== k[1] - z;

    lt <== less.out * (1 - same.out);
}

component main {public [x, y, z]} = MultiPublic(36);
