//! Line styles that survive greyscale printing, and readable tick labels.
//!
//! Each series gets a colour from the Okabe-Ito palette (distinct for the
//! common forms of colour blindness), a dash pattern and a marker shape, so
//! that lines stay distinguishable on a black-and-white printout.

use plotters::prelude::*;

/// How many distinct styles there are; more lines reuse them.
pub(crate) const STYLES: usize = 8;

/// The Okabe-Ito colours, yellow replaced by grey (yellow vanishes on white).
const COLOURS: [(u8, u8, u8); STYLES] = [
    (0, 114, 178),   // blue
    (213, 94, 0),    // vermillion
    (0, 158, 115),   // bluish green
    (204, 121, 167), // reddish purple
    (230, 159, 0),   // orange
    (86, 180, 233),  // sky blue
    (0, 0, 0),       // black
    (110, 110, 110), // grey
];

/// Dash patterns `(dash, gap)` in pixels; `None` is a solid line.
const DASHES: [Option<(u32, u32)>; STYLES] = [
    None,
    Some((12, 6)),
    Some((3, 5)),
    Some((20, 6)),
    Some((8, 4)),
    Some((2, 8)),
    Some((16, 10)),
    None,
];

/// The colour of series `i`.
pub(crate) fn colour(i: usize) -> RGBAColor {
    let (r, g, b) = COLOURS[i % STYLES];
    RGBColor(r, g, b).to_rgba()
}

/// The dash pattern of series `i` (`None`: solid).
pub(crate) fn dash(i: usize) -> Option<(u32, u32)> {
    DASHES[i % STYLES]
}

/// The marker of series `i` as a polygon around (0, 0), in pixels: circle,
/// square, triangle, diamond, inverted triangle, plus, pentagon, hexagon.
pub(crate) fn marker(i: usize) -> Vec<(i32, i32)> {
    let ring = |n: usize, r: f64, turn: f64| -> Vec<(i32, i32)> {
        (0..n)
            .map(|k| {
                let a = turn + std::f64::consts::TAU * k as f64 / n as f64;
                ((r * a.cos()).round() as i32, (r * a.sin()).round() as i32)
            })
            .collect()
    };
    let up = -std::f64::consts::FRAC_PI_2;
    match i % STYLES {
        0 => ring(12, 4.5, 0.0),
        1 => vec![(-4, -4), (4, -4), (4, 4), (-4, 4)],
        2 => ring(3, 5.5, up),
        3 => vec![(0, -6), (5, 0), (0, 6), (-5, 0)],
        4 => ring(3, 5.5, -up),
        5 => vec![
            (-2, -6),
            (2, -6),
            (2, -2),
            (6, -2),
            (6, 2),
            (2, 2),
            (2, 6),
            (-2, 6),
            (-2, 2),
            (-6, 2),
            (-6, -2),
            (-2, -2),
        ],
        6 => ring(5, 5.5, up),
        _ => ring(6, 5.0, 0.0),
    }
}

/// The three segments `(from, to)` (x offsets in pixels, within 0..30) that
/// draw series `i`'s dash pattern in a legend.
pub(crate) fn legend_segments(i: usize) -> [(i32, i32); 3] {
    match dash(i) {
        None => [(0, 10), (10, 20), (20, 30)],
        Some((d, g)) => {
            let (d, g) = (d.min(9) as i32, g.min(6) as i32);
            let s = |k: i32| ((k * (d + g)).min(30), (k * (d + g) + d).min(30));
            [s(0), s(1), s(2)]
        }
    }
}

/// A tick label with at most four significant digits and no trailing zeros.
pub(crate) fn fmt_tick(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".to_string();
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        let e = a.log10().floor() as i32;
        let m = v / 10f64.powi(e);
        let m = format!("{m:.2}");
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return if m == "1" {
            format!("1e{e}")
        } else {
            format!("{m}e{e}")
        };
    }
    let decimals = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Whether `v` is a 1-2-5 value (1, 2 or 5 times a power of ten): the only
/// values labelled on a logarithmic axis, so that its labels do not collide.
pub(crate) fn is_125(v: f64) -> bool {
    if !(v > 0.0 && v.is_finite()) {
        return false;
    }
    let e = v.log10().floor();
    let m = v / 10f64.powf(e);
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|t| ((m - t) / t).abs() < 1e-6)
}
