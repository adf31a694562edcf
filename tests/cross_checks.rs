//! `[[expect]] cross_check`: the independent reference a miss is shared
//! with. Every citation in the project's scenario files must name a file
//! that exists and, for `path::function`, a `#[test]` function in it, so
//! that a renamed or deleted reference test cannot leave a miss labelled
//! as cross-checked; a malformed citation is an error naming its key.

use std::path::{Path, PathBuf};

#[path = "common/cli.rs"]
mod cli;

/// Every `.toml` file under `dir`, recursively, in name order.
fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "toml") {
            out.push(p);
        }
    }
}

/// The `cross_check` strings of a scenario document's `[[expect]]` and
/// `[[sweep.expect]]` entries.
fn citations(doc: &toml::Table) -> Vec<String> {
    let entries = |v: Option<&toml::Value>| -> Vec<toml::Value> {
        v.and_then(toml::Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let mut all = entries(doc.get("expect"));
    all.extend(entries(doc.get("sweep").and_then(|s| s.get("expect"))));
    all.iter()
        .filter_map(|e| e.get("cross_check")?.as_str().map(String::from))
        .collect()
}

/// Whether `src` holds `fn name(` directly under a `#[test]` attribute
/// (other attributes, such as `#[ignore = ...]`, may sit between).
fn has_test_fn(src: &str, name: &str) -> bool {
    let lines: Vec<&str> = src.lines().map(str::trim).collect();
    lines.iter().enumerate().any(|(i, l)| {
        l.starts_with(&format!("fn {name}("))
            && lines[..i]
                .iter()
                .rev()
                .take_while(|a| a.starts_with("#["))
                .any(|a| *a == "#[test]")
    })
}

#[test]
fn every_cited_cross_check_names_an_existing_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    toml_files(&root.join("scenarios"), &mut files);
    let mut cited = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let Ok(doc) = text.parse::<toml::Table>() else {
            continue;
        };
        for c in citations(&doc) {
            for item in c.split(',').map(str::trim) {
                let (path, function) = match item.split_once("::") {
                    Some((p, n)) => (p, Some(n)),
                    None => (item, None),
                };
                let target = root.join(path);
                assert!(
                    target.is_file(),
                    "{}: cross_check `{item}`: no file {path}",
                    f.display()
                );
                if let Some(name) = function {
                    let src = std::fs::read_to_string(&target).unwrap();
                    assert!(
                        has_test_fn(&src, name),
                        "{}: cross_check `{item}`: no #[test] fn {name} in {path}",
                        f.display()
                    );
                }
                cited += 1;
            }
        }
    }
    // The pricing folder cites its reference tests (Zimmermann (2005)):
    // an empty scan would mean the key or the folder moved.
    assert!(cited >= 50, "only {cited} cross-check citations found");
}

#[test]
fn the_test_function_lookup_wants_the_test_attribute() {
    let src = "#[test]\n#[ignore = \"slow\"]\nfn a() {}\n\nfn b() {}\n#[test]\nfn c_d() {}\n";
    assert!(has_test_fn(src, "a"));
    assert!(!has_test_fn(src, "b"));
    assert!(has_test_fn(src, "c_d"));
    assert!(!has_test_fn(src, "c"));
}

const SCENARIO: &str = r#"
name = "x"
[run]
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { capacity = "10Mbps", delay = "1ms", buffer = "100pkt" }
access = { capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }
[[flows]]
name = "a"
from = "s0"
to = "d0"
packet_size = "1000B"
traffic = { kind = "cbr", rate = "3Mbps" }
[[expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
value = 0.3
source = "closed form"
"#;

/// `netsim check` on SCENARIO with `extra` lines appended to its expectation.
fn check(extra: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, format!("{SCENARIO}{extra}\n")).unwrap();
    cli::netsim(["check".as_ref(), path.as_os_str()])
}

#[test]
fn a_malformed_cross_check_is_an_error_naming_its_key() {
    let (ok, text) = check("cross_check = \"tests/a.rs::one, tests/b.tcl\"");
    assert!(ok, "{text}");
    for bad in [
        "cross_check = \"\"",
        "cross_check = \"/abs/path.rs::f\"",
        "cross_check = \"../up.rs\"",
        "cross_check = \"tests/a.rs::not a name\"",
        "cross_check = \"tests/a.rs::f,\"",
        "cross_check = \"tests/a.rs::f\"\nkind = \"setup\"",
    ] {
        let (ok, text) = check(bad);
        assert!(!ok, "{bad}: {text}");
        assert!(text.contains("expect[0].cross_check"), "{bad}: {text}");
        assert!(!text.contains("panicked"), "{bad}: {text}");
    }
}
