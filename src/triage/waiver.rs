//! Waivers: a team's written decision that a finding on a resource is
//! accepted, with a reason, usually until a date.

use chrono::NaiveDate;

use super::{Place, glob};
use crate::findings::Resource;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiver {
    /// A rule id or a pattern over ids (`CA00*`).
    pub rule: String,
    /// A pattern over `kind/id` or `kind/name` (`pool/*`, `custom_hostname/*.example.com`).
    pub resource: String,
    pub reason: String,
    /// The last day it holds (inclusive); none = until removed.
    pub expires: Option<NaiveDate>,
    /// Where the waiver is written.
    pub place: Place,
}

impl Waiver {
    pub fn matches(&self, rule: &str, resource: &Resource) -> bool {
        glob::matches(&self.rule, rule)
            && (glob::matches(&self.resource, &format!("{}/{}", resource.kind, resource.id))
                || (!resource.name.is_empty() && glob::matches(&self.resource, &format!("{}/{}", resource.kind, resource.name))))
    }

    /// Expired once the as-of date is past its last day: a run replayed at an
    /// earlier date sees the waiver as it was then.
    pub fn is_expired(&self, as_of: NaiveDate) -> bool {
        self.expires.is_some_and(|d| as_of > d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Kind;

    fn waiver(rule: &str, resource: &str, expires: Option<&str>) -> Waiver {
        Waiver {
            rule: rule.into(),
            resource: resource.into(),
            reason: "accepted".into(),
            expires: expires.map(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap()),
            place: Place::default(),
        }
    }

    const POOL: Resource = Resource {
        kind: Kind::Pool,
        id: "17b5962d775c646f3f9725cbc7a53df4",
        name: "primary-dc-1",
    };

    #[test]
    fn matches_rule_and_kind_slash_id_or_name() {
        assert!(waiver("LB002", "pool/17b5962d775c646f3f9725cbc7a53df4", None).matches("LB002", &POOL));
        assert!(waiver("LB00*", "pool/17b5*", None).matches("LB002", &POOL));
        assert!(waiver("LB002", "pool/primary-*", None).matches("LB002", &POOL));
        assert!(!waiver("LB001", "pool/*", None).matches("LB002", &POOL), "another rule");
        assert!(
            !waiver("LB002", "notification_policy/*", None).matches("LB002", &POOL),
            "another kind"
        );
        assert!(
            !waiver("LB002", "17b5962d775c646f3f9725cbc7a53df4", None).matches("LB002", &POOL),
            "kind is required"
        );
    }

    #[test]
    fn holds_through_its_last_day() {
        let w = waiver("LB002", "pool/*", Some("2024-09-30"));
        let day = |d: &str| NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap();
        assert!(!w.is_expired(day("2024-09-30")));
        assert!(w.is_expired(day("2024-10-01")));
        assert!(!waiver("LB002", "pool/*", None).is_expired(day("2999-01-01")));
    }
}
