//! Reading evidence back: absent is `None`, a torn or garbled file is a clear error.

use super::*;
use ash_engine::exec::supervisor::EvidenceError;

#[test]
fn missing_evidence_is_none_and_garbled_evidence_is_an_error() {
    let ev = Evidences::new();
    assert!(
        read_evidence(&ev.path("absent.json"))
            .expect("read")
            .is_none()
    );
    let torn = ev.path("torn.json");
    std::fs::write(&torn, r#"{"version":1,"termination":{"kind":"exi"#).expect("write");
    let err = read_evidence(&torn).expect_err("torn");
    assert!(matches!(err, EvidenceError::Garbled { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("torn.json") && message.contains("unknown"),
        "{message}"
    );
    let garbage = ev.path("garbage.json");
    std::fs::write(&garbage, b"\xff\x00not json").expect("write");
    assert!(matches!(
        read_evidence(&garbage),
        Err(EvidenceError::Garbled { .. })
    ));
}
