//! Release, leases, unknown and released references, operand validation, capabilities and a
//! `>` smoke test, across all formulas.

use crate::client::{BIG, Client, error, hash, invalid, no_fit, req, unknown};
use ash_engine::protocol::Caps;
use ash_engine::session::SessionConfig;

fn released(id: u64, alias: u64) -> String {
    format!("t:3\ni:{id}\ns:0\nd{{r,z}}:\n@{alias},1\nz:0\nr:~\n")
}

/// One valid request per formula (but `>`) over `@{alias}`.
fn every_formula(alias: u64) -> [(char, String); 5] {
    [
        ('/', format!("@{alias},0,1")),
        ('#', format!("@{alias},1,1")),
        ('?', format!("@{alias},0,1,x,0")),
        ('|', format!("@{alias},d,0,1,p")),
        ('-', format!("@{alias}")),
    ]
}

#[test]
fn release_forgets_the_value_and_never_reuses_the_alias() {
    let mut c = Client::new();
    let a = c.retain(b"d[1]{p}:\nx\n");
    assert_eq!(c.ask(&req(1, '-', "@1", BIG)), released(1, a));
    assert_eq!(c.stored(), 0);
    for (i, (op, items)) in every_formula(a).into_iter().enumerate() {
        let id = i as u64 + 2;
        assert_eq!(c.ask(&req(id, op, &items, BIG)), unknown(id), "{op}");
    }
    assert_eq!(c.retain(b"d[1]{p}:\nx\n"), 2, "aliases are never reused");
}

#[test]
fn unknown_references_are_700() {
    let mut c = Client::new();
    c.retain(b"x");
    for (i, (op, items)) in every_formula(99).into_iter().enumerate() {
        let id = i as u64 + 1;
        assert_eq!(c.ask(&req(id, op, &items, BIG)), unknown(id), "{op}");
    }
}

#[test]
fn a_leased_value_is_readable_but_not_releasable() {
    let mut c = Client::new();
    let a = c.retain(b"held\n");
    c.session.store_mut().lease(a).expect("lease");
    assert_eq!(c.ask(&req(1, '-', "@1", BIG)), error(1, 8, 701, 2, 6));
    assert!(
        c.ask(&req(2, '/', "@1,0,4", BIG))
            .starts_with("t:3\ni:2\ns:0\n")
    );
    // The formula's own lease is gone afterwards: one unlease frees the value.
    c.session.store_mut().unlease(a);
    assert_eq!(c.ask(&req(3, '-', "@1", BIG)), released(3, a));
}

#[test]
fn release_that_cannot_be_answered_releases_nothing() {
    let mut c = Client::new();
    c.retain(b"x");
    assert_eq!(c.ask(&req(1, '-', "@1", (1, 1))), no_fit(1));
    assert_eq!(c.stored(), 1);
}

#[test]
fn operands_are_validated_before_anything_runs() {
    let mut c = Client::new();
    c.retain(b"d[1]{p}:\nx\n");
    let cases: [(char, &str); 24] = [
        ('/', "@1,0"),
        ('/', "@1,0,1,2"),
        ('/', "@0,0,1"),
        ('/', "1,0,1"),
        ('/', "@1,0,0"),
        ('/', "@1,0,134217729"),
        ('/', "@1,-1,1"),
        ('#', "@1,0,1"),
        ('#', "@1,1,0"),
        ('#', "@1,1,1000001"),
        ('?', "@1,0,1,x"),
        ('?', "@1,0,0,x,0"),
        ('?', "@1,0,1,\"\",0"),
        ('?', "@1,0,1,x,4"),
        ('?', "@1,0,1,\"(\",1"),
        ('-', ""),
        ('-', "@1,1"),
        ('|', "@1,d,0,1"),
        ('|', "@1,d,0,0,p"),
        ('|', "@1,d,0,1000001,p"),
        ('|', "@1,d,0,1,p,p"),
        ('|', "@1,\"not a key\",0,1,p"),
        ('|', "@1,d,0,1,1p"),
        ('>', "@1"),
    ];
    for (i, (op, items)) in cases.into_iter().enumerate() {
        let id = i as u64 + 1;
        assert_eq!(
            c.ask(&req(id, op, items, BIG)),
            invalid(id),
            "{op} [{items}]"
        );
    }
    assert_eq!(c.stored(), 1);
}

#[test]
fn materialize_writes_through_the_journal() {
    let mut c = Client::new();
    c.retain(b"x");
    assert_eq!(
        c.ask(&req(1, '>', "@1,out.txt", BIG)),
        format!(
            "t:3\ni:1\ns:0\np[1]{{i,v}}:\n1,out.txt\nd{{p,s,z,h}}:\n1,0,1,{}\nz:8\nr:@1\n",
            hash(b"x")
        )
    );
}

#[test]
fn formulas_need_the_retained_capability() {
    let mut c = Client::with(SessionConfig {
        caps: Caps::READ.union(Caps::WRITE).union(Caps::PROCESS),
        ..SessionConfig::run()
    });
    c.retain(b"x");
    for (i, (op, items)) in every_formula(1).into_iter().enumerate() {
        let id = i as u64 + 1;
        assert_eq!(
            c.ask(&req(id, op, &items, BIG)),
            error(id, 3, 300, 0, 3),
            "{op}"
        );
    }
    assert_eq!(c.stored(), 1);
}
