//! supraseal-c2's Rust API over libcuzk_supraseal.
//!
//! Filecoin's bellperson (feature `cuda-supraseal`) and Curio's fork of it
//! call this crate to prove the circuits they synthesize. This crate has the
//! upstream crate's name and public API, as Curio's copy has it
//! (`extern/supraseal-c2`: the GPU mutex, the GPU index and the split
//! start/finish calls), and reaches cuzk through the C interface
//! libcuzk_supraseal exports under upstream's names (include/cuzk_supraseal.h,
//! doc/formats.md §17 of cuzk). Stock bellperson calls only
//! `SRS::try_new`, `generate_groth16_proofs` and the `Drop`/`Clone` of
//! `SRS`, which have the same signatures in both, so it builds against this
//! crate unchanged.
//!
//! Types are generic as upstream's: `S` is the scalar (blstrs::Scalar, 32
//! bytes of Montgomery limbs), `PR` the proof (bellperson's #[repr(C)]
//! Proof<Bls12>: G1 affine, G2 affine, G1 affine, 384 bytes), `D` a density
//! bitmap word (usize, 64 bits). Their sizes are asserted here, and the
//! proofs a split proof writes must fit the slice `finish_groth16_proof` is
//! given (the handle's circuit count is kept here), so that no safe call
//! writes past a buffer; the library checks every size it is given
//! against the SRS and returns an error, which these functions turn into a
//! panic with the library's message, as upstream does.
//!
//! No dependencies beyond std (Rust 1.63 and later).

use std::ffi::{c_void, CStr, CString};
use std::fmt;
use std::os::raw::c_char;
use std::path::PathBuf;
use std::ptr::NonNull;
use std::sync::Mutex;

/// Bytes of a scalar and of a proof, as the C interface lays them out.
const SCALAR_BYTES: usize = 32;
const PROOF_BYTES: usize = 384;

fn assert_scalar<S>() {
    assert_eq!(std::mem::size_of::<S>(), SCALAR_BYTES, "a scalar is {} bytes", SCALAR_BYTES);
}

fn assert_proof<PR>() {
    assert_eq!(std::mem::size_of::<PR>(), PROOF_BYTES, "a proof is {} bytes", PROOF_BYTES);
}

/// The split proofs started and not yet finished or dropped: handle, circuits.
static PENDING: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// Takes handle's entry out of PENDING: its circuit count, if it is there.
fn pending_take(handle: *mut c_void) -> Option<usize> {
    let mut list = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let at = list.iter().position(|&(h, _)| h == handle as usize)?;
    Some(list.swap_remove(at).1)
}

/// The status libcuzk_supraseal returns by value (sppark's `cuda::Error`
/// layout: an i32 code, 0 for success, and a message the library allocated
/// with malloc, freed here on drop).
pub mod cuda {
    use super::*;

    #[repr(C)]
    pub struct Error {
        pub code: i32,
        str: Option<NonNull<c_char>>,
    }

    extern "C" {
        fn free(p: *mut c_void);
    }

    impl Error {
        /// The library's message, or "sppark::Error #code" when it gave none.
        pub fn message(&self) -> String {
            match self.str {
                Some(p) => unsafe { CStr::from_ptr(p.as_ptr()) }
                    .to_string_lossy()
                    .into_owned(),
                None => format!("sppark::Error #{}", self.code),
            }
        }
    }

    impl Drop for Error {
        fn drop(&mut self) {
            if let Some(p) = self.str.take() {
                unsafe { free(p.as_ptr() as *mut c_void) };
            }
        }
    }

    impl From<Error> for String {
        fn from(e: Error) -> String {
            e.message()
        }
    }

    impl fmt::Display for Error {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&self.message())
        }
    }

    impl fmt::Debug for Error {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "cuda::Error {{ code: {}, message: {:?} }}", self.code, self.message())
        }
    }

    impl std::error::Error for Error {}

    // The message is owned and immutable.
    unsafe impl Send for Error {}
    unsafe impl Sync for Error {}
}

// ---- the C interface (include/cuzk_supraseal.h) ------------------------------

