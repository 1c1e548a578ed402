//! id_token verification: an RS256 signature by a key of the issuer's JWKS, `iss` the issuer,
//! `aud` the issued client ID, `exp` in the future and `iat` not, the sign-in's `nonce`
//! (compared in constant time; the device flow has none), and on a returning sign-in the same `sub` as before.

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde::Deserialize;

/// Clock skew allowed on `exp` and `iat`, seconds.
const LEEWAY_SECS: u64 = 60;

/// What the id_token must say.
#[derive(Debug, Clone, Copy)]
pub struct Expected<'a> {
    /// The issuer (discovery's `issuer`).
    pub issuer: &'a str,
    /// The issued client ID.
    pub client_id: &'a str,
    /// The sign-in's nonce (`None` for the device flow, which has none).
    pub nonce: Option<&'a str>,
    /// The account of the saved registration, on a returning sign-in.
    pub subject: Option<&'a str>,
    /// Now, Unix seconds.
    pub now: u64,
}

/// The verified claims ansa uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdClaims {
    /// The account.
    pub subject: String,
    /// Its email, when the issuer shares it.
    pub email: Option<String>,
}

/// Why an id_token is refused; each one ends the sign-in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdTokenError {
    /// The JWKS is not a key set.
    #[error("the issuer's key set (JWKS) is not valid: {0}")]
    Keys(String),
    /// No key of the set signed it, or the token is not a well-formed RS256 JWT.
    #[error("the id_token's signature does not verify ({0}); the sign-in is refused")]
    Signature(String),
    /// A claim has the wrong value.
    #[error("the id_token's {claim} is wrong ({detail}); the sign-in is refused")]
    Claim {
        /// Which claim.
        claim: &'static str,
        /// What is wrong.
        detail: String,
    },
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
    nonce: Option<String>,
    iat: Option<u64>,
    email: Option<String>,
}

/// Verifies `token` against the key set `jwks` (the bytes of `jwks_uri`).
pub fn verify(token: &str, jwks: &[u8], expected: Expected<'_>) -> Result<IdClaims, IdTokenError> {
    let keys: JwkSet =
        serde_json::from_slice(jwks).map_err(|e| IdTokenError::Keys(e.to_string()))?;
    let header = decode_header(token).map_err(|e| IdTokenError::Signature(e.to_string()))?;
    if header.alg != Algorithm::RS256 {
        return Err(IdTokenError::Signature(format!(
            "signed with {:?}, not RS256",
            header.alg
        )));
    }
    let jwk = match &header.kid {
        Some(kid) => keys.find(kid),
        None if keys.keys.len() == 1 => keys.keys.first(),
        None => None,
    }
    .ok_or_else(|| IdTokenError::Signature("no key of the issuer's set has its kid".into()))?;
    let key = DecodingKey::from_jwk(jwk).map_err(|e| IdTokenError::Keys(e.to_string()))?;
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_issuer(&[expected.issuer]);
    validation.set_audience(&[expected.client_id]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    // Time is checked below against the caller's clock.
    validation.validate_exp = false;
    validation.validate_nbf = false;
    let data = decode::<Claims>(token, &key, &validation).map_err(|e| {
        use jsonwebtoken::errors::ErrorKind;
        match e.kind() {
            ErrorKind::InvalidIssuer => claim("iss", format!("not {}", expected.issuer)),
            ErrorKind::InvalidAudience => claim("aud", format!("not {}", expected.client_id)),
            ErrorKind::MissingRequiredClaim(c) => claim("claims", format!("{c} is missing")),
            _ => IdTokenError::Signature(e.to_string()),
        }
    })?;
    let exp = exp_of(token)?;
    if exp + LEEWAY_SECS < expected.now {
        return Err(claim(
            "exp",
            format!("expired at {exp}, now is {}", expected.now),
        ));
    }
    let claims = data.claims;
    if let Some(iat) = claims.iat
        && iat > expected.now + LEEWAY_SECS
    {
        return Err(claim(
            "iat",
            format!("issued at {iat}, in the future (now {})", expected.now),
        ));
    }
    let nonce_ok = match (expected.nonce, claims.nonce.as_deref()) {
        (Some(want), Some(got)) => constant_time_eq(got.as_bytes(), want.as_bytes()),
        (Some(_), None) => false,
        (None, _) => true,
    };
    if !nonce_ok {
        return Err(claim("nonce", "not this sign-in's".into()));
    }
    if let Some(subject) = expected.subject
        && subject != claims.sub
    {
        return Err(claim(
            "sub",
            "another account than the saved sign-in; sign out first to switch accounts".into(),
        ));
    }
    Ok(IdClaims {
        subject: claims.sub,
        email: claims.email,
    })
}

/// `exp` read again as a number (the typed claims above would reject a missing one first).
fn exp_of(token: &str) -> Result<u64, IdTokenError> {
    #[derive(Deserialize)]
    struct Exp {
        exp: u64,
    }
    let payload = token
        .split('.')
        .nth(1)
        .ok_or_else(|| IdTokenError::Signature("not a JWT".into()))?;
    let bytes =
        base64_url(payload).ok_or_else(|| IdTokenError::Signature("not base64url".into()))?;
    serde_json::from_slice::<Exp>(&bytes)
        .map(|e| e.exp)
        .map_err(|e| claim("exp", e.to_string()))
}

fn base64_url(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        })
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for &c in text.as_bytes() {
        acc = (acc << 6) | value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn claim(claim: &'static str, detail: String) -> IdTokenError {
    IdTokenError::Claim { claim, detail }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
