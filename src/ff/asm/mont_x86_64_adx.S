/*
 * mont_x86_64_adx.S — Montgomery multiplication and squaring on 4 and 6
 * 64-bit limbs for x86-64 with BMI2 (mulx) and ADX (adcx/adox).
 *
 * Contract: that of cuzk__mont_mul_n in limbs.h. r = a*b*2^(-64n) mod m for
 * any odd m < 2^(64n-1), n0 = -m^-1 mod 2^64; inputs < m, output < m; r may
 * alias a and/or b (r is written only after the last read of a and b). No
 * branch or memory address depends on the values; the final conditional
 * subtraction selects with cmov.
 *
 * Algorithm: CIOS (Koc, Acar, Kaliski, "Analyzing and comparing Montgomery
 * multiplication algorithms", IEEE Micro 1996), fully unrolled. Each of the
 * n rounds is a multiply row t += a*b[i] followed by a reduce row
 * t = (t + q*m) / 2^64 with q = t[0]*n0 mod 2^64. Inside a row every 64x64
 * product lo:hi from mulx is split over two independent carry chains, lo
 * words through adcx (CF) and hi words through adox (OF), as in Intel's
 * white paper "New Instructions Supporting Large Integer Arithmetic on Intel
 * Architecture Processors" (Gopal et al., 2012). Rows cost n mulx each, so a
 * product is 2n^2 mulx + n imul (72 + 6 for n = 6).
 *
 * The shift by one word after each reduce row is a renaming: the unrolled
 * rounds rotate the n+1 accumulator registers, and the word that cancelled
 * becomes the next round's fresh top word.
 *
 * Why the carries never escape (m < 2^(64n-1), so 2m < 2^(64n)): at the
 * start of a round t < 2m fits n words. t + a*b[i] + q*m
 * <= 2m-1 + (m-1)(2^64-1) + (2^64-1)m = 2^65*m - 2^64 < 2^(64n+64), so the
 * sum fits n+1 words and each chain's carry out of the top word is zero;
 * after the shift t < 2m again. Hence one conditional subtraction at the end.
 *
 * Squaring: sqr_384 computes the 12-word square with each cross product
 * once (15 + 6 mulx instead of 36), then reduces the low half and adds the
 * high half (see its comment). sqr_256 reuses the multiply.
 *
 * Further down, for the pairing tower: Fp2 multiplication and squaring
 * (mul_mont_384x, sqr_mont_384x) and the Fp4 squaring of the cyclotomic
 * squaring (fp4_sqr), all with lazy reduction: 768-bit products combined as
 * integers, one Montgomery reduction per output coordinate.
 */

    .intel_syntax noprefix
    .text

/*
 * t0..t5 += rdx * [src..src+40]; the product's top word is written to t6
 * (fresh). Needs CF = OF = 0 and zero = 0; leaves CF = OF = 0 when the sum
 * fits seven words.
 */
.macro MACFRESH6 src, lo, hi, zero, t0, t1, t2, t3, t4, t5, t6
    mulx \hi, \lo, [\src]
    adcx \t0, \lo
    adox \t1, \hi
    mulx \hi, \lo, [\src + 8]
    adcx \t1, \lo
    adox \t2, \hi
    mulx \hi, \lo, [\src + 16]
    adcx \t2, \lo
    adox \t3, \hi
    mulx \hi, \lo, [\src + 24]
    adcx \t3, \lo
    adox \t4, \hi
    mulx \hi, \lo, [\src + 32]
    adcx \t4, \lo
    adox \t5, \hi
    mulx \t6, \lo, [\src + 40]
    adcx \t5, \lo
    adcx \t6, \zero
    adox \t6, \zero
.endm

/* t0..t6 += rdx * [src..src+40] (t6 holds a value). Same preconditions,
 * with rax = 0. */
.macro MACTOP6 src, lo, hi, t0, t1, t2, t3, t4, t5, t6
    mulx \hi, \lo, [\src]
    adcx \t0, \lo
    adox \t1, \hi
    mulx \hi, \lo, [\src + 8]
    adcx \t1, \lo
    adox \t2, \hi
    mulx \hi, \lo, [\src + 16]
    adcx \t2, \lo
    adox \t3, \hi
    mulx \hi, \lo, [\src + 24]
    adcx \t3, \lo
    adox \t4, \hi
    mulx \hi, \lo, [\src + 32]
    adcx \t4, \lo
    adox \t5, \hi
    mulx \hi, \lo, [\src + 40]
    adcx \t5, \lo
    adox \t6, \hi
    adcx \t6, rax
.endm

/* Round 0 of the 6-limb product: t0..t6 = a * b[0]. */
.macro FIRST6 t0, t1, t2, t3, t4, t5, t6
    mov rdx, [r9]
    mulx \t1, \t0, [rsi]
    mulx \t2, r15, [rsi + 8]
    add \t1, r15
    mulx \t3, r15, [rsi + 16]
    adc \t2, r15
    mulx \t4, r15, [rsi + 24]
    adc \t3, r15
    mulx \t5, r15, [rsi + 32]
    adc \t4, r15
    mulx \t6, r15, [rsi + 40]
    adc \t5, r15
    adc \t6, 0
.endm

/* Reduce row: t0..t6 += q*m with q = t0*n0, so t0 cancels; result t1..t6. */
.macro RED6 t0, t1, t2, t3, t4, t5, t6
    mov rdx, \t0
    imul rdx, r8
    xor eax, eax
    MACTOP6 rcx, r15, rdi, \t0, \t1, \t2, \t3, \t4, \t5, \t6
.endm

/* Multiply row i: t0..t5 += a * b[i], top word into t6. */
.macro MUL6 i, t0, t1, t2, t3, t4, t5, t6
    mov rdx, [r9 + 8 * \i]
    xor eax, eax
    MACFRESH6 rsi, r15, rdi, rax, \t0, \t1, \t2, \t3, \t4, \t5, \t6
.endm

/*
 * r = t0..t5 - m if that does not borrow, else t0..t5 (t < 2m < 2^384).
 * Clobbers rax, rdx, rsi, r8, r9, r15; rdi holds r.
 */
