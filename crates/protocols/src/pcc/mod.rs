//! Probabilistic Congestion Control (PCC) for non-adaptable flows (Damm 2001,
//! spec `seed-004-damm-pcc.md`): a flow that can only be on (sending at its
//! application rate `r_NA`) or off, kept TCP-friendly in the aggregate by a
//! random experiment every `T_EXP` that keeps it on with probability
//! `p_ON = r_TCP / r_EFF`.
//!
//! - [`decision`]: the receiver's decision machine (protected time, the
//!   experiments, the sets `P` and `P*`, the off time), pure logic.
//! - [`adjust`]: the optional Ramesh/Rhee rate adjustment and the packet loss
//!   rate it needs.
//! - [`oracle`]: App. A's expected protected-time durations (test oracles).
//! - [`config`]: the scenario parameters (`pcc = { ... }`).
//! - [`sender`], [`receiver`]: the endpoints of `transport = "pcc"`. The
//!   receiver decides; the sender sends r_NA while allowed. Their packets
//!   carry the TFRC/PCC headers of `sim_core` ([`crate::tfrc`] supplies the
//!   loss-event history and the TCP equation).

pub mod adjust;
pub mod config;
pub mod decision;
pub mod oracle;
pub mod receiver;
pub mod sender;
mod wire;

pub use adjust::{adjusted_rate, expected_loss_event_rate};
pub use config::{LossSpan, PccConfig};
pub use decision::{
    rand_unit_open_closed, Action, DecisionConfig, DecisionStats, Experiment, Formula, Inputs,
    Outcome, PccDecision, Phase, TcpRate,
};
pub use receiver::{LastExperiment, PccReceiver};
pub use sender::{PccSender, SenderState};
