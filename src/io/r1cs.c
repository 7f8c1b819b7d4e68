/* r1cs.c — .r1cs reader and witness check (r1cs.h; doc/formats.md, r1cs). */
#include "io/r1cs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cuzk_status read_header(cuzk_r1cs *r, cuzk_error *err) {
    const cuzk_binfile_section *s;
    cuzk_status st = cuzk_binfile_require(&r->file, CUZK_R1CS_SEC_HEADER, "header", &s, err);
    if (st != CUZK_OK) return st;
    cuzk_binfile_cursor c;
    cuzk_binfile_cursor_init(&c, &r->file, s);
    const uint8_t *b;
    if ((st = cuzk_binfile_read_u32(&c, &r->n8, "field size", err)) != CUZK_OK) return st;
    uint64_t off = c.pos;
    if ((st = cuzk_binfile_read_bytes(&c, &b, r->n8, "prime", err)) != CUZK_OK) return st;
    if ((st = cuzk__binfile_check_prime(&r->file, 1, off, b, r->n8, false, err)) != CUZK_OK)
        return st;
    cuzk__load_le64_n(r->prime, b, CUZK_FR_LIMBS);
    off = c.pos;
    if ((st = cuzk_binfile_read_u32(&c, &r->n_wires, "nWires", err)) != CUZK_OK ||
        (st = cuzk_binfile_read_u32(&c, &r->n_pub_out, "nPubOut", err)) != CUZK_OK ||
        (st = cuzk_binfile_read_u32(&c, &r->n_pub_in, "nPubIn", err)) != CUZK_OK ||
        (st = cuzk_binfile_read_u32(&c, &r->n_prv_in, "nPrvIn", err)) != CUZK_OK ||
        (st = cuzk_binfile_read_u64(&c, &r->n_labels, "nLabels", err)) != CUZK_OK ||
        (st = cuzk_binfile_read_u32(&c, &r->n_constraints, "nConstraints", err)) != CUZK_OK ||
        (st = cuzk_binfile_cursor_done(&c, err)) != CUZK_OK)
        return st;
    uint64_t io = 1 + (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in;
    if (io > r->n_wires)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset %llu: section 1: nWires = %u cannot hold 1 + nPubOut + "
                          "nPubIn + nPrvIn = %llu wires",
                          r->file.path, (unsigned long long)off, r->n_wires,
                          (unsigned long long)io);
    return CUZK_OK;
}

/* One linear combination at c: count, bounds, wire ids, canonical coefficients. */
static cuzk_status check_lc(cuzk_r1cs *r, cuzk_binfile_cursor *c, uint32_t k, char which,
                            cuzk_error *err) {
    const char *path = r->file.path;
    uint32_t n;
    uint64_t off = c->pos;
    char what[64];
    snprintf(what, sizeof(what), "constraint %u %c term count", k, which);
    cuzk_status st = cuzk_binfile_read_u32(c, &n, what, err);
    if (st != CUZK_OK) return st;
    uint64_t need = (uint64_t)n * CUZK_R1CS_TERM_BYTES;
    if (need > cuzk_binfile_cursor_left(c))
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %llu: section 2: constraint %u %c: %u terms need %llu "
                          "bytes, %llu left in the section",
                          path, (unsigned long long)off, k, which, n, (unsigned long long)need,
                          (unsigned long long)cuzk_binfile_cursor_left(c));
    const uint8_t *t;
    uint64_t base = c->pos;
    if ((st = cuzk_binfile_read_bytes(c, &t, need, what, err)) != CUZK_OK) return st;
    cuzk_r1cs_lc lc = {n, t};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t wire;
        uint64_t coeff[CUZK_FR_LIMBS];
        cuzk_r1cs_lc_term(&lc, i, &wire, coeff);
        unsigned long long at = (unsigned long long)(base + (uint64_t)i * CUZK_R1CS_TERM_BYTES);
        if (wire >= r->n_wires)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %llu: section 2: constraint %u %c term %u: wire %u >= "
                              "nWires %u",
                              path, at, k, which, i, wire, r->n_wires);
        if (!cuzk__lt_n(coeff, cuzk__fr_r, CUZK_FR_LIMBS))
            return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                              "%s: section 2: non-canonical field element at offset %llu "
                              "(constraint %u %c term %u coefficient >= r)",
                              path, at + 4, k, which, i);
    }
    r->n_terms += n;
    return CUZK_OK;
}