.macro FINAL6 t0, t1, t2, t3, t4, t5
    mov rax, \t0
    sub rax, [rcx]
    mov rdx, \t1
    sbb rdx, [rcx + 8]
    mov rsi, \t2
    sbb rsi, [rcx + 16]
    mov r8, \t3
    sbb r8, [rcx + 24]
    mov r9, \t4
    sbb r9, [rcx + 32]
    mov r15, \t5
    sbb r15, [rcx + 40]
    cmovc rax, \t0
    cmovc rdx, \t1
    cmovc rsi, \t2
    cmovc r8, \t3
    cmovc r9, \t4
    cmovc r15, \t5
    mov [rdi], rax
    mov [rdi + 8], rdx
    mov [rdi + 16], rsi
    mov [rdi + 24], r8
    mov [rdi + 32], r9
    mov [rdi + 40], r15
.endm

/*
 * Reduce row of the squaring: t0..t5 + q*m with q = t0*n0, t6 fresh; the
 * result is t1..t6. m in r9, n0 in r10, rsi = 0, lo:hi = r14:r15.
 */
.macro SQRED6 t0, t1, t2, t3, t4, t5, t6
    mov rdx, \t0
    imul rdx, r10
    xor esi, esi
    MACFRESH6 r9, r14, r15, rsi, \t0, \t1, \t2, \t3, \t4, \t5, \t6
.endm

/*
 * void cuzk__mul_mont_384_adx(uint64_t r[6], const uint64_t a[6],
 *                             const uint64_t b[6], const uint64_t m[6],
 *                             uint64_t n0)
 * Registers: rsi a, r9 b, rcx m, r8 n0, rax zero, rdx mulx multiplier,
 * r15:rdi product lo:hi, accumulators rbx rbp r10 r11 r12 r13 r14 (rotated);
 * r is kept on the stack.
 */
    .globl cuzk__mul_mont_384_adx
    .hidden cuzk__mul_mont_384_adx
    .type cuzk__mul_mont_384_adx, @function
    .p2align 5
cuzk__mul_mont_384_adx:
    .cfi_startproc
    endbr64
    mov r9, rdx
    push rbx
    .cfi_adjust_cfa_offset 8
    .cfi_offset rbx, -16
    push rbp
    .cfi_adjust_cfa_offset 8
    .cfi_offset rbp, -24
    push r12
    .cfi_adjust_cfa_offset 8
    .cfi_offset r12, -32
    push r13
    .cfi_adjust_cfa_offset 8
    .cfi_offset r13, -40
    push r14
    .cfi_adjust_cfa_offset 8
    .cfi_offset r14, -48
    push r15
    .cfi_adjust_cfa_offset 8
    .cfi_offset r15, -56
    push rdi
    .cfi_adjust_cfa_offset 8

    FIRST6 rbx, rbp, r10, r11, r12, r13, r14
    RED6 rbx, rbp, r10, r11, r12, r13, r14
    MUL6 1, rbp, r10, r11, r12, r13, r14, rbx
    RED6 rbp, r10, r11, r12, r13, r14, rbx
    MUL6 2, r10, r11, r12, r13, r14, rbx, rbp
    RED6 r10, r11, r12, r13, r14, rbx, rbp
    MUL6 3, r11, r12, r13, r14, rbx, rbp, r10
    RED6 r11, r12, r13, r14, rbx, rbp, r10
    MUL6 4, r12, r13, r14, rbx, rbp, r10, r11
    RED6 r12, r13, r14, rbx, rbp, r10, r11
    MUL6 5, r13, r14, rbx, rbp, r10, r11, r12
    RED6 r13, r14, rbx, rbp, r10, r11, r12
    pop rdi
    .cfi_adjust_cfa_offset -8
    FINAL6 r14, rbx, rbp, r10, r11, r12

    pop r15
    .cfi_adjust_cfa_offset -8
    .cfi_restore r15
    pop r14
    .cfi_adjust_cfa_offset -8
    .cfi_restore r14
    pop r13
    .cfi_adjust_cfa_offset -8
    .cfi_restore r13
    pop r12
    .cfi_adjust_cfa_offset -8
    .cfi_restore r12
    pop rbp
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbp
    pop rbx
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbx
    ret
    .cfi_endproc
    .size cuzk__mul_mont_384_adx, . - cuzk__mul_mont_384_adx

/*
 * 4-limb versions of the row macros. Registers: rdi r, rsi a, r9 b, rcx m,
 * r8 n0, rax zero, rdx multiplier, r13:r14 lo:hi, accumulators
 * rbx rbp r10 r11 r12 (rotated).
 */
.macro MACFRESH4 src, t0, t1, t2, t3, t4
    mulx r14, r13, [\src]
    adcx \t0, r13
    adox \t1, r14
    mulx r14, r13, [\src + 8]
    adcx \t1, r13
    adox \t2, r14
    mulx r14, r13, [\src + 16]
    adcx \t2, r13
    adox \t3, r14
    mulx \t4, r13, [\src + 24]
    adcx \t3, r13
    adcx \t4, rax
    adox \t4, rax
.endm

.macro MACTOP4 src, t0, t1, t2, t3, t4
    mulx r14, r13, [\src]
    adcx \t0, r13
    adox \t1, r14
    mulx r14, r13, [\src + 8]
    adcx \t1, r13
    adox \t2, r14
    mulx r14, r13, [\src + 16]
    adcx \t2, r13
    adox \t3, r14
    mulx r14, r13, [\src + 24]
    adcx \t3, r13
    adox \t4, r14
    adcx \t4, rax
.endm

.macro FIRST4 t0, t1, t2, t3, t4
    mov rdx, [r9]
    mulx \t1, \t0, [rsi]
    mulx \t2, r13, [rsi + 8]
    add \t1, r13
    mulx \t3, r13, [rsi + 16]
    adc \t2, r13
    mulx \t4, r13, [rsi + 24]
    adc \t3, r13
    adc \t4, 0
.endm

.macro RED4 t0, t1, t2, t3, t4
    mov rdx, \t0
    imul rdx, r8
    xor eax, eax
    MACTOP4 rcx, \t0, \t1, \t2, \t3, \t4
.endm

.macro MUL4 i, t0, t1, t2, t3, t4
    mov rdx, [r9 + 8 * \i]
    xor eax, eax
    MACFRESH4 rsi, \t0, \t1, \t2, \t3, \t4
.endm

/*
 * void cuzk__mul_mont_256_adx(uint64_t r[4], const uint64_t a[4],
 *                             const uint64_t b[4], const uint64_t m[4],
 *                             uint64_t n0)
 */
    .globl cuzk__mul_mont_256_adx
    .hidden cuzk__mul_mont_256_adx
    .type cuzk__mul_mont_256_adx, @function
    .p2align 5
