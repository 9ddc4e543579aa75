//! The dates of the Let's Encrypt chain change, named once. Rule packs
//! refer to them by name — in conditions (`before: cross_sign_unused`), in
//! phases (`as_of_before: cross_sign_expiry`) and in messages
//! (`{cross_sign_expiry}`) — so a date is corrected in one place.

use chrono::NaiveDate;

/// A date of the change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedDate {
    pub name: &'static str,
    /// The first day it holds (midnight UTC).
    pub day: NaiveDate,
    /// As messages say it: the service announced June only as a month.
    pub shown: &'static str,
    /// What happens on it.
    pub meaning: &'static str,
}

const fn day(year: i32, month: u32, day: u32) -> NaiveDate {
    match NaiveDate::from_ymd_opt(year, month, day) {
        Some(d) => d,
        None => panic!("not a date"),
    }
}

/// In date order.
pub const DATES: [NamedDate; 3] = [
    NamedDate {
        name: "automatic_switch",
        day: day(2024, 6, 1),
        shown: "June 2024",
        meaning: "managed certificates whose CA the customer did not choose explicitly start being switched to a more compatible CA",
    },
    NamedDate {
        name: "cross_sign_unused",
        day: day(2024, 9, 9),
        shown: "2024-09-09",
        meaning: "the cross-signed chain is no longer used for issuance or bundling; first legacy-client impact",
    },
    NamedDate {
        name: "cross_sign_expiry",
        day: day(2024, 9, 30),
        shown: "2024-09-30",
        meaning: "the cross-signed ISRG Root X1 (signed by DST Root CA X3) expires",
    },
];

/// The date of this name.
pub fn named(name: &str) -> Option<&'static NamedDate> {
    DATES.iter().find(|d| d.name == name)
}

/// The named date on this day, for docs (`2024-09-09 (cross_sign_unused)`).
pub fn name_of(day: NaiveDate) -> Option<&'static str> {
    DATES.iter().find(|d| d.day == day).map(|d| d.name)
}

/// A date as a rule file writes it: a name of [`DATES`] or `YYYY-MM-DD`.
pub fn parse(s: &str) -> Result<NaiveDate, String> {
    if let Some(d) = named(s) {
        return Ok(d.day);
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| format!("`{s}` is not a date: expected YYYY-MM-DD or one of {}", names()))
}

/// The names, for error messages.
pub fn names() -> String {
    DATES.iter().map(|d| format!("`{}`", d.name)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_in_order_and_named_once() {
        assert!(DATES.windows(2).all(|w| w[0].day < w[1].day));
        assert_eq!(parse("cross_sign_unused"), Ok(day(2024, 9, 9)));
        assert_eq!(parse("2024-09-30"), Ok(day(2024, 9, 30)));
        assert_eq!(name_of(day(2024, 6, 1)), Some("automatic_switch"));
        let e = parse("cross_sign").expect_err("unknown name");
        assert!(e.contains("`cross_sign_expiry`"), "{e}");
    }
}
