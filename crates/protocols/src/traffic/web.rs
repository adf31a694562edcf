//! Web traffic: sessions of pages of objects, each object a TCP transfer.
//!
//! Provenance:
//! - The session / page / object structure and its open-loop timing are those
//!   of ns-2's web traffic generator (`PagePool/WebTraf`, after Feldmann et
//!   al., "Dynamics of IP traffic: a study of the role of variability and the
//!   impact of control", SIGCOMM 1999): a session requests a number of pages,
//!   consecutive page requests separated by an inter-page time; a page is a
//!   number of objects, consecutive object requests separated by an
//!   inter-object time; each object is sent by its own new TCP connection
//!   from the server to the client.
//! - The defaults are Zhang (2008) E7.8's: pages per session U[10, 2000],
//!   inter-page time Exp(1 s), objects per page U[1, 5], inter-object time
//!   Exp(0.01 s), object sizes Pareto with mean 10 KB and shape 1.2.
//!
//! INFERRED: the inter-page time runs from a page's last object request to
//! the next page's first, whether or not the page has arrived (ns-2's
//! generator does not wait for the transfers either; it times pages from
//! their first request, which lets a slow page overlap the next: with the
//! default gaps, 10 ms between objects against 1 s between pages, the two
//! differ by about 2 % of a session's length); a session's first page comes
//! one inter-page time after the session starts. Sessions start together at the
//! group's start, or, with `session_rate`, as a Poisson process from it.
//! Connections (`connection`): `"fresh"` (the default, ns-2's) opens a new
//! connection per object, slow start from the initial window; each object is
//! a flow of its group, its start, completion time and counters a row of the
//! flows table. `"persistent"` carries all of a session's objects, one after
//! another, on one connection (HTTP/1.1 with pipelining: a request does not
//! wait for the previous object), the window kept between them: each session
//! is a flow from its first request, and each object a row of the objects
//! table (request time, completion time = acknowledgement of its last byte,
//! size).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sim_core::{check_range, Bytes, ParamError, SimDuration, SimRng, SimTime};

use super::{DurationDist, SizeDist};

/// A distribution of counts (pages per session, objects per page).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum CountDist {
    /// Always `n`.
    Fixed {
        /// The count (>= 1).
        n: u32,
    },
    /// Uniform on the integers `[min, max]`.
    Uniform {
        /// Smallest count (>= 1).
        min: u32,
        /// Largest count (>= min).
        max: u32,
    },
    /// Geometric on 1, 2, ... with this mean (>= 1): success probability
    /// 1 / mean (Barford and Crovella's objects per page, mean 6.55 in
    /// Zimmermann (2005) E4).
    Geometric {
        /// The mean count.
        mean: f64,
    },
}

impl CountDist {
    /// Check parameters.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            CountDist::Fixed { n: 0 } => Err(ParamError::new("n", "must be >= 1")),
            CountDist::Uniform { min: 0, .. } => Err(ParamError::new("min", "must be >= 1")),
            CountDist::Uniform { min, max } if max < min => Err(ParamError::new(
                "max",
                format!("{max} is below min ({min}); allowed: min <= max"),
            )),
            CountDist::Geometric { mean } if !(mean.is_finite() && *mean >= 1.0) => Err(
                ParamError::new("mean", format!("{mean} must be >= 1 (counts start at 1)")),
            ),
            _ => Ok(()),
        }
    }

    /// The mean count.
    pub fn mean(&self) -> f64 {
        match self {
            CountDist::Fixed { n } => f64::from(*n),
            CountDist::Uniform { min, max } => (f64::from(*min) + f64::from(*max)) / 2.0,
            CountDist::Geometric { mean } => *mean,
        }
    }

    /// Draw one count.
    pub fn sample(&self, rng: &mut SimRng) -> u32 {
        use rand::Rng;
        match self {
            CountDist::Fixed { n } => *n,
            CountDist::Uniform { min, max } => rng.random_range(*min..=*max),
            CountDist::Geometric { mean } => {
                if *mean <= 1.0 {
                    return 1;
                }
                // Inverse transform: 1 + floor(ln U / ln(1 - p)), p = 1 / mean.
                let u: f64 = 1.0 - rng.random::<f64>();
                let k = 1.0 + (u.ln() / (1.0 - 1.0 / mean).ln()).floor();
                k.min(f64::from(u32::MAX)) as u32
            }
        }
    }
}

