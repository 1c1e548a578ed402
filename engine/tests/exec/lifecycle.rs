//! Large captures spill to disk, `/` reads the tail back, release and drop delete the files.

use super::*;

const EIGHT_MIB: usize = 8 * 1024 * 1024;

#[test]
fn eight_mib_on_both_streams_spill_and_the_last_64_kib_reads_back_exactly() {
    let mut h = Harness::new();
    // A deterministic pattern so every byte can be checked.
    let script =
        "i=0; while [ $i -lt 131072 ]; do printf '%063d\\n' $i; i=$((i+1)); done | tee /dev/stderr";
    let (r, _) = h.ask(&exec(
        1,
        "sh",
        &format!("[-c,{}]", quote(script)),
        "[]",
        "~",
        0,
        4096,
        120_000,
    ));
    assert_ended(&r, 0, None, ExitKind::Exited, Some(0));
    let d = data(&r).clone();
    let (ro, re) = (
        d.stdout_ref.expect("stdout retained"),
        d.stderr_ref.expect("stderr retained"),
    );
    assert_eq!(
        ro, re,
        "identical streams share one content-addressed alias"
    );
    let body = h.body(ro);
    assert!(matches!(body, Body::Spool(_)), "8 MiB spills to disk");
    assert_eq!(body.len(), EIGHT_MIB as u64);
    let offset = EIGHT_MIB - 65_536;
    let (slice, _) = h.ask(&format!(
        "t:1\ni:2\no:/\na:[@{ro},{offset},65536]\nu{{tok,rec,ms}}:\n65536,64,30000\n"
    ));
    let Some(Data::Slice(s)) = &slice.data else {
        panic!("slice data: {slice:?}")
    };
    let expected: String = (131_072 - 1024..131_072)
        .map(|i| format!("{i:063}\n"))
        .collect();
    assert_eq!(s.text.as_deref(), Some(expected.as_str()));
    assert_eq!(s.len, 65_536);
}

#[test]
fn release_and_session_drop_delete_spool_files() {
    let mut h = Harness::new();
    let script = "head -c 6000000 /dev/zero; head -c 5000000 /dev/zero | tr '\\0' x >&2";
    let (r, _) = h.ask(&sh(1, script));
    let d = data(&r).clone();
    let (ro, re) = (d.stdout_ref.expect("stdout"), d.stderr_ref.expect("stderr"));
    let path_of = |b: Body| match b {
        Body::Spool(f) => f.path().to_path_buf(),
        Body::Memory(_) => panic!("expected a spooled body"),
    };
    let (out_path, err_path) = (path_of(h.body(ro)), path_of(h.body(re)));
    let root = out_path.parent().expect("spool root").to_path_buf();
    assert!(out_path.exists() && err_path.exists());
    let (released, _) = h.ask(&format!(
        "t:1\ni:2\no:-\na:[@{ro}]\nu{{tok,rec,ms}}:\n64,8,30000\n"
    ));
    assert_eq!(released.status.as_u8(), 0, "{released:?}");
    assert!(!out_path.exists(), "release deletes the spool file");
    assert!(err_path.exists(), "the other stream stays");
    drop(h);
    assert!(
        !err_path.exists(),
        "session drop deletes the remaining spool files"
    );
    assert!(!root.exists(), "and the spool root");
}