extern "C" {
    fn create_SRS(ret: &mut SRS, srs_path: *const c_char, cache: bool) -> cuda::Error;
    fn evict_SRS(by_ref: &SRS);
    fn drop_SRS(by_ref: &SRS);
    fn clone_SRS(by_ref: &SRS) -> SRS;

    fn create_gpu_mutex() -> *mut c_void;
    fn destroy_gpu_mutex(mtx: *mut c_void);

    fn generate_groth16_proofs_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        proofs: *mut c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: i32,
    ) -> cuda::Error;
    fn generate_groth16_proofs_start_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: i32,
        pending_out: *mut *mut c_void,
    ) -> cuda::Error;
    fn finalize_groth16_proof_c(handle: *mut c_void, proofs: *mut c_void) -> cuda::Error;
    fn destroy_pending_proof(handle: *mut c_void);
}

/// Panics with the library's message unless e is success.
fn check(e: cuda::Error) {
    if e.code != 0 {
        panic!("{}", String::from(e));
    }
}

// ---- parameters ---------------------------------------------------------------

/// Loaded Groth16 parameters (a bellman `.params` file), shared by reference
/// count: `Clone` takes another reference, `Drop` releases one.
#[repr(C)]
pub struct SRS {
    ptr: *const c_void,
}

impl Default for SRS {
    /// The empty handle (no parameters).
    fn default() -> Self {
        SRS {
            ptr: std::ptr::null(),
        }
    }
}

impl SRS {
    /// Loads the parameters at srs_path. cache: keep them in the library's
    /// cache of the four most recently used paths (the same path string
    /// then shares one copy); bellperson and Curio pass false.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, cuda::Error> {
        let path = srs_path
            .to_str()
            .expect("the SRS path is not valid UTF-8");
        let c_path = CString::new(path).expect("the SRS path contains a NUL byte");
        let mut srs = SRS::default();
        let e = unsafe { create_SRS(&mut srs, c_path.as_ptr(), cache) };
        if e.code != 0 {
            Err(e)
        } else {
            Ok(srs)
        }
    }

    /// Removes this path's entry from the library's cache (the parameters
    /// live on while handles to them do).
    pub fn evict(&self) {
        unsafe { evict_SRS(self) }
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        unsafe { drop_SRS(self) };
        self.ptr = std::ptr::null();
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        unsafe { clone_SRS(self) }
    }
}

// The library's SRS is immutable once loaded and reference-counted atomically.
unsafe impl Send for SRS {}
unsafe impl Sync for SRS {}

// ---- one circuit's assignment --------------------------------------------------

/// What bellperson's ProvingAssignment holds, borrowed by pointer
/// (include/cuzk_supraseal.h has the meaning of every field). Densities are
/// u64 words, bit i in word i / 64 at position i % 64 (bitvec's Lsb0).
#[repr(C)]
pub struct Assignment<Scalar> {
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

/// The assignments of num_circuits circuits that share their densities and
/// sizes (the form of `generate_groth16_proof` and `start_groth16_proof`).
#[allow(clippy::too_many_arguments)]
fn assignments<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
) -> Vec<Assignment<S>> {
    for (what, len) in [
        ("ntt_a_scalars", ntt_a_scalars.len()),
        ("ntt_b_scalars", ntt_b_scalars.len()),
        ("ntt_c_scalars", ntt_c_scalars.len()),
        ("input_assignments", input_assignments.len()),
        ("aux_assignments", aux_assignments.len()),
    ] {
        assert_eq!(len, num_circuits, "{} has {} entries for {} circuits", what, len, num_circuits);
    }
    assert_scalar::<S>();
    let word_bits = std::mem::size_of::<D>() * 8;
    assert_eq!(word_bits, 64, "only 64-bit words in density bitmaps are supported");
    assert!(a_aux_density_bv.len() * word_bits >= aux_assignments_size);
    assert!(b_g1_input_density_bv.len() * word_bits >= input_assignments_size);
    assert!(b_g1_aux_density_bv.len() * word_bits >= aux_assignments_size);
    (0..num_circuits)
        .map(|i| Assignment {
            a_aux_density: a_aux_density_bv.as_ptr() as *const usize,
            a_aux_bit_len: aux_assignments_size,
            a_aux_popcount: a_aux_total_density,
            b_inp_density: b_g1_input_density_bv.as_ptr() as *const usize,
            b_inp_bit_len: input_assignments_size,
            b_inp_popcount: b_g1_input_total_density,
            b_aux_density: b_g1_aux_density_bv.as_ptr() as *const usize,
            b_aux_bit_len: aux_assignments_size,
            b_aux_popcount: b_g1_aux_total_density,
            a: ntt_a_scalars[i],
            b: ntt_b_scalars[i],
            c: ntt_c_scalars[i],
            abc_size: ntt_scalars_actual_size,
            inp_assignment_data: input_assignments[i],
            inp_assignment_size: input_assignments_size,
            aux_assignment_data: aux_assignments[i],
            aux_assignment_size: aux_assignments_size,
        })
        .collect()
}