/// How a session's objects travel.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Connection {
    /// A new connection per object (ns-2's web traffic generator).
    #[default]
    Fresh,
    /// One connection per session, its objects written as they are requested.
    Persistent,
}

/// How a session's requests follow one another.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageTiming {
    /// Requests follow requests (ns-2's `PagePool/WebTraf`): a page's objects
    /// an inter-object time apart, the next page an inter-page time after
    /// the page's last request, whether or not its objects have arrived.
    #[default]
    OpenLoop,
    /// Requests follow arrivals (the ON/OFF model of Barford and Crovella's
    /// SURGE, "Generating representative web workloads for network and
    /// server performance evaluation", SIGMETRICS 1998, and of Zimmermann
    /// (2005) Fig. 5.6.8): a page's first (main) object is requested alone;
    /// its other (in-line) objects once the main object has arrived, the
    /// first an inter-object time after that and the others an
    /// inter-object time apart; the next page an inter-page (think, OFF)
    /// time after the page's last object has arrived. Fresh connections only.
    ClosedLoop,
    /// Closed loop with one object at a time: as `ClosedLoop`, but every
    /// in-line object is requested an inter-object time after the previous
    /// object has arrived (a browser with one connection per server and no
    /// pipelining, HTTP/1.0 style; Fig. 5.6.8 of Zimmermann (2005) draws
    /// the in-line objects one after another). Fresh connections only.
    Sequential,
}

impl PageTiming {
    /// Requests wait for arrivals.
    pub fn closed(self) -> bool {
        self != PageTiming::OpenLoop
    }
}

/// The web traffic model of a flow group (`traffic = { kind = "web", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebConfig {
    /// Number of sessions (>= 1). Default 1. Session `k` runs between the
    /// group's `k mod count`-th pair of hosts (`from` is the server).
    pub sessions: u32,
    /// Sessions per second arriving as a Poisson process from the group's
    /// start; default: all sessions start at the group's start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_rate: Option<f64>,
    /// Pages per session. Default U[10, 2000] (Zhang 2008, E7.8).
    pub pages: CountDist,
    /// Time between consecutive page requests of a session. Default Exp(1 s).
    pub inter_page: DurationDist,
    /// Objects per page. Default U[1, 5].
    pub objects: CountDist,
    /// Time between consecutive object requests of a page. Default Exp(10 ms).
    pub inter_object: DurationDist,
    /// Object sizes. Default Pareto, mean 10 KB (10 000 B), shape 1.2.
    pub object_size: SizeDist,
    /// A connection per object (`"fresh"`, default) or per session
    /// (`"persistent"`).
    pub connection: Connection,
    /// `"open_loop"` (default), `"closed_loop"` or `"sequential"`
    /// ([`PageTiming`]).
    pub page_timing: PageTiming,
}

impl Default for WebConfig {
    fn default() -> Self {
        WebConfig {
            sessions: 1,
            session_rate: None,
            pages: CountDist::Uniform { min: 10, max: 2000 },
            inter_page: DurationDist::Exponential {
                mean: SimDuration::from_secs(1),
            },
            objects: CountDist::Uniform { min: 1, max: 5 },
            inter_object: DurationDist::Exponential {
                mean: SimDuration::from_millis(10),
            },
            object_size: SizeDist::Pareto {
                mean: Bytes::new(10_000),
                shape: 1.2,
            },
            connection: Connection::Fresh,
            page_timing: PageTiming::OpenLoop,
        }
    }
}