cuzk__mul_mont_256_adx:
    .cfi_startproc
    endbr64
    mov r9, rdx
.Lmul256_body:
    push rbx
    .cfi_adjust_cfa_offset 8
    .cfi_offset rbx, -16
    push rbp
    .cfi_adjust_cfa_offset 8
    .cfi_offset rbp, -24
    push r12
    .cfi_adjust_cfa_offset 8
    .cfi_offset r12, -32
    push r13
    .cfi_adjust_cfa_offset 8
    .cfi_offset r13, -40
    push r14
    .cfi_adjust_cfa_offset 8
    .cfi_offset r14, -48

    FIRST4 rbx, rbp, r10, r11, r12
    RED4 rbx, rbp, r10, r11, r12
    MUL4 1, rbp, r10, r11, r12, rbx
    RED4 rbp, r10, r11, r12, rbx
    MUL4 2, r10, r11, r12, rbx, rbp
    RED4 r10, r11, r12, rbx, rbp
    MUL4 3, r11, r12, rbx, rbp, r10
    RED4 r11, r12, rbx, rbp, r10

    /* result r12 rbx rbp r10 < 2m < 2^256: subtract m unless that borrows */
    mov rax, r12
    sub rax, [rcx]
    mov rdx, rbx
    sbb rdx, [rcx + 8]
    mov rsi, rbp
    sbb rsi, [rcx + 16]
    mov r9, r10
    sbb r9, [rcx + 24]
    cmovc rax, r12
    cmovc rdx, rbx
    cmovc rsi, rbp
    cmovc r9, r10
    mov [rdi], rax
    mov [rdi + 8], rdx
    mov [rdi + 16], rsi
    mov [rdi + 24], r9

    pop r14
    .cfi_adjust_cfa_offset -8
    .cfi_restore r14
    pop r13
    .cfi_adjust_cfa_offset -8
    .cfi_restore r13
    pop r12
    .cfi_adjust_cfa_offset -8
    .cfi_restore r12
    pop rbp
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbp
    pop rbx
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbx
    ret
    .cfi_endproc
    .size cuzk__mul_mont_256_adx, . - cuzk__mul_mont_256_adx

/*
 * void cuzk__sqr_mont_256_adx(uint64_t r[4], const uint64_t a[4],
 *                             const uint64_t m[4], uint64_t n0)
 * The multiply with b = a.
 */
    .globl cuzk__sqr_mont_256_adx
    .hidden cuzk__sqr_mont_256_adx
    .type cuzk__sqr_mont_256_adx, @function
    .p2align 5
cuzk__sqr_mont_256_adx:
    .cfi_startproc
    endbr64
    mov r8, rcx
    mov rcx, rdx
    mov r9, rsi
    jmp .Lmul256_body
    .cfi_endproc
    .size cuzk__sqr_mont_256_adx, . - cuzk__sqr_mont_256_adx

/*
 * void cuzk__sqr_mont_384_adx(uint64_t r[6], const uint64_t a[6],
 *                             const uint64_t m[6], uint64_t n0)
 *
 * 1. The cross products a_i*a_j (i < j) once each, 15 mulx, into words
 *    w1..w10 (rbx rbp rdi rcx r8 r9 r10 r11 r12 r13; r, m and n0 wait on the
 *    stack). Row i adds a_i*a_(i+1..5) at word 2i+1; the partial sum of rows
 *    0..i is below (a_0..a_i)*a < 2^(64(i+7)), so each row's carries end in
 *    its fresh top word.
 * 2. T = 2*(cross) + sum a_i^2 2^(128i) in one pass: adcx doubles (w += w),
 *    adox adds the 6 diagonal squares. T = w0..w11 < m^2.
 * 3. The high half H = w6..w11 goes to the stack; the low half L = w0..w5 is
 *    Montgomery-reduced by 6 reduce rows: (L + Q*m)/2^384 < 1 + m, and
 *    (L + Q*m)/2^384 + H = (T + Q*m)/2^384 = a^2 R^-1 mod m, below
 *    m + (m-1)^2/2^384 < 2m < 2^384. One conditional subtraction remains.
 * 21 + 36 mulx + 6 imul, against 72 + 6 for the multiply.
 *
 * Stack (after the pushes): [rsp] r, [rsp+8] m, [rsp+16] n0, [rsp+24..64] H.
 */
    .globl cuzk__sqr_mont_384_adx
    .hidden cuzk__sqr_mont_384_adx
    .type cuzk__sqr_mont_384_adx, @function
    .p2align 5
