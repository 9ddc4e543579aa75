//! Terraform source (`.tf`, docs/src/terraform.md): each `resource` block edgeaudit
//! reads is evaluated as far as it can be before apply ([`eval`]), put in
//! the shape Terraform's state would hold ([`tree`]) and handed to the
//! Terraform adapter like a resource of a state, at the pointer
//! `/resource/<type>/<name>` and named by its address. A value not known
//! before apply is left out of the record and kept with why: the rules that
//! read it do not judge the resource (EX005 says so), the others do; none
//! judges a guess.

pub mod config;
pub mod eval;
pub mod functions;
pub mod locate;
pub mod tfvars;
pub mod tree;

use std::sync::Arc;

use hcl_edit::Span;
use hcl_edit::structure::Body;
use serde_json::Value;

use crate::input::source::SourceFile;
use crate::input::terraform::{self, ResourceType};
use crate::input::walk::Walker;
use crate::model::Kind;
use crate::model::certificate::Zone;
use crate::model::dns::absolute_name;
use crate::model::terraform::id_reference;
use crate::model::unknown::UnknownValue;
use crate::text::error::InputError;
use config::Configuration;
pub use config::Configurations;

pub struct Hcl;

/// Terraform source's entry in the registry.
pub static HCL: Hcl = Hcl;

impl super::InputFormat for Hcl {
    fn name(&self) -> &'static str {
        "hcl"
    }

    fn description(&self) -> &'static str {
        "Terraform source: a directory's `.tf` files as one configuration, with its `terraform.tfvars` and `*.auto.tfvars`"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["tf"]
    }

    fn companion_extensions(&self) -> &'static [&'static str] {
        &["tfvars"]
    }

    // Only ever named: `.tf` files are found by their name, never sniffed.

    fn is_configuration(&self) -> bool {
        true
    }

    fn walk(
        &self,
        files: &[SourceFile],
        id: super::source::FileId,
        kind: Option<Kind>,
        sink: &mut dyn super::walk::RecordSink,
        shared: &mut super::Shared,
    ) -> Result<(), Vec<InputError>> {
        let (body, configuration) = shared.configurations.take(files, id);
        walk(&files[id.0 as usize], Walker::new(files, id, sink, kind), body, configuration)
    }

    fn locate(
        &self,
        file: &SourceFile,
        cache: &mut super::locate::FileCache,
        origin: &crate::model::origin::RecordOrigin,
        path: &str,
    ) -> (String, usize, usize) {
        let map = cache.node_map.get_or_insert_with(|| locate::node_ranges(&file.text));
        super::locate::locate_in_map(map, &origin.field(path))
    }
}

/// Meta-arguments that make one block stand for several instances.
const REPEATERS: [&str; 2] = ["count", "for_each"];

