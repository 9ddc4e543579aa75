//! The plan document as `plan --format json` writes it and `apply` reads it
//! (version 4), owned: the types `apply` holds, from which the published
//! JSON Schema (`docs/schemas/plan.schema.json`) is generated, so the schema
//! and the reader cannot differ. The writer (`render::json`) borrows the
//! planner's data into the same shape; a test holds every plan it writes to
//! this schema.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::request::StepKind;
use super::state::{HostnameState, PolicyState, PoolState};
use super::step::PlanStep;
pub use super::steps::Steps;

/// A migration plan: what `edgeaudit apply` runs. Steps are numbered across
/// accounts from 1, in the order they are sent.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanFile {
    pub accounts: Vec<PlanAccount>,
    /// The date the plan judges the account as of (`YYYY-MM-DD`).
    #[schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"))]
    pub as_of: String,
    /// The page size the plan's page-wide clears were made with (`plan
    /// --per-page`); `apply --from` makes the plan again with it.
    #[schemars(range(min = 1))]
    pub per_page: usize,
    /// The digest (SHA-256, 128 bits) of the plan as `apply` reads it: every
    /// field but this id and the markers made from it, step by step.
    /// `apply` refuses a plan whose content is not its id; the Markdown and
    /// HTML plans show it, and `apply --expect-plan-id` pins the one a person
    /// reviewed.
    #[schemars(regex(pattern = r"^[0-9a-f]{32}$"))]
    pub plan_id: String,
    pub summary: Summary,
    /// The version of this document: 4.
    #[schemars(extend("const" = 4))]
    pub version: u32,
}

/// What the plan's steps add up to.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub certificate_changes: usize,
    pub manual_steps: usize,
    pub page_clears: usize,
    /// The requests a pool-by-pool migration would send for the same clears.
    pub per_pool_requests: usize,
    pub policy_creates: usize,
    pub policy_updates: usize,
    pub pool_clears: usize,
    pub requests: usize,
    pub steps: usize,
    pub text: String,
}

/// One account's plan.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanAccount {
    pub account_id: Option<String>,
    /// Pools with a legacy `notification_email`.
    pub legacy_pools: usize,
    /// False when the pools export is incomplete (EX001): the proof covers
    /// only the pools loaded.
    pub pools_complete: bool,
    pub proof: ProofDocument,
    pub state: PlanState,
    /// In the order they are sent (held compact: [`Steps`]).
    pub steps: Steps,
    pub warnings: Vec<String>,
}

/// What the replay on a model of the service proved.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProofDocument {
    pub covers: String,
    pub legacy_deliveries: usize,
    #[schemars(extend("const" = "no alert lost at any step"))]
    pub result: String,
    pub steps_replayed: usize,
}

/// The account as the plan relies on it: `apply` reads it again before each
/// change, and changes nothing outside it.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanState {
    /// The custom hostnames the certificate steps change.
    pub custom_hostnames: Vec<HostnameState>,
    /// The id of every policy the export held: a policy made by another plan
    /// since the export is drift to `apply`.
    pub exported_policies: Vec<String>,
    pub policies: Vec<PolicyState>,
    pub pools: Vec<PoolState>,
    /// The zones whose Total TLS or Universal SSL the certificate steps change.
    pub zones: Vec<String>,
    /// How many custom hostnames the list of each zone whose hostnames the
    /// steps change holds: `apply` announces the reads of its pages from it.
    pub zone_hostnames: std::collections::BTreeMap<String, usize>,
}