impl WebConfig {
    /// Check parameters (keys relative to the `traffic` table).
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.sessions == 0 {
            return Err(ParamError::new("sessions", "must be >= 1"));
        }
        if let Some(r) = self.session_rate {
            check_range("session_rate", r, f64::MIN_POSITIVE, 1e9)?;
        }
        self.pages.validate().map_err(|e| e.prefixed("pages"))?;
        self.inter_page
            .validate()
            .map_err(|e| e.prefixed("inter_page"))?;
        self.objects.validate().map_err(|e| e.prefixed("objects"))?;
        self.inter_object
            .validate()
            .map_err(|e| e.prefixed("inter_object"))?;
        self.object_size
            .validate()
            .map_err(|e| e.prefixed("object_size"))?;
        if self.page_timing.closed() && self.connection == Connection::Persistent {
            return Err(ParamError::new(
                "page_timing",
                "\"closed_loop\" and \"sequential\" need connection = \"fresh\" (a \
                 persistent connection's writes are timed open-loop)",
            ));
        }
        Ok(())
    }

    /// Expected number of objects requested within `secs` seconds of the
    /// group's start (each session's pages capped by the time available),
    /// for bounding the flow population before a run.
    pub fn expected_objects(&self, secs: f64) -> f64 {
        let per_page = self.inter_page.mean().as_secs_f64();
        let pages = if per_page > 0.0 {
            self.pages.mean().min(secs / per_page + 1.0)
        } else {
            self.pages.mean()
        };
        f64::from(self.sessions) * pages * self.objects.mean()
    }
}

/// Where a session stands.
#[derive(Clone, Debug)]
struct Session {
    /// Pages still to start after the current one.
    pages_left: u32,
    /// Objects of the current page still to request.
    objects_left: u32,
    /// The next request starts a page.
    new_page: bool,
    /// Pages started so far (the current page's number is one less).
    pages_started: u32,
    /// Closed loop: the next request of the page waits for an arrival (the
    /// main object's; sequential, the previous object's).
    waiting: bool,
}

impl Session {
    /// A session about to request the first object of its first page.
    fn new(cfg: &WebConfig, rng: &mut SimRng) -> Self {
        Session {
            pages_left: cfg.pages.sample(rng) - 1,
            objects_left: cfg.objects.sample(rng),
            new_page: true,
            pages_started: 0,
            waiting: false,
        }
    }

    /// An object was requested at `at`: the time of the session's next
    /// request, if any (the next object of the page, or an inter-page time
    /// after this last one of its page, the next page's).
    fn advance(&mut self, cfg: &WebConfig, at: SimTime, rng: &mut SimRng) -> Option<SimTime> {
        self.objects_left -= 1;
        if self.objects_left > 0 {
            Some(at.saturating_add(cfg.inter_object.sample(rng)))
        } else if self.pages_left > 0 {
            self.pages_left -= 1;
            self.objects_left = cfg.objects.sample(rng);
            Some(at.saturating_add(cfg.inter_page.sample(rng)))
        } else {
            None
        }
    }
}

/// The first request of each session of `cfg` starting at `start`, in time
/// order: `(time, session)`. Sessions start together or, with
/// `session_rate`, as a Poisson process; the first request follows one
/// inter-page time.
fn first_requests(cfg: &WebConfig, start: SimTime, rng: &mut SimRng) -> Vec<(SimTime, u32)> {
    use rand::Rng;
    let mut at = start;
    let mut v: Vec<(SimTime, u32)> = (0..cfg.sessions)
        .map(|k| {
            if let Some(rate) = cfg.session_rate {
                let u: f64 = rng.random();
                at = at.saturating_add(SimDuration::from_secs_f64(-(1.0 - u).ln() / rate));
            }
            (at.saturating_add(cfg.inter_page.sample(rng)), k)
        })
        .collect();
    v.sort_unstable();
    v
}

/// A persistent connection's application: one session's objects, written
/// at their request times ([`crate::transport::AppSource`]). The session's
/// pages and objects are drawn from the sender's own random stream.
pub struct SessionApp {
    cfg: Arc<WebConfig>,
    session: Option<Session>,
    next: Option<SimTime>,
}

impl SessionApp {
    /// The session whose first request is at `first`.
    pub fn new(cfg: Arc<WebConfig>, first: SimTime) -> Self {
        SessionApp {
            cfg,
            session: None,
            next: Some(first),
        }
    }
}

impl crate::transport::AppSource for SessionApp {
    fn next_write(&mut self, rng: &mut SimRng) -> Option<(SimTime, u64)> {
        let at = self.next?;
        let cfg = &*self.cfg;
        let session = self.session.get_or_insert_with(|| Session::new(cfg, rng));
        let size = cfg.object_size.sample(rng);
        self.next = session.advance(cfg, at, rng);
        Some((at, size))
    }
}