cuzk__sqr_mont_384_adx:
    .cfi_startproc
    endbr64
    push rbx
    .cfi_adjust_cfa_offset 8
    .cfi_offset rbx, -16
    push rbp
    .cfi_adjust_cfa_offset 8
    .cfi_offset rbp, -24
    push r12
    .cfi_adjust_cfa_offset 8
    .cfi_offset r12, -32
    push r13
    .cfi_adjust_cfa_offset 8
    .cfi_offset r13, -40
    push r14
    .cfi_adjust_cfa_offset 8
    .cfi_offset r14, -48
    push r15
    .cfi_adjust_cfa_offset 8
    .cfi_offset r15, -56
    sub rsp, 72
    .cfi_adjust_cfa_offset 72
    mov [rsp], rdi
    mov [rsp + 8], rdx
    mov [rsp + 16], rcx

    /* 1. cross products; lo:hi = r14:r15, rax = 0 */
    mov rdx, [rsi]                  /* row 0: a0 * a1..a5 at w1..w6 */
    mulx rbp, rbx, [rsi + 8]
    mulx rdi, r14, [rsi + 16]
    add rbp, r14
    mulx rcx, r14, [rsi + 24]
    adc rdi, r14
    mulx r8, r14, [rsi + 32]
    adc rcx, r14
    mulx r9, r14, [rsi + 40]
    adc r8, r14
    adc r9, 0

    mov rdx, [rsi + 8]              /* row 1: a1 * a2..a5 at w3..w7 */
    xor eax, eax
    mulx r15, r14, [rsi + 16]
    adcx rdi, r14
    adox rcx, r15
    mulx r15, r14, [rsi + 24]
    adcx rcx, r14
    adox r8, r15
    mulx r15, r14, [rsi + 32]
    adcx r8, r14
    adox r9, r15
    mulx r10, r14, [rsi + 40]
    adcx r9, r14
    adcx r10, rax
    adox r10, rax

    mov rdx, [rsi + 16]             /* row 2: a2 * a3..a5 at w5..w8 */
    xor eax, eax
    mulx r15, r14, [rsi + 24]
    adcx r8, r14
    adox r9, r15
    mulx r15, r14, [rsi + 32]
    adcx r9, r14
    adox r10, r15
    mulx r11, r14, [rsi + 40]
    adcx r10, r14
    adcx r11, rax
    adox r11, rax

    mov rdx, [rsi + 24]             /* row 3: a3 * a4..a5 at w7..w9 */
    xor eax, eax
    mulx r15, r14, [rsi + 32]
    adcx r10, r14
    adox r11, r15
    mulx r12, r14, [rsi + 40]
    adcx r11, r14
    adcx r12, rax
    adox r12, rax

    mov rdx, [rsi + 32]             /* row 4: a4 * a5 at w9..w10 */
    mulx r13, r14, [rsi + 40]
    add r12, r14
    adc r13, 0

    /* 2. double and add the squares: w0 = rax, w11 = r15 */
    mov rdx, [rsi]
    xor eax, eax
    mulx r15, rax, rdx
    adcx rbx, rbx
    adox rbx, r15
    mov rdx, [rsi + 8]
    mulx r15, r14, rdx
    adcx rbp, rbp
    adox rbp, r14
    adcx rdi, rdi
    adox rdi, r15
    mov rdx, [rsi + 16]
    mulx r15, r14, rdx
    adcx rcx, rcx
    adox rcx, r14
    adcx r8, r8
    adox r8, r15
    mov rdx, [rsi + 24]
    mulx r15, r14, rdx
    adcx r9, r9
    adox r9, r14
    adcx r10, r10
    adox r10, r15
    mov rdx, [rsi + 32]
    mulx r15, r14, rdx
    adcx r11, r11
    adox r11, r14
    adcx r12, r12
    adox r12, r15
    mov rdx, [rsi + 40]
    mulx r15, r14, rdx
    mov esi, 0                      /* a is no longer needed; keeps flags */
    adcx r13, r13
    adox r13, r14
    adox r15, rsi
    /* The doubling leaves no carry out of w10: with a5 < 2^63 the cross
     * sum is below (2^63-1)(2^320-1)2^320 + 2^639 < 2^703. */

    /* 3. park H, reduce L = rax rbx rbp rdi rcx r8 (top words r11, ...) */
    mov [rsp + 24], r9
    mov [rsp + 32], r10
    mov [rsp + 40], r11
    mov [rsp + 48], r12
    mov [rsp + 56], r13
    mov [rsp + 64], r15
    mov r9, [rsp + 8]
    mov r10, [rsp + 16]
    SQRED6 rax, rbx, rbp, rdi, rcx, r8, r11
    SQRED6 rbx, rbp, rdi, rcx, r8, r11, rax
    SQRED6 rbp, rdi, rcx, r8, r11, rax, rbx
    SQRED6 rdi, rcx, r8, r11, rax, rbx, rbp
    SQRED6 rcx, r8, r11, rax, rbx, rbp, rdi
    SQRED6 r8, r11, rax, rbx, rbp, rdi, rcx

    /* result r11 rax rbx rbp rdi rcx + H < 2m < 2^384, then subtract m
     * unless that borrows */
    add r11, [rsp + 24]
    adc rax, [rsp + 32]
    adc rbx, [rsp + 40]
    adc rbp, [rsp + 48]
    adc rdi, [rsp + 56]
    adc rcx, [rsp + 64]
    mov r8, r11
    sub r8, [r9]
    mov r10, rax
    sbb r10, [r9 + 8]
    mov r12, rbx
    sbb r12, [r9 + 16]
    mov r13, rbp
    sbb r13, [r9 + 24]
    mov r14, rdi
    sbb r14, [r9 + 32]
    mov r15, rcx
    sbb r15, [r9 + 40]
    cmovc r8, r11
    cmovc r10, rax
    cmovc r12, rbx
    cmovc r13, rbp
    cmovc r14, rdi
    cmovc r15, rcx
    mov rdx, [rsp]
    mov [rdx], r8
    mov [rdx + 8], r10
    mov [rdx + 16], r12
    mov [rdx + 24], r13
    mov [rdx + 32], r14
    mov [rdx + 40], r15

    add rsp, 72
    .cfi_adjust_cfa_offset -72
    pop r15
    .cfi_adjust_cfa_offset -8
    .cfi_restore r15
    pop r14
    .cfi_adjust_cfa_offset -8
    .cfi_restore r14
    pop r13
    .cfi_adjust_cfa_offset -8
    .cfi_restore r13
    pop r12
    .cfi_adjust_cfa_offset -8
    .cfi_restore r12
    pop rbp
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbp
    pop rbx
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbx
    ret
    .cfi_endproc
    .size cuzk__sqr_mont_384_adx, . - cuzk__sqr_mont_384_adx

/*
 * ---- Fp2 = Fp[u]/(u^2 + 1) over a 6-limb modulus ---------------------------
 *
 * void cuzk__mul_mont_384x_adx(uint64_t r[12], const uint64_t a[12],
 *                              const uint64_t b[12], const uint64_t m[6],
 *                              uint64_t n0)
 * void cuzk__sqr_mont_384x_adx(uint64_t r[12], const uint64_t a[12],
 *                              const uint64_t m[6], uint64_t n0)
 *
 * An Fp2 element is its two Montgomery coordinates c0, c1 one after the
 * other (12 words). Contract: odd m < 2^382, n0 = -m^-1 mod 2^64, every
 * coordinate < m in and out; r may alias a and/or b (r is written only after
 * the last read of a and b). Results equal those of the Fp2 formulas over
 * cuzk__mont_mul_n bit for bit (both are fully reduced). Constant-time: no
 * branch or address depends on the values; the one sign correction is a mask.
 *
 * Lazy reduction (the technique of Aranha, Karabina, Longa, Gebotys, Lopez,
 * "Faster explicit formulas for computing pairings over ordinary curves",
 * EUROCRYPT 2011, sec. 3): form 768-bit products, combine them as integers,
 * reduce each output coordinate once.
 *
 * Multiplication (Karatsuba, u^2 = -1):
 *   T0 = a0 b0, T1 = a1 b1, T2 = (a0 + a1)(b0 + b1)     (the sums unreduced, < 2m)
 *   c1 = redc(T2 - T0 - T1) = redc(a0 b1 + a1 b0),   0 <= . < 2m^2 < m 2^384
 *   c0 = redc(T0 - T1 + (T0 < T1 ? m 2^384 : 0)),    0 <= . < m 2^384
 *   3 x 36 mulx for the products + 2 x (36 mulx + 6 imul) for the reductions,
 *   against 3 x (72 mulx + 6 imul) for three Montgomery products.
 * Squaring:
 *   c0 = redc((a0 + a1)(a0 - a1 mod m)),  (a0 + a1) unreduced: < 2m^2
 *   c1 = redc(a0 (2 a1)),                 2 a1 unreduced:      < 2m^2
 *   2 x 36 + 2 x 36 mulx.
 * redc(T) for T < m 2^384 (REDC768) returns T 2^-384 mod m, fully reduced.
 */

