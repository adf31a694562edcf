//! Per-component random streams.
//!
//! Every component that draws random numbers gets its own ChaCha8 stream derived
//! from `(master seed, replication, component kind, component index)`. Adding a flow
//! never changes the draws of an unrelated link, and the same seed gives the same
//! draws on any platform and at any thread count. Algorithms receive `&mut` their
//! stream; they never create one.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The generator every component uses: portable and seekable.
pub type SimRng = ChaCha8Rng;

/// What kind of component a stream belongs to (part of the stream's identity).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum StreamKind {
    /// A link's random loss process.
    LinkLoss = 1,
    /// A link algorithm (RED's coin flips, ...).
    LinkAlgorithm = 2,
    /// An endpoint (sender or receiver).
    Endpoint = 3,
    /// A flow group's arrival and size process, or start jitter.
    Group = 4,
}

/// SplitMix64 finaliser: a bijective mixer for deriving seeds.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream for component `(kind, index)` in replication `replication` of a
/// scenario with master seed `seed`.
pub fn stream(seed: u64, replication: u32, kind: StreamKind, index: u32) -> SimRng {
    let key = mix(mix(seed) ^ u64::from(replication));
    let mut rng = ChaCha8Rng::seed_from_u64(key);
    rng.set_stream((u64::from(kind as u8) << 32) | u64::from(index));
    rng
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn a_lazy_stream_draws_what_the_eager_one_draws() {
        let mut lazy = LazyRng::new(9, 2, StreamKind::Endpoint, 11);
        let mut eager = stream(9, 2, StreamKind::Endpoint, 11);
        for _ in 0..100 {
            assert_eq!(lazy.get().random::<u64>(), eager.random::<u64>());
        }
    }

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: u64 = stream(1, 0, StreamKind::LinkLoss, 3).random();
        let b: u64 = stream(1, 0, StreamKind::LinkLoss, 3).random();
        let c: u64 = stream(1, 0, StreamKind::LinkLoss, 4).random();
        let d: u64 = stream(1, 1, StreamKind::LinkLoss, 3).random();
        let e: u64 = stream(2, 0, StreamKind::LinkLoss, 3).random();
        let f: u64 = stream(1, 0, StreamKind::Endpoint, 3).random();
        assert_eq!(a, b);
        for x in [c, d, e, f] {
            assert_ne!(a, x);
        }
    }
}

/// A component's stream, created on first use: components that never draw
/// (most links, most endpoints) cost 32 bytes instead of a ChaCha state, and the
/// draws are the same as with an eagerly created stream.
#[derive(Clone, Debug)]
pub struct LazyRng {
    seed: u64,
    replication: u32,
    kind: StreamKind,
    index: u32,
    rng: Option<Box<SimRng>>,
}

impl LazyRng {
    /// The stream [`stream`]`(seed, replication, kind, index)`, not yet created.
    pub fn new(seed: u64, replication: u32, kind: StreamKind, index: u32) -> Self {
        LazyRng {
            seed,
            replication,
            kind,
            index,
            rng: None,
        }
    }

    /// The generator, created on the first call.
    #[inline]
    pub fn get(&mut self) -> &mut SimRng {
        let (s, r, k, i) = (self.seed, self.replication, self.kind, self.index);
        self.rng.get_or_insert_with(|| Box::new(stream(s, r, k, i)))
    }

    /// Free the generator of a stream that will not be drawn from again.
    pub fn release(&mut self) {
        self.rng = None;
    }
}