/// The session starts of a persistent-connection web group, in time order.
#[derive(Debug)]
pub struct SessionStarts {
    starts: Vec<(SimTime, u32)>,
    next: usize,
}

impl SessionStarts {
    /// The sessions of `cfg` starting at `start` (draws their first request
    /// times from `rng`).
    pub fn new(cfg: &WebConfig, start: SimTime, rng: &mut SimRng) -> Self {
        SessionStarts {
            starts: first_requests(cfg, start, rng),
            next: 0,
        }
    }

    /// The next session's first request time, if any.
    pub fn peek(&self) -> Option<SimTime> {
        self.starts.get(self.next).map(|s| s.0)
    }

    /// Take the next session: its first request time and index.
    pub fn pop(&mut self) -> Option<(SimTime, u32)> {
        let s = self.starts.get(self.next).copied()?;
        self.next += 1;
        Some(s)
    }
}

/// The object requests of a web group (fresh connections), in time order:
/// a heap of each session's next request, and the pages not yet complete.
/// Open loop, the schedule runs on its own; closed loop, requests after a
/// page's main object and after its last object wait for
/// [`WebSchedule::object_done`].
#[derive(Debug)]
pub struct WebSchedule {
    cfg: WebConfig,
    sessions: Vec<Session>,
    /// `(time of the session's next object request, session)`.
    next: BinaryHeap<Reverse<(SimTime, u32)>>,
    /// Each session's pages with objects still to request or to arrive, in
    /// request order (open loop a slow page can overlap the next ones;
    /// closed loop there is at most one).
    open: Vec<VecDeque<OpenPage>>,
}

/// A page still being requested or transferred.
#[derive(Clone, Debug)]
struct OpenPage {
    /// Its number in the session (0-based).
    seq: u32,
    requested: SimTime,
    objects: u32,
    bytes: u64,
    /// Objects requested and not yet arrived.
    outstanding: u32,
    /// All its objects have been requested.
    all_requested: bool,
}

/// One object request: its session and page, and its size in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WebObject {
    /// The session (0-based).
    pub session: u32,
    /// The page's number within the session (0-based).
    pub page: u32,
    /// Object size, bytes (>= 1).
    pub size: u64,
}

/// A page whose objects have all arrived.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PageDone {
    /// The session (0-based).
    pub session: u32,
    /// When its first object was requested.
    pub requested: SimTime,
    /// Its objects.
    pub objects: u32,
    /// Its size, bytes.
    pub bytes: u64,
}

impl WebSchedule {
    /// The sessions of `cfg` starting at `start` (draws their start times,
    /// page counts and first page times from `rng`).
    pub fn new(cfg: &WebConfig, start: SimTime, rng: &mut SimRng) -> Self {
        let firsts = first_requests(cfg, start, rng);
        WebSchedule {
            cfg: cfg.clone(),
            sessions: (0..cfg.sessions).map(|_| Session::new(cfg, rng)).collect(),
            next: firsts.into_iter().map(Reverse).collect(),
            open: vec![VecDeque::new(); cfg.sessions as usize],
        }
    }

    /// Time of the next object request known now, if any.
    pub fn peek(&self) -> Option<SimTime> {
        self.next.peek().map(|Reverse((t, _))| *t)
    }

