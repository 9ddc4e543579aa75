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

/// What a credential value is replaced with.
pub const REDACTED: &str = "[redacted]";

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

    /// What would give them away, longest first: the token, or the key and
    /// the e-mail.
    fn values(&self) -> Vec<&str> {
        let mut values = match self {
            Credentials::Token(token) => vec![token.expose()],
            Credentials::Key { email, key } => vec![key.expose(), email.as_str()],
        };
        values.retain(|v| !v.is_empty());
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values
    }

    /// `text` with the token and the key replaced wherever they appear:
    /// what an answer carries on to a file or a terminal.
    pub fn redact_secrets(&self, text: String) -> String {
        let secret = match self {
            Credentials::Token(token) => token.expose(),
            Credentials::Key { key, .. } => key.expose(),
        };
        if secret.is_empty() || !text.contains(secret) {
            return text;
        }
        text.replace(secret, REDACTED)
    }

    /// `text` with every credential value replaced, the e-mail too: what is
    /// printed. (An export keeps the e-mail where it is data, a pool's
    /// recipient say; only the token and the key are secrets.)
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for value in self.values() {
            if out.contains(value) {
                out = out.replace(value, REDACTED);
            }
        }
        out
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
    fn every_credential_value_is_redacted_wherever_it_is_echoed() {
        let c = from(&[(EMAIL_VAR, "ops@x.io"), (KEY_VAR, "k3y-s3cr3t")]).expect("key pair");
        let echo = "X-Auth-Email: ops@x.io\nX-Auth-Key: k3y-s3cr3t";
        assert_eq!(c.redact(echo), "X-Auth-Email: [redacted]\nX-Auth-Key: [redacted]");
        assert_eq!(c.redact_secrets(echo.to_string()), "X-Auth-Email: ops@x.io\nX-Auth-Key: [redacted]");
        let t = from(&[(TOKEN_VAR, "tok")]).expect("token");
        assert_eq!(t.redact("Bearer tok"), "Bearer [redacted]");
    }

    #[test]
    fn half_a_key_pair_or_nothing_is_an_error_naming_the_variables() {
        assert!(from(&[(EMAIL_VAR, "a@x.io")]).unwrap_err().contains(KEY_VAR));
        assert!(from(&[(KEY_VAR, "k")]).unwrap_err().contains(EMAIL_VAR));
        assert!(from(&[(TOKEN_VAR, "  ")]).unwrap_err().contains(TOKEN_VAR));
    }
}
