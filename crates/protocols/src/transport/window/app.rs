//! The application side of a persistent connection: an [`AppSource`] writes
//! objects into a [`WindowSender`] over time; each write extends the data to
//! send and queues the object whose completion (its last byte acknowledged)
//! the sender reports. Provenance: see the parent module (the application
//! source bullet).

use sim_core::{Controller, EndpointCtx, ParamError, SimRng, SimTime};

use super::WindowSender;
use crate::transport::TcpConfig;

/// An application that writes data into a [`WindowSender`] over time (the
/// objects of a persistent connection). The sender asks for the next write
/// once the previous one is due, drawing from its own random stream.
pub trait AppSource: Send {
    /// The next write: when, and how many bytes (>= 1); `None`: no more.
    fn next_write(&mut self, rng: &mut SimRng) -> Option<(SimTime, u64)>;
}

impl WindowSender {
    /// A sender of what `app` writes over time (a persistent connection), in
    /// `mss`-byte segments.
    pub fn with_app(
        cfg: &TcpConfig,
        cc: Box<dyn Controller>,
        mss: u32,
        app: Box<dyn AppSource>,
    ) -> Result<Self, ParamError> {
        let mut s = WindowSender::new(cfg, cc, mss, None)?;
        s.end = 0;
        s.app = Some(app);
        Ok(s)
    }

    /// Apply the application's writes due by now.
    pub(super) fn apply_writes(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        while let Some((at, bytes)) = self.next_write {
            if at > now {
                break;
            }
            self.end += bytes;
            self.objects.push_back((self.end, at, bytes));
            self.next_write = match &mut self.app {
                Some(app) => app.next_write(ctx.rng()),
                None => None,
            };
        }
    }
}
