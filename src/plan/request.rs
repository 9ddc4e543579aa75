//! The plan's steps: API requests as typed data (or a manual step), from which
//! the JSON, the shell script and the Markdown are rendered, and which the
//! replay reads.

use serde_json::Value;

use crate::api::{Call, Op, Operation};
use crate::model::notification::NewPolicy;

crate::listed! {
    /// A step's sort, as the plan's JSON names it (`kind`), and the API
    /// operation a step of it calls: the one table from kind to operation, which
    /// the planner, the renderers and `apply` share.
    #[derive(
        Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
    )]
    pub enum StepKind {
        CreatePolicy = "create_policy",
        UpdatePolicy = "update_policy",
        ClearPage = "clear_page",
        ClearPool = "clear_pool",
        EditCustomHostname = "edit_custom_hostname",
        SetTotalTls = "set_total_tls",
        SetUniversalSsl = "set_universal_ssl",
        // A decision for a person (a step that does not say otherwise is one).
        #[default]
        Manual = "manual",
        Terraform = "terraform",
    }
}

/// As the plan's JSON names it.
impl std::fmt::Display for StepKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl StepKind {
    /// The API operation a step of this kind calls; none for a person's step.
    pub fn operation(self) -> Option<Op> {
        Some(match self {
            StepKind::CreatePolicy => Op::CreatePolicy,
            StepKind::UpdatePolicy => Op::UpdatePolicy,
            StepKind::ClearPage => Op::ClearPools,
            StepKind::ClearPool => Op::PatchPool,
            StepKind::EditCustomHostname => Op::EditCustomHostname,
            StepKind::SetTotalTls => Op::SetTotalTls,
            StepKind::SetUniversalSsl => Op::EditUniversalSsl,
            StepKind::Manual | StepKind::Terraform => return None,
        })
    }
}

#[derive(Debug, Clone)]
pub enum Request {
    /// `POST /accounts/{account_id}/alerting/v3/policies`.
    CreatePolicy {
        body: NewPolicy,
        /// The pools whose legacy deliveries it takes over.
        pools: Vec<String>,
    },
    /// `PUT /accounts/{account_id}/alerting/v3/policies/{policy_id}`: the
    /// exported policy, whole, with its filter values corrected and extended
    /// to take over the legacy e-mails of `pools`.
    UpdatePolicy {
        policy_id: String,
        body: Value,
        /// The pools whose legacy deliveries it takes over once updated.
        pools: Vec<String>,
        /// The filter values it corrects, as `field: from → to`.
        corrections: Vec<String>,
    },
    /// `PATCH /accounts/{account_id}/load_balancers/pools?per_page=N&page=P`:
    /// clears every pool of that page (by name).
    ClearPage {
        per_page: usize,
        page: usize,
        /// The pools of the page that carry a legacy e-mail.
        pools: Vec<String>,
    },
    /// `PATCH /accounts/{account_id}/load_balancers/pools/{pool_id}`.
    ClearPool { pool_id: String },
    /// `PATCH /zones/{zone_id}/custom_hostnames/{id}`.
    EditCustomHostname {
        zone_id: String,
        hostname_id: String,
        hostname: String,
        body: JsonBody,
    },
    /// `POST /zones/{zone_id}/acm/total_tls`.
    SetTotalTls { zone_id: String, body: Value },
    /// `PATCH /zones/{zone_id}/ssl/universal/settings`: the CA the zone's
    /// universal certificates are issued from.
    SetUniversalSsl { zone_id: String, body: Value },
    /// A decision for a person: what to do, and why it is not automated.
    Manual { rule: String, what: String },
    /// An edit of a Terraform configuration (the remedy of a resource of
    /// `.tf` source): applied by `terraform apply`, never by a request.
    Terraform(TerraformEdit),
}

#[derive(Debug, Clone)]
pub enum TerraformEdit {
    /// Add this resource block (a replacement policy) to the configuration.
    AddResource {
        address: String,
        block: String,
        /// The pools whose legacy e-mails it takes over.
        pools: Vec<String>,
    },
    /// Remove an attribute from a resource (`notification_email` from a pool).
    RemoveAttribute { address: String, attribute: &'static str },
}

/// A JSON body held as its compact text, keys in the order a JSON value
/// writes them (sorted): a plan of a million custom hostname changes holds
/// a hundred bytes a body, not two maps.
#[derive(Debug, Clone)]
pub struct JsonBody(Box<str>);

impl JsonBody {
    pub fn of(value: &Value) -> JsonBody {
        // A JSON value always writes itself (its maps have string keys).
        JsonBody(serde_json::to_string(value).unwrap_or_else(|_| "null".to_string()).into())
    }
}

impl serde::Serialize for JsonBody {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Made a value for the moment it is written, so that a pretty
        // document indents it like the rest.
        let value: Value = serde_json::from_str(&self.0).map_err(serde::ser::Error::custom)?;
        value.serialize(s)
    }
}

