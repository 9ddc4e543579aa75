//! Terraform's JSON documents (docs/src/terraform.md): `terraform show -json` of a
//! state (`values.root_module`, nested `child_modules`) or of a plan
//! (`resource_changes[].change.after`, or `planned_values`), and a raw
//! `terraform.tfstate` (format 4: `resources[].instances[].attributes`).
//! Each `cloudflare_*` resource edgeaudit reads goes to the Terraform adapter
//! and then to the sink like an API record, at the pointer of its attributes
//! and named by its address.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::input::source::SourceFile;
use crate::input::terraform::{self, ResourceType};
use crate::input::walk::Walker;
use crate::model::certificate::{Zone, ZoneKey};
use crate::model::terraform::id_reference;
use crate::model::unknown::{Source, Why};
use crate::text::error::InputError;

/// Whether a JSON document is one of Terraform's: `terraform show -json` and
/// `.tfstate` name `terraform_version` as a member of the top-level object,
/// second after their format version. Only the first 4 KiB are looked at,
/// and only keys of the top-level object count: an API export whose records
/// carry such a key (a custom hostname's `custom_metadata`) stays an export.
pub fn is_terraform(text: &str) -> bool {
    let head = &text.as_bytes()[..text.len().min(4096)];
    let mut depth = 0usize;
    let mut i = 0;
    while i < head.len() {
        match head[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i + 1;
                let mut end = start;
                while end < head.len() && head[end] != b'"' {
                    end += if head[end] == b'\\' { 2 } else { 1 };
                }
                if depth == 1 && head.get(start..end) == Some(b"terraform_version".as_slice()) {
                    let after = head[end.min(head.len())..].iter().skip(1).find(|b| !b.is_ascii_whitespace());
                    if after == Some(&b':') {
                        return true;
                    }
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

#[derive(Deserialize)]
struct Document {
    /// `.tfstate`: 4.
    version: Option<u64>,
    values: Option<Values>,
    planned_values: Option<Values>,
    resource_changes: Option<Vec<ResourceChange>>,
    /// `.tfstate`.
    resources: Option<Vec<StateResource>>,
}

#[derive(Deserialize)]
struct Values {
    root_module: Option<Module>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    resources: Vec<ShowResource>,
    #[serde(default)]
    child_modules: Vec<Module>,
}

/// A data source (`mode: data`) is read by Terraform, not managed by it:
/// not a resource of the account's configuration. A resource without `mode`
/// (raw states written by hand or by older tools) is a managed one.
fn is_data_source(mode: &str) -> bool {
    mode == "data"
}

/// What `show -json` says of every resource, in a state or in a plan's changes.
#[derive(Deserialize)]
struct Named {
    #[serde(default)]
    address: String,
    #[serde(default)]
    mode: String,
    #[serde(rename = "type", default)]
    resource_type: String,
}

#[derive(Deserialize)]
struct ShowResource {
    #[serde(flatten)]
    named: Named,
    values: Option<Value>,
}

#[derive(Deserialize)]
struct ResourceChange {
    #[serde(flatten)]
    named: Named,
    change: Option<Change>,
}

#[derive(Deserialize)]
struct Change {
    #[serde(default)]
    actions: Vec<String>,
    after: Option<Value>,
    /// Mirrors `after`, `true` where a value is known only after apply.
    after_unknown: Option<Value>,
}

#[derive(Deserialize)]
struct StateResource {
    module: Option<String>,
    #[serde(default)]
    mode: String,
    #[serde(rename = "type", default)]
    resource_type: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    instances: Vec<Instance>,
}

#[derive(Deserialize)]
struct Instance {
    index_key: Option<Value>,
    attributes: Option<Value>,
    /// What Terraform before 0.12 wrote: every attribute a flat string.
    attributes_flat: Option<Value>,
}

/// How to get a state edgeaudit reads from one it does not.
const READABLE_STATE: &str = "get a readable one with Terraform 0.12 or later: `terraform state pull > state.json` (it upgrades the state as it reads it) or `terraform show -json > state.json`";

/// One resource's attributes, where they are and what it is called.
struct Found<'d> {
    resource_type: &'d str,
    address: String,
    /// What a plan does to it (`create`, `update`), when it does something.
    planned: Option<String>,
    pointer: String,
    /// `null` when the document gives none: an input error for a resource
    /// edgeaudit reads, never a resource passed over.
    attributes: &'d Value,
    /// A plan's `after_unknown`, when there is one.
    unknown: Option<&'d Value>,
}

impl Found<'_> {
    /// As reports name it: `cloudflare_…web (planned: create)` for a change.
    fn shown(&self) -> String {
        match &self.planned {
            Some(actions) => format!("{} (planned: {actions})", self.address),
            None => self.address.clone(),
        }
    }
}

static NO_ATTRIBUTES: Value = Value::Null;

/// The resources of a document, and the data sources of types edgeaudit
/// reads (named when they are all there is, so the refusal says why).
#[derive(Default)]
struct Resources<'d> {
    found: Vec<Found<'d>>,
    data_sources: Vec<String>,
}

impl Resources<'_> {
    fn data_source(&mut self, resource_type: &str, address: impl FnOnce() -> String) {
        if terraform::resource_type(resource_type).is_some() {
            self.data_sources.push(address());
        }
    }
}

