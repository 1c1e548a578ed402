//! Status, error, retry and stage tables, flags and capability masks.

use crate::protocol::*;

#[test]
fn codes_round_trip_and_reject_unknown_numbers() {
    for n in 0..=255u8 {
        assert_eq!(
            Status::from_u8(n).map(Status::as_u8),
            (n <= 10).then_some(n)
        );
        assert_eq!(Retry::from_u8(n).map(Retry::as_u8), (n <= 3).then_some(n));
        assert_eq!(Stage::from_u8(n).map(Stage::as_u8), (n <= 7).then_some(n));
    }
    let codes: [u16; 23] = [
        100, 101, 102, 200, 201, 202, 300, 301, 302, 400, 401, 402, 403, 500, 501, 502, 600, 601,
        602, 700, 701, 800, 900,
    ];
    for n in 0..=1000u16 {
        let known = codes.contains(&n);
        assert_eq!(
            ErrorCode::from_u16(n).map(ErrorCode::as_u16),
            known.then_some(n),
            "{n}"
        );
    }
    assert_eq!(ErrorCode::ALL.len(), codes.len());
    assert_eq!(Status::ALL.len(), 11);
}

#[test]
fn typical_forms_match_the_table() {
    // (code, s, q, p) of the primary form in the §4 table.
    let table: [(u16, u8, u8, u8); 23] = [
        (100, 1, 1, 1),
        (101, 2, 1, 1),
        (102, 1, 1, 1),
        (200, 3, 0, 3),
        (201, 4, 1, 2),
        (202, 5, 1, 2),
        (300, 3, 0, 3),
        (301, 3, 3, 3),
        (302, 3, 3, 3),
        (400, 5, 2, 4),
        (401, 5, 0, 4),
        (402, 6, 2, 4),
        (403, 7, 0, 4),
        (500, 5, 2, 4),
        (501, 8, 1, 4),
        (502, 5, 3, 4),
        (600, 9, 1, 5),
        (601, 9, 1, 4),
        (602, 9, 2, 4),
        (700, 4, 1, 2),
        (701, 8, 2, 6),
        (800, 5, 0, 4),
        (900, 10, 2, 7),
    ];
    for (c, s, q, p) in table {
        let code = ErrorCode::from_u16(c).expect("known code");
        let rec = ErrorRecord::typical(code);
        let got = (
            rec.code.as_u16(),
            rec.status().as_u8(),
            rec.retry.as_u8(),
            rec.stage.as_u8(),
        );
        assert_eq!(got, (c, s, q, p), "code {c}");
    }
    let triple = |r: ErrorRecord| {
        (
            r.code.as_u16(),
            r.status().as_u8(),
            r.retry.as_u8(),
            r.stage.as_u8(),
        )
    };
    assert_eq!(triple(ErrorRecord::wrong_type_resolve()), (202, 5, 1, 2));
    assert_eq!(triple(ErrorRecord::wrong_type_execute()), (202, 5, 1, 4));
    assert_eq!(triple(ErrorRecord::filesystem()), (500, 5, 2, 4));
    assert_eq!(triple(ErrorRecord::store_io()), (500, 5, 2, 6));
    assert_eq!(triple(ErrorRecord::work_limit()), (601, 9, 1, 4));
    assert_eq!(triple(ErrorRecord::store_quota()), (601, 9, 1, 6));
    assert_eq!(triple(ErrorRecord::internal_encode()), (900, 10, 2, 7));
    assert_eq!(triple(ErrorRecord::internal_execute()), (900, 10, 2, 4));
    assert_eq!(triple(ErrorRecord::invalid_argument()), (100, 1, 1, 1));
    assert_eq!(
        triple(ErrorRecord::operation_not_negotiated()),
        (101, 2, 1, 3)
    );
    let with = ErrorRecord::typical(ErrorCode::PermitRequired)
        .with_evidence(4)
        .with_argument(2);
    assert_eq!(
        (with.evidence, with.argument, with.has_reference()),
        (Some(4), Some(2), true)
    );
}

#[test]
fn flags_bits() {
    assert_eq!(
        (Flags::TRUNCATED | Flags::REDUCED | Flags::RETAINED).bits(),
        11
    );
    let mut f = Flags::NONE;
    f |= Flags::NORMALIZED;
    f |= Flags::PARTIAL;
    assert_eq!(f.bits(), 20);
    assert!(f.contains(Flags::PARTIAL) && !f.contains(Flags::RETAINED));
    assert_eq!(f.without(Flags::PARTIAL), Flags::NORMALIZED);
    assert_eq!((f & Flags::NORMALIZED), Flags::NORMALIZED);
    assert_eq!(Flags::REDACTED.bits(), 32);
    assert_eq!(Flags::from_bits(63), Some(Flags::ALL));
    assert_eq!(Flags::from_bits(64), None);
    assert!(Flags::NONE.is_empty());
}

#[test]
fn caps_and_op_masks() {
    assert_eq!(
        (Caps::READ | Caps::WRITE | Caps::PROCESS | Caps::RETAINED),
        Caps::ALL
    );
    assert_eq!(Caps::from_bits(16), None);
    assert_eq!(Caps::truncate(0x1f), Caps::ALL);
    let need = Caps::RETAINED | Caps::WRITE;
    assert_eq!(need.missing_from(Caps::RETAINED), Caps::WRITE);
    assert!(Caps::ALL.contains(need) && !Caps::READ.contains(need));
    let letters: String = OpKind::ALL.iter().map(|k| k.letter()).collect();
    assert_eq!(letters, "xrlgpfb/#?-|>sk");
    for k in OpKind::ALL {
        assert_eq!(OpKind::from_letter(&k.letter().to_string()), Some(k));
        assert!(OpMask::ALL.allows(k));
    }
    assert_eq!(OpKind::from_letter("z"), None);
    assert_eq!(OpKind::from_letter("xr"), None);
    assert_eq!(OpKind::from_letter(""), None);
    assert_eq!(OpMask::truncate(0xffff), OpMask::ALL);
    assert_eq!(OpMask::from_bits(0x400), None);
    assert!(!OpMask::of(OpKind::Read).allows(OpKind::Exec));
    assert!(OpMask::of(OpKind::Find).allows(OpKind::Materialize));
}
