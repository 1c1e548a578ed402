//! The transaction tag and the outcomes a recovered transaction gives its call.

use super::*;

fn session(id: &str) -> SessionId {
    SessionId::parse(id).unwrap_or_else(|| panic!("session id {id}"))
}

#[test]
fn a_tag_names_exactly_one_call_of_one_session() {
    let s = session(&SessionId::generate().to_string());
    let other = session(&SessionId::generate().to_string());
    let call = |c: &str| CallId(c.to_owned());
    let tag = txn_tag(&s, RequestId(1), &call("c"));
    assert!(tag.is_some());
    assert_eq!(tag, txn_tag(&s, RequestId(1), &call("c")), "stable");
    for different in [
        txn_tag(&other, RequestId(1), &call("c")),
        txn_tag(&s, RequestId(2), &call("c")),
        txn_tag(&s, RequestId(1), &call("d")),
        // Length prefixes keep "1"+"1c" apart from "11"+"c".
        txn_tag(&s, RequestId(11), &call("c")),
    ] {
        assert_ne!(tag, different);
    }
    assert_ne!(
        txn_tag(&s, RequestId(1), &call("1c")),
        txn_tag(&s, RequestId(11), &call("c"))
    );
}

#[test]
fn each_recovered_outcome_resolves_the_call_or_says_why_not() {
    let recovered = |outcome| Recovered {
        tag: None,
        paths: vec!["a.txt".into(), "b.txt".into()],
        outcome,
    };
    let (status, text, report) = from_transaction("edit", &recovered(Outcome::RolledBack));
    assert_eq!(status, ToolOutcomeStatus::Error);
    assert!(text.contains("none of its changes remain") && text.contains("(a.txt, b.txt)"));
    assert_eq!(report.map(|r| r.tone), Some(ReportTone::Warn));
    let (status, text, _) = from_transaction("files", &recovered(Outcome::Committed));
    assert_eq!(status, ToolOutcomeStatus::Ok);
    assert!(text.contains("all of its changes are in place"), "{text}");
    let (status, text, report) = from_transaction(
        "edit",
        &recovered(Outcome::Unresolved {
            reason: "cannot prove a.txt".into(),
        }),
    );
    assert_eq!(status, ToolOutcomeStatus::EffectUnknown);
    assert!(text.contains("cannot prove a.txt"), "{text}");
    assert_eq!(report.map(|r| r.tone), Some(ReportTone::Error));
}
