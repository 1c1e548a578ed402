//! The private store on a real filesystem: modes, owners, symlinks, special files, damaged
//! files, atomic replacement under SIGKILL, and the refresh lock across processes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use ansa_auth::{
    AuthDir, AuthError, Credentials, LocationSource, RefreshLock, StoreBackend, StoreChoice, locate,
};

fn credentials(n: u64) -> Credentials {
    Credentials {
        issuer: "https://auth.example".into(),
        client_id: "app_issued_1".into(),
        subject: "user-123".into(),
        access_token: format!("at-secret-{n}"),
        refresh_token: format!("rt-secret-{n}"),
        id_token: "eyJ.secret.sig".into(),
        scope: vec!["openid".into(), "offline_access".into()],
        expires_at_ms: 1_800_000_000_000 + n,
        earliest_refresh_at_ms: Some(1_799_000_000_000),
        signed_in_at_ms: 1_700_000_000_000,
    }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn credentials_round_trip_in_a_private_store_and_never_print_their_tokens() {
    let t = tempfile::tempdir().unwrap();
    let dir = AuthDir::create(&t.path().join("a/auth")).unwrap();
    let mode = std::fs::metadata(dir.path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    assert_eq!(Credentials::load(&dir).unwrap(), None);
    credentials(1).save(&dir).unwrap();
    let file = dir.path().join("tokens.json");
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(Credentials::load(&dir).unwrap(), Some(credentials(1)));
    let shown = format!("{:?}", credentials(1));
    assert!(!shown.contains("secret"), "{shown}");
    StoreChoice::save(StoreBackend::Files, &dir).unwrap();
    assert_eq!(
        StoreChoice::load(&dir).unwrap().map(|c| c.backend),
        Some(StoreBackend::Files)
    );
    Credentials::delete(&dir).unwrap();
    Credentials::delete(&dir).unwrap();
    assert_eq!(Credentials::load(&dir).unwrap(), None);
}

#[test]
fn a_store_others_can_reach_is_refused_with_the_fix() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("auth");
    let dir = AuthDir::create(&path).unwrap();
    credentials(1).save(&dir).unwrap();
    chmod(&path.join("tokens.json"), 0o644);
    let err = Credentials::load(&dir).unwrap_err();
    assert!(
        matches!(&err, AuthError::Insecure { mode: 0o644, .. })
            && err.to_string().contains("chmod 600"),
        "{err}"
    );
    chmod(&path.join("tokens.json"), 0o600);
    chmod(&path, 0o755);
    let err = AuthDir::open(&path).unwrap_err();
    assert!(err.to_string().contains("chmod 700"), "{err}");
}

#[test]
fn symlinks_special_files_and_damaged_files_are_refused_plainly() {
    let t = tempfile::tempdir().unwrap();
    let real = t.path().join("real");
    AuthDir::create(&real).unwrap();
    symlink(&real, t.path().join("linked")).unwrap();
    assert!(matches!(
        AuthDir::open(&t.path().join("linked")),
        Err(AuthError::Symlink { .. })
    ));
    let dir = AuthDir::open(&real).unwrap();
    let elsewhere = t.path().join("elsewhere.json");
    std::fs::write(&elsewhere, "{}").unwrap();
    symlink(&elsewhere, real.join("tokens.json")).unwrap();
    assert!(matches!(
        Credentials::load(&dir),
        Err(AuthError::Symlink { .. })
    ));
    std::fs::remove_file(real.join("tokens.json")).unwrap();
    nix::unistd::mkfifo(&real.join("tokens.json"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    assert!(matches!(
        Credentials::load(&dir),
        Err(AuthError::WrongType { .. })
    ));
    std::fs::remove_file(real.join("tokens.json")).unwrap();
    credentials(1).save(&dir).unwrap();
    let full = std::fs::read(real.join("tokens.json")).unwrap();
    for damaged in [&full[..full.len() / 2], b"garbage".as_slice(), b""] {
        dir.write_atomic("tokens.json", damaged).unwrap();
        let err = Credentials::load(&dir).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, AuthError::Damaged { .. }), "{text}");
        assert!(
            text.contains("sign in again") && !text.contains("secret"),
            "{text}"
        );
    }
    dir.write_atomic("store.json", br#"{"version":2,"backend":"files"}"#)
        .unwrap();
    assert!(
        StoreChoice::load(&dir)
            .unwrap_err()
            .to_string()
            .contains("version 2")
    );
}

/// The child process of the SIGKILL test: replaces `tokens.json` forever, alternating two
/// large contents. Not a test of its own; the parent runs it with `--ignored --exact`.
#[test]
#[ignore = "the child process of sigkill_during_replacement_leaves_the_old_file_or_the_new_one"]
fn child_writer() {
    let dir = std::env::var_os("ANSA_AUTH_CHILD_WRITER").expect("run by the SIGKILL test");
    let dir = AuthDir::open(Path::new(&dir)).unwrap();
    for n in 0.. {
        let fill = if n % 2 == 0 { b'a' } else { b'b' };
        dir.write_atomic("tokens.json", &vec![fill; 256 * 1024])
            .unwrap();
    }
}

/// The child process of the lock test: holds the refresh lock for the given milliseconds.
#[test]
#[ignore = "the child process of the_refresh_lock_is_held_by_one_process_at_a_time_and_freed_by_its_death"]
fn child_locker() {
    let spec = std::env::var_os("ANSA_AUTH_CHILD_LOCKER").expect("run by the lock test");
    let spec = spec.to_string_lossy().into_owned();
    let (dir, ms) = spec.rsplit_once(':').unwrap();
    let dir = AuthDir::open(Path::new(dir)).unwrap();
    let _lock = RefreshLock::acquire(&dir, Duration::from_secs(5)).unwrap();
    std::fs::write(dir.path().join("locked"), "1").expect("the marker");
    std::thread::sleep(Duration::from_millis(ms.parse().unwrap()));
}

fn child(test: &str, var: &str, value: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            test,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(var, value)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn sigkill_during_replacement_leaves_the_old_file_or_the_new_one() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("auth");
    let dir = AuthDir::create(&path).unwrap();
    dir.write_atomic("tokens.json", &vec![b'a'; 256 * 1024])
        .unwrap();
    for round in 0..8 {
        let mut writer = child(
            "child_writer",
            "ANSA_AUTH_CHILD_WRITER",
            path.to_str().unwrap(),
        );
        std::thread::sleep(Duration::from_millis(40 + round * 15));
        writer.kill().unwrap();
        writer.wait().unwrap();
        let bytes = dir.read("tokens.json").unwrap().unwrap();
        assert_eq!(bytes.len(), 256 * 1024, "round {round}");
        assert!(
            bytes.iter().all(|&b| b == bytes[0]) && (bytes[0] == b'a' || bytes[0] == b'b'),
            "round {round}: a mix"
        );
    }
}

#[test]
fn the_refresh_lock_is_held_by_one_process_at_a_time_and_freed_by_its_death() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("auth");
    let dir = AuthDir::create(&path).unwrap();
    let mut holder = child(
        "child_locker",
        "ANSA_AUTH_CHILD_LOCKER",
        &format!("{}:60000", path.display()),
    );
    let started = Instant::now();
    while !path.join("locked").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the holder never locked"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let err = RefreshLock::acquire(&dir, Duration::from_millis(100)).unwrap_err();
    assert!(matches!(err, AuthError::LockTimeout { .. }), "{err}");
    holder.kill().unwrap();
    holder.wait().unwrap();
    let lock = RefreshLock::acquire(&dir, Duration::from_secs(5));
    assert!(lock.is_ok(), "a dead holder's lock is free");
}

#[test]
fn the_store_is_the_explicit_dir_else_ansas_own_else_an_earlier_own_one() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let ansa = home.join(".ansa");
    let err = locate(Some(Path::new("rel/auth")), &ansa, Some(&home), None).unwrap_err();
    assert!(err.to_string().contains("absolute"), "{err}");
    let explicit = t.path().join("mine");
    let l = locate(Some(&explicit), &ansa, Some(&home), None).unwrap();
    assert_eq!((l.path, l.source), (explicit, LocationSource::Explicit));
    let l = locate(None, &ansa, Some(&home), None).unwrap();
    assert_eq!(
        (l.path, l.source),
        (ansa.join("auth"), LocationSource::Default)
    );
    let legacy = home.join(".local/state/oh-my-harness");
    std::fs::create_dir_all(&legacy).unwrap();
    let l = locate(None, &ansa, Some(&home), None).unwrap();
    assert_eq!((l.path, l.source), (legacy.clone(), LocationSource::Legacy));
    let xdg = t.path().join("state");
    std::fs::create_dir_all(xdg.join("oh-my-harness")).unwrap();
    let l = locate(None, &ansa, Some(&home), Some(&xdg)).unwrap();
    assert_eq!(l.path, xdg.join("oh-my-harness"));
    std::fs::create_dir_all(ansa.join("auth")).unwrap();
    let l = locate(None, &ansa, Some(&home), Some(&xdg)).unwrap();
    assert_eq!(
        (l.path, l.source),
        (ansa.join("auth"), LocationSource::Default)
    );
}

