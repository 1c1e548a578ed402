//! RFC 7009 revocation of a refresh token at sign-out: `token`, `token_type_hint=refresh_token`
//! and the issued `client_id`. Only a 200 from the issuer confirms it; anything else leaves
//! `remote_revocation_confirmed` false, said honestly.

use oauth2::basic::{
    BasicErrorResponse, BasicRevocationErrorResponse, BasicTokenIntrospectionResponse,
    BasicTokenResponse,
};
use oauth2::{Client, ClientId, RefreshToken, RevocationUrl, StandardRevocableToken};

use super::discovery::Discovery;
use super::http::Http;

/// What a revocation attempt established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revocation {
    /// The issuer confirmed it (`remote_revocation_confirmed: true`).
    Confirmed,
    /// Not confirmed, and why (`remote_revocation_confirmed: false`).
    NotConfirmed(String),
}

impl Revocation {
    /// `remote_revocation_confirmed`.
    pub fn confirmed(&self) -> bool {
        matches!(self, Revocation::Confirmed)
    }
}

/// Asks the issuer to revoke `refresh_token` of the issued `client_id`.
pub async fn revoke(
    http: &Http,
    discovery: &Discovery,
    client_id: &str,
    refresh_token: &str,
) -> Revocation {
    let Some(endpoint) = &discovery.revocation_endpoint else {
        return Revocation::NotConfirmed("the issuer offers no revocation endpoint".into());
    };
    let client = Client::<
        BasicErrorResponse,
        BasicTokenResponse,
        BasicTokenIntrospectionResponse,
        StandardRevocableToken,
        BasicRevocationErrorResponse,
    >::new(ClientId::new(client_id.to_owned()))
    .set_revocation_url(RevocationUrl::from_url(endpoint.clone()));
    let token = StandardRevocableToken::RefreshToken(RefreshToken::new(refresh_token.to_owned()));
    let request = match client.revoke_token(token) {
        Ok(request) => request,
        Err(e) => return Revocation::NotConfirmed(e.to_string()),
    };
    match request.request_async(http).await {
        Ok(()) => Revocation::Confirmed,
        Err(oauth2::RequestTokenError::ServerResponse(r)) => {
            Revocation::NotConfirmed(format!("the issuer refused: {}", r.error().as_ref()))
        }
        Err(oauth2::RequestTokenError::Request(e)) => Revocation::NotConfirmed(e.to_string()),
        Err(e) => Revocation::NotConfirmed(e.to_string()),
    }
}
