//! Every API operation edgeaudit calls, as the service publishes it
//! (its OpenAPI document's `operationId`, method, path, query parameters and
//! body fields), narrowed to what edgeaudit sends, with what edgeaudit relies
//! on beyond it. The docs' table of operations is generated from this list.

use super::{Field, Operation, Paging, Param, Values};

/// The operations, in the order of [`OPERATIONS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    ListPools,
    ClearPools,
    GetPool,
    PatchPool,
    ListPolicies,
    CreatePolicy,
    UpdatePolicy,
    DeletePolicy,
    ListZones,
    ListCertificatePacks,
    ListCustomCertificates,
    ListCustomHostnames,
    GetCustomHostname,
    EditCustomHostname,
    GetTotalTls,
    SetTotalTls,
    GetUniversalSsl,
    EditUniversalSsl,
    ListDnsRecords,
}

const fn page_params(max: u64, min: u64) -> [Param; 2] {
    [
        Param {
            name: "page",
            values: Values::Number { min: 1, max: u64::MAX },
        },
        Param {
            name: "per_page",
            values: Values::Number { min, max },
        },
    ]
}

const fn field(name: &'static str) -> Field {
    Field { name, fields: &[] }
}

/// A policy as a create or a replace sends it: the fields the contract lists.
const POLICY: &[Field] = &[
    field("alert_interval"),
    field("alert_type"),
    field("description"),
    field("enabled"),
    field("filters"),
    field("mechanisms"),
    field("name"),
];

/// The writable fields of a custom hostname's `ssl`, as the contract lists them.
pub const HOSTNAME_SSL: &[Field] = &[
    field("bundle_method"),
    field("certificate_authority"),
    field("custom_certificate"),
    field("custom_key"),
    field("method"),
    field("settings"),
    field("type"),
    field("wildcard"),
];

const POOL_PAGE: [Param; 2] = page_params(u64::MAX, 1);
/// A list the contract does not page, read on where an answer shows paging.
const WHOLE_LIST_PAGE: [Param; 2] = page_params(u64::MAX, 1);
/// What a list the contract does not page relies on to be read on.
const READ_ON: &str = "`page` and `per_page`, which the contract does not publish for this list: sent only when an answer shows paging anyway (a `total_count` above the records it holds, or a full page of 25 without `result_info`), to read the list on until complete; a service that then ignores them, short of its count, is an error";
/// The page size the service's lists use when none is asked (its documented
/// default): a list the contract does not page that answers exactly a
/// multiple of it without `result_info` may be one page of more.
pub const DEFAULT_PAGE: usize = 25;
const FIFTY: [Param; 2] = page_params(50, 5);
const ZONE_QUERY: [Param; 3] = [
    FIFTY[0],
    FIFTY[1],
    Param {
        name: "account.id",
        values: Values::Text,
    },
];
const CUSTOM_CERTIFICATE_QUERY: [Param; 3] = [
    FIFTY[0],
    FIFTY[1],
    Param {
        name: "status",
        values: Values::OneOf(CUSTOM_CERTIFICATE_STATUSES),
    },
];
/// What the current API reference (2026) adds to the custom hostnames list:
/// pages of up to 1,000 and a filter by certificate authority (its
/// `total_count` stays the zone's, unfiltered).
const HOSTNAMES_REFERENCE: [Param; 2] = [
    Param {
        name: "per_page",
        values: Values::Number { min: 5, max: 1000 },
    },
    Param {
        name: "certificate_authority",
        values: Values::OneOf(&["google", "lets_encrypt", "ssl_com"]),
    },
];
/// Every status the custom certificates list is filtered by: the contract has no "all".
pub const CUSTOM_CERTIFICATE_STATUSES: &[&str] = &["active", "expired", "deleted", "pending", "initializing"];
const DNS_QUERY: [Param; 3] = [
    Param {
        name: "page",
        values: Values::Number { min: 1, max: u64::MAX },
    },
    Param {
        name: "per_page",
        values: Values::Number { min: 1, max: 5_000_000 },
    },
    Param {
        name: "type",
        values: Values::OneOf(&["CAA"]),
    },
];

/// Records of a pool that edgeaudit reads.
const POOL_FIELDS: &[&str] = &["id", "name", "notification_email", "notification_filter"];
const POLICY_FIELDS: &[&str] = &[
    "id",
    "name",
    "alert_type",
    "enabled",
    "description",
    "filters",
    "mechanisms",
    "alert_interval",
];

