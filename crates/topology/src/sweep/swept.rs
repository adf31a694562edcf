//! Where a sweep point's error belongs: a bad value that a `[[sweep.param]]`
//! put into the scenario is named in the sweep, not at the file's base value.

use toml::{Table, Value};

use super::path::{segments, Seg};
use super::Param;
use crate::error::ScenarioError;

/// A point's error about a key that a parameter sets (or a key inside it)
/// is the swept value's fault: point it at that value in `[[sweep.param]]`
/// (`sweep.param[j].values[k]`), with the scenario's key path in the message,
/// instead of at the file's base value, which is valid.
pub(super) fn at_swept_value(
    e: ScenarioError,
    doc: &Table,
    params: &[Param],
    combo: &[usize],
) -> ScenarioError {
    let under = |key: &str| {
        e.path == key
            || e.path
                .strip_prefix(key)
                .is_some_and(|rest| rest.starts_with(['.', '[']))
    };
    let set_by = |p: &Param| {
        under(&p.key) || under(&indexed(doc, &p.key)) || wildcard_prefix(&e.path, &p.key)
    };
    match params.iter().position(set_by) {
        Some(j) => ScenarioError {
            path: format!("sweep.param[{j}].values[{}]", combo[j]),
            position: None,
            message: format!("{}: {}", e.path, e.message),
        },
        None => e,
    }
}

/// `key` with every element of a list that it selects by name
/// (`flows.low.count`) selected by index instead (`flows[0].count`), the form
/// scenario errors use.
fn indexed(doc: &Table, key: &str) -> String {
    let Ok(segs) = segments(key) else {
        return key.to_string();
    };
    let mut out = String::new();
    let mut cur: Option<&Value> = None;
    for (k, seg) in segs.iter().enumerate() {
        let (part, next) = match (seg, cur) {
            (Seg::Key(name), None) if k == 0 => (name.to_string(), doc.get(*name)),
            (Seg::Key(name), Some(Value::Table(t))) => (format!(".{name}"), t.get(*name)),
            (Seg::Key(name), Some(Value::Array(a))) => {
                match a
                    .iter()
                    .position(|e| e.get("name").and_then(Value::as_str) == Some(*name))
                {
                    Some(i) => (format!("[{i}]"), a.get(i)),
                    None => (format!(".{name}"), None),
                }
            }
            (Seg::Key(name), _) => (format!(".{name}"), None),
            (Seg::Index(i), Some(Value::Array(a))) => (format!("[{i}]"), a.get(*i)),
            (Seg::Index(i), _) => (format!("[{i}]"), None),
            (Seg::All, _) => ("[*]".to_string(), None),
        };
        out.push_str(&part);
        cur = next;
    }
    out
}

/// Whether `path` (`flows[3].cc.w`) lies under `key` with `[*]` standing for
/// any index (`flows[*].cc`).
fn wildcard_prefix(path: &str, key: &str) -> bool {
    if !key.contains("[*]") {
        return false;
    }
    let (mut p, mut k) = (path, key);
    while let Some(i) = k.find("[*]") {
        let Some(rest) = p.strip_prefix(&k[..i]) else {
            return false;
        };
        let Some(after) = rest.strip_prefix('[') else {
            return false;
        };
        let Some(close) = after.find(']') else {
            return false;
        };
        if after[..close].parse::<usize>().is_err() {
            return false;
        }
        p = &after[close + 1..];
        k = &k[i + 3..];
    }
    p.strip_prefix(k)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}
