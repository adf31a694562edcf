//! Running the `netsim` binary from an integration test (included with
//! `#[path = "common/cli.rs"] mod cli;`).

use std::ffi::OsStr;

/// Run `netsim` with `args`: whether it succeeded, and its standard output
/// followed by its standard error.
pub fn netsim<I, S>(args: I) -> (bool, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = assert_cmd::Command::cargo_bin("netsim")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}