    /// Take the next object request (due at [`WebSchedule::peek`]): draw its
    /// size, then, unless it has to wait for an arrival, schedule the
    /// session's following request.
    pub fn pop(&mut self, rng: &mut SimRng) -> Option<(SimTime, WebObject)> {
        let Reverse((at, k)) = self.next.pop()?;
        let cfg = &self.cfg;
        let size = cfg.object_size.sample(rng);
        let s = &mut self.sessions[k as usize];
        let open = &mut self.open[k as usize];
        if s.new_page {
            s.new_page = false;
            open.push_back(OpenPage {
                seq: s.pages_started,
                requested: at,
                objects: 0,
                bytes: 0,
                outstanding: 0,
                all_requested: false,
            });
            s.pages_started += 1;
        }
        let page = open.back_mut().expect("a page was opened");
        page.objects += 1;
        page.bytes += size;
        page.outstanding += 1;
        let seq = page.seq;
        match cfg.page_timing {
            PageTiming::OpenLoop => {
                let last = s.objects_left == 1;
                let next = s.advance(cfg, at, rng);
                if last {
                    page.all_requested = true;
                    s.new_page = true;
                }
                if let Some(t) = next {
                    self.next.push(Reverse((t, k)));
                }
            }
            PageTiming::ClosedLoop | PageTiming::Sequential => {
                s.objects_left -= 1;
                if s.objects_left == 0 {
                    page.all_requested = true;
                } else if page.objects == 1 || cfg.page_timing == PageTiming::Sequential {
                    s.waiting = true;
                } else {
                    let t = at.saturating_add(cfg.inter_object.sample(rng));
                    self.next.push(Reverse((t, k)));
                }
            }
        }
        Some((
            at,
            WebObject {
                session: k,
                page: seq,
                size,
            },
        ))
    }

