//! Writes the PEM chains used by the test fixtures, generated with rcgen:
//! certificates with the real names and the DST Root CA X3 key identifier,
//! but fresh keys (so none is the real certificate).
//!
//!     cargo run --example make_test_chains -- tests/fixtures/chains
//!
//! Files: `long-chain-cross-dst.pem` (leaf, R10, ISRG Root X1 cross-signed by
//! DST Root CA X3) and `short-chain.pem` (leaf, R10).

use rcgen::{BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, Issuer, KeyIdMethod, KeyPair};

fn ca(cn: &str, o: &str, key_id: Option<&[u8]>) -> CertificateParams {
    let mut p = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CountryName, "US");
    dn.push(DnType::OrganizationName, o);
    dn.push(DnType::CommonName, cn);
    p.distinguished_name = dn;
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.use_authority_key_identifier_extension = true;
    if let Some(id) = key_id {
        p.key_identifier_method = KeyIdMethod::PreSpecified(id.to_vec());
    }
    p
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "tests/fixtures/chains".into()));
    std::fs::create_dir_all(&out)?;
    let dst_key_id: Vec<u8> = (0..20)
        .map(|i| u8::from_str_radix(&"c4a7b1a47b2c71fadbe14b9075ffc41560858910"[i * 2..i * 2 + 2], 16))
        .collect::<Result<_, _>>()?;
    let (dst_key, x1_key, r10_key, leaf_key) = (
        KeyPair::generate()?,
        KeyPair::generate()?,
        KeyPair::generate()?,
        KeyPair::generate()?,
    );
    let dst = Issuer::new(ca("DST Root CA X3", "Digital Signature Trust Co.", Some(&dst_key_id)), &dst_key);
    let x1 = Issuer::new(ca("ISRG Root X1", "Internet Security Research Group", None), &x1_key);
    let r10 = Issuer::new(ca("R10", "Let's Encrypt", None), &r10_key);
    let x1_cross = ca("ISRG Root X1", "Internet Security Research Group", None).signed_by(&x1_key, &dst)?;
    let r10_cert = ca("R10", "Let's Encrypt", None).signed_by(&r10_key, &x1)?;
    let mut leaf = CertificateParams::new(vec!["shop.example.com".to_string()])?;
    leaf.use_authority_key_identifier_extension = true;
    let leaf_cert = leaf.signed_by(&leaf_key, &r10)?;
    std::fs::write(
        out.join("long-chain-cross-dst.pem"),
        format!("{}{}{}", leaf_cert.pem(), r10_cert.pem(), x1_cross.pem()),
    )?;
    std::fs::write(out.join("short-chain.pem"), format!("{}{}", leaf_cert.pem(), r10_cert.pem()))?;
    println!("wrote {}", out.display());
    Ok(())
}
