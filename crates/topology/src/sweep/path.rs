//! Setting a value inside a TOML document by a sweep key's path:
//! `links[0].algo`, `flows[*].cc.w` (`[*]`: every element of a list). Missing
//! tables on the way are created; a missing list element or a path through a
//! non-table is an error naming the path.

use toml::{Table, Value};

/// A key-path segment.
pub(super) enum Seg<'a> {
    Key(&'a str),
    Index(usize),
    /// `[*]`: every element of a list.
    All,
}

pub(super) fn segments(path: &str) -> Result<Vec<Seg<'_>>, String> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() && rest.is_empty() {
            return Err(format!("`{path}` has an empty segment"));
        }
        if !key.is_empty() {
            out.push(Seg::Key(key));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let end = r
                .find(']')
                .ok_or_else(|| format!("`{path}`: missing `]`"))?;
            if r[..end].trim() == "*" {
                out.push(Seg::All);
            } else {
                let i = r[..end]
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{path}`: `[{}]` is not an index or `*`", &r[..end]))?;
                out.push(Seg::Index(i));
            }
            rest = &r[end + 1..];
        }
        if !rest.is_empty() {
            return Err(format!("`{path}`: unexpected `{rest}`"));
        }
    }
    Ok(out)
}

/// Set the value at `path` in `doc`, creating missing tables on the way.
pub fn set_path(doc: &mut Table, path: &str, new: Value) -> Result<(), String> {
    let segs = segments(path)?;
    if !matches!(segs.first(), Some(Seg::Key(_))) {
        return Err(format!("`{path}` must start with a key"));
    }
    let mut root = Value::Table(std::mem::take(doc));
    let r = set_in(&mut root, &segs, new);
    if let Value::Table(t) = root {
        *doc = t;
    }
    r
}

fn set_in(root: &mut Value, segs: &[Seg], new: Value) -> Result<(), String> {
    let mut cur = root;
    let mut walked = String::new();
    let mut new = Some(new);
    for (k, seg) in segs.iter().enumerate() {
        let last = k + 1 == segs.len();
        let next_is_key = segs.get(k + 1).is_some_and(|s| matches!(s, Seg::Key(_)));
        let here = walked.clone();
        cur = match (seg, cur) {
            (Seg::Key(key), Value::Table(t)) => {
                walked = if here.is_empty() {
                    key.to_string()
                } else {
                    format!("{here}.{key}")
                };
                if last {
                    t.insert(key.to_string(), new.take().expect("set once"));
                    return Ok(());
                }
                if !t.contains_key(*key) {
                    if !next_is_key {
                        return Err(format!(
                            "`{walked}` is not in the scenario, so it has no elements"
                        ));
                    }
                    t.insert(key.to_string(), Value::Table(Table::new()));
                }
                t.get_mut(*key).expect("just checked")
            }
            (Seg::Key(key), Value::Array(a)) => {
                let names: Vec<String> = a
                    .iter()
                    .filter_map(|e| e.get("name").and_then(Value::as_str).map(String::from))
                    .collect();
                let found = a
                    .iter_mut()
                    .find(|e| e.get("name").and_then(Value::as_str) == Some(key));
                let Some(e) = found else {
                    return Err(if names.is_empty() {
                        format!(
                            "`{here}` is a list without names; select an element by index, \
                             e.g. `{here}[0]`"
                        )
                    } else {
                        format!(
                            "no element of `{here}` is named `{key}`; names: {}",
                            names.join(", ")
                        )
                    });
                };
                walked = format!("{here}.{key}");
                if last {
                    return Err(format!(
                        "`{walked}` is a whole element; name a key inside it"
                    ));
                }
                e
            }
            (Seg::All, Value::Array(a)) => {
                // Every element gets the value at the rest of the path.
                if a.is_empty() {
                    return Err(format!("`{here}` is an empty list: `[*]` selects nothing"));
                }
                let v = new.take().expect("set once");
                for (i, e) in a.iter_mut().enumerate() {
                    if last {
                        *e = v.clone();
                    } else {
                        set_in(e, &segs[k + 1..], v.clone())
                            .map_err(|m| format!("{here}[{i}]: {m}"))?;
                    }
                }
                return Ok(());
            }
            (Seg::Index(i), Value::Array(a)) => {
                let n = a.len();
                walked = format!("{here}[{i}]");
                let Some(e) = a.get_mut(*i) else {
                    return Err(format!("`{walked}` does not exist ({n} elements)"));
                };
                if last {
                    *e = new.take().expect("set once");
                    return Ok(());
                }
                e
            }
            (Seg::Key(key), _) => {
                return Err(format!("`{here}` is a value, so it has no key `{key}`"))
            }
            (Seg::Index(i), _) => {
                return Err(format!(
                    "`{here}` is not a list, so it has no element [{i}]"
                ))
            }
            (Seg::All, _) => {
                return Err(format!("`{here}` is not a list, so `[*]` selects nothing"))
            }
        };
    }
    Ok(())
}
