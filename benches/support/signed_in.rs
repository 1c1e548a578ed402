//! A signed-in auth store of real shape (token sizes like the issuer's) under an ansa home,
//! for the benchmarks that start ansa signed in.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Creates `home/auth` (0700) holding a fresh sign-in.
pub fn signed_in_home(home: &Path) {
    let auth = home.join("auth");
    std::fs::create_dir_all(&auth).unwrap();
    for d in [home, &auth] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let store = ansa_auth::AuthDir::open(&auth).unwrap();
    ansa_auth::Credentials {
        issuer: "https://auth.openai.com".into(),
        client_id: "app_0123456789abcdef0123".into(),
        subject: "user-123".into(),
        access_token: "a".repeat(1200),
        refresh_token: "r".repeat(64),
        id_token: "i".repeat(1100),
        scope: vec!["resource.invoke".into(), "chatgpt.tokens.use.direct".into()],
        expires_at_ms: ansa_auth::now_ms() + 3_600_000,
        earliest_refresh_at_ms: Some(ansa_auth::now_ms()),
        signed_in_at_ms: ansa_auth::now_ms(),
    }
    .save(&store)
    .unwrap();
}