pub static OPERATIONS: [Operation; 19] = [
    Operation {
        op: Op::ListPools,
        operation_id: "account-load-balancer-pools-list-pools",
        method: "GET",
        path: "/accounts/{account_id}/load_balancers/pools",
        query: &WHOLE_LIST_PAGE,
        reference: &[],
        paging: Paging::Whole,
        body: &[],
        reads: POOL_FIELDS,
        relies_on: &[READ_ON],
    },
    Operation {
        op: Op::ClearPools,
        operation_id: "account-load-balancer-pools-patch-pools",
        method: "PATCH",
        path: "/accounts/{account_id}/load_balancers/pools",
        query: &POOL_PAGE,
        reference: &[],
        paging: Paging::One,
        body: &[field("notification_email")],
        reads: POOL_FIELDS,
        relies_on: &[
            "`per_page` and `page`, and the order by ascending `name`: the operation's description says it pages pools by name with the standard parameters, but lists no query parameter; apply reads every pool right before the clear, works out the page itself and checks the answer's pools",
            "`notification_email` as the empty string: the published schema's only value is written `\"\"`, quotes included, where its description says an empty string",
        ],
    },
    Operation {
        op: Op::GetPool,
        operation_id: "account-load-balancer-pools-pool-details",
        method: "GET",
        path: "/accounts/{account_id}/load_balancers/pools/{pool_id}",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: &[],
        reads: POOL_FIELDS,
        relies_on: &[],
    },
    Operation {
        op: Op::PatchPool,
        operation_id: "account-load-balancer-pools-patch-pool",
        method: "PATCH",
        path: "/accounts/{account_id}/load_balancers/pools/{pool_id}",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: &[field("notification_email")],
        reads: POOL_FIELDS,
        relies_on: &[],
    },
    Operation {
        op: Op::ListPolicies,
        operation_id: "notification-policies-list-notification-policies",
        method: "GET",
        path: "/accounts/{account_id}/alerting/v3/policies",
        query: &WHOLE_LIST_PAGE,
        reference: &[],
        paging: Paging::Whole,
        body: &[],
        reads: POLICY_FIELDS,
        relies_on: &[READ_ON],
    },
    Operation {
        op: Op::CreatePolicy,
        operation_id: "notification-policies-create-a-notification-policy",
        method: "POST",
        path: "/accounts/{account_id}/alerting/v3/policies",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: POLICY,
        reads: &["id"],
        relies_on: &["`description` kept as sent: the marker that tells a policy apply created is looked up in it"],
    },
    Operation {
        op: Op::UpdatePolicy,
        operation_id: "notification-policies-update-a-notification-policy",
        method: "PUT",
        path: "/accounts/{account_id}/alerting/v3/policies/{policy_id}",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: POLICY,
        reads: &["id"],
        relies_on: &[],
    },
    Operation {
        op: Op::DeletePolicy,
        operation_id: "notification-policies-delete-a-notification-policy",
        method: "DELETE",
        path: "/accounts/{account_id}/alerting/v3/policies/{policy_id}",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: &[],
        reads: &[],
        relies_on: &[
            "the operation itself, which the service's API reference publishes but the excerpt of the operations used before does not hold: apply deletes only a second copy of a policy it created (same marker), never another policy",
        ],
    },
    Operation {
        op: Op::ListZones,
        operation_id: "zones-get",
        method: "GET",
        path: "/zones",
        query: &ZONE_QUERY,
        reference: &[],
        paging: Paging::Pages { max: 50 },
        body: &[],
        reads: &["id", "name"],
        relies_on: &[],
    },
    Operation {
        op: Op::ListCertificatePacks,
        operation_id: "certificate-packs-list-certificate-packs",
        method: "GET",
        path: "/zones/{zone_id}/ssl/certificate_packs",
        query: &[Param {
            name: "status",
            values: Values::OneOf(&["all"]),
        }],
        reference: &[],
        paging: Paging::Whole,
        body: &[],
        reads: &["id", "type", "hosts", "certificate_authority", "certificates"],
        relies_on: &[
            "the fields of each pack in the answer (`id`, `hosts`, `certificate_authority`, `certificates`), which the contract leaves unspecified (`items: {}`): a pack without them is read as the export shape it has, and the rules that need a missing field do not fire",
        ],
    },
    Operation {
        op: Op::ListCustomCertificates,
        operation_id: "custom-ssl-for-a-zone-list-ssl-configurations",
        method: "GET",
        path: "/zones/{zone_id}/custom_certificates",
        query: &CUSTOM_CERTIFICATE_QUERY,
        reference: &[],
        paging: Paging::Pages { max: 50 },
        body: &[],
        reads: &["id", "issuer", "bundle_method", "uploaded_on", "expires_on", "hosts"],
        relies_on: &[],
    },
    Operation {
        op: Op::ListCustomHostnames,
        operation_id: "custom-hostname-for-a-zone-list-custom-hostnames",
        method: "GET",
        path: "/zones/{zone_id}/custom_hostnames",
        query: &FIFTY,
        reference: &HOSTNAMES_REFERENCE,
        paging: Paging::Pages { max: 50 },
        body: &[],
        reads: &["id", "hostname", "ssl"],
        relies_on: &[],
    },
    Operation {
        op: Op::GetCustomHostname,
        operation_id: "custom-hostname-for-a-zone-custom-hostname-details",
        method: "GET",
        path: "/zones/{zone_id}/custom_hostnames/{custom_hostname_id}",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: &[],
        reads: &["id", "hostname", "ssl"],
        relies_on: &[],
    },
    Operation {
        op: Op::EditCustomHostname,
        operation_id: "custom-hostname-for-a-zone-edit-custom-hostname",
        method: "PATCH",
        path: "/zones/{zone_id}/custom_hostnames/{custom_hostname_id}",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: &[Field {
            name: "ssl",
            fields: HOSTNAME_SSL,
        }],
        reads: &["id", "ssl"],
        relies_on: &[
            "nothing about an `ssl` object sent in part (the contract does not say whether omitted fields are kept): apply sends the hostname's whole writable `ssl` as just read, with only `certificate_authority` changed, and reads it back",
        ],
    },
    Operation {
        op: Op::GetTotalTls,
        operation_id: "total-tls-total-tls-settings-details",
        method: "GET",
        path: "/zones/{zone_id}/acm/total_tls",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: &[],
        reads: &["enabled", "certificate_authority"],
        relies_on: &[],
    },
    Operation {
        op: Op::SetTotalTls,
        operation_id: "total-tls-enable-or-disable-total-tls",
        method: "POST",
        path: "/zones/{zone_id}/acm/total_tls",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: &[field("certificate_authority"), field("enabled")],
        reads: &["enabled", "certificate_authority"],
        relies_on: &[],
    },
    Operation {
        op: Op::GetUniversalSsl,
        operation_id: "universal-ssl-settings-for-a-zone-universal-ssl-settings-details",
        method: "GET",
        path: "/zones/{zone_id}/ssl/universal/settings",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: &[],
        reads: &["enabled", "certificate_authority"],
        relies_on: &[
            "`certificate_authority` in the answer, which the contract does not publish (`{enabled}` only): settings without it name no CA, so rule CA011 does not fire on them",
        ],
    },
    Operation {
        op: Op::EditUniversalSsl,
        operation_id: "universal-ssl-settings-for-a-zone-edit-universal-ssl-settings",
        method: "PATCH",
        path: "/zones/{zone_id}/ssl/universal/settings",
        query: &[],
        reference: &[],
        paging: Paging::One,
        body: &[field("certificate_authority"), field("enabled")],
        reads: &["enabled", "certificate_authority"],
        relies_on: &[
            "`certificate_authority` in the body, which the contract does not list (`{enabled}` only): apply reads the setting back, and a change the service ignored is reported with the dashboard's way to make it by hand (exit 1)",
        ],
    },
    Operation {
        op: Op::ListDnsRecords,
        operation_id: "dns-records-for-a-zone-list-dns-records",
        method: "GET",
        path: "/zones/{zone_id}/dns_records",
        query: &DNS_QUERY,
        // The contract allows five million a page; a page is what export holds in memory.
        reference: &[],
        paging: Paging::Pages { max: 5000 },
        body: &[],
        reads: &["id", "name", "type", "content", "data"],
        relies_on: &[],
    },
];
