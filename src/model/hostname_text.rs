//! A custom hostname's own strings and small values in one heap block
//! (a million of them are most of the model).
//!
//! The block holds the id, the hostname, `ssl.method`, `ssl.type`, a CA
//! edgeaudit does not know by name, `ssl.certificate_authority`'s kind,
//! `ssl.wildcard` and the bundle zone: 16 bytes in the record and a block
//! of 23 bytes and the hostname, where they took 84 bytes in the record and
//! a block of the id and the hostname.
//! - An id in the API's form, a lower-case UUID
//!   (`0d89c70d-ad9f-4843-b99f-6cc0252067e9`, or its 32 digits without
//!   dashes), is kept as its 128 bits in 19 bytes rather than 36; any other
//!   id is kept as written.
//! - A method and type the API names (`http`, `txt`, `email`; `dv`) are
//!   bits; any other is kept as written.
//!
//! Every byte the block adds to the texts is ASCII (7 bits: the packed id
//! and the lengths too), so the block is a `str` and the texts are read
//! back without a check.
//!
//! Layout: the flags; the CA's kind with the known method and type; the
//! hostname's length and the hostname (read most often, so found without
//! reading the rest); the lengths of the id (when written out), method,
//! type and CA name (those written out) and the zone's index; the id's form
//! and its bytes; the method, type and CA name.

use std::borrow::Cow;

use super::ca::Authority;
use super::word::Word;

#[derive(Clone, PartialEq, Eq)]
pub struct HostnameText(Box<str>);

/// What a [`HostnameText`] is made of.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostnameStrings<'a> {
    pub id: &'a str,
    pub hostname: &'a str,
    pub ssl_method: Option<&'a str>,
    pub ssl_type: Option<&'a str>,
    pub authority: Option<&'a Authority>,
    pub wildcard: bool,
    /// The index of the bundle zone (in the record's own file) it belongs to.
    pub zone: Option<u32>,
}

const HAS_METHOD: u8 = 1;
const HAS_TYPE: u8 = 2;
const HAS_OTHER_CA: u8 = 4;
const WILDCARD: u8 = 8;
const HAS_ZONE: u8 = 64;
/// The id's form, in bits 4 and 5 of the flags and again before its bytes.
const FORM_SHIFT: u8 = 4;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum IdForm {
    Written = 0,
    /// A lower-case UUID with its dashes.
    Uuid = 1,
    /// 32 lower-case hexadecimal digits.
    Hex = 2,
}

/// Bytes of a packed 128-bit id: 7 bits each, so each is ASCII.
const PACKED: usize = 19;

const AUTHORITIES: [Authority; 6] = [
    Authority::LetsEncrypt,
    Authority::Google,
    Authority::SslCom,
    Authority::DigiCert,
    Authority::Default,
    Authority::Unknown,
];
const OTHER_CA: u8 = 6;
/// The second byte: the CA's kind in bits 0–2, then a method the API names
/// (bits 3–4, its index here plus one) and type `dv` (bit 5), which are
/// kept as those bits rather than written out.
const CA_BITS: u8 = 7;
const METHODS: [&str; 3] = ["http", "txt", "email"];
const METHOD_SHIFT: u8 = 3;
const TYPE_DV: u8 = 32;

/// Where each part is in a block.
struct Parts {
    flags: u8,
    /// The CA's kind, a known method and type.
    second: u8,
    zone: Option<usize>,
    /// The form byte and the id's bytes: the id's identity.
    key: std::ops::Range<usize>,
    method: std::ops::Range<usize>,
    ssl_type: std::ops::Range<usize>,
    other_ca: std::ops::Range<usize>,
}