fn show_module<'d>(module: &'d Module, pointer: &str, out: &mut Resources<'d>) {
    for (i, r) in module.resources.iter().enumerate() {
        if is_data_source(&r.named.mode) {
            out.data_source(&r.named.resource_type, || r.named.address.clone());
            continue;
        }
        out.found.push(Found {
            resource_type: &r.named.resource_type,
            address: r.named.address.clone(),
            planned: None,
            pointer: format!("{pointer}/resources/{i}/values"),
            attributes: r.values.as_ref().unwrap_or(&NO_ATTRIBUTES),
            unknown: None,
        });
    }
    for (i, child) in module.child_modules.iter().enumerate() {
        show_module(child, &format!("{pointer}/child_modules/{i}"), out);
    }
}

/// The address of a `.tfstate` instance: `module.x.type.name[key]`.
fn state_address(r: &StateResource, key: Option<&Value>) -> String {
    let mut address = String::new();
    if let Some(m) = r.module.as_deref().filter(|m| !m.is_empty()) {
        address.push_str(m);
        address.push('.');
    }
    address.push_str(&format!("{}.{}", r.resource_type, r.name));
    match key {
        Some(Value::Number(n)) => address.push_str(&format!("[{n}]")),
        Some(key @ Value::String(_)) => address.push_str(&format!("[{key}]")),
        _ => {}
    }
    address
}

fn resources(doc: &Document) -> Resources<'_> {
    let mut out = Resources::default();
    if let Some(changes) = &doc.resource_changes {
        // A plan: what each resource will be. A resource the plan deletes is gone.
        for (i, c) in changes.iter().enumerate() {
            let actions = c.change.as_ref().map_or(&[][..], |change| change.actions.as_slice());
            if is_data_source(&c.named.mode) {
                out.data_source(&c.named.resource_type, || c.named.address.clone());
                continue;
            }
            if !actions.is_empty() && actions.iter().all(|a| a == "delete") {
                continue;
            }
            let planned: Vec<&str> = actions
                .iter()
                .map(String::as_str)
                .filter(|a| *a != "no-op" && *a != "read")
                .collect();
            out.found.push(Found {
                resource_type: &c.named.resource_type,
                address: c.named.address.clone(),
                planned: (!planned.is_empty()).then(|| planned.join(", ")),
                pointer: format!("/resource_changes/{i}/change/after"),
                attributes: c.change.as_ref().and_then(|change| change.after.as_ref()).unwrap_or(&NO_ATTRIBUTES),
                unknown: c.change.as_ref().and_then(|change| change.after_unknown.as_ref()),
            });
        }
    } else if let Some(module) = doc.planned_values.as_ref().and_then(|v| v.root_module.as_ref()) {
        show_module(module, "/planned_values/root_module", &mut out);
    } else if let Some(module) = doc.values.as_ref().and_then(|v| v.root_module.as_ref()) {
        show_module(module, "/values/root_module", &mut out);
    } else if let Some(state) = &doc.resources {
        for (i, r) in state.iter().enumerate() {
            if is_data_source(&r.mode) {
                out.data_source(&r.resource_type, || format!("data.{}", state_address(r, None)));
                continue;
            }
            for (k, instance) in r.instances.iter().enumerate() {
                out.found.push(Found {
                    resource_type: &r.resource_type,
                    address: state_address(r, instance.index_key.as_ref()),
                    planned: None,
                    pointer: format!("/resources/{i}/instances/{k}/attributes"),
                    attributes: instance.attributes.as_ref().unwrap_or(&NO_ATTRIBUTES),
                    unknown: None,
                });
            }
        }
    }
    out
}

