//! Does a PEM bundle carry the retired cross-signed chain (docs/src/rules/index.md)?
//!
//! The cross-sign is "ISRG Root X1" issued by "DST Root CA X3". It is
//! recognised by its structure (the two names, and the DST key's authority
//! key identifier when the certificate has one) and by the fingerprint of the
//! real certificate. ISRG Root X2 and E5/E6 cross-signed by X1 are other
//! certificates and are not flagged.

use crate::model::pem::ChainCertificate;

const X1_CN: &str = "ISRG Root X1";
const X1_O: &str = "Internet Security Research Group";
const DST_CN: &str = "DST Root CA X3";
const DST_O: &str = "Digital Signature Trust Co.";
/// The DST Root CA X3 key, as the cross-sign names its issuer.
pub const DST_KEY_ID: &str = "c4a7b1a47b2c71fadbe14b9075ffc41560858910";
/// SHA-256 of the real cross-signed ISRG Root X1 (valid until 2024-09-30T18:14:03Z).
pub const CROSS_SIGN_SHA256: &str = "6d99fb265eb1c5b3744765fcbc648f3cd8e1bffafdc4c2f99b9d47cf7ff1c24f";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recognised {
    /// The real certificate, by its fingerprint.
    Fingerprint,
    /// Another certificate with the same names and issuer key (a re-issue or
    /// a test copy): the same trust path for clients.
    Structure,
}

/// Whether this certificate is the X1-by-DST cross-sign, and how it was recognised.
pub fn cross_signed_x1(cert: &ChainCertificate) -> Option<Recognised> {
    if cert.sha256 == CROSS_SIGN_SHA256 {
        return Some(Recognised::Fingerprint);
    }
    let names = cert.subject_cn.as_deref() == Some(X1_CN)
        && cert.subject_o.as_deref() == Some(X1_O)
        && cert.issuer_cn.as_deref() == Some(DST_CN)
        && cert.issuer_o.as_deref() == Some(DST_O);
    let key = cert.authority_key_id.as_deref().is_none_or(|k| k == DST_KEY_ID);
    (names && key).then_some(Recognised::Structure)
}

/// The index of the first cross-signed X1 in a bundle.
pub fn find_cross_sign(chain: &[ChainCertificate]) -> Option<(usize, Recognised)> {
    chain.iter().enumerate().find_map(|(i, c)| cross_signed_x1(c).map(|r| (i, r)))
}

/// Another certificate issued by the DST Root CA X3 key (an older cross-sign
/// such as R3 or Let's Encrypt Authority X3, expired in 2021): a chain that
/// carries it also builds through DST Root CA X3.
pub fn issued_by_dst(cert: &ChainCertificate) -> bool {
    let names = cert.issuer_cn.as_deref() == Some(DST_CN) && cert.issuer_o.as_deref() == Some(DST_O);
    // The DST root itself is not a cross-sign.
    let self_signed = cert.subject == cert.issuer;
    names && !self_signed && cert.authority_key_id.as_deref().is_none_or(|k| k == DST_KEY_ID) && cross_signed_x1(cert).is_none()
}

