//! Property: no value a user can type into a shipped scenario makes parsing,
//! validation or network building panic or abort. Each case takes one of the
//! project's own scenario files and replaces one number or unit string by an
//! extreme (zero, negative, 2^31, 2^32, ±1e300, NaN, infinity, a bare unit, a
//! time past the clock); the result must be a scenario or an error that names
//! a place. Session 49's fuzzing found three crashes of this kind (a 2^31 flow
//! count aborted on a 100-GB allocation; a 213-day delay overflowed the clock;
//! a million-point sweep product was built before it was counted).

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use topology::sweep::Campaign;
use topology::Resolved;

/// Every `.toml` under `scenarios/`, sorted (the benchmark files included).
fn scenario_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("scenarios/ is readable") {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios"),
        &mut out,
    );
    out.sort();
    out
}

/// A replaceable token: byte range in the text, and the unit suffix of a
/// quoted unit string (`None` for a bare number).
type Token = (usize, usize, Option<String>);

/// The bare numbers and quoted unit strings (`"20ms"`, `"10Mbps"`) outside
/// comments.
fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let b = line.as_bytes();
        let mut i = 0;
        let mut in_string = false;
        while i < b.len() {
            let c = b[i];
            if !in_string && c == b'#' {
                break;
            }
            if c == b'"' {
                if !in_string {
                    // A quoted string that starts with a digit: a unit string.
                    let end = line[i + 1..].find('"').map(|j| i + 1 + j);
                    if let Some(end) = end {
                        let inner = &line[i + 1..end];
                        let digits = inner
                            .find(|ch: char| !(ch.is_ascii_digit() || ch == '.'))
                            .unwrap_or(inner.len());
                        if digits > 0 && digits < inner.len() {
                            let unit = &inner[digits..];
                            if unit.chars().all(|ch| ch.is_ascii_alphabetic()) {
                                out.push((offset + i, offset + end + 1, Some(unit.to_string())));
                            }
                        }
                        i = end + 1;
                        continue;
                    }
                }
                in_string = !in_string;
                i += 1;
                continue;
            }
            let starts_number = !in_string
                && (c.is_ascii_digit()
                    || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
                && (i == 0 || matches!(b[i - 1], b' ' | b'=' | b'[' | b','));
            if starts_number {
                let mut j = i + 1;
                while j < b.len()
                    && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'.' | b'_' | b'+' | b'-'))
                {
                    j += 1;
                }
                out.push((offset + i, offset + j, None));
                i = j;
                continue;
            }
            i += 1;
        }
        offset += line.len();
    }
    out
}

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "2147483648",
    "4294967296",
    "1e300",
    "-1e300",
    "nan",
    "inf",
    "-inf",
    "0.0",
    "1e-300",
    "0.5",
];
const UNIT_VALUES: &[&str] = &["0", "-1", "1e30", "", "nan", "18446744", "1000001", "1e-9"];

/// `text` with token `k` (of its tokens, modulo their count) replaced by
/// extreme `v` (modulo the extremes of its kind).
fn mutate(text: &str, k: usize, v: usize) -> Option<(String, String)> {
    let toks = tokens(text);
    let (a, b, unit) = toks.get(k % toks.len().max(1))?.clone();
    let new = match unit {
        Some(u) => format!("\"{}{u}\"", UNIT_VALUES[v % UNIT_VALUES.len()]),
        None => NUMBERS[v % NUMBERS.len()].to_string(),
    };
    let what = format!("`{}` -> `{new}`", &text[a..b]);
    Some((format!("{}{new}{}", &text[..a], &text[b..]), what))
}

/// Parse `src`, build replication 0's network (the link and source
/// constructors) and expand its sweep. A panic or an abort fails the caller;
/// an error that names no place (key path or line) is returned.
fn handled(src: &str) -> Result<(), String> {
    let placed = |e: topology::ScenarioError| {
        if e.path.is_empty() && e.position.is_none() {
            Err(format!("an error without a place: {e}"))
        } else {
            Ok(())
        }
    };
    match Resolved::parse(src, "t") {
        Ok(r) => drop(r.build(1, 0)),
        Err(e) => placed(e)?,
    }
    match Campaign::parse(src, "t") {
        Ok(_) => Ok(()),
        Err(e) => placed(e),
    }
}

#[test]
fn the_token_scanner_finds_numbers_and_unit_strings_but_not_comments() {
    let t = "a = 5 # 7\nb = \"20ms\"\nc = [1, -2.5]\nd = \"s{i}\"\ne = \"100pkt\"\n";
    let found: Vec<&str> = tokens(t).iter().map(|&(a, b, _)| &t[a..b]).collect();
    assert_eq!(found, ["5", "\"20ms\"", "1", "-2.5", "\"100pkt\""]);
    // Every shipped file has something to mutate.
    for f in scenario_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(!tokens(&text).is_empty(), "{}", f.display());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, .. ProptestConfig::default() })]

    #[test]
    fn an_extreme_value_anywhere_is_an_error_or_a_scenario_never_a_crash(
        file in any::<prop::sample::Index>(),
        token in any::<usize>(),
        value in any::<usize>(),
    ) {
        let files = scenario_files();
        let path = file.get(&files);
        let text = std::fs::read_to_string(path).unwrap();
        let Some((src, what)) = mutate(&text, token, value) else {
            return Ok(());
        };
        let handled = handled(&src);
        prop_assert!(handled.is_ok(), "{} with {what}: {:?}", path.display(), handled);
    }
}

/// Every token of five files that between them use every preset, a sweep,
/// start spacing, an arrival process and EMKC/JetMax routers, against every
/// extreme: deterministic, so a lost limit fails every time.
#[test]
fn every_extreme_in_every_place_of_five_files_is_handled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    for name in [
        "quickstart.toml",
        "papers/wtp-multcp/e09-fig9-markprob-tuned.toml",
        "papers/zhang/e5-7-parking-lot-naive-literal.toml",
        "papers/zhang/e6-1-mice.toml",
        "papers/qlb/rcp-parking-lot.toml",
    ] {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        let n = tokens(&text).len();
        for k in 0..n {
            for v in 0..NUMBERS.len().max(UNIT_VALUES.len()) {
                let (src, what) = mutate(&text, k, v).unwrap();
                if let Err(e) = handled(&src) {
                    panic!("{name} with {what}: {e}");
                }
            }
        }
    }
}