// ---- proving ---------------------------------------------------------------------

/// Proves provers[i] with blinding scalars r_s[i], s_s[i] into proofs[i]
/// (bellperson's call). Panics with the library's message on any error.
pub fn generate_groth16_proofs<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    assert_scalar::<S>();
    assert_proof::<PR>();
    let n = provers.len();
    assert_eq!(r_s.len(), n);
    assert_eq!(s_s.len(), n);
    assert_eq!(proofs.len(), n);
    check(unsafe {
        generate_groth16_proofs_c(
            provers.as_ptr() as *const c_void,
            n,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            proofs.as_mut_ptr() as *mut c_void,
            srs,
            std::ptr::null_mut(),
            -1,
        )
    });
}

/// Curio's form: num_circuits circuits that share densities and sizes,
/// given as per-circuit pointers, proved while gpu_mtx (from
/// `alloc_gpu_mutex`, or null for the library's own) is held, on GPU
/// gpu_index (modulo the GPU count; -1: spread over the GPUs; the CPU where
/// there is none).
#[allow(clippy::too_many_arguments)]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) {
    assert_proof::<PR>();
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    assert_eq!(proofs.len(), num_circuits);
    let provers = assignments(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
    );
    check(unsafe {
        generate_groth16_proofs_c(
            provers.as_ptr() as *const c_void,
            num_circuits,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            proofs.as_mut_ptr() as *mut c_void,
            srs,
            gpu_mtx,
            gpu_index,
        )
    });
}

/// The first half of `generate_groth16_proof`: returns a pending handle for
/// `finish_groth16_proof` (or `drop_pending_proof`). The a, b, c vectors
/// and r_s, s_s may be freed once it returns; the densities, the
/// assignments and the SRS must live until the handle is finished or
/// dropped.
#[allow(clippy::too_many_arguments)]
pub fn start_groth16_proof<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    let provers = assignments(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
    );
    let mut pending: *mut c_void = std::ptr::null_mut();
    check(unsafe {
        generate_groth16_proofs_start_c(
            provers.as_ptr() as *const c_void,
            num_circuits,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            srs,
            gpu_mtx,
            gpu_index,
            &mut pending,
        )
    });
    PENDING.lock().unwrap_or_else(|e| e.into_inner()).push((pending as usize, num_circuits));
    pending
}

/// Writes the proofs of a handle from `start_groth16_proof` (proofs holds
/// one per circuit) and frees the handle, also when it panics.
pub fn finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    assert_proof::<PR>();
    // a handle not started here (or finished already) never reaches the
    // library: handles are small numbers, so a guess could be another live one
    let n = match pending_take(handle) {
        Some(n) => n,
        None => panic!("finish_groth16_proof: not a pending proof (finished already?)"),
    };
    if proofs.len() != n {
        unsafe { destroy_pending_proof(handle) };
        panic!("finish_groth16_proof: room for {} proofs, the handle has {}", proofs.len(), n);
    }
    check(unsafe { finalize_groth16_proof_c(handle, proofs.as_mut_ptr() as *mut c_void) });
}

/// Abandons a handle from `start_groth16_proof`. A handle already finished
/// (or dropped) is ignored, never passed to the library.
///
/// # Safety
/// handle must come from `start_groth16_proof`.
pub unsafe fn drop_pending_proof(handle: *mut c_void) {
    if pending_take(handle).is_some() {
        destroy_pending_proof(handle)
    }
}

/// A mutex for `gpu_mtx`: one per GPU, held around the part of a proof that
/// uses it. Free it with `free_gpu_mutex`.
pub fn alloc_gpu_mutex() -> *mut c_void {
    unsafe { create_gpu_mutex() }
}

/// Frees a mutex from `alloc_gpu_mutex` (null is accepted).
///
/// # Safety
/// ptr must come from `alloc_gpu_mutex`, not be freed already, and not be
/// held by a call in progress.
pub unsafe fn free_gpu_mutex(ptr: *mut c_void) {
    destroy_gpu_mutex(ptr)
}
