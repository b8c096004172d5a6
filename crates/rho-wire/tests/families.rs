//! Benchmark families on the wire: `@bench F/A family=F arg=A` (version 3 on), and older streams read as
//! they always were.

use rho_wire::{ErrorKind, FamilyMember, parse_str, run_to_string};

fn stream(version: u32, benches: &[(&str, &str)]) -> String {
    let mut text = format!(
        "@rho-bench {version}\n@target host arch=x86_64 optimized=1\n\
         @clock cycles tsc unit=cycle hz=0 resolution=1\n\
         @config iterations=2 warmup=0 time_cap_ms=0 stack_bytes=0\n"
    );
    for (name, fields) in benches {
        text.push_str(&format!(
            "@bench {name}{fields}\n:10\n:12\n@stack off\n\
             @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
             @end {name} iterations=2 warmup=0 capped=0 unit=iter per_iteration=1\n"
        ));
    }
    text.push_str(&format!("@done benchmarks={} dropped=0\n", benches.len()));
    text
}

#[test]
fn members_carry_their_family_and_argument_in_order() {
    let text = stream(
        3,
        &[
            ("sum/256", " family=sum arg=256"),
            ("sum/1024", " family=sum arg=1024"),
            ("alone", ""),
            (
                "big/18446744073709551615",
                " family=big arg=18446744073709551615",
            ),
        ],
    );
    let run = parse_str(&text).unwrap();
    assert_eq!(run.version, 3);
    let names: Vec<&str> = run.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        ["sum/256", "sum/1024", "alone", "big/18446744073709551615"]
    );
    assert_eq!(
        run.benchmarks[1].family,
        Some(FamilyMember {
            name: "sum".to_string(),
            arg: 1024
        })
    );
    assert_eq!(run.benchmarks[2].family, None);
    assert_eq!(run.benchmarks[3].family.as_ref().unwrap().arg, u64::MAX);

    // The writer prints the same lines back.
    let written = run_to_string(&run).unwrap();
    assert!(written.contains("\n@bench sum/1024 family=sum arg=1024\n"));
    assert!(written.contains("\n@bench alone\n"));
    assert_eq!(parse_str(&written).unwrap(), run);
}

#[test]
fn an_older_stream_keeps_its_meaning() {
    for version in [1, 2] {
        // family=/arg= were unknown fields before version 3: ignored, so the benchmark is not a member.
        let run = parse_str(&stream(version, &[("sum", " family=sum arg=256")])).unwrap();
        assert_eq!(run.version, version);
        assert_eq!(run.benchmarks[0].name, "sum");
        assert_eq!(run.benchmarks[0].family, None);
        // and a '/' was never part of a name
        let e = parse_str(&stream(version, &[("sum/256", " family=sum arg=256")])).unwrap_err();
        assert_eq!(e.line(), 5, "{e}");
        assert_eq!(e.kind(), Some(ErrorKind::Syntax), "{e}");
    }
}

#[test]
fn a_member_whose_name_is_not_family_slash_arg_is_refused() {
    let cases = [
        (
            ("sum/255", " family=sum arg=256"),
            ErrorKind::Inconsistent,
            "line 5: expected the name of a family member, sum/256 (family=/arg=), found \"@bench sum/255 family=sum arg=256\"",
        ),
        (
            ("sum/256", ""),
            ErrorKind::Syntax,
            "line 5: expected a benchmark name (1 to 63 bytes of A-Z a-z 0-9 _ . : + -), found \"@bench sum/256\"",
        ),
        (
            ("sum/256", " family=sum"),
            ErrorKind::Syntax,
            "line 5: expected arg= (an unsigned integer), found \"@bench sum/256 family=sum\"",
        ),
        (
            ("sum/256", " arg=256"),
            ErrorKind::Syntax,
            "line 5: expected family= (1 to 63 bytes of A-Z a-z 0-9 _ . : + -), found \"@bench sum/256 arg=256\"",
        ),
        (
            ("sum/x", " family=sum arg=x"),
            ErrorKind::BadNumber,
            "line 5: expected arg= an unsigned integer that fits in 64 bits, found \"@bench sum/x family=sum arg=x\"",
        ),
        (
            ("a/b/1", " family=a/b arg=1"),
            ErrorKind::Syntax,
            "line 5: expected family= 1 to 63 bytes of A-Z a-z 0-9 _ . : + - (1 to 63 bytes of A-Z a-z 0-9 _ . : + -), found \"@bench a/b/1 family=a/b arg=1\"",
        ),
    ];
    for (bench, kind, message) in cases {
        let e = parse_str(&stream(3, &[bench])).unwrap_err();
        assert_eq!(e.to_string(), message);
        assert_eq!(e.kind(), Some(kind), "{e}");
    }
}

#[test]
fn the_writer_refuses_a_member_it_cannot_say() {
    let mut run = parse_str(&stream(3, &[("sum/256", " family=sum arg=256")])).unwrap();
    run.benchmarks[0].name = "sum/257".to_string();
    assert!(run_to_string(&run).is_err());
    let mut run = parse_str(&stream(3, &[("sum/256", " family=sum arg=256")])).unwrap();
    run.version = 2;
    assert!(run_to_string(&run).is_err());
}
