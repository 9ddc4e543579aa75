//! Waivers: a team's written decision that a finding on a resource is
//! accepted, with a reason, usually until a date.

use chrono::NaiveDate;

use super::Place;
use super::glob::{self, Glob};
use crate::findings::Resource;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiver {
    /// A rule id or a pattern over ids (`CA00*`).
    pub rule: String,
    /// A pattern over `kind/id` or `kind/name` (`pool/*`, `custom_hostname/*.example.com`).
    pub resource: Glob,
    pub reason: String,
    /// The last day it holds (inclusive); none = until removed.
    pub expires: Option<NaiveDate>,
    /// Where the waiver is written.
    pub place: Place,
}

/// A resource as waivers match it: `kind/id`, `kind/name` and a Terraform
/// resource's address (`module.lb.cloudflare_load_balancer_pool.web`),
/// lower-cased, spelled out once per finding rather than once per waiver.
pub struct Names {
    by_id: String,
    by_name: Option<String>,
    by_address: Option<String>,
}

impl Names {
    pub fn of(resource: &Resource) -> Names {
        let spell = |s: &str| format!("{}/{}", resource.kind, s).to_ascii_lowercase();
        Names {
            by_id: spell(&resource.id),
            by_name: (!resource.name.is_empty()).then(|| spell(&resource.name)),
            by_address: resource.address.as_deref().map(str::to_ascii_lowercase),
        }
    }
}

impl Waiver {
    pub fn matches(&self, rule: &str, names: &Names) -> bool {
        glob::matches(&self.rule, rule) && self.matches_resource(names)
    }

    pub fn matches_resource(&self, names: &Names) -> bool {
        self.resource.matches_lowercase(&names.by_id)
            || names.by_name.as_deref().is_some_and(|n| self.resource.matches_lowercase(n))
            || names.by_address.as_deref().is_some_and(|a| self.resource.matches_lowercase(a))
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
            resource: Glob::new(resource),
            reason: "accepted".into(),
            expires: expires.map(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap()),
            place: Place::default(),
        }
    }

    const POOL: Resource = Resource {
        kind: Kind::Pool,
        id: std::borrow::Cow::Borrowed("17b5962d775c646f3f9725cbc7a53df4"),
        name: std::borrow::Cow::Borrowed("primary-dc-1"),
        address: None,
        configuration: None,
    };

    #[test]
    fn a_terraform_resource_matches_by_its_address() {
        let resource = Resource {
            address: Some(std::borrow::Cow::Borrowed("module.lb.cloudflare_load_balancer_pool.web")),
            ..POOL
        };
        let names = Names::of(&resource);
        assert!(waiver("LB002", "module.lb.*", None).matches("LB002", &names));
        assert!(!waiver("LB002", "module.dns.*", None).matches("LB002", &names));
        assert!(!waiver("LB002", "module.lb.*", None).matches("LB002", &Names::of(&POOL)));
    }

    #[test]
    fn matches_rule_and_kind_slash_id_or_name() {
        let pool = Names::of(&POOL);
        let hit = |rule: &str, resource: &str| waiver(rule, resource, None).matches("LB002", &pool);
        assert!(hit("LB002", "pool/17b5962d775c646f3f9725cbc7a53df4"));
        assert!(hit("LB00*", "pool/17b5*"));
        assert!(hit("LB002", "pool/primary-*"));
        assert!(!hit("LB001", "pool/*"), "another rule");
        assert!(!hit("LB002", "notification_policy/*"), "another kind");
        assert!(!hit("LB002", "17b5962d775c646f3f9725cbc7a53df4"), "kind is required");
        let unnamed = Names::of(&Resource {
            name: std::borrow::Cow::Borrowed(""),
            ..POOL
        });
        assert!(
            !waiver("LB002", "pool/", None).matches("LB002", &unnamed),
            "an empty name is not a name"
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
