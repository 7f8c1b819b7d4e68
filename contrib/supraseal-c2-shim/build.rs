//! Links libcuzk_supraseal. Where it is and how:
//!   CUZK_SUPRASEAL_LIB_DIR  the folder with libcuzk_supraseal.so / .a (cuzk's
//!                           build/lib, or an install's lib); unset: the
//!                           linker's default search path
//!   CUZK_SUPRASEAL_STATIC=1 link libcuzk_supraseal.a into the program, with
//!                           what it needs: the linker flags in
//!                           libcuzk_supraseal.a.deps beside it (the OpenMP
//!                           runtime; in a CUDA build the static CUDA runtime
//!                           and the libraries it needs), or, without that
//!                           file, libgomp, libpthread and libm: nothing of
//!                           cuzk to install beside the binary
//!   CUZK_SUPRASEAL_EXTRA_LIBS  more linker flags (-L and -l only), for a
//!                           program that used what upstream's library
//!                           brought along: Curio's engine calls the CUDA
//!                           runtime itself (e.g. "-L/usr/local/cuda/lib64
//!                           -lcudart"), which libcuzk_supraseal keeps private
//! A program linked dynamically finds libcuzk_supraseal.so through the usual
//! means (an installed library, LD_LIBRARY_PATH).
use std::env;
use std::fs;
use std::path::Path;

/// The -L and -l flags of a .deps file, as cargo's link directives.
fn link_flags(flags: &str) {
    for f in flags.split_whitespace() {
        if let Some(dir) = f.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
        } else if let Some(lib) = f.strip_prefix("-l") {
            println!("cargo:rustc-link-lib={}", lib);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=CUZK_SUPRASEAL_LIB_DIR");
    println!("cargo:rerun-if-env-changed=CUZK_SUPRASEAL_STATIC");
    let dir = env::var("CUZK_SUPRASEAL_LIB_DIR").ok();
    if let Some(d) = &dir {
        println!("cargo:rustc-link-search=native={}", d);
    }
    let static_link = env::var("CUZK_SUPRASEAL_STATIC")
        .map(|v| v == "1")
        .unwrap_or(false);
    if static_link {
        println!("cargo:rustc-link-lib=static=cuzk_supraseal");
        let deps = dir
            .as_ref()
            .map(|d| Path::new(d).join("libcuzk_supraseal.a.deps"))
            .filter(|p| p.exists());
        match deps {
            Some(p) => {
                println!("cargo:rerun-if-changed={}", p.display());
                let flags = fs::read_to_string(&p)
                    .unwrap_or_else(|e| panic!("reading {}: {}", p.display(), e));
                link_flags(&flags);
            }
            None => link_flags("-lgomp -lpthread -lm"),
        }
    } else {
        println!("cargo:rustc-link-lib=dylib=cuzk_supraseal");
    }
    println!("cargo:rerun-if-env-changed=CUZK_SUPRASEAL_EXTRA_LIBS");
    if let Ok(extra) = env::var("CUZK_SUPRASEAL_EXTRA_LIBS") {
        link_flags(&extra);
    }
}