/* [D..D+88] = [A..A+40] * [B..B+40] (768-bit product, 36 mulx): row 0 with
 * one add chain, rows 1..5 with MACFRESH6 (each partial sum a*b[0..i] <
 * 2^(64(i+7)), so no carry escapes a row's fresh top word). A, B, D are
 * address expressions written without spaces (rsi, rsp+24, r9+48).
 * Clobbers rax rcx rdx rdi rbx rbp r10 r11 r12 r13 r15. */
.macro MUL384W A, B, D
    mov rdx, [\B]
    mulx rbp, rbx, [\A]
    mulx r10, rcx, [\A + 8]
    add rbp, rcx
    mulx r11, rcx, [\A + 16]
    adc r10, rcx
    mulx r12, rcx, [\A + 24]
    adc r11, rcx
    mulx r13, rcx, [\A + 32]
    adc r12, rcx
    mulx r15, rcx, [\A + 40]
    adc r13, rcx
    adc r15, 0
    mov [\D], rbx
    MUL384ROW 1, \A, \B, \D, rbp, r10, r11, r12, r13, r15, rbx
    MUL384ROW 2, \A, \B, \D, r10, r11, r12, r13, r15, rbx, rbp
    MUL384ROW 3, \A, \B, \D, r11, r12, r13, r15, rbx, rbp, r10
    MUL384ROW 4, \A, \B, \D, r12, r13, r15, rbx, rbp, r10, r11
    MUL384ROW 5, \A, \B, \D, r13, r15, rbx, rbp, r10, r11, r12
    mov [\D + 48], r15
    mov [\D + 56], rbx
    mov [\D + 64], rbp
    mov [\D + 72], r10
    mov [\D + 80], r11
    mov [\D + 88], r12
.endm

.macro MUL384ROW i, A, B, D, t0, t1, t2, t3, t4, t5, t6
    mov rdx, [\B + 8 * \i]
    xor eax, eax
    MACFRESH6 \A, rcx, rdi, rax, \t0, \t1, \t2, \t3, \t4, \t5, \t6
    mov [\D + 8 * \i], \t0
.endm

/* One reduce row: t0..t5 + q*m, q = t0*n0 (n0 at [rsp+16]), t0 cancels,
 * result t1..t6 (t6 fresh). m at r8. */
.macro REDROW t0, t1, t2, t3, t4, t5, t6
    mov rdx, \t0
    imul rdx, [rsp + 16]
    xor eax, eax
    MACFRESH6 r8, rcx, rdi, rax, \t0, \t1, \t2, \t3, \t4, \t5, \t6
.endm

/*
 * [O..O+40] = redc([T..T+88]) for T < m 2^384, as in step 3 of sqr_384:
 * six reduce rows on the low half L give (L + Q m)/2^384 <= m, adding the
 * high half H < m gives T 2^-384 mod m + (0 or m) < 2m, then one conditional
 * subtraction. m at r8, n0 at [rsp+16]; O must not use the clobbered
 * registers rax rcx rdx rdi rsi rbx rbp r10 r11 r12 r13 r15.
 */
.macro REDC768 T, O
    mov rbx, [\T]
    mov rbp, [\T + 8]
    mov r10, [\T + 16]
    mov r11, [\T + 24]
    mov r12, [\T + 32]
    mov r13, [\T + 40]
    REDROW rbx, rbp, r10, r11, r12, r13, r15
    REDROW rbp, r10, r11, r12, r13, r15, rbx
    REDROW r10, r11, r12, r13, r15, rbx, rbp
    REDROW r11, r12, r13, r15, rbx, rbp, r10
    REDROW r12, r13, r15, rbx, rbp, r10, r11
    REDROW r13, r15, rbx, rbp, r10, r11, r12
    add r15, [\T + 48]
    adc rbx, [\T + 56]
    adc rbp, [\T + 64]
    adc r10, [\T + 72]
    adc r11, [\T + 80]
    adc r12, [\T + 88]
    mov rax, r15
    sub rax, [r8]
    mov rcx, rbx
    sbb rcx, [r8 + 8]
    mov rdx, rbp
    sbb rdx, [r8 + 16]
    mov rdi, r10
    sbb rdi, [r8 + 24]
    mov rsi, r11
    sbb rsi, [r8 + 32]
    mov r13, r12
    sbb r13, [r8 + 40]
    cmovc rax, r15
    cmovc rcx, rbx
    cmovc rdx, rbp
    cmovc rdi, r10
    cmovc rsi, r11
    cmovc r13, r12
    mov [\O], rax
    mov [\O + 8], rcx
    mov [\O + 16], rdx
    mov [\O + 24], rdi
    mov [\O + 32], rsi
    mov [\O + 40], r13
.endm

