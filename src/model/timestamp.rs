//! RFC 3339 timestamps as UTC instants (DESIGN §1.3: 0–9 fraction digits).
//!
//! Exports write one form almost always, `2024-09-09T10:00:00.123Z`, and a
//! million hostnames carry three each: that form is read here directly, and
//! every other one (an offset, a lower-case `t`, blanks around it) by chrono,
//! which also decides what is not a timestamp. Both give the same instant
//! (a property test holds them to it); chrono's parse was 2% of the
//! instructions of a hostnames' check.

use chrono::{DateTime, NaiveDate, Utc};

/// RFC 3339 with any number of fraction digits (0–9), blanks around it
/// allowed, as UTC.
pub fn parse_timestamp(s: &str) -> Option<DateTime<Utc>> {
    canonical_utc(s).or_else(|| by_chrono(s.trim()))
}

/// RFC 3339 exactly (no blanks around it), as UTC.
pub fn parse_rfc3339(s: &str) -> Option<DateTime<Utc>> {
    canonical_utc(s).or_else(|| by_chrono(s))
}

fn by_chrono(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s).ok().map(|t| t.with_timezone(&Utc))
}

/// `YYYY-MM-DDTHH:MM:SS[.F{1,9}]Z` read directly; `None` for anything
/// else (chrono then reads it, or says it is not a timestamp).
fn canonical_utc(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b.last() != Some(&b'Z') {
        return None;
    }
    let digit = |byte: u8| -> Option<u32> {
        let d = byte.wrapping_sub(b'0');
        (d < 10).then_some(u32::from(d))
    };
    // `YYYY-MM-DDTHH:MM:SS` as seven two-digit numbers.
    let mut pairs = [0u32; 7];
    for (pair, at) in pairs.iter_mut().zip([0, 2, 5, 8, 11, 14, 17]) {
        *pair = digit(b[at])? * 10 + digit(b[at + 1])?;
    }
    let [century, year_of_century, month, day, hour, minute, second] = pairs;
    // A leap second (`:60`) is chrono's to read.
    if second > 59 {
        return None;
    }
    let nanos = match &b[19..b.len() - 1] {
        [] => 0,
        [b'.', fraction @ ..] if (1..=9).contains(&fraction.len()) => {
            let value = fraction.iter().try_fold(0, |n, &byte| Some(n * 10 + digit(byte)?))?;
            value * 10u32.pow(9 - fraction.len() as u32)
        }
        _ => return None,
    };
    let date = NaiveDate::from_ymd_opt(i32::try_from(century * 100 + year_of_century).ok()?, month, day)?;
    Some(date.and_hms_nano_opt(hour, minute, second, nanos)?.and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn timestamps_take_any_fraction_length() {
        let whole = parse_timestamp("2024-09-09T00:00:00Z").expect("whole");
        for s in [
            "2024-09-09T00:00:00.0Z",
            "2024-09-09T00:00:00.123456789Z",
            "2024-09-09T02:00:00+02:00",
            " 2024-09-09T00:00:00.5Z\n",
        ] {
            let t = parse_timestamp(s).expect(s);
            assert!(t >= whole && (t - whole).num_milliseconds() < 1000, "{s}");
        }
        assert!(parse_timestamp("2014-01-01T05:20:00.12345Z").is_some());
        assert!(parse_timestamp("2024-09-09").is_none());
        assert!(parse_timestamp("yesterday").is_none());
        assert!(parse_timestamp("2024-02-30T00:00:00Z").is_none());
        assert!(parse_rfc3339(" 2024-09-09T00:00:00Z").is_none());
    }

    #[test]
    fn the_canonical_form_is_read_directly() {
        let t = canonical_utc("2024-09-09T10:20:30.25Z").expect("canonical");
        assert_eq!(t.to_rfc3339(), "2024-09-09T10:20:30.250+00:00");
        for other in [
            "2024-09-09t10:20:30Z",
            "2024-09-09T10:20:30+00:00",
            "2024-09-09T10:20:60Z",
            "2024-09-09T10:20:30.Z",
        ] {
            assert_eq!(canonical_utc(other), None, "{other}");
        }
    }

    fn near_timestamps() -> impl Strategy<Value = String> {
        // Mostly the canonical separator and zone, so that most strings
        // reach the direct reading; the rest are chrono's alone.
        let separator = prop::sample::select(vec!["T", "T", "T", "t", " ", "X"]);
        let zone = prop::sample::select(vec!["Z", "Z", "Z", "Z", "z", "+00:00", "-07:30", "", "ZZ"]);
        let fraction = prop::option::of((0usize..12, 0u64..10_000_000_000_000));
        (
            (0u32..10_000, 0u32..14, 0u32..33),
            separator,
            (0u32..26, 0u32..62, 0u32..62),
            fraction,
            zone,
            prop::bool::weighted(0.2),
        )
            .prop_map(|((y, mo, d), sep, (h, mi, s), fraction, zone, blank)| {
                let fraction = fraction.map_or(String::new(), |(len, n)| {
                    let digits = format!("{n:013}");
                    format!(".{}", &digits[..len])
                });
                let pad = if blank { " " } else { "" };
                format!("{pad}{y:04}-{mo:02}-{d:02}{sep}{h:02}:{mi:02}:{s:02}{fraction}{zone}")
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// The direct reading and chrono's agree on every string near the
        /// canonical form, the ones that are no timestamp included.
        #[test]
        fn the_direct_reading_is_chronos(s in near_timestamps()) {
            prop_assert_eq!(parse_timestamp(&s), by_chrono(s.trim()));
            prop_assert_eq!(parse_rfc3339(&s), by_chrono(&s));
        }
    }
}