pub fn walk(
    file: &SourceFile,
    walker: Walker<'_>,
    body: Result<Body, hcl_edit::parser::Error>,
    configuration: &Configuration,
) -> Result<(), Vec<InputError>> {
    let body = match body {
        Ok(body) => body,
        Err(e) => {
            let at = e.location();
            return Err(vec![InputError::at_line_column(
                &file.name,
                at.line(),
                at.column(),
                format!("not valid Terraform (HCL): {}", e.message()),
            )]);
        }
    };
    // Terraform rejects a resource without a type and a name; edgeaudit
    // must not pass over one it would have read.
    if let Some(unnamed) = body
        .blocks()
        .find(|b| b.ident.value().as_str() == "resource" && b.labels.len() != 2)
    {
        let at = unnamed.span().map_or(0, |s| s.start);
        return Err(vec![InputError::at_offset(
            &file.name,
            &file.text,
            at,
            "not valid Terraform: a `resource` block needs two labels, its type and its name",
        )]);
    }
    walker.run_lines(|w| {
        let file_id = w.file_id();
        for (index, (id, name)) in configuration.zones.iter().enumerate() {
            w.zone_found(Zone {
                key: (file_id, index as u32),
                id: Some(id.clone()),
                name: name.clone(),
            });
        }
        let mut ours = 0usize;
        for resource in tree::resource_blocks(&body) {
            let Some(ResourceType::Record(kind)) = terraform::resource_type(resource.resource_type) else {
                continue;
            };
            ours += 1;
            let address = resource.address();
            let pointer = resource.pointer();
            // `count` and `for_each` make the block several instances; it is
            // judged once for all of them, with what differs per instance
            // (`count.index`, `each.value`) unknown. A block of no instance is
            // none (said so); one whose number of instances is not known may
            // not exist, and no rule judges it as if it did.
            let mut existence = None;
            let mut absent = false;
            for repeater in REPEATERS {
                let Some(attribute) = resource.block.body.get_attribute(repeater) else { continue };
                let expression = attribute
                    .value
                    .span()
                    .and_then(|span| file.text.get(span))
                    .unwrap_or("…")
                    .trim()
                    .to_string();
                match configuration.scope.eval(&attribute.value) {
                    Ok(v) if no_instance(&v) => {
                        w.not_analysed(
                            &format!("{pointer}/{repeater}"),
                            &format!(
                                "{address}: `{repeater} = {expression}` makes no instance with the values the configuration gives its variables (their defaults and variables files; -var and TF_VAR_ are not seen), so it is not loaded"
                            ),
                        );
                        absent = true;
                    }
                    Ok(_) => {}
                    // A map whose keys are known and values are not still
                    // makes known instances (Terraform plans them so).
                    Err(_)
                        if repeater == "for_each" && configuration.scope.keys_of(&attribute.value).is_some_and(|keys| !keys.is_empty()) => {}
                    Err(why) => {
                        existence = Some(UnknownValue {
                            field: String::new(),
                            at: format!("/{repeater}"),
                            why: why.within(|why| format!("`{repeater} = {expression}` decides whether it exists: {why}")),
                        });
                    }
                }
            }
            if absent {
                continue;
            }
            let (mut values, unknown) = tree::attributes(&configuration.scope, &resource.block.body);
            // Its id comes with apply; until then the reference to it stands for it.
            values.entry("id").or_insert_with(|| Value::String(id_reference(&address)));
            if kind == Kind::DnsRecord {
                full_name(&mut values, configuration);
            }
            let attributes = Value::Object(values);
            let unknown: Vec<(String, eval::Why)> = unknown.into_iter().map(|u| (u.pointer, u.why)).collect();
            if let Some((at, why)) = terraform::unknown_unreadable(kind, &attributes, &unknown) {
                w.not_analysed(&format!("{pointer}{at}"), &format!("{address}: `{}` is not known before apply ({why}); {UNREADABLE}", field(at)));
                continue;
            }
            let Some(mut normalised) =
                terraform::normalise_with_unknown(kind, &attributes, &unknown, configuration.generation)
            else {
                return Err(w.error_at_pointer(&pointer, &format!("{address}: its attributes cannot be read")));
            };
            normalised.unknown.extend(existence);
            let zone = terraform::zone_id(&attributes)
                .and_then(|id| configuration.zones.keys().position(|k| k == id))
                .map(|index| (file_id, index as u32));
            if w.record_as(kind, &pointer, Arc::from(address.as_str()), normalised, zone).is_err() {
                // The walker keeps the located error.
                return Ok(());
            }
        }
        let calls = module_calls(&body);
        if ours == 0 {
            let at = body.span().map_or(0, |s| s.start);
            let mut why = "a Terraform file with no resource edgeaudit reads (it may hold the configuration's variables, locals or providers, which the files with resources use)".to_string();
            if !calls.is_empty() {
                let names: Vec<String> = calls.iter().map(|c| format!("module.{}", c.name)).collect();
                why.push_str(&format!("; its module calls ({}) are not followed: {NOT_FOLLOWED}", names.join(", ")));
            }
            return Err(InputError::at_offset(&file.name, &file.text, at, "a Terraform file").not_analysed(why));
        }
        for call in calls {
            let source = call.source.map_or(String::new(), |s| format!(" (source `{s}`)"));
            w.not_followed(call.offset, &format!("module.{}{source}: module calls are not followed: {NOT_FOLLOWED}", call.name));
        }
        w.set_account(Some(configuration.account.clone()));
        Ok(())
    })
}

/// A `count` of 0, or a `for_each` over nothing: the block makes no resource.
fn no_instance(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

/// Why a record of a kind no rule judges by itself is left out for one unknown value.
pub const UNREADABLE: &str = "custom hostnames' CAA verdicts read this record and cannot judge with a guess, so it is not analysed";

/// `/data/value` → `data.value`.
pub fn field(pointer: &str) -> String {
    pointer.trim_start_matches('/').replace('/', ".")
}

/// Why a module call's resources are not judged with the configuration that calls it.
const NOT_FOLLOWED: &str = "the module's resources are checked only when its directory is among the paths, as a configuration of its own (addresses relative to it, values passed in unknown there); a notification policy it creates is not seen here, so this configuration's pools are judged as if it created none";

struct ModuleCall<'b> {
    name: &'b str,
    /// `source` when it is a literal.
    source: Option<&'b str>,
    offset: usize,
}

fn module_calls(body: &Body) -> Vec<ModuleCall<'_>> {
    body.blocks()
        .filter(|b| b.ident.value().as_str() == "module")
        .map(|block| ModuleCall {
            name: block.labels.first().map_or("", |l| l.as_str()),
            source: block.body.get_attribute("source").and_then(|a| a.value.as_str()),
            offset: block.span().map_or(0, |s| s.start),
        })
        .collect()
}

/// A DNS record's full name, as provider v4 computes it into `hostname`
/// once applied: `@` is the zone's own name, a relative name is below it.
/// Without the zone's name the record keeps the name it was given.
fn full_name(values: &mut serde_json::Map<String, Value>, configuration: &Configuration) {
    if values.contains_key("hostname") {
        return;
    }
    let zone = values
        .get("zone_id")
        .and_then(Value::as_str)
        .and_then(|id| configuration.zones.get(id))
        .and_then(Option::as_deref);
    let (Some(zone), Some(name)) = (zone, values.get("name").and_then(Value::as_str)) else {
        return;
    };
    let Some(full) = absolute_name(name, Some(&zone.trim_end_matches('.').to_ascii_lowercase())) else {
        return;
    };
    values.insert("hostname".into(), Value::String(full));
}