/* [D..D+88] -= [S..S+88] (768-bit, no borrow out by the caller's bound). */
.macro SUB768 D, S
    mov rax, [\D]
    sub rax, [\S]
    mov rbx, [\D + 8]
    sbb rbx, [\S + 8]
    mov rcx, [\D + 16]
    sbb rcx, [\S + 16]
    mov rdx, [\D + 24]
    sbb rdx, [\S + 24]
    mov rbp, [\D + 32]
    sbb rbp, [\S + 32]
    mov r10, [\D + 40]
    sbb r10, [\S + 40]
    mov r11, [\D + 48]
    sbb r11, [\S + 48]
    mov r12, [\D + 56]
    sbb r12, [\S + 56]
    mov r13, [\D + 64]
    sbb r13, [\S + 64]
    mov r15, [\D + 72]
    sbb r15, [\S + 72]
    mov rdi, [\D + 80]
    sbb rdi, [\S + 80]
    mov rsi, [\D + 88]
    sbb rsi, [\S + 88]
    mov [\D], rax
    mov [\D + 8], rbx
    mov [\D + 16], rcx
    mov [\D + 24], rdx
    mov [\D + 32], rbp
    mov [\D + 40], r10
    mov [\D + 48], r11
    mov [\D + 56], r12
    mov [\D + 64], r13
    mov [\D + 72], r15
    mov [\D + 80], rdi
    mov [\D + 88], rsi
.endm

/* [D..D+40] = [X..X+40] + [Y..Y+40] as integers (no carry out: both < 2^383). */
.macro ADD384 D, X, Y
    mov rax, [\X]
    add rax, [\Y]
    mov rbx, [\X + 8]
    adc rbx, [\Y + 8]
    mov rcx, [\X + 16]
    adc rcx, [\Y + 16]
    mov rdx, [\X + 24]
    adc rdx, [\Y + 24]
    mov rbp, [\X + 32]
    adc rbp, [\Y + 32]
    mov r10, [\X + 40]
    adc r10, [\Y + 40]
    mov [\D], rax
    mov [\D + 8], rbx
    mov [\D + 16], rcx
    mov [\D + 24], rdx
    mov [\D + 32], rbp
    mov [\D + 40], r10
.endm

.macro PUSH6
    push rbx
    .cfi_adjust_cfa_offset 8
    .cfi_offset rbx, -16
    push rbp
    .cfi_adjust_cfa_offset 8
    .cfi_offset rbp, -24
    push r12
    .cfi_adjust_cfa_offset 8
    .cfi_offset r12, -32
    push r13
    .cfi_adjust_cfa_offset 8
    .cfi_offset r13, -40
    push r14
    .cfi_adjust_cfa_offset 8
    .cfi_offset r14, -48
    push r15
    .cfi_adjust_cfa_offset 8
    .cfi_offset r15, -56
.endm

.macro POP6
    pop r15
    .cfi_adjust_cfa_offset -8
    .cfi_restore r15
    pop r14
    .cfi_adjust_cfa_offset -8
    .cfi_restore r14
    pop r13
    .cfi_adjust_cfa_offset -8
    .cfi_restore r13
    pop r12
    .cfi_adjust_cfa_offset -8
    .cfi_restore r12
    pop rbp
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbp
    pop rbx
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbx
.endm

/*
 * Multiplication. Stack (after the pushes): [rsp] r, [rsp+16] n0,
 * [rsp+24] a0 + a1, [rsp+72] b0 + b1, [rsp+120] T0, [rsp+216] T1,
 * [rsp+312] T2. m in r8 throughout, b in r9 until the products are done.
 */
    .globl cuzk__mul_mont_384x_adx
    .hidden cuzk__mul_mont_384x_adx
    .type cuzk__mul_mont_384x_adx, @function
    .p2align 5
cuzk__mul_mont_384x_adx:
    .cfi_startproc
    endbr64
    PUSH6
    sub rsp, 408
    .cfi_adjust_cfa_offset 408
    mov [rsp], rdi
    mov [rsp + 16], r8
    mov r8, rcx
    mov r9, rdx

    ADD384 rsp+24, rsi, rsi+48
    ADD384 rsp+72, r9, r9+48
    MUL384W rsi, r9, rsp+120
    MUL384W rsi+48, r9+48, rsp+216
    MUL384W rsp+24, rsp+72, rsp+312

    /* T2 = T2 - T0 - T1 = a0 b1 + a1 b0 >= 0 */
    SUB768 rsp+312, rsp+120
    SUB768 rsp+312, rsp+216

    /* T0 = T0 - T1, plus m 2^384 when that borrowed */
    mov rax, [rsp + 120]
    sub rax, [rsp + 216]
    mov [rsp + 120], rax
    mov rax, [rsp + 128]
    sbb rax, [rsp + 224]
    mov [rsp + 128], rax
    mov rax, [rsp + 136]
    sbb rax, [rsp + 232]
    mov [rsp + 136], rax
    mov rax, [rsp + 144]
    sbb rax, [rsp + 240]
    mov [rsp + 144], rax
    mov rax, [rsp + 152]
    sbb rax, [rsp + 248]
    mov [rsp + 152], rax
    mov rax, [rsp + 160]
    sbb rax, [rsp + 256]
    mov [rsp + 160], rax
    mov rbx, [rsp + 168]
    sbb rbx, [rsp + 264]
    mov rbp, [rsp + 176]
    sbb rbp, [rsp + 272]
    mov r10, [rsp + 184]
    sbb r10, [rsp + 280]
    mov r11, [rsp + 192]
    sbb r11, [rsp + 288]
    mov r12, [rsp + 200]
    sbb r12, [rsp + 296]
    mov r13, [rsp + 208]
    sbb r13, [rsp + 304]
    sbb rax, rax
    mov rcx, [r8]
    and rcx, rax
    mov rdx, [r8 + 8]
    and rdx, rax
    mov rsi, [r8 + 16]
    and rsi, rax
    mov rdi, [r8 + 24]
    and rdi, rax
    mov r14, [r8 + 32]
    and r14, rax
    mov r15, [r8 + 40]
    and r15, rax
    add rbx, rcx
    adc rbp, rdx
    adc r10, rsi
    adc r11, rdi
    adc r12, r14
    adc r13, r15
    mov [rsp + 168], rbx
    mov [rsp + 176], rbp
    mov [rsp + 184], r10
    mov [rsp + 192], r11
    mov [rsp + 200], r12
    mov [rsp + 208], r13

    mov r9, [rsp]
    REDC768 rsp+120, r9
    REDC768 rsp+312, r9+48

    add rsp, 408
    .cfi_adjust_cfa_offset -408
    POP6
    ret
    .cfi_endproc
    .size cuzk__mul_mont_384x_adx, . - cuzk__mul_mont_384x_adx