impl HostnameText {
    pub fn new(s: &HostnameStrings<'_>) -> HostnameText {
        let (form, packed) = match pack(s.id) {
            Some((form, bits)) => (form, Some(bits)),
            None => (IdForm::Written, None),
        };
        let other_ca = match s.authority {
            Some(Authority::Other(word)) => Some(&**word),
            _ => None,
        };
        let authority = match s.authority.unwrap_or(&Authority::Unknown) {
            Authority::Other(_) => OTHER_CA,
            known => AUTHORITIES.iter().position(|a| a == known).map_or(OTHER_CA, |i| i as u8),
        };
        let method_code = s
            .ssl_method
            .and_then(|m| METHODS.iter().position(|&known| known == m))
            .map_or(0, |i| i as u8 + 1);
        let known_type = s.ssl_type == Some("dv");
        let second = authority | method_code << METHOD_SHIFT | if known_type { TYPE_DV } else { 0 };
        let written_method = s.ssl_method.filter(|_| method_code == 0);
        let written_type = s.ssl_type.filter(|_| !known_type);
        let mut flags = (form as u8) << FORM_SHIFT;
        for (present, flag) in [
            (s.ssl_method.is_some(), HAS_METHOD),
            (s.ssl_type.is_some(), HAS_TYPE),
            (other_ca.is_some(), HAS_OTHER_CA),
            (s.wildcard, WILDCARD),
            (s.zone.is_some(), HAS_ZONE),
        ] {
            if present {
                flags |= flag;
            }
        }
        let texts = [written_method, written_type, other_ca];
        let id_bytes = packed.map_or(length_bytes(s.id.len()) + s.id.len(), |_| PACKED);
        let size = 3
            + id_bytes
            + texts.iter().flatten().map(|t| length_bytes(t.len()) + t.len()).sum::<usize>()
            + s.zone.map_or(0, |zone| length_bytes(zone as usize))
            + length_bytes(s.hostname.len())
            + s.hostname.len();
        // Made to its size, so that the box takes the string's block as it is.
        let mut block = String::with_capacity(size);
        block.push(char::from(flags));
        block.push(char::from(second));
        push_length(&mut block, s.hostname.len());
        block.push_str(s.hostname);
        if packed.is_none() {
            push_length(&mut block, s.id.len());
        }
        for text in texts.iter().flatten() {
            push_length(&mut block, text.len());
        }
        if let Some(zone) = s.zone {
            push_length(&mut block, zone as usize);
        }
        block.push(char::from(form as u8));
        match packed {
            Some(bits) => (0..PACKED)
                .rev()
                .for_each(|i| block.push(char::from((bits >> (7 * i)) as u8 & 0x7f))),
            None => block.push_str(s.id),
        }
        for text in texts.iter().flatten() {
            block.push_str(text);
        }
        debug_assert_eq!(block.len(), size);
        HostnameText(block.into_boxed_str())
    }

    /// Where the hostname is: read most often, so first, after the flags and the CA.
    fn hostname_range(&self) -> std::ops::Range<usize> {
        let mut at = 2;
        let length = read_length(self.0.as_bytes(), &mut at);
        at..at.saturating_add(length)
    }

    fn parts(&self) -> Parts {
        let bytes = self.0.as_bytes();
        let flags = bytes.first().copied().unwrap_or(0);
        let form = (flags >> FORM_SHIFT) & 3;
        let mut at = self.hostname_range().end;
        let mut length = |present: bool| if present { read_length(bytes, &mut at) } else { 0 };
        let id = if form == IdForm::Written as u8 { length(true) } else { PACKED };
        let second = bytes.get(1).copied().unwrap_or(0);
        let method = length(flags & HAS_METHOD != 0 && second >> METHOD_SHIFT & 3 == 0);
        let ssl_type = length(flags & HAS_TYPE != 0 && second & TYPE_DV == 0);
        let other_ca = length(flags & HAS_OTHER_CA != 0);
        let zone = (flags & HAS_ZONE != 0).then(|| length(true));
        // Lengths the block was made with: within it. Saturating all the
        // same, so that no block could make a range wrap.
        let after = |start: usize, length: usize| start..start.saturating_add(length);
        let key = after(at, id.saturating_add(1));
        let method = after(key.end, method);
        let ssl_type = after(method.end, ssl_type);
        let other_ca = after(ssl_type.end, other_ca);
        Parts {
            flags,
            second,
            zone,
            key,
            method,
            ssl_type,
            other_ca,
        }
    }

    fn text(&self, range: std::ops::Range<usize>) -> &str {
        self.0.get(range).unwrap_or_default()
    }

