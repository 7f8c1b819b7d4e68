/* wtns.c — .wtns reader (wtns.h; doc/formats.md, wtns). */
#include "io/wtns.h"

#include <stdlib.h>
#include <string.h>

static cuzk_status wtns_parse(cuzk_wtns *w, cuzk_error *err) {
    const char *path = w->file.path;
    const cuzk_binfile_section *s;
    cuzk_status st = cuzk_binfile_require(&w->file, CUZK_WTNS_SEC_HEADER, "header", &s, err);
    if (st != CUZK_OK) return st;
    cuzk_binfile_cursor c;
    cuzk_binfile_cursor_init(&c, &w->file, s);
    const uint8_t *b;
    if ((st = cuzk_binfile_read_u32(&c, &w->n8, "n8", err)) != CUZK_OK) return st;
    uint64_t off = c.pos;
    if ((st = cuzk_binfile_read_bytes(&c, &b, w->n8, "prime", err)) != CUZK_OK) return st;
    if ((st = cuzk__binfile_check_prime(&w->file, 1, off, b, w->n8, false, err)) != CUZK_OK)
        return st;
    cuzk__load_le64_n(w->prime, b, CUZK_FR_LIMBS);
    if ((st = cuzk_binfile_read_u32(&c, &w->n_witness, "nWitness", err)) != CUZK_OK) return st;
    if ((st = cuzk_binfile_cursor_done(&c, err)) != CUZK_OK) return st;

    if ((st = cuzk_binfile_require(&w->file, CUZK_WTNS_SEC_VALUES, "witness values", &s, err)) !=
        CUZK_OK)
        return st;
    uint64_t need = (uint64_t)w->n_witness * CUZK_FR_BYTES;
    if (s->size != need)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %llu: section 2 has %llu bytes, expected %llu (nWitness = "
                          "%u values of %u bytes)",
                          path, (unsigned long long)s->offset, (unsigned long long)s->size,
                          (unsigned long long)need, w->n_witness, (unsigned)CUZK_FR_BYTES);
    w->values_offset = s->offset;
    if (w->n_witness == 0) {
        w->values = NULL;
        return CUZK_OK;
    }
    st = cuzk__binfile_words(&w->file, cuzk_binfile_payload(&w->file, s), s->size, &w->values,
                             &w->owned, err);
    if (st != CUZK_OK) return st;
    for (uint64_t i = 0; i < w->n_witness; i++)
        if (!cuzk__lt_n(cuzk_wtns_value(w, i), cuzk__fr_r, CUZK_FR_LIMBS))
            return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                              "%s: section 2: non-canonical field element at offset %llu "
                              "(witness %llu >= r)",
                              path, (unsigned long long)(s->offset + i * CUZK_FR_BYTES),
                              (unsigned long long)i);
    return CUZK_OK;
}

cuzk_status cuzk_wtns_open(cuzk_wtns *w, const char *path, cuzk_error *err) {
    memset(w, 0, sizeof(*w));
    cuzk_status st = cuzk_binfile_open(&w->file, path, "wtns", 2, 2, err);
    if (st == CUZK_OK) st = wtns_parse(w, err);
    if (st != CUZK_OK) cuzk_wtns_close(w);
    return st;
}

cuzk_status cuzk_wtns_open_mem(cuzk_wtns *w, const void *data, size_t size, const char *name,
                               cuzk_error *err) {
    memset(w, 0, sizeof(*w));
    cuzk_status st = cuzk_binfile_open_mem(&w->file, data, size, name, "wtns", 2, 2, err);
    if (st == CUZK_OK) st = wtns_parse(w, err);
    if (st != CUZK_OK) cuzk_wtns_close(w);
    return st;
}

void cuzk_wtns_close(cuzk_wtns *w) {
    if (w == NULL) return;
    free(w->owned);
    cuzk_binfile_close(&w->file);
    memset(w, 0, sizeof(*w));
}