impl PlanFile {
    /// The plan's identity: the digest (SHA-256, 128 bits in hex) of what
    /// `apply` holds of it — every field of the typed document, in its types'
    /// order, but the plan id and the markers made from it (a created
    /// policy's `marker` and its body's `description`, which `apply` checks
    /// are exactly the ones this id makes). Each account's steps count by the
    /// running digest of each step ([`Steps::digest`]), computed as they are
    /// read: no whole document is held to compute it.
    pub fn digest(&self) -> String {
        let mut digest = PlanDigest::new(self.version, &self.as_of, self.per_page, &self.summary);
        for account in &self.accounts {
            digest.account(
                AccountHead {
                    account_id: &account.account_id,
                    legacy_pools: account.legacy_pools,
                    pools_complete: account.pools_complete,
                    proof: &account.proof,
                    warnings: &account.warnings,
                },
                &account.state,
                &account.steps.digest(),
            );
        }
        digest.finish()
    }
}

/// The plan id's digest, fed part by part in the document's order: the one
/// layout the plan `apply` reads ([`PlanFile::digest`]) and the plan `plan`
/// writes (from the planner's data, without a copy of the document) share.
/// Each part is its compact JSON in its type's field order (maps sorted by
/// key), so the writer's borrowed shapes and the reader's owned ones agree.
pub struct PlanDigest(sha2::Sha256);

impl PlanDigest {
    /// The document's version, then its head.
    pub fn new(version: u32, as_of: &str, per_page: usize, summary: &Summary) -> PlanDigest {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        hasher.update(format!("edgeaudit plan {version}\n"));
        hasher.update(canonical(&(as_of, per_page, summary)));
        PlanDigest(hasher)
    }

    /// One account: its head, its state (the reader's [`PlanState`] or the
    /// writer's borrowed shape of it), and its steps' digest ([`Steps::digest`]).
    pub fn account(&mut self, head: AccountHead<'_>, state: &impl Serialize, steps: &[u8]) {
        use sha2::Digest;
        let AccountHead {
            account_id,
            legacy_pools,
            pools_complete,
            proof,
            warnings,
        } = head;
        self.0
            .update(canonical(&(account_id, legacy_pools, pools_complete, proof, warnings)));
        self.0.update(canonical(state));
        self.0.update(canonical(&steps));
    }

    /// The plan id: 128 bits in hex.
    pub fn finish(self) -> String {
        use sha2::Digest;
        self.0.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect()
    }
}

/// What the plan id reads of an account before its state and steps.
pub struct AccountHead<'a> {
    pub account_id: &'a Option<String>,
    pub legacy_pools: usize,
    pub pools_complete: bool,
    pub proof: &'a ProofDocument,
    pub warnings: &'a [String],
}

/// A value's compact JSON: a plan's own types serialise without fail (their
/// maps have string keys).
fn canonical(value: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

impl PlanAccount {
    /// Every step, decoded one at a time, of this account (`account` set).
    pub fn each_step(&self) -> impl Iterator<Item = PlanStep> + '_ {
        self.steps.iter().map(|step| self.owned(step))
    }

    /// The `i`-th step (from 0), decoded, of this account.
    pub fn step_at(&self, i: usize) -> Option<PlanStep> {
        self.steps.get(i).map(|step| self.owned(step))
    }

    fn owned(&self, mut step: PlanStep) -> PlanStep {
        step.account = self.account_id.clone().unwrap_or_default();
        step
    }

    /// The pools the plan's clears take legacy e-mails off.
    pub fn cleared_pools(&self) -> std::collections::HashSet<String> {
        self.steps
            .iter()
            .filter(|s| matches!(s.kind, StepKind::ClearPage | StepKind::ClearPool))
            .flat_map(|s| s.pools)
            .collect()
    }
}

impl PlanState {
    /// Whether the export held this policy.
    pub fn exported_policy(&self, id: &str) -> bool {
        self.exported_policies.iter().any(|p| p == id) || self.policies.iter().any(|p| p.id == id)
    }
}

/// The published JSON Schema of the plan document, as the book carries it.
pub fn json_schema() -> String {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<PlanFile>();
    schema.insert("$id".into(), Value::from("urn:edgeaudit:report:plan"));
    schema.insert("title".into(), Value::from("edgeaudit plan --format json"));
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}
