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
    /// From the certificate's signature algorithm, as the API's `signature`
    /// (`SHA256WithRSA`): the issuer's key, which decides the chain (an
    /// ECDSA key signed by R10 is on the RSA chain).
    pub key_type: super::ca::KeyType,
}

impl ChainCertificate {
    /// The issuer as a person names it: its organisation, else its common name.
    pub fn issuer_name(&self) -> &str {
        self.issuer_o.as_deref().or(self.issuer_cn.as_deref()).unwrap_or(&self.issuer)
    }

    /// Whether the issuer is Let's Encrypt, by its organisation or its intermediate's name.
    pub fn issued_by_lets_encrypt(&self) -> bool {
        [self.issuer_o.as_deref(), self.issuer_cn.as_deref()]
            .into_iter()
            .flatten()
            .any(super::ca::issuer_is_lets_encrypt)
    }
}

/// The uploaded PEM chain of a record, as read: its certificates (leaf first),
/// or why it could not be read (EX003), and where the export contradicts its
/// leaf (EX004).
#[derive(Debug, Clone)]
pub struct Chain {
    /// The PEM field, relative to the record (`/certificate`, `/ssl/custom_certificate`, …).
    pub path: String,
    pub certificates: Vec<ChainCertificate>,
    /// The PEM field that could not be read, and why.
    pub unreadable: Option<(String, String)>,
    /// Export fields that contradict the leaf, each at its field.
    pub contradictions: Vec<Contradiction>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contradiction {
    /// The export field, relative to the record.
    pub path: String,
    /// What the field says and what the PEM says, in words.
    pub text: String,
}

impl Chain {
    /// Reads every PEM of a record (`(path, text)`); one that cannot be read
    /// makes the chain unreadable, never the file.
    pub fn read<'p>(pems: impl IntoIterator<Item = (String, &'p str)>) -> Option<Chain> {
        let mut chain: Option<Chain> = None;
        for (path, pem) in pems {
            let c = chain.get_or_insert_with(|| Chain {
                path: path.clone(),
                certificates: Vec::new(),
                unreadable: None,
                contradictions: Vec::new(),
            });
            match parse_bundle(pem) {
                Ok(certificates) => c.certificates.extend(certificates),
                Err(reason) => {
                    if c.unreadable.is_none() {
                        c.unreadable = Some((path, reason));
                    }
                }
            }
        }
        chain
    }

    /// The certificates, when every PEM could be read.
    pub fn readable(&self) -> Option<&[ChainCertificate]> {
        self.unreadable.is_none().then_some(&self.certificates[..])
    }

    /// The leaf: the first certificate of the first PEM.
    pub fn leaf(&self) -> Option<&ChainCertificate> {
        self.readable()?.first()
    }
}

/// PEM text as some exports write it: with literal `\n` (backslash, n)
/// instead of line ends, from a JSON string escaped twice.
pub fn unescape(pem: &str) -> std::borrow::Cow<'_, str> {
    if pem.contains("\\n") && !pem.contains("-----\n") {
        std::borrow::Cow::Owned(pem.replace("\\r\\n", "\n").replace("\\n", "\n"))
    } else {
        std::borrow::Cow::Borrowed(pem)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attribute(name: &X509Name, oid: &x509_parser::der_parser::oid::Oid) -> Option<String> {
    name.iter_by_oid(oid).next().and_then(|a| a.as_str().ok()).map(str::to_string)
}

/// The key type of a signature algorithm, by its OID.
fn key_type(oid: &str) -> super::ca::KeyType {
    use super::ca::KeyType;
    if oid.starts_with("1.2.840.113549.1.1.") {
        // sha*WithRSAEncryption, RSASSA-PSS
        KeyType::Rsa
    } else if oid.starts_with("1.2.840.10045.4.") {
        // ecdsa-with-SHA*
        KeyType::Ecdsa
    } else {
        KeyType::Unknown
    }
}

/// Every block's END line names the label its BEGIN line named (the PEM
/// reader used below does not check it).
fn matching_labels(pem: &str) -> Result<(), String> {
    let label = |line: &str, marker: &str| {
        line.trim()
            .strip_prefix(marker)
            .and_then(|rest| rest.strip_suffix("-----"))
            .map(str::to_string)
    };
    let mut open: Option<String> = None;
    let mut block = 0;
    for line in pem.lines() {
        if let Some(begin) = label(line, "-----BEGIN ") {
            block += 1;
            open = Some(begin);
        } else if let Some(end) = label(line, "-----END ") {
            match open.take() {
                Some(begin) if begin == end => {}
                Some(begin) => return Err(format!("PEM block {block} begins as {begin} but ends as {end}")),
                None => return Err(format!("an END {end} line without its BEGIN line (after block {block})")),
            }
        }
    }
    Ok(())
}

/// Every certificate of a PEM bundle, in order. Text between blocks and CRLF
/// line ends are fine; blocks that are not certificates (a key pasted by
/// mistake) are skipped; a block that does not decode is an error.
pub fn parse_bundle(pem: &str) -> Result<Vec<ChainCertificate>, String> {
    use x509_parser::oid_registry::{OID_X509_COMMON_NAME, OID_X509_ORGANIZATION_NAME};
    let normalised = unescape(pem).replace("\r\n", "\n");
    matching_labels(&normalised)?;
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
            key_type: key_type(cert.signature_algorithm.algorithm.to_id_string().as_str()),
        });
    }
    if out.is_empty() {
        return Err("no PEM certificate block (-----BEGIN CERTIFICATE-----) found".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_backslash_n_escapes_are_line_ends() {
        let pem = "-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n";
        assert_eq!(unescape(pem), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
        let plain = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        assert_eq!(unescape(plain), plain);
    }

    #[test]
    fn a_block_whose_end_label_differs_from_its_begin_label_is_an_error() {
        let chain = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chains/short-chain.pem")).expect("chain");
        let first_end = chain.find("-----END CERTIFICATE-----").expect("end");
        let broken = format!("{}-----END PRIVATE KEY-----{}", &chain[..first_end], &chain[first_end + 25..]);
        let err = parse_bundle(&broken).expect_err("mismatched labels");
        assert!(err.contains("begins as CERTIFICATE but ends as PRIVATE KEY"), "{err}");
    }

    #[test]
    fn the_key_type_is_the_signature_algorithm_s() {
        use crate::model::certificate::KeyType;
        assert_eq!(key_type("1.2.840.113549.1.1.11"), KeyType::Rsa, "sha256WithRSAEncryption");
        assert_eq!(key_type("1.2.840.113549.1.1.10"), KeyType::Rsa, "RSASSA-PSS");
        assert_eq!(key_type("1.2.840.10045.4.3.2"), KeyType::Ecdsa, "ecdsa-with-SHA256");
        assert_eq!(key_type("1.2.840.10045.2.1"), KeyType::Unknown, "a public key, not a signature");
        assert_eq!(key_type("1.3.101.112"), KeyType::Unknown, "Ed25519");
    }

    #[test]
    fn an_unreadable_pem_is_kept_with_its_reason() {
        let chain = Chain::read([("/certificate".to_string(), "not a pem")]).expect("a chain");
        assert!(chain.readable().is_none());
        let (path, reason) = chain.unreadable.as_ref().expect("unreadable");
        assert_eq!(path, "/certificate");
        assert!(reason.contains("no PEM certificate block"), "{reason}");
        assert!(Chain::read(std::iter::empty::<(String, &str)>()).is_none());
    }
}
