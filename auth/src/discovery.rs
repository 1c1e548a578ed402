//! The issuer's OpenID Connect discovery document (`/.well-known/openid-configuration`): the
//! endpoints sign-in uses, checked before any of them is called.

use oauth2::url::Url;
use serde::Deserialize;

/// What discovery offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovery {
    /// The issuer, exactly as configured.
    pub issuer: String,
    /// Where the browser is sent.
    pub authorization_endpoint: Url,
    /// Code exchange and refresh.
    pub token_endpoint: Url,
    /// The keys that sign id_tokens.
    pub jwks_uri: Url,
    /// RFC 7009 revocation, when offered.
    pub revocation_endpoint: Option<Url>,
    /// RFC 8628 device authorization, when offered.
    pub device_authorization_endpoint: Option<Url>,
}

/// Why a discovery document is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoveryError {
    /// Not the expected JSON.
    #[error("the issuer's discovery document is not valid JSON with the required fields: {0}")]
    Malformed(String),
    /// It names another issuer (OpenID Connect Discovery §4.3).
    #[error(
        "the discovery document names issuer {got:?}, but {expected:?} was asked; check the issuer setting"
    )]
    Issuer {
        /// The configured issuer.
        expected: String,
        /// What the document says.
        got: String,
    },
    /// An endpoint is not a URL ansa may call.
    #[error(
        "the discovery document's {field} {url:?} is not an https URL (http only for loopback)"
    )]
    Endpoint {
        /// The field.
        field: &'static str,
        /// Its value.
        url: String,
    },
}

#[derive(Deserialize, serde::Serialize)]
struct Wire {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    jwks_uri: String,
    revocation_endpoint: Option<String>,
    device_authorization_endpoint: Option<String>,
}

impl Discovery {
    /// Checks the document `bytes` of the issuer `expected_issuer`.
    pub fn parse(expected_issuer: &str, bytes: &[u8]) -> Result<Discovery, DiscoveryError> {
        let wire: Wire =
            serde_json::from_slice(bytes).map_err(|e| DiscoveryError::Malformed(e.to_string()))?;
        if wire.issuer != expected_issuer {
            return Err(DiscoveryError::Issuer {
                expected: expected_issuer.to_owned(),
                got: wire.issuer,
            });
        }
        let optional =
            |field, value: Option<String>| value.map(|v| endpoint(field, &v)).transpose();
        Ok(Discovery {
            authorization_endpoint: endpoint(
                "authorization_endpoint",
                &wire.authorization_endpoint,
            )?,
            token_endpoint: endpoint("token_endpoint", &wire.token_endpoint)?,
            jwks_uri: endpoint("jwks_uri", &wire.jwks_uri)?,
            revocation_endpoint: optional("revocation_endpoint", wire.revocation_endpoint)?,
            device_authorization_endpoint: optional(
                "device_authorization_endpoint",
                wire.device_authorization_endpoint,
            )?,
            issuer: wire.issuer,
        })
    }
}

impl Discovery {
    /// The document again, in the shape [`Discovery::parse`] reads (what the store keeps, so
    /// a refresh needs no discovery round trip).
    pub fn to_document(&self) -> Vec<u8> {
        let wire = Wire {
            issuer: self.issuer.clone(),
            authorization_endpoint: self.authorization_endpoint.to_string(),
            token_endpoint: self.token_endpoint.to_string(),
            jwks_uri: self.jwks_uri.to_string(),
            revocation_endpoint: self.revocation_endpoint.as_ref().map(Url::to_string),
            device_authorization_endpoint: self
                .device_authorization_endpoint
                .as_ref()
                .map(Url::to_string),
        };
        serde_json::to_vec(&wire).unwrap_or_default()
    }
}

/// An https URL, or http on a loopback host (the test issuer).
fn endpoint(field: &'static str, value: &str) -> Result<Url, DiscoveryError> {
    let bad = || DiscoveryError::Endpoint {
        field,
        url: value.to_owned(),
    };
    let url = Url::parse(value).map_err(|_| bad())?;
    let loopback = matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
    match url.scheme() {
        "https" => Ok(url),
        "http" if loopback => Ok(url),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUER: &str = "https://auth.example.com";

    fn doc(extra: &str) -> String {
        format!(
            r#"{{"issuer":"{ISSUER}","authorization_endpoint":"https://auth.example.com/authorize","token_endpoint":"https://auth.example.com/oauth/token","jwks_uri":"https://auth.example.com/.well-known/jwks.json","scopes_supported":["openid"]{extra}}}"#
        )
    }

    #[test]
    fn a_document_gives_its_endpoints_and_optional_ones_only_when_offered() {
        let d = Discovery::parse(ISSUER, doc("").as_bytes()).unwrap();
        assert_eq!(
            d.token_endpoint.as_str(),
            "https://auth.example.com/oauth/token"
        );
        assert!(d.device_authorization_endpoint.is_none() && d.revocation_endpoint.is_none());
        let d = Discovery::parse(
            ISSUER,
            doc(r#","revocation_endpoint":"https://auth.example.com/oauth/revoke","device_authorization_endpoint":"https://auth.example.com/device""#).as_bytes(),
        )
        .unwrap();
        assert!(d.device_authorization_endpoint.is_some() && d.revocation_endpoint.is_some());
    }

    #[test]
    fn another_issuer_a_plain_http_endpoint_and_garbage_are_refused() {
        let err = Discovery::parse("https://other.example", doc("").as_bytes()).unwrap_err();
        assert!(matches!(err, DiscoveryError::Issuer { .. }), "{err}");
        let http = doc("").replace(
            "https://auth.example.com/oauth/token",
            "http://auth.example.com/t",
        );
        let err = Discovery::parse(ISSUER, http.as_bytes()).unwrap_err();
        assert!(
            matches!(
                err,
                DiscoveryError::Endpoint {
                    field: "token_endpoint",
                    ..
                }
            ),
            "{err}"
        );
        let local = doc("").replace(
            "https://auth.example.com/oauth/token",
            "http://127.0.0.1:9/t",
        );
        assert!(Discovery::parse(ISSUER, local.as_bytes()).is_ok());
        assert!(matches!(
            Discovery::parse(ISSUER, b"{\"issuer\":1}"),
            Err(DiscoveryError::Malformed(_))
        ));
    }
}