static cuzk_status r1cs_parse(cuzk_r1cs *r, cuzk_error *err) {
    cuzk_status st = read_header(r, err);
    if (st != CUZK_OK) return st;
    const cuzk_binfile_section *s;
    st = cuzk_binfile_require(&r->file, CUZK_R1CS_SEC_CONSTRAINTS, "constraints", &s, err);
    if (st != CUZK_OK) return st;
    r->constraints = cuzk_binfile_payload(&r->file, s);
    r->constraints_offset = s->offset;
    r->constraints_size = s->size;
    /* Each constraint needs at least its three term counts: a cheap bound
     * that rejects absurd nConstraints before the walk. */
    if ((uint64_t)r->n_constraints * 12 > s->size)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %llu: section 2 has %llu bytes, too few for nConstraints "
                          "= %u (12 bytes each at least)",
                          r->file.path, (unsigned long long)s->offset,
                          (unsigned long long)s->size, r->n_constraints);
    cuzk_binfile_cursor c;
    cuzk_binfile_cursor_init(&c, &r->file, s);
    for (uint32_t k = 0; k < r->n_constraints; k++)
        if ((st = check_lc(r, &c, k, 'A', err)) != CUZK_OK ||
            (st = check_lc(r, &c, k, 'B', err)) != CUZK_OK ||
            (st = check_lc(r, &c, k, 'C', err)) != CUZK_OK)
            return st;
    if ((st = cuzk_binfile_cursor_done(&c, err)) != CUZK_OK) return st;
    /* PLONK custom gates constrain wires outside section 2: a Groth16 proof
     * of section 2 alone would prove less than the circuit says */
    for (uint32_t id = CUZK_R1CS_SEC_CUSTOM_GATES_LIST; id <= CUZK_R1CS_SEC_CUSTOM_GATES_USES;
         id++)
        if ((s = cuzk_binfile_find(&r->file, id)) != NULL)
            return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                              "%s: offset %llu: section %u (PLONK custom gates): their "
                              "constraints cannot be proved with Groth16",
                              r->file.path, (unsigned long long)s->offset, id);

    s = cuzk_binfile_find(&r->file, CUZK_R1CS_SEC_WIRE2LABEL);
    if (s != NULL) {
        uint64_t need = (uint64_t)r->n_wires * 8;
        if (s->size != need)
            return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                              "%s: offset %llu: section 3 has %llu bytes, expected %llu (nWires "
                              "= %u labels of 8 bytes)",
                              r->file.path, (unsigned long long)s->offset,
                              (unsigned long long)s->size, (unsigned long long)need, r->n_wires);
        if (need != 0) {
            st = cuzk__binfile_words(&r->file, cuzk_binfile_payload(&r->file, s), s->size,
                                     &r->wire2label, &r->owned, err);
            if (st != CUZK_OK) return st;
        }
    }
    return CUZK_OK;
}

cuzk_status cuzk_r1cs_open(cuzk_r1cs *r, const char *path, cuzk_error *err) {
    memset(r, 0, sizeof(*r));
    cuzk_status st = cuzk_binfile_open(&r->file, path, "r1cs", 1, 1, err);
    if (st == CUZK_OK) st = r1cs_parse(r, err);
    if (st != CUZK_OK) cuzk_r1cs_close(r);
    return st;
}

cuzk_status cuzk_r1cs_open_mem(cuzk_r1cs *r, const void *data, size_t size, const char *name,
                               cuzk_error *err) {
    memset(r, 0, sizeof(*r));
    cuzk_status st = cuzk_binfile_open_mem(&r->file, data, size, name, "r1cs", 1, 1, err);
    if (st == CUZK_OK) st = r1cs_parse(r, err);
    if (st != CUZK_OK) cuzk_r1cs_close(r);
    return st;
}