/// What a bundle carries through DST Root CA X3, worst first: the X1 cross-sign,
/// else another DST-issued certificate; with that certificate.
pub fn dst_certificate(chain: &[ChainCertificate]) -> Option<(&ChainCertificate, bool)> {
    if let Some((i, _)) = find_cross_sign(chain) {
        return Some((&chain[i], true));
    }
    chain.iter().find(|c| issued_by_dst(c)).map(|c| (c, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::pem::parse_bundle;
    use rcgen::{BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, Issuer, KeyIdMethod, KeyPair};

    fn hex_bytes(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect()
    }

    fn name(cn: &str, o: &str) -> DistinguishedName {
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CountryName, "US");
        dn.push(DnType::OrganizationName, o);
        dn.push(DnType::CommonName, cn);
        dn
    }

    fn ca(cn: &str, o: &str, key_id: Option<&str>) -> CertificateParams {
        let mut p = CertificateParams::default();
        p.distinguished_name = name(cn, o);
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.use_authority_key_identifier_extension = true;
        if let Some(id) = key_id {
            p.key_identifier_method = KeyIdMethod::PreSpecified(hex_bytes(id));
        }
        p
    }

    /// Generated look-alikes of the real chain certificates: same names, the
    /// DST key identifier, different keys (so a different fingerprint).
    struct Pki {
        dst_key: KeyPair,
        x1_key: KeyPair,
    }

    impl Pki {
        fn new() -> Self {
            Pki {
                dst_key: KeyPair::generate().expect("key"),
                x1_key: KeyPair::generate().expect("key"),
            }
        }

        fn dst(&self) -> Issuer<'_, &KeyPair> {
            Issuer::new(ca(DST_CN, DST_O, Some(DST_KEY_ID)), &self.dst_key)
        }

        fn x1(&self) -> Issuer<'_, &KeyPair> {
            Issuer::new(ca(X1_CN, X1_O, None), &self.x1_key)
        }

        fn x1_cross_by_dst(&self) -> String {
            ca(X1_CN, X1_O, None).signed_by(&self.x1_key, &self.dst()).expect("sign").pem()
        }

        fn r10_by_x1(&self) -> String {
            let key = KeyPair::generate().expect("key");
            ca("R10", "Let's Encrypt", None).signed_by(&key, &self.x1()).expect("sign").pem()
        }

        fn x2_cross_by_x1(&self) -> String {
            let key = KeyPair::generate().expect("key");
            ca("ISRG Root X2", X1_O, None).signed_by(&key, &self.x1()).expect("sign").pem()
        }

        fn leaf(&self) -> String {
            let key = KeyPair::generate().expect("key");
            let mut p = CertificateParams::new(vec!["example.com".to_string()]).expect("params");
            p.use_authority_key_identifier_extension = true;
            p.signed_by(&key, &self.x1()).expect("sign").pem()
        }
    }

    fn flagged(pem: &str) -> Option<(usize, Recognised)> {
        find_cross_sign(&parse_bundle(pem).expect("parses"))
    }

    #[test]
    fn the_long_chain_is_flagged_by_structure_wherever_it_sits() {
        let pki = Pki::new();
        let chain = format!("{}{}{}", pki.leaf(), pki.r10_by_x1(), pki.x1_cross_by_dst());
        assert_eq!(flagged(&chain), Some((2, Recognised::Structure)));
        let reordered = format!("{}\nsome text between blocks\r\n{}", pki.x1_cross_by_dst(), pki.leaf()).replace('\n', "\r\n");
        assert_eq!(flagged(&reordered), Some((0, Recognised::Structure)));
    }

    #[test]
    fn short_chains_and_other_cross_signs_are_not_flagged() {
        let pki = Pki::new();
        assert_eq!(flagged(&format!("{}{}", pki.leaf(), pki.r10_by_x1())), None);
        assert_eq!(flagged(&pki.x2_cross_by_x1()), None, "X2 cross-signed by X1");
        let x1_self_signed = ca(X1_CN, X1_O, None).self_signed(&pki.x1_key).expect("sign").pem();
        assert_eq!(flagged(&x1_self_signed), None, "the self-signed X1");
    }

    #[test]
    fn a_look_alike_under_another_issuer_key_is_not_the_cross_sign() {
        let pki = Pki::new();
        let other_dst = KeyPair::generate().expect("key");
        let issuer = Issuer::new(ca(DST_CN, DST_O, Some("0102030405060708090a0b0c0d0e0f1011121314")), &other_dst);
        let pem = ca(X1_CN, X1_O, None).signed_by(&pki.x1_key, &issuer).expect("sign").pem();
        assert_eq!(flagged(&pem), None);
    }

    #[test]
    fn malformed_bundles_are_errors() {
        assert!(parse_bundle("no pem here").is_err());
        assert!(parse_bundle("-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n").is_err());
        assert!(parse_bundle("-----BEGIN CERTIFICATE-----\nMIIB\n").is_err(), "truncated");
        assert!(
            parse_bundle("-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----\n").is_err(),
            "not X.509"
        );
    }

    /// The real certificates, when ../shared/data/certs is present.
    #[test]
    fn real_chains_are_classified_as_their_readme_says() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/certs");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("NOTICE: {} not found; skipping the real-certificate checks", dir.display());
            return;
        };
        let mut checked = 0;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".pem") {
                continue;
            }
            let pem = std::fs::read_to_string(entry.path()).expect("read");
            let result = flagged(&pem);
            if name.contains("x1-cross-dst") || name.contains("cross-dst-lencr") || name.contains("cross-dst-tracker") {
                assert_eq!(
                    result.map(|r| r.1),
                    Some(Recognised::Fingerprint),
                    "{name} carries the real cross-sign"
                );
                // Its names and issuer key alone recognise it too.
                let mut chain = parse_bundle(&pem).expect("parses");
                let (i, _) = result.expect("flagged");
                chain[i].sha256.clear();
                assert_eq!(cross_signed_x1(&chain[i]), Some(Recognised::Structure), "{name} by structure");
                assert_eq!(chain[i].authority_key_id.as_deref(), Some(DST_KEY_ID));
            } else if name.contains("cross-dst") {
                // r3-cross-dst and le-authority-x3-cross-dst: older DST cross-signs, not X1,
                // but a chain that carries them builds through DST Root CA X3 too.
                assert_eq!(result, None, "{name} is not the X1 cross-sign");
                let chain = parse_bundle(&pem).expect("parses");
                assert_eq!(
                    dst_certificate(&chain).map(|(c, x1)| (c.issuer_cn.clone(), x1)),
                    Some((Some(DST_CN.to_string()), false)),
                    "{name}"
                );
            } else {
                assert_eq!(result, None, "{name} must not be flagged");
                assert!(
                    dst_certificate(&parse_bundle(&pem).expect("parses")).is_none(),
                    "{name} has nothing from DST"
                );
            }
            checked += 1;
        }
        assert!(checked >= 20, "only {checked} PEM files");
    }
}
