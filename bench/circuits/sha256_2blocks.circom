pragma circom 2.1.0;

// The benchmark circuit of scripts/bench-sha256.sh: circomlib's SHA-256 of a
// 64-byte message, two 512-bit blocks after padding, about 59k constraints,
// so that constraints + public inputs fill most of a 2^16 domain. The
// message is private; the digest is public as two 128-bit halves,
// big-endian: hi = digest bytes 0..15, lo = digest bytes 16..31 (as
// integers). The same shape as tests/interop/circuits/sha256.circom (one
// block, 2^15), with twice the message.
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/sha256/sha256.circom";

template Sha256Bytes(NBYTES) {
    signal input msg[NBYTES];
    signal output hi;
    signal output lo;

    component sha = Sha256(NBYTES * 8);
    component byteBits[NBYTES];
    for (var i = 0; i < NBYTES; i++) {
        // Num2Bits gives LSB first; circomlib's Sha256 wants each byte MSB first.
        byteBits[i] = Num2Bits(8);
        byteBits[i].in <== msg[i];
        for (var j = 0; j < 8; j++) {
            sha.in[i * 8 + j] <== byteBits[i].out[7 - j];
        }
    }

    // sha.out[0] is the most significant bit of the digest.
    var acc_hi = 0;
    var acc_lo = 0;
    for (var i = 0; i < 128; i++) {
        acc_hi += sha.out[i] * (1 << (127 - i));
        acc_lo += sha.out[128 + i] * (1 << (127 - i));
    }
    hi <== acc_hi;
    lo <== acc_lo;
}

// 64 bytes: 512 message bits + 1 + 64 length bits pad to 1024 (two blocks);
// 55 bytes would still fit in one.
component main = Sha256Bytes(64);
