//! The facts each subject kind has: what rule files may name, with types for
//! validating conditions, and a description of each.

use super::FactName;
use crate::model::Kind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    Bool,
    Int,
    Text,
    Date,
    List,
}

impl ValueType {
    pub fn as_str(self) -> &'static str {
        match self {
            ValueType::Bool => "bool",
            ValueType::Int => "int",
            ValueType::Text => "text",
            ValueType::Date => "date",
            ValueType::List => "list",
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct FactSpec {
    pub name: FactName,
    pub value_type: ValueType,
    /// For text facts with a closed set of values: the values.
    pub values: &'static [&'static str],
    pub description: &'static str,
    /// The fields of its record, in the API's shape, the fact is computed
    /// from: when one of them is not known before apply (a Terraform
    /// variable, a reference, a value a plan computes), the fact is unknown
    /// and the rules that test it do not judge the resource. `None`: every
    /// field (an aggregate such as the account's counts), so the fact is
    /// unknown whenever anything of the record is. `&[]`: none (`label`).
    pub reads: Option<&'static [&'static str]>,
    /// A list fact each of whose items is made from one element of the
    /// lists it reads (a filter value that is misspelt): an element not
    /// known before apply leaves the known elements' items known, so a
    /// known item is a finding and only the unknown element is not judged.
    pub by_element: bool,
}

impl FactSpec {
    /// The same entry, computed from `fields` alone.
    const fn reading(self, fields: &'static [&'static str]) -> FactSpec {
        FactSpec {
            reads: Some(fields),
            ..self
        }
    }

    /// The same entry, made element by element ([`FactSpec::by_element`]).
    const fn by_element(self) -> FactSpec {
        FactSpec { by_element: true, ..self }
    }
}

/// What a fact of no field of its record reads (`label`, the account's endpoint).
const NOTHING: &[&str] = &[];
/// A certificate's uploaded PEM.
const PEM: &[&str] = &["/certificate"];

const fn spec(name: FactName, value_type: ValueType, description: &'static str) -> FactSpec {
    FactSpec {
        name,
        value_type,
        values: &[],
        description,
        reads: None,
        by_element: false,
    }
}

const fn choice(name: FactName, values: &'static [&'static str], description: &'static str) -> FactSpec {
    FactSpec {
        name,
        value_type: ValueType::Text,
        values,
        description,
        reads: None,
        by_element: false,
    }
}

use ValueType::*;

/// A fact's name with its type, declared once. The catalogue's entry is made
/// from the key (its name and type cannot differ), and plan, report, engine
/// and live code read the fact through it ([`Key::of`]): a renamed fact is a
/// compile error there, not an empty value.
pub struct Key<T> {
    pub name: FactName,
    of_type: std::marker::PhantomData<T>,
}

impl<T> Clone for Key<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Key<T> {}

/// What a fact's value is read as.
pub trait FactType {
    const VALUE_TYPE: ValueType;
    type Read;
    fn read(value: super::Value) -> Option<Self::Read>;
}

/// A yes or no.
pub struct Flag;
/// A whole number.
pub struct Number;
/// A text (for a fact with a closed set of values, one of them).
pub struct Words;
/// A list, each item at its field.
pub struct Entries;

impl FactType for Flag {
    const VALUE_TYPE: ValueType = Bool;
    type Read = bool;
    fn read(value: super::Value) -> Option<bool> {
        match value {
            super::Value::Bool(b) => Some(b),
            _ => None,
        }
    }
}

impl FactType for Number {
    const VALUE_TYPE: ValueType = Int;
    type Read = i64;
    fn read(value: super::Value) -> Option<i64> {
        match value {
            super::Value::Int(n) => Some(n),
            _ => None,
        }
    }
}

impl FactType for Words {
    const VALUE_TYPE: ValueType = Text;
    type Read = std::borrow::Cow<'static, str>;
    fn read(value: super::Value) -> Option<Self::Read> {
        match value {
            super::Value::Text(t) => Some(t),
            _ => None,
        }
    }
}

