//! Links libcuzk_supraseal. Where it is and how:
//!   CUZK_SUPRASEAL_LIB_DIR  the folder with libcuzk_supraseal.so / .a (cuzk's
//!                           build/lib, or an install's lib); unset: the
//!                           linker's default search path
//!   CUZK_SUPRASEAL_STATIC=1 link libcuzk_supraseal.a into the program (plus
//!                           the OpenMP runtime, libgomp): nothing to install
//!                           beside the binary
//! A program linked dynamically finds libcuzk_supraseal.so through the usual
//! means (an installed library, LD_LIBRARY_PATH).
use std::env;

fn main() {
    println!("cargo:rerun-if-env-changed=CUZK_SUPRASEAL_LIB_DIR");
    println!("cargo:rerun-if-env-changed=CUZK_SUPRASEAL_STATIC");
    if let Ok(dir) = env::var("CUZK_SUPRASEAL_LIB_DIR") {
        println!("cargo:rustc-link-search=native={}", dir);
    }
    let static_link = env::var("CUZK_SUPRASEAL_STATIC")
        .map(|v| v == "1")
        .unwrap_or(false);
    if static_link {
        println!("cargo:rustc-link-lib=static=cuzk_supraseal");
        println!("cargo:rustc-link-lib=dylib=gomp");
        println!("cargo:rustc-link-lib=dylib=pthread");
        println!("cargo:rustc-link-lib=dylib=m");
    } else {
        println!("cargo:rustc-link-lib=dylib=cuzk_supraseal");
    }
}
