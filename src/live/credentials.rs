//! Credentials for the live commands (docs/src/commands/apply.md), from the environment:
//! an API token (`Authorization: Bearer`) or the e-mail and global key pair
//! (`X-Auth-Email`/`X-Auth-Key`). A secret is never shown: its `Debug` and
//! `Display` print a placeholder, and nothing writes it but the request header.

use std::fmt;

/// A value that must never be printed, logged or written to a file.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: String) -> Secret {
        Secret(value)
    }

    /// The value, for the one place it goes: a request header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("…")
    }
}

#[derive(Debug, Clone)]
pub enum Credentials {
    Token(Secret),
    Key { email: String, key: Secret },
}

pub const TOKEN_VAR: &str = "CLOUDFLARE_API_TOKEN";
pub const EMAIL_VAR: &str = "CLOUDFLARE_EMAIL";
pub const KEY_VAR: &str = "CLOUDFLARE_API_KEY";

impl Credentials {
    /// From `CLOUDFLARE_API_TOKEN`, else `CLOUDFLARE_EMAIL` and `CLOUDFLARE_API_KEY`.
    pub fn from_env() -> Result<Credentials, String> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// From a lookup of variables by name (the environment, or a test's).
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<Credentials, String> {
        let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        if let Some(token) = set(TOKEN_VAR) {
            return Ok(Credentials::Token(Secret::new(token.trim().to_string())));
        }
        match (set(EMAIL_VAR), set(KEY_VAR)) {
            (Some(email), Some(key)) => Ok(Credentials::Key {
                email: email.trim().to_string(),
                key: Secret::new(key.trim().to_string()),
            }),
            (Some(_), None) => Err(format!("{EMAIL_VAR} is set but {KEY_VAR} is not: set both, or {TOKEN_VAR}")),
            (None, Some(_)) => Err(format!("{KEY_VAR} is set but {EMAIL_VAR} is not: set both, or {TOKEN_VAR}")),
            (None, None) => Err(format!(
                "no credentials: set {TOKEN_VAR} to an API token (or {EMAIL_VAR} and {KEY_VAR})"
            )),
        }
    }

    /// The headers that carry them, as sent.
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        match self {
            Credentials::Token(token) => vec![("Authorization", format!("Bearer {}", token.expose()))],
            Credentials::Key { email, key } => vec![("X-Auth-Email", email.clone()), ("X-Auth-Key", key.expose().to_string())],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Result<Credentials, String> {
        Credentials::from_lookup(|name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn a_token_wins_and_is_never_shown() {
        let c = from(&[(TOKEN_VAR, "s3cr3t-token"), (EMAIL_VAR, "a@x.io"), (KEY_VAR, "k")]).expect("token");
        assert_eq!(c.headers(), vec![("Authorization", "Bearer s3cr3t-token".to_string())]);
        assert!(!format!("{c:?}").contains("s3cr3t"), "{c:?}");
        let key = from(&[(EMAIL_VAR, "a@x.io"), (KEY_VAR, "s3cr3t-key")]).expect("key pair");
        assert!(!format!("{key:?}").contains("s3cr3t"), "{key:?}");
        assert_eq!(key.headers()[0], ("X-Auth-Email", "a@x.io".to_string()));
    }

    #[test]
    fn half_a_key_pair_or_nothing_is_an_error_naming_the_variables() {
        assert!(from(&[(EMAIL_VAR, "a@x.io")]).unwrap_err().contains(KEY_VAR));
        assert!(from(&[(KEY_VAR, "k")]).unwrap_err().contains(EMAIL_VAR));
        assert!(from(&[(TOKEN_VAR, "  ")]).unwrap_err().contains(TOKEN_VAR));
    }
}
