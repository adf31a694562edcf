use super::*;

const BASE: &str = r#"
name = "sw"
[run]
duration = "2s"
replications = 3
seed = 7

[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { capacity = "10Mbps", delay = "10ms", buffer = "50pkt" }
access = { capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }

[[flows]]
name = "tcp"
count = 2
from = "s0"
to = "d0"
"#;

fn campaign(sweep: &str) -> Result<Campaign, ScenarioError> {
    Campaign::parse(&format!("{BASE}\n{sweep}"), "sw")
}

fn labels(c: &Campaign) -> Vec<String> {
    c.points.iter().map(|p| p.describe(&c.params)).collect()
}

fn error(sweep: &str) -> String {
    campaign(sweep).unwrap_err().to_string()
}

#[test]
fn a_scenario_without_a_sweep_is_one_point() {
    let c = Campaign::parse(BASE, "sw").unwrap();
    assert_eq!(c.points.len(), 1);
    assert_eq!(c.replications, 3);
    assert!(c.params.is_empty());
}

#[test]
fn a_product_varies_the_first_parameter_slowest() {
    let c = campaign(
        r#"[sweep]
replications = 2
[[sweep.param]]
key = "topology.bottleneck.capacity"
name = "cap"
values = ["10Mbps", "20Mbps"]
[[sweep.param]]
key = "flows.tcp.count"
from = 1
to = 3
step = 1
"#,
    )
    .unwrap();
    assert_eq!(
        labels(&c),
        [
            "cap=10Mbps, count=1",
            "cap=10Mbps, count=2",
            "cap=10Mbps, count=3",
            "cap=20Mbps, count=1",
            "cap=20Mbps, count=2",
            "cap=20Mbps, count=3"
        ]
    );
    assert_eq!(c.replications, 2);
    assert_eq!(c.runs(), 12);
    let p = &c.points[4].resolved.scenario;
    assert_eq!(p.flows[0].count, 2);
    let cap = c.points[4]
        .resolved
        .graph
        .links
        .iter()
        .find(|l| l.name == "r1->r2")
        .unwrap()
        .capacity;
    assert_eq!(cap.bps(), 20_000_000);
    assert_eq!(c.params[0].family, Family::Rate);
    assert_eq!(c.points[3].values[0].num, Some(2e7));
}

#[test]
fn zip_pairs_values_and_a_constraint_filters_points() {
    let c = campaign(
        r#"[sweep]
combine = "zip"
constraint = "pairs * 25 <= buf"
[[sweep.param]]
key = "topology.pairs"
name = "pairs"
values = [1, 2, 4]
[[sweep.param]]
key = "topology.bottleneck.buffer"
name = "buf"
values = ["50pkt", "40pkt", "100pkt"]
"#,
    )
    .unwrap();
    assert_eq!(labels(&c), ["pairs=1, buf=50pkt", "pairs=4, buf=100pkt"]);
    assert_eq!(c.points[1].index, 1);
}

#[test]
fn a_tied_parameter_moves_with_its_lead_inside_a_product() {
    let c = campaign(
        r#"[sweep]
[[sweep.param]]
key = "topology.pairs"
name = "pairs"
values = [1, 2]
[[sweep.param]]
key = "flows.tcp.cc.kind"
name = "cc"
values = ["new_reno", "cubic"]
[[sweep.param]]
key = "topology.bottleneck.buffer"
name = "buf"
values = ["50pkt", "100pkt"]
with = "pairs"
"#,
    )
    .unwrap();
    assert_eq!(
        labels(&c),
        [
            "pairs=1, cc=new_reno, buf=50pkt",
            "pairs=1, cc=cubic, buf=50pkt",
            "pairs=2, cc=new_reno, buf=100pkt",
            "pairs=2, cc=cubic, buf=100pkt"
        ]
    );
    assert_eq!(c.params[2].with, Some(0));
    assert_eq!(c.params[1].with, None);
}

#[test]
fn a_bad_tie_is_an_error_naming_the_parameter() {
    let sweep = |combine: &str, lead: &str, bufs: &str| {
        error(&format!(
            "[sweep]\ncombine = \"{combine}\"\n[[sweep.param]]\nkey = \"topology.pairs\"\nname = \"pairs\"\nvalues = [1, 2]\n\
             [[sweep.param]]\nkey = \"topology.bottleneck.buffer\"\nvalues = [{bufs}]\nwith = \"{lead}\"\n"
        ))
    };
    let e = sweep("product", "pair", "\"5pkt\", \"9pkt\"");
    assert!(e.contains("sweep.param[1].with"), "{e}");
    assert!(
        e.contains("`pair` is not an earlier parameter's name (earlier: pairs)"),
        "{e}"
    );
    let e = sweep("product", "pairs", "\"5pkt\"");
    assert!(e.contains("as many values as `pairs`: 1 against 2"), "{e}");
    let e = sweep("zip", "pairs", "\"5pkt\", \"9pkt\"");
    assert!(e.contains("sweep.param[1].with"), "{e}");
    assert!(e.contains("under `zip` every parameter"), "{e}");
    // A tie to a tied parameter names the parameter to tie to.
    let e = error(
        "[sweep]\n[[sweep.param]]\nkey = \"topology.pairs\"\nname = \"pairs\"\nvalues = [1, 2]\n\
         [[sweep.param]]\nkey = \"topology.bottleneck.buffer\"\nname = \"buf\"\nvalues = [\"5pkt\", \"9pkt\"]\nwith = \"pairs\"\n\
         [[sweep.param]]\nkey = \"flows.tcp.count\"\nvalues = [1, 2]\nwith = \"buf\"\n",
    );
    assert!(e.contains("sweep.param[2].with"), "{e}");
    assert!(e.contains("`buf` is itself tied to `pairs`"), "{e}");
}

#[test]
fn common_seeds_are_shared_and_independent_seeds_differ() {
    let sweep = |mode: &str| {
        campaign(&format!(
            "[sweep]\nseeds = \"{mode}\"\n[[sweep.param]]\nkey = \"topology.pairs\"\nvalues = [1, 2]\n"
        ))
        .unwrap()
    };
    let c = sweep("common");
    assert!(c.points.iter().all(|p| p.seed == 7));
    let i = sweep("independent");
    assert_ne!(i.points[0].seed, i.points[1].seed);
    assert_eq!(i.points[0].resolved.scenario.run.seed, i.points[0].seed);
}

#[test]
fn point_hashes_ignore_names_and_replications_but_not_values() {
    let a = campaign(
        "[sweep]\nreplications = 2\n[[sweep.param]]\nkey = \"topology.pairs\"\nvalues = [1, 2]\n",
    )
    .unwrap();
    let b = Campaign::parse(
        &format!(
            "{}\n[sweep]\nreplications = 5\n[[sweep.param]]\nkey = \"topology.pairs\"\nname = \"pairs\"\nvalues = [1, 2]\n",
            BASE.replace("name = \"sw\"", "name = \"other\"")
        ),
        "x",
    )
    .unwrap();
    assert_eq!(a.points[0].hash, b.points[0].hash);
    assert_ne!(a.points[0].hash, a.points[1].hash);
    assert_eq!(a.points[0].hash.len(), 32);
}

#[test]
fn a_missing_key_inside_a_table_can_be_swept() {
    // `tcp` is absent from the file: the sweep creates it.
    let c = campaign(
        "[sweep]\n[[sweep.param]]\nkey = \"flows.tcp.tcp.min_rto\"\nvalues = [\"200ms\", \"1s\"]\n",
    )
    .unwrap();
    assert_eq!(c.points.len(), 2);
}

#[test]
fn elements_can_be_selected_by_index() {
    let c =
        campaign("[sweep]\n[[sweep.param]]\nkey = \"flows[0].count\"\nvalues = [1, 2]\n").unwrap();
    assert_eq!(c.points[1].resolved.scenario.flows[0].count, 2);
}

#[test]
fn an_unknown_key_path_is_an_error_naming_the_parameter_and_line() {
    let e = error(
        "[sweep]\n[[sweep.param]]\nkey = \"topology.bottleneck.capacityy\"\nvalues = [\"1Mbps\"]\n",
    );
    assert!(e.contains("sweep.param[0].key"), "{e}");
    assert!(e.contains("capacityy"), "{e}");
    assert!(e.starts_with("line "), "{e}");
    let e = error("[sweep]\n[[sweep.param]]\nkey = \"flows.udp.count\"\nvalues = [1]\n");
    assert!(
        e.contains("no element of `flows` is named `udp`; names: tcp"),
        "{e}"
    );
}

#[test]
fn an_empty_list_is_an_error() {
    let e = error("[sweep]\n[[sweep.param]]\nkey = \"topology.pairs\"\nvalues = []\n");
    assert!(
        e.contains("sweep.param[0].values: the list of values is empty"),
        "{e}"
    );
}

#[test]
fn a_zip_of_unequal_lengths_is_an_error() {
    let e = error(
        "[sweep]\ncombine = \"zip\"\n[[sweep.param]]\nkey = \"topology.pairs\"\nvalues = [1, 2]\n[[sweep.param]]\nkey = \"flows.tcp.count\"\nvalues = [1]\n",
    );
    assert!(e.contains("sweep.param[1]"), "{e}");
    assert!(e.contains("`pairs` has 2 values, `count` has 1"), "{e}");
}

#[test]
fn a_constraint_that_excludes_everything_is_an_error() {
    let e = error("[sweep]\nconstraint = \"pairs > 10\"\n[[sweep.param]]\nkey = \"topology.pairs\"\nvalues = [1, 2]\n");
    assert!(e.contains("sweep.constraint"), "{e}");
    assert!(e.contains("excludes all 2 points"), "{e}");
    let e = error("[sweep]\nconstraint = \"n > 1\"\n[[sweep.param]]\nkey = \"topology.pairs\"\nvalues = [1, 2]\n");
    assert!(
        e.contains("unknown name `n`; the parameters are: pairs"),
        "{e}"
    );
}

#[test]
fn a_non_numeric_range_is_an_error() {
    let e = error("[sweep]\n[[sweep.param]]\nkey = \"flows.tcp.cc.kind\"\nfrom = \"new_reno\"\nto = \"zzz\"\npoints = 2\n");
    assert!(e.contains("sweep.param[0].from"), "{e}");
    assert!(e.contains("a range needs numbers or unit strings"), "{e}");
}

#[test]
fn a_value_the_scenario_rejects_names_the_point() {
    let e = error("[sweep]\n[[sweep.param]]\nkey = \"topology.pairs\"\nvalues = [1, 0]\n");
    assert!(e.contains("at sweep point 1 (pairs=0)"), "{e}");
    // The error sits at the swept value (line 23, column 14 of BASE + sweep).
    assert!(
        e.starts_with("line 23, column 14: sweep.param[0].values[1]: topology.pairs: "),
        "{e}"
    );
}

#[test]
fn a_product_past_a_million_points_is_refused_before_it_is_built() {
    // 10^4 x 10^4 = 10^8 combinations: counted, not built (building them
    // first took gigabytes).
    let range =
        |key: &str| format!("[[sweep.param]]\nkey = \"{key}\"\nfrom = 1\nto = 10000\nstep = 1\n");
    let e = error(&format!(
        "[sweep]\n{}{}",
        range("topology.pairs"),
        range("flows.tcp.count")
    ));
    assert!(e.contains("sweep.param"), "{e}");
    assert!(
        e.contains("has at least 100000000 points; at most 1000000"),
        "{e}"
    );
}

#[test]
fn unknown_sweep_keys_are_rejected() {
    let e = error(
        "[sweep]\ncombin = \"zip\"\n[[sweep.param]]\nkey = \"topology.pairs\"\nvalues = [1]\n",
    );
    assert!(e.contains("combin"), "{e}");
    let e = error("[sweep]\n[[sweep.param]]\nkey = \"topology.pairs\"\nvalues = [1]\nstep = 1\n");
    assert!(e.contains("not both"), "{e}");
}

#[test]
fn set_path_reports_what_is_not_there() {
    let mut t: Table = toml::from_str("a = 1\n[[l]]\nx = 1\n").unwrap();
    assert!(set_path(&mut t, "a.b", Value::Integer(1))
        .unwrap_err()
        .contains("`a` is a value"));
    assert!(set_path(&mut t, "l[3].x", Value::Integer(1))
        .unwrap_err()
        .contains("does not exist (1 elements)"));
    assert!(set_path(&mut t, "l.foo.x", Value::Integer(1))
        .unwrap_err()
        .contains("without names"));
    set_path(&mut t, "l[0].x", Value::Integer(5)).unwrap();
    set_path(&mut t, "new.deep.key", Value::Integer(2)).unwrap();
    assert_eq!(t["l"][0]["x"].as_integer(), Some(5));
    assert_eq!(t["new"]["deep"]["key"].as_integer(), Some(2));
}

#[test]
fn a_star_index_sets_every_element_of_a_list() {
    let mut t: Table = toml::from_str("[[l]]\nx = 1\n[[l]]\nx = 2\ny = 0\n").unwrap();
    set_path(&mut t, "l[*].x", Value::Integer(7)).unwrap();
    assert_eq!(t["l"][0]["x"].as_integer(), Some(7));
    assert_eq!(t["l"][1]["x"].as_integer(), Some(7));
    assert_eq!(t["l"][1]["y"].as_integer(), Some(0));
    set_path(&mut t, "l[*].t.z", Value::Integer(3)).unwrap();
    assert_eq!(t["l"][1]["t"]["z"].as_integer(), Some(3));
    let mut e: Table = toml::from_str("l = []\na = 1\n").unwrap();
    assert!(set_path(&mut e, "l[*].x", Value::Integer(1))
        .unwrap_err()
        .contains("selects nothing"));
    assert!(set_path(&mut e, "a[*]", Value::Integer(1))
        .unwrap_err()
        .contains("not a list"));
    assert!(set_path(&mut e, "l[x]", Value::Integer(1))
        .unwrap_err()
        .contains("is not an index or `*`"));
}

#[test]
fn a_star_swept_value_the_scenario_rejects_names_the_swept_value() {
    // Every group's count set to 0: the point's error (at flows[0].count)
    // belongs to the parameter `flows[*].count`.
    let e = error("[sweep]\n[[sweep.param]]\nkey = \"flows[*].count\"\nvalues = [1, 0]\n");
    assert!(e.contains("sweep.param[0].values[1]"), "{e}");
}

#[test]
fn parameter_names_may_not_shadow_table_columns() {
    let e = error(
        "[sweep]\n[[sweep.param]]\nkey = \"topology.pairs\"\nname = \"metric\"\nvalues = [1]\n",
    );
    assert!(e.contains("is a column of the result tables"), "{e}");
    let e =
        error("[sweep]\n[[sweep.param]]\nkey = \"topology.pairs\"\nname = \"2n\"\nvalues = [1]\n");
    assert!(e.contains("is not a name"), "{e}");
}

#[test]
fn a_dotted_name_reaches_into_a_table_value() {
    let c = campaign(
        r#"[sweep]
constraint = 'algo.kind == "threshold"'
[[sweep.param]]
key = "topology.bottleneck.algo"
name = "algo"
values = [{ kind = "red", preset = "A" }, { kind = "threshold", k_pkts = 10 }, { kind = "threshold", k_pkts = 20 }]
"#,
    )
    .unwrap();
    // The two threshold markers.
    assert_eq!(c.points.len(), 2);
    let kinds: Vec<String> = c.points.iter().map(|p| p.values[0].label()).collect();
    assert!(
        kinds[0].contains("= 10") && kinds[1].contains("= 20"),
        "{kinds:?}"
    );
    // A name whose base is not a parameter is an error naming it.
    let e = error("[sweep]\nconstraint = 'algos.kind == \"red\"'\n[[sweep.param]]\nkey = \"topology.pairs\"\nname = \"pairs\"\nvalues = [1, 2]\n");
    assert!(e.contains("unknown name `algos.kind`"), "{e}");
}