/// A request's body, borrowed from the request.
#[derive(Debug, Clone, Copy)]
pub enum Body<'a> {
    Json(&'a Value),
    /// Held as its compact text ([`JsonBody`]).
    Text(&'a JsonBody),
    Policy(&'a NewPolicy),
    /// `{"notification_email": ""}`, the clear of a pool or a page.
    ClearEmail,
}

impl serde::Serialize for Body<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct ClearEmail {
            notification_email: &'static str,
        }
        match self {
            Body::Json(body) => body.serialize(s),
            Body::Text(body) => body.serialize(s),
            Body::Policy(body) => body.serialize(s),
            Body::ClearEmail => ClearEmail { notification_email: "" }.serialize(s),
        }
    }
}

impl TerraformEdit {
    /// As JSON `actions` give it: `{"add_resource": …}` or `{"address": …, "remove_attribute": …}`.
    pub fn json(&self) -> Value {
        match self {
            TerraformEdit::AddResource { address, block, .. } => serde_json::json!({"address": address, "add_resource": block}),
            TerraformEdit::RemoveAttribute { address, attribute } => {
                serde_json::json!({"address": address, "remove_attribute": attribute})
            }
        }
    }
}

pub use crate::api::segment;

impl Request {
    /// The CA the certificate requests move off: the plan makes them only for
    /// a custom hostname, Total TLS or Universal SSL on Let's Encrypt, and `apply` sends one
    /// only while the resource is still on it.
    pub const MOVES_OFF: &'static str = "lets_encrypt";

    /// The step's sort (see [`StepKind`]).
    pub fn kind(&self) -> StepKind {
        match self {
            Request::CreatePolicy { .. } => StepKind::CreatePolicy,
            Request::UpdatePolicy { .. } => StepKind::UpdatePolicy,
            Request::ClearPage { .. } => StepKind::ClearPage,
            Request::ClearPool { .. } => StepKind::ClearPool,
            Request::EditCustomHostname { .. } => StepKind::EditCustomHostname,
            Request::SetTotalTls { .. } => StepKind::SetTotalTls,
            Request::SetUniversalSsl { .. } => StepKind::SetUniversalSsl,
            Request::Manual { .. } => StepKind::Manual,
            Request::Terraform(_) => StepKind::Terraform,
        }
    }

    /// The API operation the request is a call of.
    pub fn operation(&self) -> Option<Op> {
        self.kind().operation()
    }