    /// The id as the export wrote it.
    pub fn id(&self) -> Cow<'_, str> {
        let key = self.parts().key;
        let Some((&form, bytes)) = self.0.as_bytes().get(key.clone()).and_then(<[u8]>::split_first) else {
            return Cow::Borrowed("");
        };
        if form == IdForm::Written as u8 {
            return Cow::Borrowed(self.text(key.start + 1..key.end));
        }
        let bits = bytes.iter().fold(0u128, |bits, &b| bits << 7 | u128::from(b));
        Cow::Owned(unpack(bits, form == IdForm::Uuid as u8))
    }

    /// The id's identity: equal exactly when the ids are equal as written
    /// (its form and its bytes), and empty when the id is.
    pub fn id_key(&self) -> &str {
        let key = self.parts().key;
        if key.len() == 1 { "" } else { self.text(key) }
    }

    pub fn hostname(&self) -> &str {
        self.text(self.hostname_range())
    }

    pub fn ssl_method(&self) -> Option<&str> {
        let parts = self.parts();
        let known = usize::from(parts.second >> METHOD_SHIFT & 3);
        (parts.flags & HAS_METHOD != 0).then(|| {
            METHODS
                .get(known.wrapping_sub(1))
                .copied()
                .unwrap_or_else(|| self.text(parts.method))
        })
    }

    pub fn ssl_type(&self) -> Option<&str> {
        let parts = self.parts();
        (parts.flags & HAS_TYPE != 0).then(|| {
            if parts.second & TYPE_DV != 0 {
                "dv"
            } else {
                self.text(parts.ssl_type)
            }
        })
    }

    pub fn wildcard(&self) -> bool {
        self.0.as_bytes().first().is_some_and(|flags| flags & WILDCARD != 0)
    }

    pub fn zone(&self) -> Option<u32> {
        self.parts().zone.and_then(|zone| u32::try_from(zone).ok())
    }

    pub fn authority(&self) -> Authority {
        match self
            .0
            .as_bytes()
            .get(1)
            .and_then(|&second| AUTHORITIES.get(usize::from(second & CA_BITS)))
        {
            Some(known) => known.clone(),
            None => Authority::Other(Word::from(self.text(self.parts().other_ca))),
        }
    }
}

impl std::fmt::Debug for HostnameText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostnameText")
            .field("id", &self.id())
            .field("hostname", &self.hostname())
            .field("ssl_method", &self.ssl_method())
            .field("ssl_type", &self.ssl_type())
            .field("authority", &self.authority())
            .field("wildcard", &self.wildcard())
            .field("zone", &self.zone())
            .finish()
    }
}

/// An id in one of the API's forms, as its 128 bits.
fn pack(id: &str) -> Option<(IdForm, u128)> {
    let b = id.as_bytes();
    let form = match b.len() {
        36 if [8, 13, 18, 23].iter().all(|&i| b[i] == b'-') => IdForm::Uuid,
        32 => IdForm::Hex,
        _ => return None,
    };
    let mut bits = 0u128;
    let mut digits = 0;
    for &c in b {
        let digit = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'-' if form == IdForm::Uuid => continue,
            // Upper case too is written out: it must read back as written.
            _ => return None,
        };
        bits = bits << 4 | u128::from(digit);
        digits += 1;
    }
    (digits == 32).then_some((form, bits))
}

/// An id's 128 bits written out: 32 lower-case digits, with a UUID's dashes.
fn unpack(bits: u128, dashed: bool) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut id = String::with_capacity(36);
    for digit in 0..32 {
        if dashed && matches!(digit, 8 | 12 | 16 | 20) {
            id.push('-');
        }
        id.push(char::from(DIGITS[(bits >> (4 * (31 - digit))) as usize & 15]));
    }
    id
}

/// A length in ASCII bytes: digits of 5 bits (`0x60 + d`), most significant
/// first, then one of 96 (`0x00..0x60`) that ends it. Below 96, one byte.
fn push_length(block: &mut String, n: usize) {
    let mut high = [0u8; 16];
    let mut count = 0;
    let mut q = n / 96;
    while q > 0 {
        high[count] = 0x60 + (q % 32) as u8;
        count += 1;
        q /= 32;
    }
    high[..count].iter().rev().for_each(|&d| block.push(char::from(d)));
    block.push(char::from((n % 96) as u8));
}

/// How many bytes [`push_length`] writes for `n`.
fn length_bytes(n: usize) -> usize {
    let mut bytes = 1;
    let mut q = n / 96;
    while q > 0 {
        bytes += 1;
        q /= 32;
    }
    bytes
}

