//! Every fact's name, once. A subject's facts are asked for by it: a fact
//! renamed or misspelt in Rust is a compile error, and a rule file's name is
//! resolved to it once, when the pack loads (`engine::condition`), not
//! compared as text for each condition of each subject.

/// Declares [`FactName`] with its text, its parse and [`FactName::ALL`] from
/// the same lines.
macro_rules! fact_names {
    ($($variant:ident = $text:literal,)*) => {
        /// A fact's name (`legacy_recipients`), as rule files write it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum FactName {
            $($variant,)*
        }

        impl FactName {
            /// Every name, in the order of their text.
            pub const ALL: &[FactName] = &[$(FactName::$variant,)*];

            /// As rule files write it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(FactName::$variant => $text,)*
                }
            }

            /// The name a rule file writes, if it is one.
            pub fn parse(text: &str) -> Option<FactName> {
                match text {
                    $($text => Some(FactName::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

fact_names! {
    Account = "account",
    Address = "address",
    Affected = "affected",
    AlertType = "alert_type",
    Authority = "authority",
    BulkClearCaveat = "bulk_clear_caveat",
    BulkClearCost = "bulk_clear_cost",
    BulkClearEndpoint = "bulk_clear_endpoint",
    BulkClearRequests = "bulk_clear_requests",
    BundleMethod = "bundle_method",
    CaChangeBody = "ca_change_body",
    CaaAllowsCompatible = "caa_allows_compatible",
    CaaAllowsLetsEncrypt = "caa_allows_lets_encrypt",
    CaaRecordSet = "caa_record_set",
    Chain = "chain",
    Complete = "complete",
    ConflictingCopies = "conflicting_copies",
    Coverage = "coverage",
    CoveringPolicies = "covering_policies",
    Delivery = "delivery",
    DeliveryReason = "delivery_reason",
    DstCertificate = "dst_certificate",
    Enabled = "enabled",
    Expected = "expected",
    ExpiresOn = "expires_on",
    Explicit = "explicit",
    Hostname = "hostname",
    Hosts = "hosts",
    Id = "id",
    InvalidFilterValues = "invalid_filter_values",
    IsHealthAlert = "is_health_alert",
    IsLetsEncrypt = "is_lets_encrypt",
    Issuer = "issuer",
    KeyType = "key_type",
    Label = "label",
    LegacyEvents = "legacy_events",
    LegacyRecipients = "legacy_recipients",
    LegacyShare = "legacy_share",
    Loaded = "loaded",
    LoadedPoolCount = "loaded_pool_count",
    MechanismCount = "mechanism_count",
    Name = "name",
    NotJudged = "not_judged",
    PagesLoaded = "pages_loaded",
    PatchEndpoint = "patch_endpoint",
    PemAvailable = "pem_available",
    PemContradictions = "pem_contradictions",
    PemError = "pem_error",
    PoliciesEndpoint = "policies_endpoint",
    PoolEndpoint = "pool_endpoint",
    PoolsComplete = "pools_complete",
    PoolsNotReplaced = "pools_not_replaced",
    PoolsTotal = "pools_total",
    PoolsWithLegacy = "pools_with_legacy",
    Records = "records",
    ReplacementPolicy = "replacement_policy",
    SslMethod = "ssl_method",
    SslType = "ssl_type",
    Status = "status",
    TerraformSource = "terraform_source",
    Type = "type",
    UncoveredEvents = "uncovered_events",
    UncoveredRecipients = "uncovered_recipients",
    UniversalAuthority = "universal_authority",
    UnknownPoolIds = "unknown_pool_ids",
    UploadedOn = "uploaded_on",
    WhyClearingIsSafe = "why_clearing_is_safe",
    Wildcard = "wildcard",
    Zone = "zone",
    ZoneId = "zone_id",
}

impl std::fmt::Display for FactName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::FactName;

    #[test]
    fn every_name_parses_back_and_the_list_is_sorted() {
        for name in FactName::ALL {
            assert_eq!(FactName::parse(name.as_str()), Some(*name));
        }
        assert!(FactName::ALL.windows(2).all(|w| w[0].as_str() < w[1].as_str()));
        assert_eq!(FactName::parse("no_such_fact"), None);
    }
}
