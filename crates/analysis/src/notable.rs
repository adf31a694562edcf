//! Which links a report or a utilisation chart shows: the notable ones, so
//! that a dumbbell's bottleneck is not lost among dozens of idle access and
//! ACK links. (Re-exported from [`crate::metrics`].)

/// Utilisation at or above which a link is shown even without queue or losses.
pub const NOTABLE_UTILISATION: f64 = 0.5;

/// What decides whether a link is notable: the means across replications of
/// its arrivals, drops, marks, 99th backlog percentile and utilisation (0
/// where undefined).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct LinkLoad {
    /// `arrived_pkts`.
    pub arrived: f64,
    /// `dropped_pkts`.
    pub dropped: f64,
    /// `marked_pkts`.
    pub marked: f64,
    /// `backlog_p99_pkts`.
    pub backlog_p99: f64,
    /// `utilisation`.
    pub utilisation: f64,
}

/// The links worth showing in the report and the utilisation chart, by
/// position in `loads`, and how many were left out. A link is notable when
/// it dropped or marked a packet, had a queue at its 99th backlog
/// percentile, or was at least [`NOTABLE_UTILISATION`] busy: in a dumbbell,
/// the bottleneck but not the dozens of access and ACK links. If no link is
/// notable, every link that carried traffic is; a link nothing arrived at is
/// never shown.
pub fn notable(loads: &[LinkLoad]) -> (Vec<usize>, usize) {
    let used: Vec<usize> = (0..loads.len())
        .filter(|&i| loads[i].arrived > 0.0)
        .collect();
    let loaded: Vec<usize> = used
        .iter()
        .copied()
        .filter(|&i| {
            let l = &loads[i];
            l.dropped > 0.0
                || l.marked > 0.0
                || l.backlog_p99 > 0.0
                || l.utilisation >= NOTABLE_UTILISATION
        })
        .collect();
    let shown = if loaded.is_empty() { used } else { loaded };
    let omitted = loads.len() - shown.len();
    (shown, omitted)
}