impl FactType for Entries {
    const VALUE_TYPE: ValueType = List;
    type Read = Vec<super::Item>;
    fn read(value: super::Value) -> Option<Vec<super::Item>> {
        match value {
            super::Value::List(items) => Some(items),
            _ => None,
        }
    }
}

impl<T: FactType> Key<T> {
    const fn new(name: FactName) -> Self {
        Key {
            name,
            of_type: std::marker::PhantomData,
        }
    }

    /// The fact of these facts, as its type; `None` when the subject has no
    /// such fact.
    pub fn of(self, facts: &dyn super::Facts) -> Option<T::Read> {
        facts.get(self.name).and_then(|fact| T::read(fact.value))
    }

    /// Whether a rule's `at` or `for_each` names this fact.
    pub fn named_by(self, name: Option<FactName>) -> bool {
        name == Some(self.name)
    }

    /// Its catalogue entry.
    const fn spec(self, description: &'static str) -> FactSpec {
        spec(self.name, T::VALUE_TYPE, description)
    }

    /// Its catalogue entry, for a text with a closed set of values.
    const fn choice(self, values: &'static [&'static str], description: &'static str) -> FactSpec {
        choice(self.name, values, description)
    }
}

/// Declares keys, and [`keys::ALL`] from the same lines.
macro_rules! keys {
    ($($(#[$doc:meta])* $key:ident: $of:ident = $name:ident;)*) => {
        $($(#[$doc])* pub const $key: Key<$of> = Key::new(FactName::$name);)*
        /// Every key with its type: a test holds each to the catalogue.
        pub const ALL: &[(FactName, ValueType)] = &[$((FactName::$name, <$of as FactType>::VALUE_TYPE)),*];
    };
}

/// The facts code outside the facts stage reads, each with its type.
pub mod keys {
    use super::{Entries, FactName, FactType, Flag, Key, Number, ValueType, Words};

    keys! {
        ID: Words = Id;
        HOSTNAME: Words = Hostname;
        /// The Terraform address of a resource read from Terraform.
        ADDRESS: Words = Address;
        TERRAFORM_SOURCE: Flag = TerraformSource;
        POOLS_COMPLETE: Flag = PoolsComplete;
        BULK_CLEAR_REQUESTS: Number = BulkClearRequests;
        LEGACY_RECIPIENTS: Entries = LegacyRecipients;
        LEGACY_EVENTS: Entries = LegacyEvents;
        COVERAGE: Words = Coverage;
        COVERING_POLICIES: Entries = CoveringPolicies;
        UNCOVERED_EVENTS: Entries = UncoveredEvents;
        UNCOVERED_RECIPIENTS: Entries = UncoveredRecipients;
        NOT_JUDGED: Entries = NotJudged;
    }
}

/// Every record with an uploaded PEM has these (EX003, EX004).
const PEM_ERROR: FactSpec = spec(
    FactName::PemError,
    Text,
    "why an uploaded PEM cannot be decoded (empty when it can, or when there is none); the finding points at the PEM",
);
const PEM_CONTRADICTIONS: FactSpec = spec(
    FactName::PemContradictions,
    List,
    "export fields (issuer, expiry, key type) that contradict the PEM's leaf certificate, each at its field; the leaf's values are used",
);

/// Every resource kind that can be loaded twice has it (EX002).
const CONFLICTING_COPIES: FactSpec = spec(
    FactName::ConflictingCopies,
    List,
    "later copies of this resource (same kind and id) whose content differs, each in words with where it is and which fields differ; the first copy is the one analysed",
);

/// What its rules could not judge of a resource (EX005): every kind with
/// values that may be unknown before apply has these.
const NOT_JUDGED: FactSpec = keys::NOT_JUDGED.spec("the rules that could not judge the resource because a fact they test reads a value not known before apply: one item in words (the rules, the value, the other resource it is in for a pool's coverage, and why it is not known, naming the variable or reference), at that value; empty when every rule judged it",
);

static LIST: &[FactSpec] = &[
    keys::ID
        .spec("the list's identity: the kind of its records, with the zone's id when a bundle names it")
        .reading(&["/id"]),
    spec(FactName::Name, Text, "the list in words (`custom hostnames of example.com`)").reading(&["/name"]),
    spec(
        FactName::Records,
        Text,
        "what the list holds, in words (`pools`, `custom hostnames`, …)",
    ),
    spec(
        FactName::Complete,
        Bool,
        "every record and page its `result_info` announces was loaded",
    ),
    spec(FactName::Loaded, Int, "records loaded from the list, across the pages given"),
    spec(FactName::PagesLoaded, Int, "pages given (a page given twice counts once)"),
    spec(
        FactName::Expected,
        Text,
        "what `result_info` announces, in words (`total_count` 120 in `total_pages` 3)",
    ),
    spec(
        FactName::Affected,
        Text,
        "which verdicts the missing records make unreliable, in words",
    ),
];

/// What a pool's coverage is computed from, of the pool (the policies'
/// values that may leave it unknown are found by `PoolFacts::unknown`).
const COVERAGE_FIELDS: &[&str] = &["/id", "/notification_email", "/notification_filter"];

static POOL: &[FactSpec] = &[
    keys::ID.spec("the pool id").reading(&["/id"]),
    spec(FactName::Name, Text, "the pool name").reading(&["/name"]),
    spec(FactName::Account, Text, "the account id (not in the export when it names none: messages show `{account_id}`)").reading(NOTHING),
    keys::LEGACY_RECIPIENTS.spec("addresses in the legacy `notification_email` (trimmed; empty = no legacy notification)",
    ).reading(&["/notification_email"]),
    keys::LEGACY_EVENTS.spec("the (source, health) events the legacy notification e-mails about, per `notification_filter`",
    ).reading(&["/notification_filter"]),
    keys::COVERAGE.choice(&super::coverage::Coverage::NAMES,
        "how far enabled health-alert policies with a delivery mechanism replace the legacy notification (`unknown`: not fully, and a policy of the account known only after apply may cover the rest)",
    ).reading(COVERAGE_FIELDS),
    keys::TERRAFORM_SOURCE.spec("the pool is a resource of Terraform source (`.tf`): its remedy is an edit of the configuration",
    ).reading(NOTHING),
    keys::ADDRESS.spec("the Terraform address, for a resource read from Terraform").reading(NOTHING),
    keys::COVERING_POLICIES.spec("policies that cover this pool (health alert, enabled, a mechanism, pool_id naming it or absent)",
    ).reading(COVERAGE_FIELDS),
    keys::UNCOVERED_EVENTS.spec("legacy events no covering policy's filters admit").reading(COVERAGE_FIELDS),
    keys::UNCOVERED_RECIPIENTS.spec("legacy recipients no covering policy e-mails").reading(COVERAGE_FIELDS),
    spec(FactName::ReplacementPolicy,
        Text,
        "the notification policy body(ies) that would replace what is not yet covered",
    )
    .reading(COVERAGE_FIELDS),
    spec(FactName::PoliciesEndpoint,
        Text,
        "the endpoint that creates notification policies for the pool's account",
    ).reading(NOTHING),
    spec(FactName::PoolEndpoint, Text, "the endpoint that patches this pool").reading(&["/id"]),
    spec(FactName::WhyClearingIsSafe,
        Text,
        "for a fully covered pool, why clearing its legacy e-mail loses nothing: the covering policies, or a filter that disables every event (empty otherwise)",
    )
    .reading(COVERAGE_FIELDS),
    CONFLICTING_COPIES.reading(NOTHING),
    NOT_JUDGED.reading(NOTHING),
];

static POLICY: &[FactSpec] = &[
    keys::ID.spec("the policy id").reading(&["/id"]),
    spec(FactName::Name, Text, "the policy name").reading(&["/name"]),
    spec(FactName::AlertType, Text, "the alert type as exported").reading(&["/alert_type"]),
    spec(
        FactName::IsHealthAlert,
        Bool,
        "the alert type is `load_balancing_health_alert` (or the old `g6_health_alert`)",
    )
    .reading(&["/alert_type"]),
    spec(FactName::Enabled, Bool, "`enabled` (absent counts as enabled)").reading(&["/enabled"]),
    spec(FactName::MechanismCount, Int, "number of delivery targets under `mechanisms`").reading(&["/mechanisms"]),
    choice(
        FactName::Delivery,
        &["delivers", "disabled", "no_mechanisms"],
        "whether the policy can alert anyone",
    )
    .reading(&["/enabled", "/mechanisms"]),
    spec(
        FactName::DeliveryReason,
        Text,
        "why the policy alerts nobody, in words (empty when it delivers)",
    )
    .reading(&["/enabled", "/mechanisms"]),
    spec(
        FactName::InvalidFilterValues,
        List,
        "health-alert filter values outside the allowed sets (exact spelling)",
    )
    .reading(&["/filters/new_health", "/filters/event_source"])
    .by_element(),
    spec(
        FactName::UnknownPoolIds,
        List,
        "`filters.pool_id` values naming no loaded pool of the account (empty when no pools are loaded)",
    )
    .reading(&["/filters/pool_id"])
    .by_element(),
    spec(FactName::LoadedPoolCount, Int, "pools loaded for the policy's account").reading(NOTHING),
    CONFLICTING_COPIES.reading(NOTHING),
    NOT_JUDGED.reading(NOTHING),
];

static ACCOUNT: &[FactSpec] = &[
    keys::ID
        .spec("the account id, or empty when the exports do not name one")
        .reading(&["/id"]),
    spec(FactName::Name, Text, "how the account is named in messages").reading(&["/name"]),
    spec(FactName::PoolsTotal, Int, "pools loaded for the account"),
    keys::TERRAFORM_SOURCE
        .spec("the account is a Terraform configuration (`.tf` source, named `terraform:<dir>`)")
        .reading(NOTHING),
    spec(FactName::PoolsWithLegacy, Int, "pools whose `notification_email` is still set"),
    keys::POOLS_COMPLETE.spec("every pool the export announces was loaded (no EX001 on pools)"),
    spec(
        FactName::LegacyShare,
        Text,
        "those pools of all, in words (`2 of 60 pools`; on an incomplete export `at least 1 of the 2000 pools the export announces …`)",
    ),
    spec(
        FactName::PoolsNotReplaced,
        Int,
        "pools with a legacy e-mail and no complete replacement policy",
    ),
    keys::BULK_CLEAR_REQUESTS.spec("bulk-clear requests needed at the default page size of 25, for every pool the export announces"),
    spec(FactName::BulkClearEndpoint, Text, "the bulk-clear endpoint for the account"),
    spec(
        FactName::BulkClearCost,
        Text,
        "the bulk-clear requests in words (`one request: all 12 pools fit on one page of 25`)",
    ),
    spec(
        FactName::BulkClearCaveat,
        Text,
        "what a page-wide clear would also clear: the pools without a complete replacement (empty when there are none)",
    ),
    NOT_JUDGED.reading(NOTHING),
];

const CHAIN_STATES: &[&str] = &["cross_signed", "dst_cross_signed", "clean", "unreadable", "unavailable"];
const BUNDLE_METHODS: &[&str] = &["compatible", "modern", "user_defined", "unknown"];

static CUSTOM_CERTIFICATE: &[FactSpec] = &[
    spec(FactName::Label, Text, "what the subject is, in words (`Custom certificate`)").reading(NOTHING),
    keys::ID.spec("the certificate id").reading(&["/id"]),
    spec(FactName::Hosts, List, "the hostnames the certificate covers").reading(&["/hosts"]),
    spec(FactName::Zone, Text, "the zone id (not in the export: messages show `{zone_id}`)").reading(&["/zone_id"]),
    spec(FactName::Issuer,
        Text,
        "the issuer as exported (free text, e.g. `LetsEncrypt`, `R10`), or the PEM leaf's issuer when a PEM is exported",
    ).reading(&["/issuer", "/certificate"]),
    spec(FactName::IsLetsEncrypt,
        Bool,
        "the issuer is Let's Encrypt (its name, ISRG, or an intermediate such as R3, R10–R14, E5–E9)",
    ).reading(&["/issuer", "/certificate"]),
    choice(FactName::KeyType,
        &["rsa", "ecdsa", "unknown"],
        "the key type, from `signature`, or from the PEM leaf's key when a PEM is exported",
    ).reading(&["/signature", "/certificate"]),
    choice(FactName::BundleMethod,
        &["compatible", "modern", "user_defined", "unknown"],
        "the bundle method (API ubiquitous/optimal/force)",
    ).reading(&["/bundle_method"]),
    spec(FactName::UploadedOn, Date, "when it was uploaded (absent when the export does not say)").reading(&["/uploaded_on"]),
    spec(FactName::ExpiresOn, Date, "when it expires (absent when the export does not say)").reading(&["/expires_on", "/certificate"]),
    spec(FactName::Status, Text, "the status as exported (`active`, …)").reading(&["/status"]),
    spec(FactName::PemAvailable, Bool, "the export carries the uploaded PEM chain (`certificate`)").reading(PEM),
    choice(FactName::Chain,
        CHAIN_STATES,
        "whether the PEM chain carries ISRG Root X1 cross-signed by DST Root CA X3 (`cross_signed`) or another certificate issued by DST Root CA X3 (`dst_cross_signed`)",
    ).reading(PEM),
    spec(FactName::DstCertificate,
        Text,
        "the DST-issued certificate the chain carries, in words, with its expiry (empty when none)",
    ).reading(PEM),
    PEM_ERROR.reading(PEM),
    PEM_CONTRADICTIONS.reading(&["/certificate", "/issuer", "/expires_on", "/signature"]),
    CONFLICTING_COPIES.reading(NOTHING),
    NOT_JUDGED.reading(NOTHING),
];

const AUTHORITIES: &[&str] = &["lets_encrypt", "google", "ssl_com", "digicert", "default", "unknown", "other"];

static CERTIFICATE_PACK: &[FactSpec] = &[
    spec(FactName::Label, Text, "what the subject is, in words (`Certificate pack`)").reading(NOTHING),
    keys::ID.spec("the pack id").reading(&["/id"]),
    spec(FactName::Type, Text, "the pack type (`universal`, `advanced`, …)").reading(&["/type"]),
    spec(FactName::Hosts, List, "the hostnames the pack covers").reading(&["/hosts"]),
    choice(FactName::Authority,
        AUTHORITIES,
        "`certificate_authority` (`default` for `\"\"`, `unknown` when absent)",
    ).reading(&["/certificate_authority"]),
    spec(FactName::Explicit,
        Bool,
        "the CA was chosen explicitly: every pack but a universal one, which only when the zone's Universal SSL settings name a CA",
    ).reading(&["/type"]),
    choice(FactName::UniversalAuthority,
        AUTHORITIES,
        "the CA the zone's Universal SSL settings name, which its universal certificates are issued from (`unknown` when they name none or are not in the export)",
    )
    // Read from the zone's Universal SSL settings, not from the pack.
    .reading(NOTHING),
    spec(FactName::ZoneId, Text, "the zone's id (not in the export: messages show `{zone_id}`)").reading(&["/zone_id"]),
    spec(FactName::Status,
        Text,
        "`active` when one of its certificates is active, else the pack's status",
    ).reading(&["/status", "/certificates"]),
    spec(FactName::ExpiresOn,
        Date,
        "the earliest expiry among its active certificates (absent when none says)",
    ).reading(&["/certificates"]),
    CONFLICTING_COPIES.reading(NOTHING),
    NOT_JUDGED.reading(NOTHING),
];

static CUSTOM_HOSTNAME: &[FactSpec] = &[
    spec(FactName::Label, Text, "what the subject is, in words (`Custom hostname`)").reading(NOTHING),
    keys::ID.spec("the custom hostname id").reading(&["/id"]),
    keys::HOSTNAME.spec("the hostname").reading(&["/hostname"]),
    spec(FactName::Hosts, List, "the hostname, as a list (like other certificate subjects)").reading(&["/hostname"]),
    choice(FactName::BundleMethod, BUNDLE_METHODS, "`ssl.bundle_method`").reading(&["/ssl/bundle_method"]),
    choice(
        FactName::Chain,
        CHAIN_STATES,
        "whether the uploaded chain (`ssl.custom_certificate`, `ssl.custom_cert_bundle`) carries a certificate issued by DST Root CA X3",
    )
    .reading(&["/ssl/custom_certificate", "/ssl/custom_cert_bundle"]),
    spec(
        FactName::DstCertificate,
        Text,
        "the DST-issued certificate the chain carries, in words, with its expiry (empty when none)",
    )
    .reading(&["/ssl/custom_certificate", "/ssl/custom_cert_bundle"]),
    spec(
        FactName::ExpiresOn,
        Date,
        "`ssl.expires_on`, or the PEM leaf's expiry when a PEM is exported (absent when neither says)",
    )
    .reading(&["/ssl/expires_on", "/ssl/custom_certificate", "/ssl/custom_cert_bundle"]),
    PEM_ERROR.reading(&["/ssl/custom_certificate", "/ssl/custom_cert_bundle"]),
    PEM_CONTRADICTIONS.reading(&["/ssl"]),
    spec(FactName::Status, Text, "`ssl.status`").reading(&["/ssl/status"]),
    choice(
        FactName::Authority,
        AUTHORITIES,
        "`ssl.certificate_authority` (`default` for `\"\"`, `unknown` when absent)",
    )
    .reading(&["/ssl/certificate_authority"]),
    spec(
        FactName::Wildcard,
        Bool,
        "a wildcard certificate is requested (`ssl.wildcard`, or a `*.` hostname)",
    )
    .reading(&["/ssl/wildcard", "/hostname"]),
    spec(FactName::Zone, Text, "the zone id (not in the export: messages show `{zone_id}`)").reading(&["/zone_id"]),
    spec(FactName::PatchEndpoint, Text, "the endpoint that edits this custom hostname").reading(&["/id"]),
    spec(
        FactName::SslMethod,
        Text,
        "its `ssl.method` (how it is validated: `http`, `txt`, `email`; empty when not exported)",
    )
    .reading(&["/ssl/method"]),
    spec(FactName::SslType, Text, "its `ssl.type` (`dv`; empty when not exported)").reading(&["/ssl/type"]),
    spec(
        FactName::CaChangeBody,
        Text,
        "the PATCH body that moves it to the `google` CA, keeping its own `ssl.method` and `ssl.type`",
    )
    .reading(&["/ssl/method", "/ssl/type"]),
    spec(
        FactName::CaaRecordSet,
        Text,
        "the name whose CAA records apply (empty when none is loaded: every CA is allowed)",
    )
    .reading(&["/hostname", "/ssl/wildcard"]),
    spec(
        FactName::CaaAllowsLetsEncrypt,
        Bool,
        "the loaded CAA records let letsencrypt.org issue for the hostname",
    )
    .reading(&["/hostname", "/ssl/wildcard"]),
    spec(
        FactName::CaaAllowsCompatible,
        Bool,
        "the loaded CAA records let pki.goog or ssl.com issue for the hostname",
    )
    .reading(&["/hostname", "/ssl/wildcard"]),
    CONFLICTING_COPIES.reading(NOTHING),
    NOT_JUDGED.reading(NOTHING),
];

static TOTAL_TLS: &[FactSpec] = &[
    spec(FactName::Enabled, Bool, "Total TLS is enabled (absent counts as disabled)").reading(&["/enabled"]),
    choice(
        FactName::Authority,
        AUTHORITIES,
        "`certificate_authority` of the Total TLS settings",
    )
    .reading(&["/certificate_authority"]),
    spec(
        FactName::ZoneId,
        Text,
        "the zone's id (not in the export: messages show `{zone_id}`)",
    )
    .reading(&["/zone_id"]),
    NOT_JUDGED.reading(NOTHING),
];

pub fn catalogue(kind: Kind) -> &'static [FactSpec] {
    match kind {
        Kind::CertificatePack => CERTIFICATE_PACK,
        Kind::TotalTls => TOTAL_TLS,
        Kind::CustomHostname => CUSTOM_HOSTNAME,
        Kind::CustomCertificate => CUSTOM_CERTIFICATE,
        Kind::Pool => POOL,
        Kind::NotificationPolicy => POLICY,
        Kind::Account => ACCOUNT,
        Kind::List => LIST,
        _ => &[],
    }
}

/// The facts every one of `kinds` has, with the same type: what a rule over
/// several subjects may use. Closed value sets are merged.
pub fn common_catalogue(kinds: &[Kind]) -> Vec<FactSpec> {
    let Some((first, rest)) = kinds.split_first() else {
        return Vec::new();
    };
    catalogue(*first)
        .iter()
        .filter(|spec| {
            rest.iter()
                .all(|k| catalogue(*k).iter().any(|o| o.name == spec.name && o.value_type == spec.value_type))
        })
        .map(|spec| {
            // A value valid for any subject may be compared against.
            let open = rest
                .iter()
                .any(|k| catalogue(*k).iter().any(|o| o.name == spec.name && o.values.is_empty()));
            if open { FactSpec { values: &[], ..*spec } } else { *spec }
        })
        .collect()
}

/// The fields of its record a fact of `kind` reads ([`FactSpec::reads`]);
/// `None` for every field, or for a fact `kind` does not have.
pub fn reads(kind: Kind, fact: FactName) -> Option<&'static [&'static str]> {
    catalogue(kind).iter().find(|spec| spec.name == fact).and_then(|spec| spec.reads)
}

/// Whether `kind`'s fact is made element by element ([`FactSpec::by_element`]).
pub fn by_element(kind: Kind, fact: FactName) -> bool {
    catalogue(kind).iter().any(|spec| spec.name == fact && spec.by_element)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fact of a record says which of the record's fields it reads: one
    /// that did not would count as reading every field, and so be unknown
    /// (EX005) whenever anything of the record is. Only the account's and a
    /// list's facts, made from many records, read them all.
    #[test]
    fn every_record_fact_says_what_it_reads() {
        for kind in Kind::all().filter(|k| !matches!(k, Kind::Account | Kind::List)) {
            for spec in catalogue(kind) {
                assert!(spec.reads.is_some(), "{} {} says what it reads", kind.as_str(), spec.name);
                assert_eq!(reads(kind, spec.name), spec.reads);
            }
        }
        assert_eq!(reads(Kind::Account, FactName::PoolsTotal), None, "an aggregate reads every field");
        assert_eq!(reads(Kind::Pool, FactName::Hostname), None, "not a pool's fact");
        assert_eq!(reads(Kind::Pool, FactName::LegacyRecipients), Some(&["/notification_email"][..]));
    }
}
