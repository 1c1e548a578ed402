//! The browser sign-in's authorization request (Sign in with ChatGPT for open-source apps):
//! PKCE S256 with `state` and `nonce`, ansa's own dynamic registration
//! (`client_id=dynamic_agent_client` with this host's `ext_agent_host_id`), the resource the
//! tokens are for, and the callback on 127.0.0.1.

use oauth2::{
    AuthUrl, ClientId, CsrfToken, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope,
    basic::BasicClient,
};

use super::discovery::Discovery;
use super::host::HostId;

/// The client ID of a first (and every browser) authorization request; the callback carries
/// the one the issuer registered, which every later exchange uses instead.
pub const DYNAMIC_CLIENT_ID: &str = "dynamic_agent_client";

/// The API the tokens are for (sent on the authorization, the exchange and every refresh).
pub const RESOURCE: &str = "https://api.openai.com/v1";

/// The scopes ansa asks for.
pub const SCOPES: [&str; 6] = [
    "openid",
    "profile",
    "email",
    "offline_access",
    "resource.invoke",
    "chatgpt.tokens.use.direct",
];

/// The name the issuer may show for this agent.
pub const AGENT_NAME: &str = "ansa";

/// What one sign-in attempt must remember until its callback: the URL to open and the
/// secrets to check the callback and the id_token against.
pub struct Authorization {
    /// The URL the user opens.
    pub url: String,
    /// The `state` the callback must carry.
    pub state: String,
    /// The `nonce` the id_token must carry.
    pub nonce: String,
    /// The PKCE verifier for the code exchange.
    pub verifier: PkceCodeVerifier,
}

impl std::fmt::Debug for Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorization")
            .field("url", &self.url)
            .field("verifier", &"<redacted>")
            .finish_non_exhaustive()
    }
}

/// How this sign-in differs from a first one.
#[derive(Debug, Clone, Copy, Default)]
pub struct AuthorizeOptions<'a> {
    /// A returning sign-in's last id_token (`id_token_hint`).
    pub id_token_hint: Option<&'a str>,
    /// Ask the user to consent again (`prompt=consent`, `--login-consent`).
    pub consent: bool,
}

/// Why no authorization URL could be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthorizeError {
    /// The redirect URI is not a URL.
    #[error("the sign-in callback address {0:?} is not a URL")]
    Redirect(String),
}

/// Builds the authorization request of a browser sign-in against `discovery` whose callback
/// listens at `redirect_uri`.
pub fn authorize(
    discovery: &Discovery,
    redirect_uri: &str,
    host: &HostId,
    options: AuthorizeOptions<'_>,
) -> Result<Authorization, AuthorizeError> {
    let redirect = RedirectUrl::new(redirect_uri.to_owned())
        .map_err(|_| AuthorizeError::Redirect(redirect_uri.to_owned()))?;
    let client = BasicClient::new(ClientId::new(DYNAMIC_CLIENT_ID.to_owned()))
        .set_auth_uri(AuthUrl::from_url(discovery.authorization_endpoint.clone()))
        .set_redirect_uri(redirect);
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let nonce = CsrfToken::new_random();
    let mut request = client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_scopes(SCOPES.iter().map(|s| Scope::new((*s).to_owned())))
        .add_extra_param("nonce", nonce.secret().clone())
        .add_extra_param("ext_agent_host_id", host.as_str().to_owned())
        .add_extra_param("agent_name_hint", AGENT_NAME)
        .add_extra_param("resource", RESOURCE);
    if let Some(hint) = options.id_token_hint {
        request = request.add_extra_param("id_token_hint", hint.to_owned());
    }
    if options.consent {
        request = request.add_extra_param("prompt", "consent");
    }
    let (url, state) = request.url();
    Ok(Authorization {
        url: url.to_string(),
        state: state.secret().clone(),
        nonce: nonce.secret().clone(),
        verifier,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use oauth2::url::Url;

    fn discovery() -> Discovery {
        let doc = r#"{"issuer":"https://auth.example.com","authorization_endpoint":"https://auth.example.com/oauth/authorize","token_endpoint":"https://auth.example.com/oauth/token","jwks_uri":"https://auth.example.com/jwks"}"#;
        Discovery::parse("https://auth.example.com", doc.as_bytes()).unwrap()
    }

    fn host() -> HostId {
        let t = tempfile::tempdir().unwrap();
        let dir = super::super::AuthDir::create(&t.path().join("auth")).unwrap();
        HostId::load_or_create(&dir).unwrap()
    }

    fn params(url: &str) -> Vec<(String, String)> {
        Url::parse(url)
            .unwrap()
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }

    fn get<'a>(p: &'a [(String, String)], key: &str) -> Option<&'a str> {
        p.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    #[test]
    fn a_first_sign_in_asks_for_ansas_own_registration_with_pkce_state_and_nonce() {
        let host = host();
        let redirect = "http://127.0.0.1:4567/callback";
        let a = authorize(&discovery(), redirect, &host, AuthorizeOptions::default()).unwrap();
        assert!(
            a.url
                .starts_with("https://auth.example.com/oauth/authorize?"),
            "{}",
            a.url
        );
        let p = params(&a.url);
        assert_eq!(get(&p, "response_type"), Some("code"));
        assert_eq!(get(&p, "client_id"), Some(DYNAMIC_CLIENT_ID));
        assert_eq!(get(&p, "redirect_uri"), Some(redirect));
        assert_eq!(get(&p, "code_challenge_method"), Some("S256"));
        assert_eq!(get(&p, "state"), Some(a.state.as_str()));
        assert_eq!(get(&p, "nonce"), Some(a.nonce.as_str()));
        assert_eq!(get(&p, "ext_agent_host_id"), Some(host.as_str()));
        assert_eq!(get(&p, "agent_name_hint"), Some("ansa"));
        assert_eq!(get(&p, "resource"), Some(RESOURCE));
        assert_eq!(
            get(&p, "scope"),
            Some("openid profile email offline_access resource.invoke chatgpt.tokens.use.direct")
        );
        assert_eq!(get(&p, "prompt"), None);
        assert_eq!(get(&p, "id_token_hint"), None);
        // The challenge is the S256 of the verifier, which never appears in the URL.
        assert!(!a.url.contains(a.verifier.secret().as_str()));
        assert_ne!(a.state, a.nonce);
        let again = authorize(&discovery(), redirect, &host, AuthorizeOptions::default()).unwrap();
        assert_ne!(again.state, a.state, "fresh secrets for every attempt");
        assert!(!format!("{a:?}").contains(a.verifier.secret().as_str()));
    }

    #[test]
    fn a_returning_sign_in_sends_its_hint_and_consent_when_asked() {
        let a = authorize(
            &discovery(),
            "http://127.0.0.1:4567/callback",
            &host(),
            AuthorizeOptions {
                id_token_hint: Some("eyJ.hint.sig"),
                consent: true,
            },
        )
        .unwrap();
        let p = params(&a.url);
        assert_eq!(get(&p, "id_token_hint"), Some("eyJ.hint.sig"));
        assert_eq!(get(&p, "prompt"), Some("consent"));
        assert!(matches!(
            authorize(
                &discovery(),
                "not a url",
                &host(),
                AuthorizeOptions::default()
            ),
            Err(AuthorizeError::Redirect(_))
        ));
    }
}