    pub fn method(&self) -> Option<&'static str> {
        self.operation().map(|op| Operation::of(op).method)
    }

    /// The call, the account written as `account` (an id from the export is
    /// encoded by the caller; a placeholder is taken as it is).
    pub fn call(&self, account: &str) -> Option<Call> {
        let operation = Operation::of(self.operation()?);
        Some(match self {
            Request::CreatePolicy { .. } => operation.call_encoded(&[account]),
            Request::UpdatePolicy { policy_id, .. } => operation.call_encoded(&[account, &segment(policy_id)]),
            Request::ClearPage { per_page, page, .. } => operation.call_encoded(&[account]).with("per_page", per_page).with("page", page),
            Request::ClearPool { pool_id } => operation.call_encoded(&[account, &segment(pool_id)]),
            Request::EditCustomHostname { zone_id, hostname_id, .. } => operation.call(&[zone_id, hostname_id]),
            Request::SetTotalTls { zone_id, .. } | Request::SetUniversalSsl { zone_id, .. } => operation.call(&[zone_id]),
            Request::Manual { .. } | Request::Terraform(_) => return None,
        })
    }

    /// The path (with its query), the account written as `account`.
    pub fn path(&self, account: &str) -> Option<String> {
        self.call(account).map(|c| c.target())
    }

    /// The body, as compact JSON.
    pub fn body(&self) -> Option<String> {
        self.body_ref().map(|body| serde_json::to_string(&body).unwrap_or_default())
    }

    /// [`Request::body`] as a JSON value (the plan's JSON, and the replay,
    /// which reads a body as the service would).
    pub fn body_json(&self) -> Option<Value> {
        self.body_ref().map(|body| serde_json::to_value(body).unwrap_or(Value::Null))
    }

    /// The body as it is held, for writing it out without a copy.
    pub fn body_ref(&self) -> Option<Body<'_>> {
        match self {
            Request::CreatePolicy { body, .. } => Some(Body::Policy(body)),
            Request::EditCustomHostname { body, .. } => Some(Body::Text(body)),
            Request::UpdatePolicy { body, .. } | Request::SetTotalTls { body, .. } | Request::SetUniversalSsl { body, .. } => {
                Some(Body::Json(body))
            }
            Request::ClearPage { .. } | Request::ClearPool { .. } => Some(Body::ClearEmail),
            Request::Manual { .. } | Request::Terraform(_) => None,
        }
    }

    /// What the step is for, in words.
    pub fn reason(&self) -> String {
        match self {
            Request::CreatePolicy { pools, body } => [
                "create policy `",
                &body.name,
                "`: takes over the legacy e-mails of ",
                &crate::words::plural(pools.len(), "pool", "pools"),
            ]
            .concat(),
            Request::UpdatePolicy {
                policy_id,
                body,
                pools,
                corrections,
            } => {
                let mut what = Vec::new();
                if !corrections.is_empty() {
                    what.push(format!("correct {}", corrections.join(", ")));
                }
                if !pools.is_empty() {
                    what.push(format!(
                        "complete it to take over the legacy e-mails of {}",
                        crate::words::plural(pools.len(), "pool", "pools")
                    ));
                }
                format!(
                    "update policy `{}` ({policy_id}), keeping the rest of it as exported: {}",
                    body.get("name").and_then(Value::as_str).unwrap_or(""),
                    what.join("; ")
                )
            }
            Request::ClearPage { per_page, page, pools } if pools.is_empty() => [
                "clear `notification_email` on page ",
                &page.to_string(),
                " of ",
                &per_page.to_string(),
                " pools by name: it clears every pool on the page, so create the missing policies first (`edgeaudit plan` orders this)",
            ]
            .concat(),
            Request::ClearPage { per_page, page, pools } => format!(
                "clear `notification_email` on page {page} of {per_page} pools by name ({} with a legacy e-mail, every one replaced by then)",
                pools.len()
            ),
            Request::ClearPool { pool_id } => ["clear `notification_email` on pool ", pool_id, " (replaced by then)"].concat(),
            Request::EditCustomHostname { hostname, .. } => format!(
                "move custom hostname {hostname} off Let's Encrypt (keeps its validation method and type): Android 7.0 and earlier and clients without ISRG Root X1 keep working"
            ),
            Request::SetTotalTls { .. } => {
                "move Total TLS off Let's Encrypt: its certificates then chain to a CA legacy clients trust".to_string()
            }
            Request::SetUniversalSsl { .. } => {
                "move Universal SSL off Let's Encrypt: the zone's universal certificate is issued again by a CA legacy clients trust"
                    .to_string()
            }
            Request::Manual { rule, what } => format!("{rule}: {what}"),
            Request::Terraform(TerraformEdit::AddResource { address, pools, .. }) => format!(
                "add {address} to the configuration: takes over the legacy e-mails of {}",
                crate::words::plural(pools.len(), "pool", "pools")
            ),
            Request::Terraform(TerraformEdit::RemoveAttribute { address, attribute }) => {
                format!("remove `{attribute}` from {address} (replaced by then)")
            }
        }
    }

    /// The zone whose one setting the request changes (Total TLS, Universal
    /// SSL): each finding of the zone that the setting decides (every
    /// universal pack) asks for the same request, which is sent once.
    pub fn zone_setting(&self) -> Option<(StepKind, &str)> {
        match self {
            Request::SetTotalTls { zone_id, .. } | Request::SetUniversalSsl { zone_id, .. } => Some((self.kind(), zone_id)),
            _ => None,
        }
    }

    pub fn is_request(&self) -> bool {
        !matches!(self, Request::Manual { .. } | Request::Terraform(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_exports_stay_one_path_segment() {
        let r = Request::ClearPool {
            pool_id: "../../zones/x?a=1 $(rm -rf /)".into(),
        };
        assert_eq!(
            r.path("acc").as_deref(),
            Some("/accounts/acc/load_balancers/pools/..%2F..%2Fzones%2Fx%3Fa%3D1%20%24%28rm%20-rf%20%2F%29")
        );
    }
}
