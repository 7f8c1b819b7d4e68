//! Proves through this crate the way bellperson and Curio call it, against
//! libcuzk_supraseal, and compares every proof byte for byte with the one
//! cuzk's own prover made (and verified) for the same circuit, r and s.
//!
//! The fixture comes from cuzk's tests/supraseal/write_fixture.c
//! (`supraseal_fixture DIR N`): DIR/porep.params and DIR/fixture.bin;
//! CUZK_SUPRASEAL_FIXTURE names DIR (tests/supraseal/check_shim.sh sets it).
//! The structs below are what bellperson passes: blstrs' Scalar (four u64
//! limbs, Montgomery), bitvec's raw words, and its #[repr(C)] Proof<Bls12>.

use std::convert::TryInto;
use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::Arc;

use supraseal_c2::{
    alloc_gpu_mutex, drop_pending_proof, finish_groth16_proof, free_gpu_mutex,
    generate_groth16_proof, generate_groth16_proofs, start_groth16_proof, Assignment, SRS,
};

/// blstrs::Scalar: blst_fr, four little-endian u64 limbs in Montgomery form.
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Debug)]
struct Scalar([u64; 4]);

/// bellperson's #[repr(C)] Proof<Bls12>: G1Affine a, G2Affine b, G1Affine c.
#[repr(C)]
#[derive(Clone, Copy)]
struct Proof {
    a: [u64; 12],
    b: [u64; 24],
    c: [u64; 12],
}

impl Default for Proof {
    fn default() -> Self {
        Proof {
            a: [0; 12],
            b: [0; 24],
            c: [0; 12],
        }
    }
}

impl Proof {
    fn bytes(&self) -> Vec<u8> {
        self.a
            .iter()
            .chain(self.b.iter())
            .chain(self.c.iter())
            .flat_map(|l| l.to_le_bytes())
            .collect()
    }
}

/// One circuit as bellperson's ProvingAssignment holds it.
struct Circuit {
    a: Vec<Scalar>,
    b: Vec<Scalar>,
    c: Vec<Scalar>,
    inp: Vec<Scalar>,
    aux: Vec<Scalar>,
    r: Scalar,
    s: Scalar,
    proof: Vec<u8>, // cuzk's own, 384 bytes
}

struct Fixture {
    params: PathBuf,
    abc_size: usize,
    n_inp: usize,
    n_aux: usize,
    // bitvec's raw slices (usize words; the bits past each length set)
    a_aux: Vec<usize>,
    b_inp: Vec<usize>,
    b_aux: Vec<usize>,
    a_aux_pop: usize,
    b_inp_pop: usize,
    b_aux_pop: usize,
    circuits: Vec<Circuit>,
}

struct Reader<'a> {
    d: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> &'a [u8] {
        assert!(self.at + n <= self.d.len(), "fixture.bin is truncated");
        let s = &self.d[self.at..self.at + n];
        self.at += n;
        s
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.bytes(8).try_into().unwrap())
    }
    fn words(&mut self, bits: usize) -> Vec<usize> {
        (0..(bits + 63) / 64).map(|_| self.u64() as usize).collect()
    }
    fn scalars(&mut self, n: usize) -> Vec<Scalar> {
        (0..n)
            .map(|_| {
                let mut l = [0u64; 4];
                for x in l.iter_mut() {
                    *x = self.u64();
                }
                Scalar(l)
            })
            .collect()
    }
}

fn fixture() -> Fixture {
    let dir = PathBuf::from(std::env::var("CUZK_SUPRASEAL_FIXTURE").expect(
        "CUZK_SUPRASEAL_FIXTURE must name a folder written by cuzk's supraseal_fixture \
         (tests/supraseal/check_shim.sh sets it)",
    ));
    let data = std::fs::read(dir.join("fixture.bin")).expect("cannot read fixture.bin");
    let mut r = Reader { d: &data, at: 0 };
    assert_eq!(r.bytes(8), b"cuzkssfx", "not a fixture file");
    let n = r.u64() as usize;
    let abc_size = r.u64() as usize;
    let n_inp = r.u64() as usize;
    let n_aux = r.u64() as usize;
    let (a_aux_pop, b_inp_pop, b_aux_pop) = (r.u64() as usize, r.u64() as usize, r.u64() as usize);
    let a_aux = r.words(n_aux);
    let b_inp = r.words(n_inp);
    let b_aux = r.words(n_aux);
    let circuits = (0..n)
        .map(|_| Circuit {
            a: r.scalars(abc_size),
            b: r.scalars(abc_size),
            c: r.scalars(abc_size),
            inp: r.scalars(n_inp),
            aux: r.scalars(n_aux),
            r: r.scalars(1)[0],
            s: r.scalars(1)[0],
            proof: r.bytes(384).to_vec(),
        })
        .collect();
    assert_eq!(r.at, data.len(), "trailing bytes in fixture.bin");
    Fixture {
        params: dir.join("porep.params"),
        abc_size,
        n_inp,
        n_aux,
        a_aux,
        b_inp,
        b_aux,
        a_aux_pop,
        b_inp_pop,
        b_aux_pop,
        circuits,
    }
}

