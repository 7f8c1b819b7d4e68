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

    .section .note.GNU-stack, "", @progbits
