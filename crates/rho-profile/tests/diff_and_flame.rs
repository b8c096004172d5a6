//! Base against head: the changed functions in order, a helper that stopped being inlined listed only in
//! head, and the flame graph's tree and folded stacks from it.

use rho_profile::diff::changes;
use rho_profile::flame::{folded, tree};
use rho_profile::net::{CallFigures, FunctionFigures, Functions, Other};

fn function(name: &str, own: f64, inclusive: f64, calls: &[(&str, f64)]) -> FunctionFigures {
    FunctionFigures {
        name: name.to_string(),
        file: None,
        line: None,
        self_per_iteration: own,
        inclusive_per_iteration: inclusive,
        calls: calls
            .iter()
            .map(|&(callee, inclusive)| CallFigures {
                callee: callee.to_string(),
                calls_per_iteration: 1.0,
                inclusive_per_iteration: inclusive,
            })
            .collect(),
    }
}

fn functions(listed: Vec<FunctionFigures>) -> Functions {
    Functions {
        source: "callgrind".to_string(),
        listed,
        other: Other::default(),
        sampling: None,
    }
}

/// Base: `bench` (10 own) calls `kernel`, which has `helper` inlined (100 own). Head: the helper is a call of
/// its own (100), the kernel keeps 5 for the call.
fn base_and_head() -> (Functions, Functions) {
    let base = functions(vec![
        function("bench", 10.0, 110.0, &[("kernel", 100.0)]),
        function("kernel", 100.0, 100.0, &[]),
    ]);
    let head = functions(vec![
        function("bench", 10.0, 115.0, &[("kernel", 105.0)]),
        function("kernel", 5.0, 105.0, &[("helper", 100.0)]),
        function("helper", 100.0, 100.0, &[]),
    ]);
    (base, head)
}

#[test]
fn an_uninlined_helper_is_listed_only_in_head_and_first() {
    let (base, head) = base_and_head();
    let changed = changes(&base, &head, 10);
    let names: Vec<&str> = changed.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["helper", "kernel", "bench"]);
    assert_eq!(changed[0].presence(), Some("only in head"));
    assert_eq!(changed[0].own_change(), 100.0);
    assert_eq!(changed[1].own_change(), -95.0);
    assert_eq!(changed[1].inclusive_change(), 5.0);
    assert_eq!(changed[2].own_change(), 0.0);
    assert_eq!(changed[2].inclusive_change(), 5.0);
    assert!(
        changes(&base, &base, 10).is_empty(),
        "nothing changed, nothing listed"
    );
    // A base that left functions out of its list cannot say the helper is new.
    let mut partial = base.clone();
    partial.other.functions = 3;
    let changed = changes(&partial, &head, 10);
    assert_eq!(
        changed[0].presence(),
        Some("not among base's listed functions")
    );
}

#[test]
fn the_flame_graph_is_heads_tree_with_bases_figures_on_the_same_paths() {
    let (base, head) = base_and_head();
    let root = tree(Some(&base), &head).unwrap();
    assert_eq!(
        (root.name.as_str(), root.head, root.base),
        ("bench", 115.0, Some(110.0))
    );
    let kernel = &root.children[0];
    assert_eq!((kernel.head, kernel.base), (105.0, Some(100.0)));
    let helper = &kernel.children[0];
    assert_eq!(
        (helper.name.as_str(), helper.head, helper.base),
        ("helper", 100.0, None)
    );
    // Folded for a drawer, each path's own share: the kernel's own 5 against base's 100, the
    // helper's 100 only in head (0 in base).
    assert_eq!(
        folded(&root),
        [
            "bench 10 10",
            "bench;kernel 100 5",
            "bench;kernel;helper 0 100"
        ]
    );
    // Without base, plain stacks of head alone.
    let alone = tree(None, &head).unwrap();
    assert_eq!(folded(&alone)[2], "bench;kernel;helper 100");
}