    /// Object `obj` (as [`WebSchedule::pop`] gave it) arrived at `now`: the
    /// page it completes, if any. Closed loop, the session's next request
    /// follows (the page's in-line objects after its main object; the next
    /// page after its last object).
    pub fn object_done(
        &mut self,
        obj: WebObject,
        now: SimTime,
        rng: &mut SimRng,
    ) -> Option<PageDone> {
        let cfg = &self.cfg;
        let k = obj.session;
        let s = &mut self.sessions[k as usize];
        let open = &mut self.open[k as usize];
        let i = open.iter().position(|p| p.seq == obj.page)?;
        let page = &mut open[i];
        page.outstanding -= 1;
        let closed = cfg.page_timing.closed();
        if closed && s.waiting {
            s.waiting = false;
            let t = now.saturating_add(cfg.inter_object.sample(rng));
            self.next.push(Reverse((t, k)));
        }
        if !(page.all_requested && page.outstanding == 0) {
            return None;
        }
        let page = open.remove(i).expect("found above");
        if closed && s.pages_left > 0 {
            s.pages_left -= 1;
            s.objects_left = cfg.objects.sample(rng);
            s.new_page = true;
            let t = now.saturating_add(cfg.inter_page.sample(rng));
            self.next.push(Reverse((t, k)));
        }
        Some(PageDone {
            session: k,
            requested: page.requested,
            objects: page.objects,
            bytes: page.bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stream, StreamKind};

    fn rng() -> SimRng {
        stream(5, 0, StreamKind::Group, 0)
    }

    #[test]
    fn geometric_counts_have_the_requested_mean_and_start_at_one() {
        let d = CountDist::Geometric { mean: 6.55 };
        let mut rng = stream(5, 0, StreamKind::Group, 0);
        let n = 200_000;
        let xs: Vec<u32> = (0..n).map(|_| d.sample(&mut rng)).collect();
        assert!(xs.iter().all(|&k| k >= 1));
        let mean = xs.iter().map(|&k| f64::from(k)).sum::<f64>() / n as f64;
        // Var = (1 - p) / p^2 = 36.35, SE = 0.0135; 6 SE.
        assert!((mean - 6.55).abs() < 6.0 * 0.0135, "{mean}");
        // P(1) = p = 1 / 6.55; binomial SE 8.0e-4; 6 SE.
        let ones = xs.iter().filter(|&&k| k == 1).count() as f64 / n as f64;
        assert!((ones - 1.0 / 6.55).abs() < 6.0 * 8.0e-4, "{ones}");
        assert!(CountDist::Geometric { mean: 0.5 }.validate().is_err());
    }

    #[test]
    fn defaults_are_zhang_e7_8_and_parse_from_an_empty_table() {
        let c: WebConfig = toml::from_str("").unwrap();
        assert_eq!(c, WebConfig::default());
        assert_eq!(c.pages.mean(), 1005.0);
        assert_eq!(c.objects.mean(), 3.0);
        assert_eq!(c.object_size.mean(), 10_000.0);
        assert!(c.validate().is_ok());
        let c: WebConfig = toml::from_str(
            "sessions = 4\npages = { dist = \"fixed\", n = 2 }\n\
             inter_page = { dist = \"fixed\", duration = \"2s\" }",
        )
        .unwrap();
        assert_eq!(c.sessions, 4);
        assert!(toml::from_str::<WebConfig>("think = \"1s\"").is_err());
        let c: WebConfig = toml::from_str("connection = \"persistent\"").unwrap();
        assert_eq!(c.connection, Connection::Persistent);
        assert!(toml::from_str::<WebConfig>("connection = \"keep_alive\"").is_err());
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |t: &str| {
            toml::from_str::<WebConfig>(t)
                .unwrap()
                .validate()
                .unwrap_err()
                .key
        };
        assert_eq!(bad("sessions = 0"), "sessions");
        assert_eq!(bad("session_rate = 0.0"), "session_rate");
        assert_eq!(
            bad("pages = { dist = \"uniform\", min = 5, max = 2 }"),
            "pages.max"
        );
        assert_eq!(bad("objects = { dist = \"fixed\", n = 0 }"), "objects.n");
        assert_eq!(
            bad("object_size = { dist = \"pareto\", mean = \"10KB\", shape = 1.0 }"),
            "object_size.shape"
        );
    }

    /// A fixed schedule: every time and count known in advance.
    #[test]
    fn a_deterministic_session_requests_its_pages_and_objects_on_time() {
        let c = WebConfig {
            sessions: 2,
            pages: CountDist::Fixed { n: 3 },
            inter_page: DurationDist::Fixed {
                duration: SimDuration::from_secs(1),
            },
            objects: CountDist::Fixed { n: 2 },
            inter_object: DurationDist::Fixed {
                duration: SimDuration::from_millis(10),
            },
            object_size: SizeDist::Fixed {
                size: Bytes::new(5000),
            },
            ..WebConfig::default()
        };
        let mut r = rng();
        let mut s = WebSchedule::new(&c, SimTime::ZERO, &mut r);
        let mut got = Vec::new();
        while let Some((t, o)) = s.pop(&mut r) {
            got.push((t.as_secs_f64(), o.session, o.size));
        }
        // 2 sessions x 3 pages x 2 objects: pages 1 s after the previous
        // page's last request (at 1, 2.01, 3.02 s), objects 10 ms apart.
        assert_eq!(got.len(), 12);
        let times: Vec<f64> = got.iter().step_by(2).map(|g| g.0).collect();
        for (i, t) in [1.0, 1.01, 2.01, 2.02, 3.02, 3.03].iter().enumerate() {
            assert!((times[i] - t).abs() < 1e-9, "{got:?}");
        }
        assert!(got.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
        assert!(got.iter().all(|g| g.2 == 5000));
        assert_eq!(got.iter().filter(|g| g.1 == 0).count(), 6);
    }

    /// The default model's means: objects per page 3, object size 10 KB,
    /// inter-page gap 1 s, measured over many draws.
    #[test]
    fn the_default_model_has_its_stated_means() {
        let c = WebConfig {
            sessions: 200,
            pages: CountDist::Fixed { n: 50 },
            ..WebConfig::default()
        };
        let mut r = rng();
        let mut s = WebSchedule::new(&c, SimTime::ZERO, &mut r);
        let mut n = 0u64;
        let mut bytes = 0f64;
        let mut last_time = 0.0f64;
        while let Some((t, o)) = s.pop(&mut r) {
            n += 1;
            bytes += o.size as f64;
            last_time = last_time.max(t.as_secs_f64());
        }
        // 200 sessions x 50 pages x 3 objects on average = 30 000; the
        // count's standard deviation is sqrt(10 000 x 2) = 141 (U[1, 5] has
        // variance 2): 5 SD.
        assert!((n as f64 - 30_000.0).abs() < 5.0 * 141.0, "{n}");
        // Pareto 1.2 has infinite variance: only a loose check of the mean
        // (the sample mean of a heavy tail is usually below it).
        let mean = bytes / n as f64;
        assert!(mean > 6_000.0 && mean < 20_000.0, "{mean}");
        // 50 pages at 1 s mean each: sessions last ~50 s; the last of 200
        // is within 50 + 5 x sqrt(50) s.
        assert!(
            last_time > 40.0 && last_time < 50.0 + 5.0 * 50f64.sqrt(),
            "{last_time}"
        );
    }
}