/*
 * Squaring. Stack (after the pushes): [rsp] r, [rsp+16] n0, [rsp+24]
 * a0 + a1, [rsp+72] a0 - a1 mod m, [rsp+120] 2 a1, [rsp+168] T0,
 * [rsp+264] T1. m in r8.
 */
    .globl cuzk__sqr_mont_384x_adx
    .hidden cuzk__sqr_mont_384x_adx
    .type cuzk__sqr_mont_384x_adx, @function
    .p2align 5
cuzk__sqr_mont_384x_adx:
    .cfi_startproc
    endbr64
    PUSH6
    sub rsp, 360
    .cfi_adjust_cfa_offset 360
    mov [rsp], rdi
    mov [rsp + 16], rcx
    mov r8, rdx

    ADD384 rsp+24, rsi, rsi+48
    ADD384 rsp+120, rsi+48, rsi+48

    /* a0 - a1, plus m when that borrowed */
    mov rax, [rsi]
    sub rax, [rsi + 48]
    mov rbx, [rsi + 8]
    sbb rbx, [rsi + 56]
    mov rbp, [rsi + 16]
    sbb rbp, [rsi + 64]
    mov r10, [rsi + 24]
    sbb r10, [rsi + 72]
    mov r11, [rsi + 32]
    sbb r11, [rsi + 80]
    mov r12, [rsi + 40]
    sbb r12, [rsi + 88]
    sbb r13, r13
    mov rcx, [r8]
    and rcx, r13
    mov rdx, [r8 + 8]
    and rdx, r13
    mov rdi, [r8 + 16]
    and rdi, r13
    mov r9, [r8 + 24]
    and r9, r13
    mov r14, [r8 + 32]
    and r14, r13
    mov r15, [r8 + 40]
    and r15, r13
    add rax, rcx
    adc rbx, rdx
    adc rbp, rdi
    adc r10, r9
    adc r11, r14
    adc r12, r15
    mov [rsp + 72], rax
    mov [rsp + 80], rbx
    mov [rsp + 88], rbp
    mov [rsp + 96], r10
    mov [rsp + 104], r11
    mov [rsp + 112], r12

    MUL384W rsp+24, rsp+72, rsp+168
    MUL384W rsi, rsp+120, rsp+264

    mov r9, [rsp]
    REDC768 rsp+168, r9
    REDC768 rsp+264, r9+48

    add rsp, 360
    .cfi_adjust_cfa_offset -360
    POP6
    ret
    .cfi_endproc
    .size cuzk__sqr_mont_384x_adx, . - cuzk__sqr_mont_384x_adx


/*
 * ---- Fp4 squaring for the cyclotomic squaring -----------------------------
 *
 * void cuzk__fp4_sqr_adx(uint64_t r0[12], uint64_t r1[12], const uint64_t a[12],
 *                        const uint64_t b[12], const uint64_t m[6], uint64_t n0)
 *
 * (a + b s)^2 in Fp4 = Fp2[s]/(s^2 - xi), xi = u + 1, u^2 = -1:
 *   r0 = a^2 + xi b^2,  r1 = 2ab = (a + b)^2 - a^2 - b^2
 * (Granger-Scott cyclotomic squaring, fp12.c, calls it three times.)
 * Contract: odd m < 2^381, coordinates < m in and out; r0, r1 may alias a,
 * b (written last) but not each other. Constant-time.
 *
 * Lazy reduction: the three Fp2 squares are formed at full width, as in
 * cuzk__sqr_mont_384x_adx, S = x^2 = ((x0 + x1)(x0 - x1), x0 (2 x1)), each
 * word pair < 2m^2; the four output coordinates are signed integer
 * combinations of them, |v| < 6m^2 < 2^765, taken mod 2^768 (two's
 * complement), plus m 2^384 when bit 767 says negative, then reduced once:
 *   r0.c0 = redc(A.c0 + B.c0 - B.c1)     r0.c1 = redc(A.c1 + B.c0 + B.c1)
 *   r1.c0 = redc(U.c0 - A.c0 - B.c0)     r1.c1 = redc(U.c1 - A.c1 - B.c1)
 * with A = a^2, B = b^2, U = (a + b mod m)^2. 0 <= v + (m 2^384 or 0) <
 * m 2^384 because 6m^2 < m 2^384 for m < 2^381. 6 x 36 + 4 x 36 mulx,
 * against 6 x 36 + 6 x 36 for three Fp2 squarings.
 *
 * Stack: [rsp] r0, [rsp+8] r1, [rsp+16] n0, [rsp+24] a, [rsp+32] b,
 * [rsp+40] x0 + x1, [rsp+88] x0 - x1 mod m, [rsp+136] 2 x1, [rsp+184]
 * a + b mod m, [rsp+280] A, [rsp+472] B, [rsp+664] U, [rsp+856] the
 * combination being reduced. m in r8.
 */

/* [D..D+40] = X - Y mod m (inputs < m). Clobbers rax rbx rcx rdx rdi rbp
 * r9 r10 r11 r12 r13 r14 r15. */
.macro SUBMOD384 D, X, Y
    mov rax, [\X]
    sub rax, [\Y]
    mov rbx, [\X + 8]
    sbb rbx, [\Y + 8]
    mov rcx, [\X + 16]
    sbb rcx, [\Y + 16]
    mov rdx, [\X + 24]
    sbb rdx, [\Y + 24]
    mov rdi, [\X + 32]
    sbb rdi, [\Y + 32]
    mov rbp, [\X + 40]
    sbb rbp, [\Y + 40]
    sbb r9, r9
    mov r10, [r8]
    and r10, r9
    mov r11, [r8 + 8]
    and r11, r9
    mov r12, [r8 + 16]
    and r12, r9
    mov r13, [r8 + 24]
    and r13, r9
    mov r14, [r8 + 32]
    and r14, r9
    mov r15, [r8 + 40]
    and r15, r9
    add rax, r10
    adc rbx, r11
    adc rcx, r12
    adc rdx, r13
    adc rdi, r14
    adc rbp, r15
    mov [\D], rax
    mov [\D + 8], rbx
    mov [\D + 16], rcx
    mov [\D + 24], rdx
    mov [\D + 32], rdi
    mov [\D + 40], rbp
.endm

/* [D..D+40] = X + Y mod m (inputs < m). Clobbers rax rbx rcx rdx rdi rbp
 * r10 r11 r12 r13 r14 r15. */
