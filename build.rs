//! The build's fingerprint, `NETSIM_BUILD_ID`: FNV-1a (64 bits) over the path
//! and bytes of every source file of the workspace (`src/`, each crate's `src/`
//! and the manifests and lock file). A sweep point's hash includes it
//! (src/sweep.rs), so a campaign store resumed by a different build reruns
//! its points instead of mixing their results with the old build's.

use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut files = vec![root.join("Cargo.toml"), root.join("Cargo.lock")];
    sources(&root.join("src"), &mut files);
    if let Ok(crates) = std::fs::read_dir(root.join("crates")) {
        for c in crates.flatten() {
            files.push(c.path().join("Cargo.toml"));
            sources(&c.path().join("src"), &mut files);
        }
    }
    files.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let name = f.strip_prefix(&root).unwrap_or(f).to_string_lossy();
        for b in name.bytes().chain([0]).chain(bytes) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    // A directory makes cargo rerun this script when anything under it changes.
    for p in ["src", "crates", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={p}");
    }
    println!("cargo:rustc-env=NETSIM_BUILD_ID={h:016x}");
}

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}
