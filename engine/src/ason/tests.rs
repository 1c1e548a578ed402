use super::*;
use crate::testrng::Rng;

fn dec(s: &str) -> Result<Document, AsonError> {
    decode(s.as_bytes(), &Limits::default())
}

fn syntax(s: &str) -> SyntaxError {
    match dec(s) {
        Err(AsonError::Syntax { reason, .. }) => reason,
        other => panic!("expected a syntax error for {s:?}, got {other:?}"),
    }
}

fn fixture_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/fixtures/ason")
}

#[test]
fn every_fixture_round_trips_byte_identically() {
    let mut n = 0;
    for entry in std::fs::read_dir(fixture_dir()).expect("fixture dir") {
        let path = entry.expect("entry").path();
        let bytes = std::fs::read(&path).expect("fixture");
        let doc = decode_canonical(&bytes, &Limits::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(encode(&doc).as_bytes(), &bytes[..], "{}", path.display());
        n += 1;
    }
    assert!(n >= 21, "expected all fixtures, found {n}");
}

#[test]
fn value_forms_fixture_matches_typed_value() {
    let bytes = std::fs::read(fixture_dir().join("value-forms.ason")).expect("fixture");
    let want = Document::new()
        .with("empty", Value::Scalar(Atom::text("")))
        .with("text", Value::Scalar(Atom::text("line 1\nline 2")))
        .with("unicode", Value::Scalar(Atom::text("中")))
        .with(
            "values",
            Value::Vector(vec![
                Atom::text("a"),
                Atom::text("b,c"),
                Atom::Null,
                Atom::Ref(7),
            ]),
        )
        .with(
            "record",
            Value::record(
                &["name", "paths"],
                vec![
                    Cell::Atom(Atom::text("ash")),
                    Cell::Vector(vec![Atom::text("src"), Atom::text("docs")]),
                ],
            ),
        )
        .with("empty_table", Value::table(&["p", "l"], vec![]));
    assert_eq!(
        dec(std::str::from_utf8(&bytes).expect("utf8")).expect("decode"),
        want
    );
    assert_eq!(encode(&want).as_bytes(), &bytes[..]);
}

/// The escape rules stated one character at a time, the definition [`encode::text`]'s
/// run-copying loop must agree with.
fn quoted_by_chars(t: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::from('"');
    for c in t.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[test]
fn text_escapes_agree_with_the_per_character_rules() {
    let mut all: Vec<char> = (0u32..0x3000).filter_map(char::from_u32).collect();
    all.extend(['\u{fffd}', '\u{10ffff}', '\u{1f600}']);
    let mut cases: Vec<String> = all.iter().map(|c| format!("x {c}y")).collect();
    cases.push(all.iter().collect());
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        let len = rng.below(12);
        cases.push(
            (0..len)
                .map(|_| all[rng.below(all.len())])
                .chain([' '])
                .collect(),
        );
    }
    for case in &cases {
        let mut out = String::new();
        encode::text(case, &mut out);
        assert_eq!(out, quoted_by_chars(case), "encoding {case:?}");
    }
}

#[test]
fn canonical_text_forms() {
    let cases: &[(&str, &str)] = &[
        ("safe", "safe"),
        ("-1", "-1"),
        ("aA", "aA"),
        ("@7", "\"@7\""),
        ("@", "@"),
        ("@abc", "@abc"),
        ("~", "\"~\""),
        ("", "\"\""),
        ("a b", "\"a b\""),
        ("q\"\\", "\"q\\\"\\\\\""),
        ("\n\r\t", "\"\\n\\r\\t\""),
        ("\u{7}\u{7f}\u{85}", "\"\\u{7}\\u{7f}\\u{85}\""),
        ("é", "\"é\""),
        ("a,b", "\"a,b\""),
    ];
    for (text, want) in cases {
        let doc = Document::new().with("k", Value::Scalar(Atom::text(*text)));
        let enc = encode(&doc);
        assert_eq!(enc, format!("k:{want}\n"), "encoding {text:?}");
        assert_eq!(dec(&enc).expect("re-decode"), doc);
    }
}

#[test]
fn escapes_decode_and_reencode_canonically() {
    let doc = dec("k:\"a\\u{41}\"\n").expect("decode");
    assert_eq!(doc.get("k"), Some(&Value::Scalar(Atom::text("aA"))));
    assert_eq!(encode(&doc), "k:aA\n");
    assert_eq!(
        dec("k:\"\\u{10FFFF}\\u{1f600}\"\n")
            .expect("decode")
            .get("k"),
        Some(&Value::Scalar(Atom::text("\u{10FFFF}\u{1F600}")))
    );
    assert!(matches!(
        decode_canonical(b"k:\"safe\"\n", &Limits::default()),
        Err(CanonicalError::NotCanonical { line: 1, .. })
    ));
}

#[test]
fn atoms_decode_by_syntax() {
    let doc = dec("a:~\nb:@0\nc:@18446744073709551615\nd:@\ne:@abc\nf:\"\"\ng:[]\nh:[\"\"]\n")
        .expect("decode");
    assert_eq!(doc.get("a"), Some(&Value::Scalar(Atom::Null)));
    assert_eq!(doc.get("b"), Some(&Value::Scalar(Atom::Ref(0))));
    assert_eq!(doc.get("c"), Some(&Value::Scalar(Atom::Ref(u64::MAX))));
    assert_eq!(doc.get("d"), Some(&Value::Scalar(Atom::text("@"))));
    assert_eq!(doc.get("e"), Some(&Value::Scalar(Atom::text("@abc"))));
    assert_eq!(doc.get("f"), Some(&Value::Scalar(Atom::text(""))));
    assert_eq!(doc.get("g"), Some(&Value::Vector(vec![])));
    assert_eq!(doc.get("h"), Some(&Value::Vector(vec![Atom::text("")])));
}

#[test]
fn document_level_errors() {
    use SyntaxError as S;
    let cases: &[(&str, S)] = &[
        ("", S::Empty),
        ("a:1", S::MissingFinalNewline),
        ("a:1\n\n", S::BlankLine),
        ("\na:1\n", S::BlankLine),
        ("a:1\r\n", S::CarriageReturn),
        ("a:\"x\ry\"\n", S::CarriageReturn),
        ("a:1\nb:2\r", S::CarriageReturn),
        ("a:1\na:2\n", S::DuplicateKey("a".into())),
        ("novalue\n", S::MissingColon),
        ("1a:1\n", S::InvalidKey("1a".into())),
        ("a b:1\n", S::InvalidKey("a b".into())),
        (":1\n", S::InvalidKey(String::new())),
        ("a:\n", S::EmptyCell),
        ("a:b c\n", S::BareByte(' ')),
        ("a:é\n", S::BareByte('é')),
        ("a:x,y\n", S::BareByte(',')),
        ("a:~~\n", S::BareByte('~')),
        ("a:@01\n", S::BadReference("@01".into())),
        (
            "a:@18446744073709551616\n",
            S::BadReference("@18446744073709551616".into()),
        ),
        ("a:\"abc\n", S::BadQuote),
        ("a:\"ab\"c\n", S::BadQuote),
        ("a:\"a\"b\"\n", S::BadQuote),
        ("a:\"\\/\"\n", S::BadEscape("\\/".into())),
        ("a:\"\\x41\"\n", S::BadEscape("\\x".into())),
        ("a:\"\\u{D800}\"\n", S::BadEscape("\\u{D800}".into())),
        ("a:\"\\u{1000000}\"\n", S::BadEscape("\\u{1000000}".into())),
        ("a:\"\\u{}\"\n", S::BadEscape("\\u{}".into())),
        ("a:\"\\u41\"\n", S::BadEscape("\\u41".into())),
        ("a:\"\\u{110000}\"\n", S::BadEscape("\\u{110000}".into())),
        ("a:\"tab\there\"\n", S::RawControl(9)),
        ("a:\"\u{85}\"\n", S::RawControl(0x85)),
        ("a:[x\n", S::BadVector("a vector must end with ']'")),
        ("a:[x,]\n", S::EmptyCell),
        ("a:[,]\n", S::EmptyCell),
        ("a:[[x]]\n", S::BadVector("vectors cannot nest")),
    ];
    for (input, want) in cases {
        assert_eq!(&syntax(input), want, "input {input:?}");
    }
}

#[test]
fn header_and_row_errors() {
    use SyntaxError as S;
    let cases: &[(&str, S)] = &[
        (
            "r{a,b}:\n1\n",
            S::CellCount {
                found: 1,
                expected: 2,
            },
        ),
        (
            "r{a,b}:\n1,2,3\n",
            S::CellCount {
                found: 3,
                expected: 2,
            },
        ),
        ("r{a}:x\n1\n", S::TrailingAfterHeader),
        ("r{a}:\n", S::MissingRows(1)),
        ("t[2]{a}:\n1\n", S::MissingRows(1)),
        ("t[00]{a}:\n", S::BadRowCount("00".into())),
        ("t[01]{a}:\n1\n", S::BadRowCount("01".into())),
        ("t[x]{a}:\n", S::BadRowCount("x".into())),
        (
            "t[100001]{a}:\n",
            S::TooManyRows {
                count: 100_001,
                limit: 100_000,
            },
        ),
        ("t[2]:\n", S::BadHeader("missing '{columns}'")),
        (
            "r{}:\n1\n",
            S::BadColumns("at least one column is required"),
        ),
        ("r{a,a}:\n1,2\n", S::BadColumns("duplicate column key")),
        ("r{a,}:\n1,2\n", S::InvalidKey(String::new())),
        ("r{a}x:\n1\n", S::BadHeader("column list must end with '}'")),
        (
            "t{a}[1]:\n1\n",
            S::BadHeader("column list must end with '}'"),
        ),
        ("r{a,b}:\n\"x\"y,1\n", S::BadQuote),
        ("r{a,b}:\n[1,2,3\n", S::BadVector("missing ']'")),
        ("r{a}:\n,\n", S::EmptyCell),
    ];
    for (input, want) in cases {
        assert_eq!(&syntax(input), want, "input {input:?}");
    }
    let ok = dec("t[2]{a,b}:\n\"x,y\",[1,\"2,]\"]\n~,@3\nz:0\n").expect("decode");
    assert_eq!(
        ok.get("t"),
        Some(&Value::table(
            &["a", "b"],
            vec![
                vec![
                    Cell::Atom(Atom::text("x,y")),
                    Cell::Vector(vec![Atom::text("1"), Atom::text("2,]")])
                ],
                vec![Cell::Atom(Atom::Null), Cell::Atom(Atom::Ref(3))],
            ]
        ))
    );
}

#[test]
fn limits_are_enforced() {
    use SyntaxError as S;
    let l = Limits::default();
    let big = vec![b'a'; l.document_bytes + 1];
    assert!(matches!(decode(&big, &l), Err(AsonError::TooLarge { .. })));
    assert!(matches!(
        decode(b"a:\xff\n", &l),
        Err(AsonError::InvalidUtf8 { offset: 2 })
    ));

    let small = Limits {
        lines: 2,
        fields: 2,
        columns: 2,
        vector_items: 2,
        scalar_bytes: 4,
        scalars: 3,
        table_rows: 1,
        ..Limits::default()
    };
    let check = |input: &str, want: S| match decode(input.as_bytes(), &small) {
        Err(AsonError::Syntax { reason, .. }) => assert_eq!(reason, want, "{input:?}"),
        other => panic!("{input:?}: {other:?}"),
    };
    check("a:1\nb:2\nc:3\n", S::TooManyLines(2));
    check("r{a,b,c}:\n1,2,3\n", S::BadColumns("more than 128 columns"));
    check("a:[1,2,3]\n", S::TooManyItems(2));
    check("a:abcde\n", S::ScalarTooLarge(4));
    check("a:\"abcde\"\n", S::ScalarTooLarge(4));
    check(
        "a:\"\\u{41}\\u{41}\\u{41}\\u{41}\\u{41}\"\n",
        S::ScalarTooLarge(4),
    );
    check("a:[1,2]\nb:[3,4]\n", S::TooManyScalars(3));
    check("t[2]{a}:\n", S::TooManyRows { count: 2, limit: 1 });
    let fields = Limits {
        fields: 1,
        ..Limits::default()
    };
    assert!(matches!(
        decode(b"a:1\nb:2\n", &fields),
        Err(AsonError::Syntax {
            line: 2,
            reason: S::TooManyFields(1)
        })
    ));
    let long_key = format!("{}:1\n", "k".repeat(129));
    assert!(matches!(syntax(&long_key), S::InvalidKey(_)));
    assert!(dec(&format!("{}:1\n", "k".repeat(128))).is_ok());
}

#[test]
fn errors_name_the_line() {
    let err = dec("a:1\nb:x y\n").expect_err("bad");
    assert_eq!(
        err.to_string(),
        "line 2: byte ' ' is not allowed in bare text (quote the value)"
    );
}

const TEXTS: &[&str] = &[
    "a",
    "src/lib.rs",
    "",
    "~",
    "@7",
    "@",
    "a,b",
    "x\ny",
    "é中",
    "\u{7}",
    "\"q\"",
    "\\",
    "-1",
    "0",
    "tab\t",
    "]",
    "[",
];

fn random_atom(rng: &mut Rng) -> Atom {
    match rng.below(6) {
        0 => Atom::Null,
        1 => Atom::Ref(rng.next() >> rng.below(64)),
        _ => Atom::text(TEXTS[rng.below(TEXTS.len())]),
    }
}

fn random_vector(rng: &mut Rng) -> Vec<Atom> {
    (0..rng.below(4)).map(|_| random_atom(rng)).collect()
}

fn random_cell(rng: &mut Rng) -> Cell {
    if rng.below(4) == 0 {
        Cell::Vector(random_vector(rng))
    } else {
        Cell::Atom(random_atom(rng))
    }
}

fn random_document(rng: &mut Rng) -> Document {
    let mut doc = Document::new();
    for i in 0..1 + rng.below(5) {
        let key = format!("k{i}");
        let cols: Vec<String> = (0..1 + rng.below(3)).map(|c| format!("c{c}")).collect();
        let value = match rng.below(4) {
            0 => Value::Scalar(random_atom(rng)),
            1 => Value::Vector(random_vector(rng)),
            2 => Value::Record(Record {
                row: cols.iter().map(|_| random_cell(rng)).collect(),
                cols,
            }),
            _ => Value::Table(Table {
                rows: (0..rng.below(3))
                    .map(|_| cols.iter().map(|_| random_cell(rng)).collect())
                    .collect(),
                cols,
            }),
        };
        doc.push(&key, value);
    }
    doc
}

#[test]
fn random_inputs_never_panic_and_canonical_output_redecodes() {
    let mut rng = Rng::new(0x5eed_a50e_1234_5678);
    let limits = Limits::default();
    let (mut valid, mut rejected) = (0, 0);
    for _ in 0..20_000 {
        let doc = random_document(&mut rng);
        let mut bytes = encode(&doc).into_bytes();
        assert_eq!(
            decode_canonical(&bytes, &limits).as_ref(),
            Ok(&doc),
            "typed round trip"
        );
        // Mutate a few bytes: insert, delete or overwrite, including invalid UTF-8.
        for _ in 0..rng.below(4) {
            let at = rng.below(bytes.len() + 1);
            let byte = b"\n,:[]{}\"~@0a \r\xff\xc3"[rng.below(16)];
            match rng.below(3) {
                0 => bytes.insert(at, byte),
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ if at < bytes.len() => bytes[at] = byte,
                _ => {}
            }
        }
        match decode(&bytes, &limits) {
            Ok(doc) => {
                valid += 1;
                let canon = encode(&doc);
                let again = decode_canonical(canon.as_bytes(), &limits)
                    .expect("canonical output re-decodes");
                assert_eq!(again, doc);
            }
            Err(_) => rejected += 1,
        }
    }
    assert!(
        valid > 1000 && rejected > 1000,
        "valid {valid}, rejected {rejected}"
    );
}