.macro ADDMOD384 D, X, Y
    mov rax, [\X]
    add rax, [\Y]
    mov rbx, [\X + 8]
    adc rbx, [\Y + 8]
    mov rcx, [\X + 16]
    adc rcx, [\Y + 16]
    mov rdx, [\X + 24]
    adc rdx, [\Y + 24]
    mov rdi, [\X + 32]
    adc rdi, [\Y + 32]
    mov rbp, [\X + 40]
    adc rbp, [\Y + 40]
    mov r10, rax
    sub r10, [r8]
    mov r11, rbx
    sbb r11, [r8 + 8]
    mov r12, rcx
    sbb r12, [r8 + 16]
    mov r13, rdx
    sbb r13, [r8 + 24]
    mov r14, rdi
    sbb r14, [r8 + 32]
    mov r15, rbp
    sbb r15, [r8 + 40]
    cmovc r10, rax
    cmovc r11, rbx
    cmovc r12, rcx
    cmovc r13, rdx
    cmovc r14, rdi
    cmovc r15, rbp
    mov [\D], r10
    mov [\D + 8], r11
    mov [\D + 16], r12
    mov [\D + 24], r13
    mov [\D + 32], r14
    mov [\D + 40], r15
.endm

/* [DST..DST+184] = the full-width square of the Fp2 at SRC (a register
 * other than those clobbered: rax rbx rcx rdx rdi rbp r9 r10..r15). */
.macro WSQR2 SRC, DST
    ADD384 rsp+40, \SRC, \SRC+48
    SUBMOD384 rsp+88, \SRC, \SRC+48
    ADD384 rsp+136, \SRC+48, \SRC+48
    MUL384W rsp+40, rsp+88, \DST
    MUL384W \SRC, rsp+136, \DST+96
.endm

/*
 * [D..D+88] = X op1 Y op2 Z over 768 bits (op = add/adc or sub/sbb), plus
 * m 2^384 when the result's bit 767 is set (a negative value). Words in
 * rax rbx rcx rdx rsi rdi | rbp r9 r10 r11 r12 r13, mask in r14.
 */
.macro W3 D, X, op1, op1c, Y, op2, op2c, Z
    mov rax, [\X]
    \op1 rax, [\Y]
    mov rbx, [\X + 8]
    \op1c rbx, [\Y + 8]
    mov rcx, [\X + 16]
    \op1c rcx, [\Y + 16]
    mov rdx, [\X + 24]
    \op1c rdx, [\Y + 24]
    mov rsi, [\X + 32]
    \op1c rsi, [\Y + 32]
    mov rdi, [\X + 40]
    \op1c rdi, [\Y + 40]
    mov rbp, [\X + 48]
    \op1c rbp, [\Y + 48]
    mov r9, [\X + 56]
    \op1c r9, [\Y + 56]
    mov r10, [\X + 64]
    \op1c r10, [\Y + 64]
    mov r11, [\X + 72]
    \op1c r11, [\Y + 72]
    mov r12, [\X + 80]
    \op1c r12, [\Y + 80]
    mov r13, [\X + 88]
    \op1c r13, [\Y + 88]
    \op2 rax, [\Z]
    \op2c rbx, [\Z + 8]
    \op2c rcx, [\Z + 16]
    \op2c rdx, [\Z + 24]
    \op2c rsi, [\Z + 32]
    \op2c rdi, [\Z + 40]
    \op2c rbp, [\Z + 48]
    \op2c r9, [\Z + 56]
    \op2c r10, [\Z + 64]
    \op2c r11, [\Z + 72]
    \op2c r12, [\Z + 80]
    \op2c r13, [\Z + 88]
    mov [\D], rax
    mov [\D + 8], rbx
    mov [\D + 16], rcx
    mov [\D + 24], rdx
    mov [\D + 32], rsi
    mov [\D + 40], rdi
    mov r14, r13
    sar r14, 63
    mov rax, [r8]
    and rax, r14
    mov rbx, [r8 + 8]
    and rbx, r14
    mov rcx, [r8 + 16]
    and rcx, r14
    mov rdx, [r8 + 24]
    and rdx, r14
    mov rsi, [r8 + 32]
    and rsi, r14
    mov rdi, [r8 + 40]
    and rdi, r14
    add rbp, rax
    adc r9, rbx
    adc r10, rcx
    adc r11, rdx
    adc r12, rsi
    adc r13, rdi
    mov [\D + 48], rbp
    mov [\D + 56], r9
    mov [\D + 64], r10
    mov [\D + 72], r11
    mov [\D + 80], r12
    mov [\D + 88], r13
.endm

    .globl cuzk__fp4_sqr_adx
    .hidden cuzk__fp4_sqr_adx
    .type cuzk__fp4_sqr_adx, @function
    .p2align 5
cuzk__fp4_sqr_adx:
    .cfi_startproc
    endbr64
    PUSH6
    sub rsp, 952
    .cfi_adjust_cfa_offset 952
    mov [rsp], rdi
    mov [rsp + 8], rsi
    mov [rsp + 16], r9
    mov [rsp + 24], rdx
    mov [rsp + 32], rcx

    mov rsi, rdx
    mov r9, rcx
    ADDMOD384 rsp+184, rsi, r9
    ADDMOD384 rsp+232, rsi+48, r9+48
    WSQR2 rsi, rsp+280
    mov rsi, [rsp + 32]
    WSQR2 rsi, rsp+472
    lea rsi, [rsp + 184]
    WSQR2 rsi, rsp+664

    W3 rsp+856, rsp+280, add, adc, rsp+472, sub, sbb, rsp+568
    mov r9, [rsp]
    REDC768 rsp+856, r9
    W3 rsp+856, rsp+376, add, adc, rsp+472, add, adc, rsp+568
    mov r9, [rsp]
    REDC768 rsp+856, r9+48
    W3 rsp+856, rsp+664, sub, sbb, rsp+280, sub, sbb, rsp+472
    mov r9, [rsp + 8]
    REDC768 rsp+856, r9
    W3 rsp+856, rsp+760, sub, sbb, rsp+376, sub, sbb, rsp+568
    mov r9, [rsp + 8]
    REDC768 rsp+856, r9+48

    add rsp, 952
    .cfi_adjust_cfa_offset -952
    POP6
    ret
    .cfi_endproc
    .size cuzk__fp4_sqr_adx, . - cuzk__fp4_sqr_adx

    .section .note.GNU-stack, "", @progbits