#[test]
fn status_reads_only_the_store_and_names_the_account_by_hash() {
    use ansa_auth::{AuthState, PENDING_FILE, account_hash, now_ms, status};
    let t = tempfile::tempdir().unwrap();
    let dir = AuthDir::create(&t.path().join("auth")).unwrap();
    let out = status(&dir).unwrap();
    assert_eq!((out.state, out.account_hash), (AuthState::SignedOut, None));
    let mut c = credentials(1);
    c.expires_at_ms = now_ms() + 3_600_000;
    c.earliest_refresh_at_ms = Some(now_ms() + 120_000);
    c.save(&dir).unwrap();
    let out = status(&dir).unwrap();
    assert_eq!(out.state, AuthState::SignedIn);
    assert_eq!(out.account_hash.as_deref(), Some(account_hash(&c).as_str()));
    assert!(!out.account_hash.unwrap().contains("user-123"));
    assert!(
        (3590..=3600).contains(&out.expires_in.unwrap()),
        "{:?}",
        out.expires_in
    );
    assert!(
        (110..=120).contains(&out.refresh_in.unwrap()),
        "{:?}",
        out.refresh_in
    );
    let mut other = c.clone();
    other.subject = "user-456".into();
    assert_ne!(account_hash(&other), account_hash(&c));
    c.expires_at_ms = now_ms() - 1000;
    c.save(&dir).unwrap();
    assert_eq!(status(&dir).unwrap().state, AuthState::Expired);
    let tail: String = c
        .refresh_token
        .chars()
        .rev()
        .take(8)
        .collect::<String>()
        .chars()
        .rev()
        .collect();
    dir.write_atomic(PENDING_FILE, format!("{tail}\n").as_bytes())
        .unwrap();
    assert_eq!(status(&dir).unwrap().state, AuthState::RefreshUncertain);
    assert_eq!(
        AuthState::RefreshUncertain.as_str(),
        "auth_refresh_uncertain"
    );
}

#[test]
fn a_store_recorded_as_keyring_without_a_reachable_keyring_is_a_clear_error() {
    if std::env::var_os("ANSA_TEST_KEYRING").is_some() {
        return; // a Secret Service answers in the keyring pass
    }
    let t = tempfile::tempdir().unwrap();
    let dir = AuthDir::create(&t.path().join("auth")).unwrap();
    StoreChoice::save(StoreBackend::Keyring, &dir).unwrap();
    let err = Credentials::load(&dir).unwrap_err();
    assert!(matches!(err, AuthError::Keyring { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("store.json") && text.contains("unlock the keyring"),
        "{text}"
    );
    // Nothing falls back to a token file behind the user's back.
    let err = credentials(1).save(&dir).unwrap_err();
    assert!(matches!(err, AuthError::Keyring { .. }), "{err}");
    assert!(!dir.path().join("tokens.json").exists());
}
