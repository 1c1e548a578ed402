//! id_token verification with a token and key set recorded from the test issuer
//! (`tests/support/oidc/issuer.mjs`, oidc-provider's development keys): every way the token
//! can be wrong is refused with the claim named.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use ansa_auth::{Expected, IdTokenError, verify_id_token};

const TOKEN: &str = include_str!("fixtures/id_token.jwt");
const JWKS: &[u8] = include_bytes!("fixtures/jwks.json");
const ISSUED_AT: u64 = 1_796_158_197;
const EXPIRES: u64 = 1_796_161_797;

fn expected() -> Expected<'static> {
    Expected {
        issuer: "http://127.0.0.1:18500",
        client_id: "app_d575fd414d69132ec590",
        nonce: Some("nonce-fixture-1"),
        subject: None,
        now: ISSUED_AT + 10,
    }
}

fn claim_of(err: IdTokenError) -> &'static str {
    match err {
        IdTokenError::Claim { claim, .. } => claim,
        other => panic!("not a claim error: {other}"),
    }
}

#[test]
fn the_recorded_token_verifies_and_names_its_account() {
    let claims = verify_id_token(TOKEN.trim(), JWKS, expected()).unwrap();
    assert_eq!(claims.subject, "user-1");
    assert_eq!(claims.email.as_deref(), Some("user-1@example.com"));
    let returning = Expected {
        subject: Some("user-1"),
        ..expected()
    };
    assert!(verify_id_token(TOKEN.trim(), JWKS, returning).is_ok());
}

#[test]
fn a_wrong_nonce_audience_issuer_subject_or_time_is_refused() {
    let token = TOKEN.trim();
    let cases: [(Expected<'static>, &str); 6] = [
        (
            Expected {
                nonce: Some("nonce-other"),
                ..expected()
            },
            "nonce",
        ),
        (
            Expected {
                client_id: "app_other",
                ..expected()
            },
            "aud",
        ),
        (
            Expected {
                issuer: "http://127.0.0.1:1",
                ..expected()
            },
            "iss",
        ),
        (
            Expected {
                subject: Some("user-2"),
                ..expected()
            },
            "sub",
        ),
        (
            Expected {
                now: EXPIRES + 3600,
                ..expected()
            },
            "exp",
        ),
        (
            Expected {
                now: ISSUED_AT - 3600,
                ..expected()
            },
            "iat",
        ),
    ];
    for (exp, claim) in cases {
        let err = verify_id_token(token, JWKS, exp).unwrap_err();
        assert!(err.to_string().contains("refused"), "{err}");
        assert_eq!(claim_of(err), claim);
    }
}

#[test]
fn a_tampered_token_or_a_foreign_key_set_fails_the_signature() {
    let token = TOKEN.trim();
    let (head, rest) = token.split_once('.').unwrap();
    let (payload, sig) = rest.split_once('.').unwrap();
    // One payload byte changed: `user-1` becomes `user-2` would need re-encoding; flipping a
    // base64 character of the payload changes the signed bytes.
    let mut bytes = payload.as_bytes().to_vec();
    bytes[10] = if bytes[10] == b'A' { b'B' } else { b'A' };
    let tampered = format!("{head}.{}.{sig}", String::from_utf8(bytes).unwrap());
    assert!(matches!(
        verify_id_token(&tampered, JWKS, expected()),
        Err(IdTokenError::Signature(_))
    ));
    let mut sig_bytes = sig.as_bytes().to_vec();
    sig_bytes[5] = if sig_bytes[5] == b'A' { b'B' } else { b'A' };
    let bad_sig = format!("{head}.{payload}.{}", String::from_utf8(sig_bytes).unwrap());
    assert!(matches!(
        verify_id_token(&bad_sig, JWKS, expected()),
        Err(IdTokenError::Signature(_))
    ));
    let foreign = br#"{"keys":[{"kty":"RSA","kid":"keystore-CHANGE-ME","alg":"RS256","e":"AQAB","n":"sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw"}]}"#;
    assert!(matches!(
        verify_id_token(token, foreign, expected()),
        Err(IdTokenError::Signature(_))
    ));
    assert!(matches!(
        verify_id_token(token, b"not json", expected()),
        Err(IdTokenError::Keys(_))
    ));
    assert!(matches!(
        verify_id_token("garbage", JWKS, expected()),
        Err(IdTokenError::Signature(_))
    ));
}

#[test]
fn a_device_sign_in_has_no_nonce_to_check() {
    let device = Expected {
        nonce: None,
        ..expected()
    };
    assert!(verify_id_token(TOKEN.trim(), JWKS, device).is_ok());
}
