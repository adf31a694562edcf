//! The SACK sender's scoreboard: which bytes above the cumulative ACK the
//! receiver reported holding, and the loss and pipe estimates RFC 6675 derives
//! from them.
//!
//! Provenance:
//! - RFC 2018 section 3-4: SACK blocks report contiguous data held above the
//!   cumulative ACK; the sender records them per segment.
//! - RFC 6675 section 4: `Update()` (record every SACKed byte), `IsLost(S)`
//!   (true when more than `(DupThresh - 1) * SMSS` bytes above `S` are SACKed,
//!   or `DupThresh` discontiguous SACKed sequences lie above it), `SetPipe()`
//!   (every unSACKed byte between `HighACK` and `HighData` counts once if it is
//!   not lost and once more if it is at or below `HighRxt`).
//!
//! Representation: the SACKed bytes are a sorted list of disjoint,
//! non-adjacent `[start, end)` ranges above the cumulative ACK, so each routine
//! costs O(number of holes), not O(window). `IsLost` is monotone in `S` (a
//! lower byte has at least as much SACKed above it), so the lost bytes are
//! exactly the unSACKed ones below one boundary, [`Scoreboard::lost_end`].
//! A "discontiguous SACKed sequence" is read as one range of the list.

/// Merge `[start, end)` (non-empty) into `ranges`, sorted, disjoint and
/// non-adjacent `[start, end)` byte ranges, keeping them so; returns the bytes
/// it added. (The receiver's out-of-order data and the sender's scoreboard.)
pub(crate) fn merge_range(ranges: &mut Vec<(u64, u64)>, start: u64, end: u64) -> u64 {
    let i = ranges.partition_point(|r| r.1 < start);
    let (mut s, mut e) = (start, end);
    let mut covered = 0;
    let mut j = i;
    while j < ranges.len() && ranges[j].0 <= e {
        let (a, b) = ranges[j];
        covered += b.min(end).saturating_sub(a.max(start));
        s = s.min(a);
        e = e.max(b);
        j += 1;
    }
    if i == j {
        ranges.insert(i, (s, e));
    } else {
        ranges[i] = (s, e);
        ranges.drain(i + 1..j);
    }
    (end - start) - covered
}

/// The ranges a SACK receiver reported, above the cumulative ACK.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Sorted, disjoint, non-adjacent `[start, end)` byte ranges.
    ranges: Vec<(u64, u64)>,
}

