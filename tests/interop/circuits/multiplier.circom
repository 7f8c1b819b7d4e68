pragma circom 2.1.0;

// The smallest Groth16 circuit: c = a * b with a, b private and c the one
// public output. One constraint, witness [1, c, a, b].
template Multiplier() {
    signal input a;
    signal input b;
    signal output c;
    c <== a * b;
}

component main = Multiplier();
