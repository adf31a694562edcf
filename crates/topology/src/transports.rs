//! Which endpoints a flow group gets: the glue between the scenario's `cc`,
//! `tcp` and `traffic` tables and the transports in `protocols`.

use sim_core::{Controller, EcnFeedback, Endpoint, ParamError};

use protocols::tfrc::{TfrcReceiver, TfrcSender};
use protocols::traffic::TrafficConfig;
use protocols::transport::{AppSource, TcpConfig, TcpSink, WindowSender};

use crate::scenario::FlowGroupConfig;

/// Check a TFRC group's `tfrc` table (keys relative to the group).
pub fn validate_tfrc(g: &FlowGroupConfig) -> Result<(), ParamError> {
    g.tfrc
        .clone()
        .unwrap_or_default()
        .validate()
        .map_err(|e| e.prefixed("tfrc"))
}

/// The TFRC sender and receiver for one flow of `g` with `s`-byte packets
/// (`size`: None = without end). The group was validated by
/// [`validate_tfrc`] at parse time.
pub fn tfrc_endpoints(
    g: &FlowGroupConfig,
    s: u32,
    size: Option<u64>,
) -> (Box<dyn Endpoint>, Box<dyn Endpoint>) {
    let cfg = g.tfrc.clone().unwrap_or_default();
    (
        Box::new(TfrcSender::new(&cfg, s, size)),
        Box::new(TfrcReceiver::new(&cfg)),
    )
}

/// Check a PCC group (`transport = "pcc"`; keys relative to the group): its
/// `pcc` parameters, bulk traffic (the non-adaptable application is PCC's
/// own CBR sender at `pcc.rate`), no `cc` or `tcp` table.
pub fn validate_pcc(g: &FlowGroupConfig) -> Result<(), ParamError> {
    if let Some(p) = &g.pcc {
        p.validate().map_err(|e| e.prefixed("pcc"))?;
    }
    if g.traffic != TrafficConfig::default() {
        return Err(ParamError::new(
            "traffic",
            format!(
                "transport `pcc` sends its own constant bit rate at `pcc.rate`; traffic `{}` \
                 does not apply (leave `traffic` out)",
                g.traffic.name()
            ),
        ));
    }
    for (key, set) in [("cc", g.cc.is_some()), ("tcp", g.tcp.is_some())] {
        if set {
            return Err(ParamError::new(
                key,
                "transport `pcc` takes no congestion controller or tcp settings",
            ));
        }
    }
    Ok(())
}

/// Check the group's congestion controller and transport settings
/// (keys relative to the group), at both ends of its packet-size range.
pub fn validate_tcp(g: &FlowGroupConfig) -> Result<(), ParamError> {
    let (lo, hi) = g.packet_size.bounds();
    validate_tcp_mss(g, lo.get() as u32)?;
    if hi != lo {
        validate_tcp_mss(g, hi.get() as u32)?;
    }
    Ok(())
}

fn validate_tcp_mss(g: &FlowGroupConfig, mss: u32) -> Result<(), ParamError> {
    let tcp = g.tcp.clone().unwrap_or_default();
    tcp.validate().map_err(|e| e.prefixed("tcp"))?;
    let cc = g.cc.clone().unwrap_or_default();
    let ctl = cc.build(mss).map_err(|e| e.prefixed("cc"))?;
    let feedback = ctl.ecn_feedback();
    if feedback == EcnFeedback::PerPacket && !tcp.ecn {
        return Err(ParamError::new(
            "tcp.ecn",
            format!(
                "cc kind `{}` reacts to ECN marks and needs an ECN-capable transport: \
                 set `tcp = {{ ecn = true }}`",
                cc.name()
            ),
        ));
    }
    WindowSender::new(&tcp, ctl, mss, None).map_err(|e| e.prefixed("tcp"))?;
    TcpSink::new(&tcp, feedback).map_err(|e| e.prefixed("tcp"))?;
    Ok(())
}

/// The TCP sender and receiver for one flow of `g` with `mss`-byte segments
/// (the flow's packet size, within the group's range; `size`: None = infinite
/// backlog). The group was validated by [`validate_tcp`] at parse time.
pub fn tcp_endpoints(
    g: &FlowGroupConfig,
    mss: u32,
    size: Option<u64>,
) -> (Box<dyn Endpoint>, Box<dyn Endpoint>) {
    endpoints(g, mss, |tcp, ctl| WindowSender::new(tcp, ctl, mss, size))
}

/// As [`tcp_endpoints`], for a sender whose data `app` writes over time (a
/// persistent web connection).
pub fn tcp_app_endpoints(
    g: &FlowGroupConfig,
    mss: u32,
    app: Box<dyn AppSource>,
) -> (Box<dyn Endpoint>, Box<dyn Endpoint>) {
    endpoints(g, mss, |tcp, ctl| {
        WindowSender::with_app(tcp, ctl, mss, app)
    })
}

/// The group's controller and transport settings for `mss`-byte segments,
/// the sender `make` builds from them and its receiver.
fn endpoints(
    g: &FlowGroupConfig,
    mss: u32,
    make: impl FnOnce(&TcpConfig, Box<dyn Controller>) -> Result<WindowSender, ParamError>,
) -> (Box<dyn Endpoint>, Box<dyn Endpoint>) {
    const VALIDATED: &str = "flow group parameters were validated when the scenario was parsed";
    let tcp = g.tcp.clone().unwrap_or_default();
    let ctl =
        g.cc.clone()
            .unwrap_or_default()
            .build(mss)
            .expect(VALIDATED);
    let feedback = ctl.ecn_feedback();
    let sender = make(&tcp, ctl).expect(VALIDATED);
    let sink = TcpSink::new(&tcp, feedback).expect(VALIDATED);
    (Box::new(sender), Box::new(sink))
}