/// The pointers a plan's `after_unknown` marks `true`: values known only
/// after apply, each with why.
fn unknown_pointers(marks: &Value, pointer: &mut String, out: &mut Vec<(String, Why)>) {
    let len = pointer.len();
    match marks {
        Value::Bool(true) => {
            let name = pointer.trim_start_matches('/').replace('/', ".");
            out.push((
                pointer.clone(),
                Why::new(
                    Source::Apply,
                    format!("`{name}` is known only after apply (the provider computes it, or it comes from another resource); the state once applied has it"),
                ),
            ));
        }
        Value::Object(map) => {
            for (key, value) in map {
                crate::text::pointer::push_token(pointer, key);
                unknown_pointers(value, pointer, out);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, value) in items.iter().enumerate() {
                pointer.push_str(&format!("/{i}"));
                unknown_pointers(value, pointer, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

pub fn walk(file: &SourceFile, walker: Walker<'_>) -> Result<(), Vec<InputError>> {
    let doc: Document = match serde_json::from_str(&file.text) {
        Ok(doc) => doc,
        Err(e) => return Err(vec![crate::input::json::walk::error_in(file, &file.text, 0, &e)]),
    };
    if doc.version.is_some_and(|v| v != 4) && doc.resources.is_some() {
        let version = doc.version.unwrap_or_default();
        return Err(vec![InputError::at_line_column(
            &file.name,
            1,
            1,
            format!("a Terraform state of format version {version}: edgeaudit reads format 4 (Terraform 0.12 and later); {READABLE_STATE}"),
        )]);
    }
    // A format 4 state whose instances still carry Terraform 0.11's flat
    // strings (`attributes_flat`): refused whole, at the first of them.
    let flat: Vec<(usize, usize)> = doc
        .resources
        .iter()
        .flatten()
        .enumerate()
        .flat_map(|(i, r)| {
            r.instances
                .iter()
                .enumerate()
                .filter(|(_, instance)| instance.attributes.is_none() && instance.attributes_flat.is_some())
                .map(move |(k, _)| (i, k))
        })
        .collect();
    if let Some(&(i, k)) = flat.first() {
        let instances: usize = doc.resources.iter().flatten().map(|r| r.instances.len()).sum();
        let pointer = format!("/resources/{i}/instances/{k}/attributes_flat");
        let tokens = crate::text::pointer::tokens(&pointer);
        let found = crate::input::json::locate::find(&file.text, 0, &tokens);
        return Err(vec![InputError::at_offset(
            &file.name,
            &file.text,
            found.start,
            format!(
                "a legacy Terraform state: {} of its {instances} instances {} `attributes_flat`, the flat strings Terraform 0.11 and earlier wrote, which edgeaudit does not read as typed values; {READABLE_STATE}",
                flat.len(),
                if flat.len() == 1 { "carries" } else { "carry" }
            ),
        )]);
    }
    let Resources { found, data_sources } = resources(&doc);
    // Zones by id, each its own zone of the document: records name theirs by `zone_id`.
    let mut zones: BTreeMap<&str, (u32, Option<&str>)> = BTreeMap::new();
    for f in &found {
        let (id, name) = match terraform::resource_type(f.resource_type) {
            Some(ResourceType::Zone) => terraform::zone_name(f.attributes),
            Some(ResourceType::Record(_)) => (terraform::zone_id(f.attributes), None),
            None => (None, None),
        };
        if let Some(id) = id {
            let next = zones.len() as u32;
            let entry = zones.entry(id).or_insert((next, None));
            entry.1 = entry.1.or(name);
        }
    }
    let account = found.iter().find_map(|f| terraform::account_id(f.attributes)).map(str::to_string);
    walker.run_lines(|w| {
        let file_id = w.file_id();
        for (id, (index, name)) in &zones {
            w.zone_found(Zone {
                key: (file_id, *index),
                id: Some(id.to_string()),
                name: name.map(str::to_string),
            });
        }
        // Resources of ours, analysed or reported as not analysed.
        let mut ours = 0usize;
        for f in &found {
            let Some(ResourceType::Record(kind)) = terraform::resource_type(f.resource_type) else {
                continue;
            };
            ours += 1;
            // Known only after apply: left out, and the rules that read them do not judge it.
            let mut unknown = Vec::new();
            if let Some(marks) = f.unknown {
                unknown_pointers(marks, &mut String::new(), &mut unknown);
            }
            let mut attributes = Cow::Borrowed(f.attributes);
            if let Some(i) = unknown.iter().position(|(p, _)| p == "/id") {
                // A resource the plan creates: until apply, its address stands for its id.
                unknown.remove(i);
                let reference = id_reference(&f.address);
                if let Value::Object(map) = attributes.to_mut() {
                    map.insert("id".into(), Value::String(reference));
                }
            }
            if let Some((at, why)) = terraform::unknown_unreadable(kind, &attributes, &unknown) {
                let message = format!(
                    "{}: `{}` is not known before apply ({why}); {}",
                    f.shown(),
                    crate::input::hcl::field(at),
                    crate::input::hcl::UNREADABLE
                );
                w.not_analysed(&format!("{}{at}", f.pointer), &message);
                continue;
            }
            let Some(normalised) = terraform::normalise_with_unknown(kind, &attributes, &unknown, None) else {
                return Err(w.error_at_pointer(
                    &f.pointer,
                    &format!("{}: its attributes are not an object, so it cannot be checked", f.shown()),
                ));
            };
            let zone: Option<ZoneKey> = terraform::zone_id(f.attributes)
                .and_then(|id| zones.get(id))
                .map(|(index, _)| (file_id, *index));
            if w.record_as(kind, &f.pointer, Arc::from(f.shown()), normalised, zone).is_err() {
                // The walker keeps the located error.
                return Ok(());
            }
        }
        if ours == 0 {
            let why = if data_sources.is_empty() {
                "a Terraform document with no resource edgeaudit reads (cloudflare_load_balancer_pool, cloudflare_notification_policy, cloudflare_certificate_pack, cloudflare_total_tls, cloudflare_custom_hostname, cloudflare_custom_ssl, cloudflare_record, cloudflare_dns_record)".to_string()
            } else {
                format!(
                    "a Terraform document whose only resources edgeaudit reads are data sources ({}): they read the account, they do not configure it",
                    data_sources.join(", ")
                )
            };
            return Err(InputError::at_line_column(&file.name, 1, 1, "a Terraform document").not_analysed(why));
        }
        // A state committed beside the `.tf` source it was applied from
        // describes the same resources: it joins the configuration's account,
        // where each resource is joined with its block (model::join).
        let dir = crate::input::hcl::config::dir_of(&file.name);
        let beside_source = w
            .files()
            .iter()
            .any(|f| f.format.is_configuration() && crate::input::hcl::config::dir_of(&f.name) == dir);
        w.set_account(if beside_source {
            Some(crate::model::terraform::configuration_account(&dir))
        } else {
            account.clone()
        });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::is_terraform;

    #[test]
    fn only_a_top_level_terraform_version_makes_a_terraform_document() {
        assert!(is_terraform(
            r#"{"format_version": "1.0", "terraform_version": "1.5.7", "values": {}}"#
        ));
        assert!(is_terraform("{\n  \"version\": 4,\n  \"terraform_version\" : \"1.5.7\"}"));
        assert!(!is_terraform(
            r#"{"result": [{"hostname": "a.example", "custom_metadata": {"terraform_version": "1.5.7"}}]}"#
        ));
        assert!(!is_terraform(r#"{"description": "\"terraform_version\": 1", "result": []}"#));
        assert!(
            !is_terraform(r#"{"name": "terraform_version", "result": []}"#),
            "a value, not a key"
        );
        assert!(!is_terraform(r#"{"a": "unterminated"#));
    }
}