impl Scoreboard {
    /// The SACKed ranges, in order.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Forget everything (a timeout when the receiver may have reneged).
    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    /// `Update()`: the cumulative ACK moved to `una`, and the ACK reported
    /// `blocks`; bytes at or above `high_data` (never sent) are ignored.
    /// Returns the bytes newly SACKed.
    pub fn update(
        &mut self,
        una: u64,
        high_data: u64,
        blocks: impl IntoIterator<Item = (u64, u64)>,
    ) -> u64 {
        let below = self.ranges.partition_point(|r| r.1 <= una);
        self.ranges.drain(..below);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(una);
        }
        let mut newly = 0;
        for (s, e) in blocks {
            let (s, e) = (s.max(una), e.min(high_data));
            if s < e {
                newly += self.insert(s, e);
            }
        }
        newly
    }

    /// Merge `[start, end)` into the ranges; the bytes it adds.
    fn insert(&mut self, start: u64, end: u64) -> u64 {
        merge_range(&mut self.ranges, start, end)
    }

    /// Is byte `seq` SACKed?
    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 <= seq);
        self.ranges.get(i).is_some_and(|r| r.0 <= seq)
    }

    /// The first byte at or above `from` that is not SACKed.
    pub fn next_unsacked(&self, from: u64) -> u64 {
        let i = self.ranges.partition_point(|r| r.1 <= from);
        match self.ranges.get(i) {
            Some(&(s, e)) if s <= from => e,
            _ => from,
        }
    }

    /// One past the highest SACKed byte (`HighSACK + 1`), if any.
    pub fn high_sacked(&self) -> Option<u64> {
        self.ranges.last().map(|r| r.1)
    }

    /// The highest byte below `high_data` that is not SACKed, if any at or
    /// above `una`.
    pub fn last_unsacked(&self, una: u64, high_data: u64) -> Option<u64> {
        let mut top = high_data;
        for &(s, e) in self.ranges.iter().rev() {
            if e < top {
                break;
            }
            top = top.min(s);
        }
        (top > una).then(|| top - 1)
    }

    /// Bytes in `[a, b)` that are not SACKed.
    pub fn unsacked_in(&self, a: u64, b: u64) -> u64 {
        if b <= a {
            return 0;
        }
        let i = self.ranges.partition_point(|r| r.1 <= a);
        let covered: u64 = self.ranges[i..]
            .iter()
            .take_while(|r| r.0 < b)
            .map(|r| r.1.min(b) - r.0.max(a))
            .sum();
        (b - a) - covered
    }

    /// `IsLost`'s boundary: every unSACKed byte below it (and at or above
    /// `una`) is lost, none at or above it. `una` when nothing is lost.
    pub fn lost_end(&self, una: u64, dupthresh: u32, mss: u64) -> u64 {
        let bytes_limit = u64::from(dupthresh.saturating_sub(1)).saturating_mul(mss);
        let mut bytes = 0u64;
        for (k, &(s, e)) in self.ranges.iter().enumerate().rev() {
            bytes += e - s;
            let count = self.ranges.len() - k;
            if bytes > bytes_limit || count >= dupthresh as usize {
                return s.max(una);
            }
        }
        una
    }

    /// `SetPipe()`: the bytes the sender estimates are in the network, for
    /// cumulative ACK `una`, highest byte sent `high_data` (exclusive),
    /// retransmitted up to `high_rxt` (exclusive) in this recovery.
    pub fn pipe(&self, una: u64, high_data: u64, high_rxt: u64, dupthresh: u32, mss: u64) -> u64 {
        let lost = self.lost_end(una, dupthresh, mss);
        self.unsacked_in(lost.max(una), high_data) + self.unsacked_in(una, high_rxt.min(high_data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literal RFC 6675 routines, octet by octet, for comparison.
    fn is_lost_literal(sb: &Scoreboard, seq: u64, dupthresh: u32, mss: u64) -> bool {
        let above: Vec<_> = sb.ranges().iter().filter(|r| r.0 > seq).collect();
        let bytes: u64 = above.iter().map(|r| r.1 - r.0).sum();
        bytes > u64::from(dupthresh - 1) * mss || above.len() >= dupthresh as usize
    }

    fn pipe_literal(sb: &Scoreboard, una: u64, high: u64, rxt: u64, d: u32, mss: u64) -> u64 {
        let mut pipe = 0;
        for s in una..high {
            if sb.is_sacked(s) {
                continue;
            }
            if !is_lost_literal(sb, s, d, mss) {
                pipe += 1;
            }
            if s < rxt {
                pipe += 1;
            }
        }
        pipe
    }

    #[test]
    fn update_merges_blocks_counts_new_bytes_and_trims_below_the_ack() {
        let mut sb = Scoreboard::default();
        assert_eq!(sb.update(0, 10_000, [(3000, 4000), (6000, 7000)]), 2000);
        assert_eq!(sb.update(0, 10_000, [(3000, 5000)]), 1000);
        assert_eq!(sb.ranges(), &[(3000, 5000), (6000, 7000)]);
        assert_eq!(sb.update(0, 10_000, [(5000, 6000)]), 1000);
        assert_eq!(sb.ranges(), &[(3000, 7000)]);
        // Beyond HighData is ignored; the ACK moving into a range trims it.
        assert_eq!(sb.update(4000, 8000, [(7000, 9000)]), 1000);
        assert_eq!(sb.ranges(), &[(4000, 8000)]);
        assert_eq!(sb.update(8000, 9000, []), 0);
        assert!(sb.ranges().is_empty());
    }

    #[test]
    fn queries_follow_the_ranges() {
        let mut sb = Scoreboard::default();
        sb.update(1000, 9000, [(2000, 3000), (5000, 7000)]);
        assert!(sb.is_sacked(2000) && sb.is_sacked(6999));
        assert!(!sb.is_sacked(1999) && !sb.is_sacked(3000) && !sb.is_sacked(7000));
        assert_eq!(sb.next_unsacked(1000), 1000);
        assert_eq!(sb.next_unsacked(2000), 3000);
        assert_eq!(sb.next_unsacked(5500), 7000);
        assert_eq!(sb.high_sacked(), Some(7000));
        assert_eq!(sb.last_unsacked(1000, 9000), Some(8999));
        assert_eq!(sb.last_unsacked(1000, 7000), Some(4999));
        assert_eq!(sb.unsacked_in(1000, 9000), 5000);
        assert_eq!(sb.unsacked_in(2500, 5500), 2000);
    }

    #[test]
    fn lost_and_pipe_match_the_rfc_routines_octet_by_octet() {
        let mss = 10;
        // Random-ish patterns: every third and fifth segment SACKed etc.
        for pattern in 0u32..64 {
            let mut sb = Scoreboard::default();
            let segs = 12u64;
            let blocks: Vec<_> = (1..segs)
                .filter(|k| pattern >> (k % 6) & 1 == 1)
                .map(|k| (k * mss, (k + 1) * mss))
                .collect();
            sb.update(0, segs * mss, blocks);
            for d in 1..=4 {
                let lost = sb.lost_end(0, d, mss);
                for s in 0..segs * mss {
                    if !sb.is_sacked(s) {
                        assert_eq!(
                            s < lost,
                            is_lost_literal(&sb, s, d, mss),
                            "{pattern} {d} {s}"
                        );
                    }
                }
                for rxt in [0, 25, 60, 120] {
                    assert_eq!(
                        sb.pipe(0, segs * mss, rxt, d, mss),
                        pipe_literal(&sb, 0, segs * mss, rxt, d, mss),
                        "pattern {pattern} dupthresh {d} high_rxt {rxt}"
                    );
                }
            }
        }
    }
}
