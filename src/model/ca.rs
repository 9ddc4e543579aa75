//! Who issues a certificate and with what key: the `certificate_authority`
//! words of the API, free-text issuers, key types. A leaf of the model that
//! certificates, hostnames and PEM chains all use.

use super::word::Word;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    Rsa,
    Ecdsa,
    Unknown,
}

impl KeyType {
    /// From `signature`, e.g. `SHA256WithRSA`, `ECDSAWithSHA256`.
    pub fn from_signature(signature: Option<&str>) -> KeyType {
        // Read for every certificate: without a lower-cased copy.
        let s = signature.unwrap_or("").as_bytes();
        let has = |word: &str| s.windows(word.len()).any(|w| w.eq_ignore_ascii_case(word.as_bytes()));
        if has("ecdsa") {
            KeyType::Ecdsa
        } else if has("rsa") {
            KeyType::Rsa
        } else {
            KeyType::Unknown
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            KeyType::Rsa => "rsa",
            KeyType::Ecdsa => "ecdsa",
            KeyType::Unknown => "unknown",
        }
    }
}

/// Let's Encrypt intermediates, by their common name, lower-cased.
const LE_INTERMEDIATES: [&str; 14] = [
    "r3", "r4", "r10", "r11", "r12", "r13", "r14", "e1", "e2", "e5", "e6", "e7", "e8", "e9",
];

/// Whether a free-text `issuer` names Let's Encrypt: lower-cased and
/// stripped of non-alphanumerics it contains `letsencrypt` or `isrg`, or it
/// is an intermediate's name (R3, R4, R10–R14, E1, E2, E5–E9).
pub fn issuer_is_lets_encrypt(issuer: &str) -> bool {
    let squashed: String = issuer
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    squashed.contains("letsencrypt") || squashed.contains("isrg") || LE_INTERMEDIATES.contains(&squashed.as_str())
}

/// A `certificate_authority` value, compared case-insensitively.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Authority {
    LetsEncrypt,
    Google,
    SslCom,
    DigiCert,
    /// `""`: the service's default CA.
    Default,
    /// Absent.
    Unknown,
    Other(Word),
}

impl Authority {
    pub fn parse(value: Option<&str>) -> Authority {
        Authority::parse_with(value, |v| Word::from(v))
    }

    /// [`Authority::parse`], with `other` making the word for a CA it does
    /// not know by name (an adapter shares them through its `Words`).
    pub fn parse_with(value: Option<&str>, other: impl FnOnce(&str) -> Word) -> Authority {
        let Some(v) = value else { return Authority::Unknown };
        let trimmed = v.trim();
        // Compared in place: a million records make no lower-cased copies.
        let is = |names: &[&str]| names.iter().any(|name| trimmed.eq_ignore_ascii_case(name));
        if trimmed.is_empty() {
            Authority::Default
        } else if is(&["lets_encrypt", "letsencrypt"]) {
            Authority::LetsEncrypt
        } else if is(&["google"]) {
            Authority::Google
        } else if is(&["ssl_com", "sslcom"]) {
            Authority::SslCom
        } else if is(&["digicert"]) {
            Authority::DigiCert
        } else {
            Authority::Other(other(v))
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Authority::LetsEncrypt => "lets_encrypt",
            Authority::Google => "google",
            Authority::SslCom => "ssl_com",
            Authority::DigiCert => "digicert",
            Authority::Default => "default",
            Authority::Unknown => "unknown",
            Authority::Other(_) => "other",
        }
    }
}
