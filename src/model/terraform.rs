//! How resources of Terraform source (`.tf`) are named in the model before
//! apply: a resource's id is a reference to it, and a configuration is an
//! account of its own. Written and recognised here only.

/// Stands for resource `address`'s id until apply gives it one. Written as
/// Terraform writes a reference in a string, so reports show what it is.
pub fn id_reference(address: &str) -> String {
    format!("${{{address}.id}}")
}

/// `${cloudflare_load_balancer_pool.web.id}` → `cloudflare_load_balancer_pool.web.id`.
pub fn reference(id: &str) -> Option<&str> {
    id.strip_prefix("${")?.strip_suffix('}')
}

/// Whether an id stands for a resource of Terraform source.
pub fn is_reference(id: &str) -> bool {
    reference(id).is_some()
}

/// Where a resource block of Terraform source is (`/resource/<type>/<name>`,
/// Terraform's JSON syntax): no state, plan or API export has such a pointer.
pub const DECLARATION: &str = "/resource";

/// Whether a record is a block of Terraform source, not a snapshot of a
/// resource (a state, a plan, an export).
pub fn is_declaration(origin: &super::origin::RecordOrigin) -> bool {
    origin.is_under(DECLARATION)
}

const CONFIGURATION: &str = "terraform:";

/// The account a configuration (directory `dir`) is judged as: its own.
/// Its `account_id` is often a variable, and even a literal one must not
/// merge it with an export of the same account: their pools are the same
/// pools under other ids, so they would count twice and cover each other.
/// A state beside the source joins it here, resource by address (`join`).
pub fn configuration_account(dir: &str) -> String {
    format!("{CONFIGURATION}{dir}")
}

/// Whether an account is a configuration's.
pub fn is_configuration_account(id: &str) -> bool {
    id.starts_with(CONFIGURATION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_configuration_accounts_round_trip() {
        let id = id_reference("cloudflare_load_balancer_pool.web");
        assert_eq!(id, "${cloudflare_load_balancer_pool.web.id}");
        assert_eq!(reference(&id), Some("cloudflare_load_balancer_pool.web.id"));
        assert!(!is_reference("17b5962d775c646f3f9725cbc7a53df4"));
        assert!(is_configuration_account(&configuration_account("infra/lb")));
        assert!(!is_configuration_account("023e105f4ecef8ad9ca31a8372d0c353"));
    }
}

/// The provider generation a resource's attributes follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    /// Provider v4 (SDKv2): nested blocks as lists (`filters { … }`,
    /// `email_integration { … }`).
    V4,
    /// Provider v5: objects (`filters = { … }`, `mechanisms = { … }`).
    V5,
}