/// bellperson's `impl From<&ProvingAssignment> for Assignment`.
fn assignment(f: &Fixture, c: &Circuit) -> Assignment<Scalar> {
    Assignment {
        a_aux_density: f.a_aux.as_ptr(),
        a_aux_bit_len: f.n_aux,
        a_aux_popcount: f.a_aux_pop,
        b_inp_density: f.b_inp.as_ptr(),
        b_inp_bit_len: f.n_inp,
        b_inp_popcount: f.b_inp_pop,
        b_aux_density: f.b_aux.as_ptr(),
        b_aux_bit_len: f.n_aux,
        b_aux_popcount: f.b_aux_pop,
        a: c.a.as_ptr(),
        b: c.b.as_ptr(),
        c: c.c.as_ptr(),
        abc_size: c.a.len(),
        inp_assignment_data: c.inp.as_ptr(),
        inp_assignment_size: c.inp.len(),
        aux_assignment_data: c.aux.as_ptr(),
        aux_assignment_size: c.aux.len(),
    }
}

/// Curio's split start for one circuit of the fixture, with a, b, c from
/// the caller (copies it may free once the call returns); r and s go as
/// temporaries, freed when the call returns too.
fn start_one(
    f: &Fixture,
    c: &Circuit,
    abc: [&[Scalar]; 3],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    start_groth16_proof(
        &[abc[0].as_ptr()],
        &[abc[1].as_ptr()],
        &[abc[2].as_ptr()],
        f.abc_size,
        &[c.inp.as_ptr()],
        &[c.aux.as_ptr()],
        f.n_inp,
        f.n_aux,
        &f.a_aux,
        &f.b_inp,
        &f.b_aux,
        f.a_aux_pop,
        f.b_inp_pop,
        f.b_aux_pop,
        1,
        &[c.r],
        &[c.s],
        srs,
        gpu_mtx,
        gpu_index,
    )
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else {
        String::from("(no message)")
    }
}

#[test]
fn bellperson_batch_equals_cuzk() {
    let f = fixture();
    // bellperson: SuprasealParameters::new
    let srs = SRS::try_new(f.params.clone(), false)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))
        .unwrap();
    let provers: Vec<_> = f.circuits.iter().map(|c| assignment(&f, c)).collect();
    let r_s: Vec<_> = f.circuits.iter().map(|c| c.r).collect();
    let s_s: Vec<_> = f.circuits.iter().map(|c| c.s).collect();
    let mut proofs = vec![Proof::default(); f.circuits.len()];
    generate_groth16_proofs(&provers, &r_s, &s_s, &mut proofs, &srs);
    for (i, (p, c)) in proofs.iter().zip(f.circuits.iter()).enumerate() {
        assert!(p.bytes() == c.proof, "circuit {}: not cuzk's proof", i);
    }
}

#[test]
fn curio_single_call_with_mutex_equals_cuzk() {
    let f = fixture();
    let srs = SRS::try_new(f.params.clone(), false).unwrap();
    let n = f.circuits.len();
    let ptrs = |g: fn(&Circuit) -> *const Scalar| -> Vec<*const Scalar> {
        f.circuits.iter().map(g).collect()
    };
    let r_s: Vec<_> = f.circuits.iter().map(|c| c.r).collect();
    let s_s: Vec<_> = f.circuits.iter().map(|c| c.s).collect();
    let mut proofs = vec![Proof::default(); n];
    let mtx = alloc_gpu_mutex();
    assert!(!mtx.is_null());
    generate_groth16_proof(
        &ptrs(|c| c.a.as_ptr()),
        &ptrs(|c| c.b.as_ptr()),
        &ptrs(|c| c.c.as_ptr()),
        f.abc_size,
        &ptrs(|c| c.inp.as_ptr()),
        &ptrs(|c| c.aux.as_ptr()),
        f.n_inp,
        f.n_aux,
        &f.a_aux,
        &f.b_inp,
        &f.b_aux,
        f.a_aux_pop,
        f.b_inp_pop,
        f.b_aux_pop,
        n,
        &r_s,
        &s_s,
        &mut proofs,
        &srs,
        mtx,
        0,
    );
    unsafe { free_gpu_mutex(mtx) };
    for (i, (p, c)) in proofs.iter().zip(f.circuits.iter()).enumerate() {
        assert!(p.bytes() == c.proof, "circuit {}: not cuzk's proof", i);
    }
}

