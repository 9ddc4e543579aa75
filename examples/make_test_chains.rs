//! Writes the PEM chains used by the test fixtures, generated with rcgen:
//! certificates with the real names and the DST Root CA X3 key identifier,
//! but fresh keys (so none is the real certificate).
//!
//!     cargo run --example make_test_chains -- tests/fixtures/chains
//!
//! Files: `long-chain-cross-dst.pem` (leaf, R10, ISRG Root X1 cross-signed by
//! DST Root CA X3) and `short-chain.pem` (leaf, R10).

use rcgen::{BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, Issuer, KeyIdMethod, KeyPair};

/// A validity window, as the real certificate of that name has it.
fn valid(p: &mut CertificateParams, from: (i32, u8, u8), until: (i32, u8, u8)) {
    p.not_before = rcgen::date_time_ymd(from.0, from.1, from.2);
    p.not_after = rcgen::date_time_ymd(until.0, until.1, until.2);
}

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
    // The real windows: the X1 cross-sign 2021-01-20 to 2024-09-30, R10 2024-03-13 to 2027-03-12.
    let mut x1_cross = ca("ISRG Root X1", "Internet Security Research Group", None);
    valid(&mut x1_cross, (2021, 1, 20), (2024, 9, 30));
    let x1_cross = x1_cross.signed_by(&x1_key, &dst)?;
    let mut r10_cert = ca("R10", "Let's Encrypt", None);
    valid(&mut r10_cert, (2024, 3, 13), (2027, 3, 12));
    let r10_cert = r10_cert.signed_by(&r10_key, &x1)?;
    let mut leaf = CertificateParams::new(vec!["shop.example.com".to_string()])?;
    valid(&mut leaf, (2024, 6, 2), (2024, 8, 31));
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
