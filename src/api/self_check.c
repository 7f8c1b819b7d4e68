/*
 * self_check.c — every proof is verified before it is returned, and a
 * failure is blamed on the right input.
 *
 * A proof fails its check for one of three reasons: the witness does not
 * satisfy the circuit, a point of the key is corrupt (off the curve, outside
 * the subgroup: the keys are opened without checking every point, which
 * takes minutes at PoRep size), or the key does not belong to the circuit.
 * Circuit keys check every constraint before proving, so their failures are
 * the key's; the key's points are then checked to name the corrupt one with
 * its file offset. A zkey has no C matrix: its points are checked first,
 * then the circuit, when one was attached, tells the witness's fault from
 * the key's.
 */
#include <string.h>

#include "api/api.h"

#define CHECK_FLAGS_ZKEY (CUZK_ZKEY_CHECK_SUBGROUP | CUZK_ZKEY_PARALLEL)

/*
 * CUZK_OK when every point of the key's parameters is valid; else the
 * status of the first bad one (from the file, a chunk at a time: 12 MiB
 * whatever the key's size) with a message naming the file, the vector and
 * the offset. Failures to check at all (the file unreadable now, no memory)
 * come back as ERR_IO / ERR_NOMEM, which the caller reports as they are.
 */
static cuzk_status params_points_check(const cuzk_key *k, cuzk_error *err) {
    cuzk_params p;
    memset(&p, 0, sizeof(p));
    cuzk_status st = cuzk_params_open(&p, k->path, CUZK_PARAMS_DEFER_POINTS, err);
    if (st == CUZK_OK) st = cuzk_params_check_vectors(&p, err);
    cuzk_params_close(&p);
    return st;
}

/* A point found bad, as opposed to a check that could not run. */
static int is_point_verdict(cuzk_status st) {
    return st != CUZK_OK && st != CUZK_ERR_IO && st != CUZK_ERR_NOMEM &&
           st != CUZK_ERR_DEVICE_NOMEM && st != CUZK_ERR_INVALID_ARG;
}

cuzk_status cuzk__self_check(const cuzk_key *k, const cuzk_groth16_vk *vk,
                             const cuzk_groth16_proof *proof, const uint64_t (*pub)[4],
                             const char *wname, const cuzk_witness *w, cuzk_error *err) {
    cuzk_error ve;
    cuzk__error_clear(&ve);
    if (cuzk_groth16_verify(vk, pub, (size_t)k->n_public, proof, &ve) == CUZK_OK) return CUZK_OK;
    cuzk_error pe;
    cuzk__error_clear(&pe);
    if (k->kind == CUZK_KEY_PARAMS) {
        const cuzk_status ps = params_points_check(k, &pe);
        if (ps != CUZK_OK && !is_point_verdict(ps))
            return cuzk__fail(err, ps,
                              "the proof of %s failed its self-check, and checking the key's "
                              "points failed: %s",
                              wname, cuzk__error_text(&pe));
        if (ps != CUZK_OK)
            return cuzk__fail(err, CUZK_ERR_KEY_CORRUPT,
                              "the key is corrupt: %s (the proof of %s failed its self-check)",
                              cuzk__error_text(&pe), wname);
        return cuzk__fail(err, CUZK_ERR_KEY_CORRUPT,
                          "the proof of %s failed its self-check although it satisfies every "
                          "constraint of %s, and every point of %s is valid: the parameters do "
                          "not belong to this circuit (%s)",
                          wname, k->circuit_path, k->path, cuzk__error_text(&ve));
    }
    if (cuzk_zkey_check_points(&k->zk, CHECK_FLAGS_ZKEY, &pe) != CUZK_OK)
        return cuzk__fail(err, CUZK_ERR_KEY_CORRUPT,
                          "the key is corrupt: %s (the proof of %s failed its self-check)",
                          cuzk__error_text(&pe), wname);
    if (k->have_r1cs && w != NULL) {
        cuzk_error ce;
        cuzk__error_clear(&ce);
        const cuzk_status cs = cuzk_r1cs_check_witness(&k->r1cs, w->values, cuzk_witness_n_vars(w),
                                                       wname, NULL, &ce);
        if (cs == CUZK_ERR_WITNESS_UNSATISFIED) {
            if (err != NULL) *err = ce;
            return cs;
        }
        if (cs == CUZK_OK)
            return cuzk__fail(err, CUZK_ERR_KEY_CORRUPT,
                              "the proof of %s failed its self-check although it satisfies every "
                              "constraint of %s and every point of %s is valid: the key's "
                              "coefficients do not match that circuit",
                              wname, k->r1cs.file.path, k->path);
    }
    return cuzk__fail(err, CUZK_ERR_WITNESS_UNSATISFIED,
                      "%s does not satisfy the circuit of %s (the proof failed its self-check; "
                      "every point of the key is valid). `cuzk wtns check circuit.r1cs %s` "
                      "names the failing constraint",
                      wname, k->path, wname);
}
