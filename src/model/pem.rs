//! PEM bundles as the model keeps them: per certificate, the names and key
//! identifiers that identify it, and the SHA-256 of its original DER.

use sha2::{Digest, Sha256};
use x509_parser::extensions::ParsedExtension;
use x509_parser::pem::Pem;
use x509_parser::x509::X509Name;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainCertificate {
    /// RFC 4514-style, e.g. `C=US, O=Internet Security Research Group, CN=ISRG Root X1`.
    pub subject: String,
    pub issuer: String,
    pub subject_cn: Option<String>,
    pub subject_o: Option<String>,
    pub issuer_cn: Option<String>,
    pub issuer_o: Option<String>,
    /// Authority key identifier, lower-case hex.
    pub authority_key_id: Option<String>,
    /// SHA-256 of the DER, lower-case hex.
    pub sha256: String,
    pub not_after: i64,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attribute(name: &X509Name, oid: &x509_parser::der_parser::oid::Oid) -> Option<String> {
    name.iter_by_oid(oid).next().and_then(|a| a.as_str().ok()).map(str::to_string)
}

/// Every certificate of a PEM bundle, in order. Text between blocks and CRLF
/// line ends are fine; blocks that are not certificates (a key pasted by
/// mistake) are skipped; a block that does not decode is an error.
pub fn parse_bundle(pem: &str) -> Result<Vec<ChainCertificate>, String> {
    use x509_parser::oid_registry::{OID_X509_COMMON_NAME, OID_X509_ORGANIZATION_NAME};
    let normalised = pem.replace("\r\n", "\n");
    let mut out = Vec::new();
    for (i, block) in Pem::iter_from_buffer(normalised.as_bytes()).enumerate() {
        let block = block.map_err(|e| format!("PEM block {} does not decode: {e}", i + 1))?;
        if block.label != "CERTIFICATE" {
            continue;
        }
        let (_, cert) = x509_parser::parse_x509_certificate(&block.contents)
            .map_err(|e| format!("PEM block {} is not an X.509 certificate: {e}", i + 1))?;
        let tbs = &cert.tbs_certificate;
        let authority_key_id = tbs.extensions().iter().find_map(|ext| match ext.parsed_extension() {
            ParsedExtension::AuthorityKeyIdentifier(aki) => aki.key_identifier.as_ref().map(|k| hex(k.0)),
            _ => None,
        });
        out.push(ChainCertificate {
            subject: tbs.subject.to_string(),
            issuer: tbs.issuer.to_string(),
            subject_cn: attribute(&tbs.subject, &OID_X509_COMMON_NAME),
            subject_o: attribute(&tbs.subject, &OID_X509_ORGANIZATION_NAME),
            issuer_cn: attribute(&tbs.issuer, &OID_X509_COMMON_NAME),
            issuer_o: attribute(&tbs.issuer, &OID_X509_ORGANIZATION_NAME),
            authority_key_id,
            sha256: hex(&Sha256::digest(&block.contents)),
            not_after: tbs.validity.not_after.timestamp(),
        });
    }
    if out.is_empty() {
        return Err("no PEM certificate block (-----BEGIN CERTIFICATE-----) found".into());
    }
    Ok(out)
}