fn read_length(bytes: &[u8], at: &mut usize) -> usize {
    let mut n = 0usize;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        if b >= 0x60 {
            n = n.saturating_mul(32).saturating_add(usize::from(b - 0x60));
        } else {
            return n.saturating_mul(96).saturating_add(usize::from(b));
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: HostnameStrings<'_>) -> HostnameText {
        HostnameText::new(&s)
    }

    #[test]
    fn every_part_reads_back_as_written() {
        let sectigo = Authority::Other(Word::from("Sectigo"));
        let long = "x".repeat(70_000);
        for id in [
            "0d89c70d-ad9f-4843-b99f-6cc0252067e9",
            "023e105f4ecef8ad9ca31a8372d0c353",
            "00000000-0000-0000-0000-000000000000",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "0D89C70D-AD9F-4843-B99F-6CC0252067E9",
            "0d89c70d-ad9f-4843-b99f-6cc0252067e",
            "0d89c70dxad9f-4843-b99f-6cc0252067e9",
            "0d89c70d-ad9f-4843-b99f-6cc0252067-9",
            "0d89c70d-ad9f-4843-b99f-6cc0252067g9",
            "023e105f4ecef8ad9ca31a8372d0c35",
            "h1",
            "é",
            "",
            &long,
        ] {
            for hostname in ["app.example.com", "", "ü.example", "*.example.com", &long] {
                for (method, ssl_type) in [
                    (None, None),
                    (Some("http"), Some("dv")),
                    (Some("email"), Some("DV")),
                    (Some("HTTP"), Some("")),
                    (Some(""), None),
                    (Some("txt"), Some(&*long)),
                ] {
                    for authority in [None, Some(&Authority::Default), Some(&Authority::LetsEncrypt), Some(&sectigo)] {
                        for (wildcard, zone) in [(false, None), (true, Some(0)), (false, Some(4_000_000_000))] {
                            let t = text(HostnameStrings {
                                id,
                                hostname,
                                ssl_method: method,
                                ssl_type,
                                authority,
                                wildcard,
                                zone,
                            });
                            assert_eq!(t.id(), id);
                            assert_eq!(t.id_key().is_empty(), id.is_empty());
                            assert_eq!(t.hostname(), hostname);
                            assert_eq!((t.ssl_method(), t.ssl_type()), (method, ssl_type));
                            assert_eq!(t.authority(), authority.cloned().unwrap_or(Authority::Unknown));
                            assert_eq!(t.wildcard(), wildcard);
                            assert_eq!(t.zone(), zone);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_uuid_is_kept_in_19_bytes() {
        let t = text(HostnameStrings {
            id: "0d89c70d-ad9f-4843-b99f-6cc0252067e9",
            hostname: "shop-0.customer-0.example",
            ssl_method: Some("http"),
            ssl_type: Some("dv"),
            authority: Some(&Authority::Default),
            wildcard: false,
            zone: None,
        });
        // flags, CA with method and type, 1 + 25, form, 19.
        assert_eq!(t.0.len(), 2 + 26 + 1 + 19);
        assert!(matches!(t.id(), Cow::Owned(_)));
        let written = text(HostnameStrings {
            id: "h1",
            ..HostnameStrings::default()
        });
        assert!(matches!(written.id(), Cow::Borrowed("h1")));
    }

    #[test]
    fn keys_are_equal_exactly_when_the_ids_are() {
        let ids = [
            "0d89c70d-ad9f-4843-b99f-6cc0252067e9",
            "0d89c70dad9f4843b99f6cc0252067e9",
            "0D89C70D-AD9F-4843-B99F-6CC0252067E9",
            "h1",
            "h10",
            "1",
        ];
        let mut keys: Vec<HostnameText> = ids
            .iter()
            .map(|&id| {
                text(HostnameStrings {
                    id,
                    hostname: "a",
                    ..HostnameStrings::default()
                })
            })
            .collect();
        // A written id equal to a packed id's bytes is still another id.
        let packed = keys[0].id_key().to_string();
        let impostor = text(HostnameStrings {
            id: &packed[1..],
            hostname: "a",
            ..HostnameStrings::default()
        });
        keys.push(impostor);
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate() {
                assert_eq!(a.id_key() == b.id_key(), i == j, "{:?} {:?}", a.id(), b.id());
            }
        }
        let again = text(HostnameStrings {
            id: ids[0],
            hostname: "other",
            ..HostnameStrings::default()
        });
        assert_eq!(again.id_key(), keys[0].id_key(), "the key is the id's, whatever else differs");
    }

    #[test]
    fn lengths_round_trip_in_ascii() {
        for n in [0, 1, 95, 96, 97, 3071, 3072, 3073, 100_000, usize::MAX / 1024, usize::MAX] {
            let mut s = String::new();
            push_length(&mut s, n);
            assert!(s.is_ascii());
            assert_eq!(s.len(), length_bytes(n));
            let mut at = 0;
            assert_eq!(read_length(s.as_bytes(), &mut at), n);
            assert_eq!(at, s.len());
        }
    }
}
