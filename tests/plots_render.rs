//! Every plot the README's commands produce is rendered and is a real image:
//! `netsim run scenarios/quickstart.toml --plot`, `netsim plot` on its output
//! (with and without `--replication`), and `netsim plot` on the campaign of
//! `scenarios/sweeps/buffer-utilisation.toml`. Short runs and two
//! replications keep it to seconds.

#[path = "common/cli.rs"]
mod cli;

use std::path::{Path, PathBuf};

/// The PNG and SVG files in `dir`, sorted.
fn images(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("png" | "svg")))
        .collect();
    v.sort();
    v
}

/// Each file is non-empty and a valid PNG (signature, IHDR of the chart's
/// size) or SVG (an `<svg` element with text, closed).
fn check_images(files: &[PathBuf]) {
    assert!(!files.is_empty());
    for f in files {
        let bytes = std::fs::read(f).unwrap();
        assert!(bytes.len() > 1000, "{} is (nearly) empty", f.display());
        match f.extension().and_then(|e| e.to_str()) {
            Some("png") => {
                assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", f.display());
                assert_eq!(&bytes[12..16], b"IHDR", "{}", f.display());
                let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
                let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
                assert_eq!((w, h), (1024, 640), "{}", f.display());
            }
            Some("svg") => {
                let s = String::from_utf8(bytes).unwrap();
                assert!(s.contains("<svg"), "{}", f.display());
                assert!(s.trim_end().ends_with("</svg>"), "{}", f.display());
                assert!(s.contains("<text"), "{} has no text", f.display());
            }
            other => panic!("unexpected file {other:?}"),
        }
    }
    // Different charts are different pictures.
    let pngs: Vec<&PathBuf> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "png"))
        .collect();
    for (i, a) in pngs.iter().enumerate() {
        for b in &pngs[i + 1..] {
            assert_ne!(
                std::fs::read(a).unwrap(),
                std::fs::read(b).unwrap(),
                "{} and {} are identical",
                a.display(),
                b.display()
            );
        }
    }
}

fn svg(dir: &Path, stem: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{stem}.svg"))).unwrap()
}

/// The scenario at `path` with its run shortened to `duration`, in `dir`.
fn shortened(path: &str, duration: &str, dir: &Path) -> PathBuf {
    let src = std::fs::read_to_string(path).unwrap();
    let short = src.replacen("duration = \"", &format!("duration = \"{duration}\" # "), 1);
    let out = dir.join(Path::new(path).file_name().unwrap());
    std::fs::write(&out, short).unwrap();
    out
}

#[test]
fn quickstart_plots_are_images_with_a_band_warmup_and_group_legends() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = shortened("scenarios/quickstart.toml", "12s", tmp.path());
    let out = tmp.path().join("out");
    let (ok, text) = cli::netsim([
        "run".as_ref(),
        scenario.as_os_str(),
        "--replications".as_ref(),
        "2".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        "--plot".as_ref(),
        "--quiet".as_ref(),
    ]);
    assert!(ok, "{text}");
    let files = images(&out);
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for stem in [
        "series_flow_cwnd_bytes",
        "series_flow_rate_bps",
        "series_link_queue_pkts",
        "summary_goodput",
        "summary_utilisation",
    ] {
        for ext in ["png", "svg"] {
            let n = format!("{stem}.{ext}");
            assert!(names.contains(&n), "{n} missing from {names:?}");
        }
    }
    check_images(&files);

    let cwnd = svg(&out, "series_flow_cwnd_bytes");
    // Titles in words with units, the two replications' mean and its band.
    assert!(cwnd.contains("Congestion window per flow (kB)"), "title");
    assert!(cwnd.contains("mean of 2 replications, 95% CI"), "subtitle");
    assert!(cwnd.contains("<polygon"), "no CI band");
    // Group names in the legend, the warm-up labelled, axes with units.
    assert!(cwnd.contains("tcp f0"), "group names not in the legend");
    assert!(!cwnd.contains(">f0<"), "bare flow ids in the legend");
    assert!(cwnd.contains("warm-up"));
    assert!(cwnd.contains("time (s)"));
    let queue = svg(&out, "series_link_queue_pkts");
    assert!(
        queue.contains("Queue length at r1-&gt;r2 (packets)")
            || queue.contains("Queue length at r1->r2 (packets)"),
        "queue title"
    );
    let util = svg(&out, "summary_utilisation");
    assert!(util.contains("utilisation (%)"));

    // `netsim plot DIR` redraws the same charts; `--replication 1` draws one
    // replication without a band.
    let (ok, text) = cli::netsim(["plot".as_ref(), out.as_os_str()]);
    assert!(ok, "{text}");
    assert_eq!(images(&out), files);
    assert_eq!(svg(&out, "series_flow_cwnd_bytes"), cwnd);
    let (ok, text) = cli::netsim([
        "plot".as_ref(),
        out.as_os_str(),
        "--replication".as_ref(),
        "1".as_ref(),
    ]);
    assert!(ok, "{text}");
    let one = svg(&out, "series_flow_cwnd_bytes");
    assert!(one.contains("replication 1"));
    assert_ne!(one, cwnd);
    check_images(&images(&out));
}

#[test]
fn sweep_plots_are_images_in_percent_with_readable_log_axes() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = shortened("scenarios/sweeps/buffer-utilisation.toml", "8s", tmp.path());
    // Keep the warm-up inside the shortened run.
    let src = std::fs::read_to_string(&scenario).unwrap().replacen(
        "warmup = \"5s\"",
        "warmup = \"2s\"",
        1,
    );
    std::fs::write(&scenario, src).unwrap();
    let store = tmp.path().join("sweep");
    let (ok, text) = cli::netsim([
        "sweep".as_ref(),
        scenario.as_os_str(),
        "--replications".as_ref(),
        "2".as_ref(),
        "--out".as_ref(),
        store.as_os_str(),
        "--quiet".as_ref(),
    ]);
    assert!(ok, "{text}");
    let (ok, text) = cli::netsim(["plot".as_ref(), store.as_os_str()]);
    assert!(ok, "{text}");
    let files = images(&store);
    check_images(&files);
    let util = svg(&store, "sweep_link_utilisation");
    assert!(
        util.contains("utilisation (%)"),
        "utilisation not in percent"
    );
    // The metrics that are zero at every point (no marks: DropTail) are not drawn.
    assert!(!store.join("sweep_link_marked_pkts.png").exists());
}