/// Curio's engine: several workers, one GPU mutex per "GPU", each starting
/// a proof of one circuit, freeing its a, b, c and r, s at once, finishing
/// later, and dropping the handle afterwards too (its Drop does that after
/// a failed finish; here after a good one: it must be harmless).
#[test]
fn curio_split_calls_from_threads_equal_cuzk() {
    let f = Arc::new(fixture());
    let srs = Arc::new(SRS::try_new(f.params.clone(), false).unwrap());
    struct Mutex(*mut c_void);
    unsafe impl Send for Mutex {}
    unsafe impl Sync for Mutex {}
    let mutexes = Arc::new([Mutex(alloc_gpu_mutex()), Mutex(alloc_gpu_mutex())]);
    let workers: Vec<_> = (0..f.circuits.len())
        .map(|i| {
            let (f, srs, mutexes) = (f.clone(), srs.clone(), mutexes.clone());
            std::thread::spawn(move || {
                let c = &f.circuits[i];
                // copies that are freed right after start, as Curio's bellperson does
                let (a, b, cc) = (c.a.clone(), c.b.clone(), c.c.clone());
                let handle =
                    start_one(&f, c, [&a, &b, &cc], &srs, mutexes[i % 2].0, (i % 2) as i32);
                assert!(!handle.is_null());
                drop((a, b, cc));
                let mut proofs = vec![Proof::default(); 1];
                finish_groth16_proof(handle, &mut proofs);
                unsafe { drop_pending_proof(handle) };
                assert!(proofs[0].bytes() == c.proof, "circuit {}: not cuzk's proof", i);
            })
        })
        .collect();
    for w in workers {
        w.join().expect("a worker failed");
    }
    for m in mutexes.iter() {
        unsafe { free_gpu_mutex(m.0) };
    }
}

#[test]
fn srs_handles_clone_drop_and_cache() {
    let f = fixture();
    let a = SRS::try_new(f.params.clone(), true).unwrap();
    let b = SRS::try_new(f.params.clone(), true).unwrap();
    let c = b.clone();
    drop(a);
    drop(b);
    c.evict();
    // the clone still proves
    let provers = vec![assignment(&f, &f.circuits[0])];
    let mut proofs = vec![Proof::default(); 1];
    generate_groth16_proofs(&provers, &[f.circuits[0].r], &[f.circuits[0].s], &mut proofs, &c);
    assert!(proofs[0].bytes() == f.circuits[0].proof);
    let empty = SRS::default();
    let copy = empty.clone();
    drop(copy);
}

#[test]
fn errors_come_back_with_messages() {
    let f = fixture();
    // a missing file: the errno and upstream's message
    let e = match SRS::try_new(PathBuf::from("/nonexistent/v28-missing.params"), false) {
        Err(e) => e,
        Ok(_) => panic!("a missing file loaded"),
    };
    assert_eq!(e.code, 2);
    let text = e.to_string();
    assert!(text.contains("open(\"/nonexistent/v28-missing.params\") failed"), "{}", text);
    assert!(format!("{:?}", e).contains("code: 2"));
    let s: String = e.into(); // frees the message through libc's free
    assert!(s.contains("No such file"));

    // a wrong size panics with the library's message, as upstream's wrapper does
    let srs = SRS::try_new(f.params.clone(), false).unwrap();
    let c = &f.circuits[0];
    let mut bad = assignment(&f, c);
    bad.abc_size = 1 << 12;
    let mut proofs = vec![Proof::default(); 1];
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        generate_groth16_proofs(&[bad], &[c.r], &[c.s], &mut proofs, &srs)
    }));
    let text = panic_text(got.expect_err("a wrong abc_size was accepted"));
    assert!(text.contains("exceeds the domain"), "{}", text);
    // an unsatisfied row
    let mut cc = c.c.clone();
    cc[3].0[0] ^= 1;
    let mut bad = assignment(&f, c);
    bad.c = cc.as_ptr();
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        generate_groth16_proofs(&[bad], &[c.r], &[c.s], &mut proofs, &srs)
    }));
    let text = panic_text(got.expect_err("an unsatisfied row was accepted"));
    assert!(text.contains("constraint 3 is not satisfied"), "{}", text);
    // the proofs were not written
    assert!(proofs[0].bytes().iter().all(|&x| x == 0));

    // a split proof finished into too little room: a panic, nothing written
    // past the slice, and the handle gone
    let start = || start_one(&f, c, [&c.a, &c.b, &c.c], &srs, std::ptr::null_mut(), -1);
    let handle = start();
    let mut none: Vec<Proof> = Vec::new();
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        finish_groth16_proof(handle, &mut none)
    }));
    let text = panic_text(got.expect_err("a finish without room was accepted"));
    assert!(text.contains("room for 0 proofs, the handle has 1"), "{}", text);
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        finish_groth16_proof(handle, &mut proofs)
    }));
    let text = panic_text(got.expect_err("a handle was finished twice"));
    assert!(text.contains("not a pending proof"), "{}", text);
    // with room, the same proof as the one-call form
    let handle = start();
    finish_groth16_proof(handle, &mut proofs);
    assert!(proofs[0].bytes() == c.proof, "the split proof is not cuzk's");
}
