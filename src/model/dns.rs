//! DNS records, as far as certificates care: CAA (RFC 8659).

use super::origin::RecordOrigin;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaaRecord {
    pub origin: RecordOrigin,
    /// The API's record id; empty where the export has none (BIND).
    pub id: String,
    /// The owner name, lower-case, without a trailing dot.
    pub name: String,
    pub flags: u8,
    /// Lower-case (`issue`, `issuewild`, `iodef`, …).
    pub tag: String,
    pub value: String,
}

/// A DNS name as compared: lower-case, no trailing dot.
pub fn normalise_name(name: &str) -> String {
    name.trim().trim_end_matches('.').to_ascii_lowercase()
}

/// `0 issue "letsencrypt.org"` → (flags, tag, value). The value may be
/// quoted (with `\"` escapes) or bare.
pub fn parse_caa_content(content: &str) -> Result<(u8, String, String), String> {
    if content.contains('\0') {
        return Err("a CAA record cannot hold a NUL character: the export is damaged".into());
    }
    let mut parts = content.trim().splitn(3, char::is_whitespace);
    let flags = parts.next().unwrap_or("");
    let flags: u8 = flags
        .parse()
        .map_err(|_| format!("CAA flags `{flags}` are not a number from 0 to 255"))?;
    let tag = parts
        .next()
        .filter(|t| !t.is_empty())
        .ok_or("a CAA record needs a tag (issue, issuewild, iodef)")?;
    if !tag.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(format!("CAA tag `{tag}` must be letters and digits"));
    }
    let raw = parts.next().unwrap_or("").trim();
    let value = match raw.strip_prefix('"') {
        Some(inner) => inner
            .strip_suffix('"')
            .ok_or("unterminated quoted CAA value")?
            .replace("\\\"", "\""),
        None => raw.to_string(),
    };
    Ok((flags, tag.to_ascii_lowercase(), value))
}

/// An owner name made absolute, lower-case and without its trailing dot,
/// under `origin` (its zone: lower-case, no trailing dot): `@` is the zone;
/// a name without its trailing dot that is the zone or ends in it is taken
/// as written (the service writes a BIND SOA's owner so; a Terraform record
/// may name itself in full); any other is relative to the zone.
pub fn absolute_name(name: &str, origin: Option<&str>) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if let Some(fqdn) = lower.strip_suffix('.') {
        return Some(fqdn.to_string());
    }
    match origin {
        _ if name == "@" => origin.map(str::to_string),
        Some("") => Some(lower),
        Some(o) if lower == o || lower.ends_with(&format!(".{o}")) => Some(lower),
        Some(o) => Some(format!("{lower}.{o}")),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caa_content_is_parsed_quoted_or_bare() {
        assert_eq!(
            parse_caa_content("0 issue \"letsencrypt.org\""),
            Ok((0, "issue".into(), "letsencrypt.org".into()))
        );
        assert_eq!(parse_caa_content("128 TBS \"x\""), Ok((128, "tbs".into(), "x".into())));
        assert_eq!(
            parse_caa_content("0 issue \"pki.goog; cansignhttpexchanges=yes\""),
            Ok((0, "issue".into(), "pki.goog; cansignhttpexchanges=yes".into()))
        );
        assert_eq!(parse_caa_content("0 issuewild ;"), Ok((0, "issuewild".into(), ";".into())));
        assert!(parse_caa_content("issue letsencrypt.org").is_err());
        assert!(parse_caa_content("0").is_err());
        assert!(parse_caa_content("0 issue \"open").is_err());
        assert!(parse_caa_content("0 issue \"letsencrypt.org\u{0}\"").is_err(), "NUL");
    }

    #[test]
    fn names_compare_without_case_or_trailing_dot() {
        assert_eq!(normalise_name("Shop.Example.COM."), "shop.example.com");
    }
}
