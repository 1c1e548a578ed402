//! The Sign in with ChatGPT test issuer and browser, shared by the auth crate's tests and
//! the end-to-end tests of `ansa`: a process guard, a test PKI, the issuer
//! (`issuer.mjs` over HTTPS) and the headless browser.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A process killed when dropped.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn browser() -> Option<String> {
    std::env::var("ANSA_CHROMIUM").ok().or_else(|| {
        let found = Command::new("sh")
            .args(["-c", "command -v chromium-headless-shell"])
            .output()
            .ok()?;
        let path = String::from_utf8_lossy(&found.stdout).trim().to_owned();
        (!path.is_empty()).then_some(path)
    })
}

/// A test PKI: the CA's PEM (trusted by the client) and the issuer's certificate and key
/// files for 127.0.0.1.
pub struct Pki {
    _dir: tempfile::TempDir,
    /// The CA certificate, PEM.
    pub ca_pem: String,
    cert: std::path::PathBuf,
    key: std::path::PathBuf,
}

pub fn pki() -> Pki {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
        KeyPair, KeyUsagePurpose,
    };
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "ansa auth test CA");
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate().unwrap();
    let mut leaf = CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let cert = leaf.signed_by(&key, &issuer).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert_path, cert.pem()).unwrap();
    std::fs::write(&key_path, key.serialize_pem()).unwrap();
    Pki {
        _dir: dir,
        ca_pem: ca_cert.pem(),
        cert: cert_path,
        key: key_path,
    }
}

/// Starts the issuer over HTTPS with `pki`; fails, saying how to install it, when its tools
/// are missing. `root` is the workspace root (where `tests/support/oidc/issuer.mjs` is).
pub fn issuer(pki: &Pki, root: &std::path::Path) -> (Killed, String) {
    issuer_with(pki, root, &[])
}

/// [`issuer`] with extra environment (`ISSUER_ACCESS_TTL`, `ISSUER_EARLIEST_REFRESH`, …).
pub fn issuer_with(pki: &Pki, root: &std::path::Path, env: &[(&str, &str)]) -> (Killed, String) {
    let modules = std::env::var_os("ANSA_OIDC_MODULES").unwrap_or_else(|| {
        panic!(
            "these tests run a real OpenID Connect issuer: install it with `npm install --prefix DIR oidc-provider@9.13.3` and set ANSA_OIDC_MODULES=DIR/node_modules (cargo xtask test does both)"
        )
    });
    let script = root.join("tests/support/oidc/issuer.mjs");
    let mut child = Command::new("node")
        .arg(script)
        // The issuer picks a free port itself and prints its URL.
        .arg("0")
        .env("ANSA_OIDC_MODULES", modules)
        .env("ISSUER_TLS_CERT", &pki.cert)
        .env("ISSUER_TLS_KEY", &pki.key)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs the issuer");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("listening ")
        .filter(|u| u.starts_with("https://"))
        .unwrap_or_else(|| panic!("the issuer did not start: {line:?}"))
        .to_owned();
    // The issuer logs to stdout; a closed pipe would kill it.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    (Killed(child), url)
}

/// The backend sign-ins are expected to choose: the keyring when the suite runs inside a
/// D-Bus session with an unlocked Secret Service (`cargo xtask test`'s keyring pass sets
/// `ANSA_TEST_KEYRING=1`), else files.
pub fn expected_backend() -> ansa_auth::StoreBackend {
    if std::env::var_os("ANSA_TEST_KEYRING").is_some() {
        ansa_auth::StoreBackend::Keyring
    } else {
        ansa_auth::StoreBackend::Files
    }
}

/// The credentials of the store at `dir`, from whichever backend it uses.
pub fn saved(dir: &std::path::Path) -> Option<ansa_auth::Credentials> {
    let store = ansa_auth::AuthDir::open(dir).ok()?;
    ansa_auth::Credentials::load(&store).ok().flatten()
}

/// Checks that the store at `dir` uses [`expected_backend`], and that a keyring store has no
/// token file beside it.
pub fn assert_backend(dir: &std::path::Path) {
    let store = ansa_auth::AuthDir::open(dir).unwrap();
    let backend = ansa_auth::StoreChoice::backend(&store).unwrap();
    assert_eq!(backend, expected_backend(), "store {}", dir.display());
    if backend == ansa_auth::StoreBackend::Keyring {
        assert!(
            !dir.join("tokens.json").exists(),
            "tokens never in files too"
        );
    }
}