void cuzk_r1cs_close(cuzk_r1cs *r) {
    if (r == NULL) return;
    free(r->owned);
    cuzk_binfile_close(&r->file);
    memset(r, 0, sizeof(*r));
}

void cuzk_r1cs_iter_init(cuzk_r1cs_iter *it, const cuzk_r1cs *r) {
    it->r1cs = r;
    it->p = r->constraints;
    it->index = 0;
}

/* Validated by r1cs_parse: every read below stays inside section 2. */
static const uint8_t *next_lc(cuzk_r1cs_lc *lc, const uint8_t *p) {
    lc->n = cuzk__load_le32(p);
    lc->terms = p + 4;
    return p + 4 + (uint64_t)lc->n * CUZK_R1CS_TERM_BYTES;
}

bool cuzk_r1cs_iter_next(cuzk_r1cs_iter *it, cuzk_r1cs_constraint *out) {
    if (it->index >= it->r1cs->n_constraints) return false;
    it->p = next_lc(&out->a, it->p);
    it->p = next_lc(&out->b, it->p);
    it->p = next_lc(&out->c, it->p);
    it->index++;
    return true;
}

/* <lc, w> in Montgomery form; wm holds the witness in Montgomery form. */
static void lc_eval(cuzk_fr *acc, const cuzk_r1cs_lc *lc, const cuzk_fr *wm) {
    cuzk_fr_set_zero(acc);
    for (uint32_t i = 0; i < lc->n; i++) {
        uint32_t wire;
        uint64_t coeff[CUZK_FR_LIMBS];
        cuzk_fr c, t;
        cuzk_r1cs_lc_term(lc, i, &wire, coeff);
        cuzk_fr_from_limbs(&c, coeff);
        cuzk_fr_mul(&t, &c, &wm[wire]);
        cuzk_fr_add(acc, acc, &t);
    }
}

cuzk_status cuzk_r1cs_check_witness(const cuzk_r1cs *r, const uint64_t *w, uint64_t n_w,
                                    const char *wname, uint64_t *first_bad, cuzk_error *err) {
    const char *path = r->file.path;
    if (wname == NULL) wname = "witness";
    if (first_bad != NULL) *first_bad = UINT64_MAX;
    if (n_w != r->n_wires)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: witness %s has %llu values, the circuit has nWires = %u", path,
                          wname, (unsigned long long)n_w, r->n_wires);
    for (uint64_t i = 0; i < n_w; i++)
        if (!cuzk__lt_n(w + 4 * i, cuzk__fr_r, CUZK_FR_LIMBS))
            return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                              "%s: witness %s: value %llu is not canonical (>= r)", path, wname,
                              (unsigned long long)i);
    if (n_w == 0 || w[0] != 1 || w[1] != 0 || w[2] != 0 || w[3] != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: witness %s: w[0] must be 1 (wire 0 is the constant one)", path,
                          wname);
    cuzk_fr *wm = malloc((size_t)n_w * sizeof(cuzk_fr));
    if (wm == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory for %llu witness values", path,
                          (unsigned long long)n_w);
    for (uint64_t i = 0; i < n_w; i++) cuzk_fr_from_limbs(&wm[i], w + 4 * i);
    cuzk_r1cs_iter it;
    cuzk_r1cs_constraint k;
    cuzk_status st = CUZK_OK;
    cuzk_r1cs_iter_init(&it, r);
    while (cuzk_r1cs_iter_next(&it, &k)) {
        cuzk_fr a, b, c;
        lc_eval(&a, &k.a, wm);
        lc_eval(&b, &k.b, wm);
        lc_eval(&c, &k.c, wm);
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c)) {
            uint32_t idx = it.index - 1;
            if (first_bad != NULL) *first_bad = idx;
            st = cuzk__fail(err, CUZK_ERR_WITNESS_UNSATISFIED,
                            "%s: witness %s does not satisfy constraint %u (A*B != C)", path,
                            wname, idx);
            break;
        }
    }
    free(wm);
    return st;
}
