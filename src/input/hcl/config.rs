//! A Terraform configuration is a directory's `.tf` files together (each
//! module directory its own): their variables, locals, zones and account are
//! shared, so a policy in `alerts.tf` can use `var.ops` of `variables.tf`
//! and name a pool of `pools.tf`. Every file is parsed once, here.

use std::collections::{BTreeMap, HashMap};

use hcl_edit::structure::Body;
use serde_json::Value;

use super::eval::Scope;
use super::tree::{META_BLOCKS, resource_blocks};
use crate::input::source::{FileId, SourceFile};
use crate::input::terraform::resource_type;
use crate::model::terraform::Generation;
use crate::model::terraform::{configuration_account, id_reference};

pub struct Configuration {
    pub scope: Scope,
    /// The configuration's own account ([`configuration_account`]).
    pub account: String,
    /// Zones by id (a literal, or the `${cloudflare_zone.x.id}` reference), with their names.
    pub zones: BTreeMap<String, Option<String>>,
    /// The provider generation its resources follow, when it shows
    /// ([`generation`]); a resource's own shape still decides where it shows one.
    pub generation: Option<Generation>,
}

#[derive(Default)]
pub struct Configurations {
    by_dir: HashMap<String, Configuration>,
    bodies: HashMap<FileId, Result<Body, hcl_edit::parser::Error>>,
}

pub fn dir_of(name: &str) -> String {
    match name.rfind('/') {
        Some(i) => name[..i].to_string(),
        None => ".".to_string(),
    }
}

impl Configurations {
    /// The parsed file `id` (taken: it is walked once) and its configuration.
    pub fn take(&mut self, files: &[SourceFile], id: FileId) -> (Result<Body, hcl_edit::parser::Error>, &Configuration) {
        let dir = dir_of(&files[id.0 as usize].name);
        if !self.by_dir.contains_key(&dir) {
            let members: Vec<FileId> = (0..files.len())
                .filter(|&i| files[i].format == files[id.0 as usize].format && dir_of(&files[i].name) == dir)
                .map(|i| FileId(i as u32))
                .collect();
            for &m in &members {
                self.bodies
                    .entry(m)
                    .or_insert_with(|| hcl_edit::parser::parse_body(&files[m.0 as usize].text));
            }
            let bodies: Vec<&Body> = members.iter().filter_map(|m| self.bodies.get(m)?.as_ref().ok()).collect();
            let configuration = configuration(&dir, &bodies);
            self.by_dir.insert(dir.clone(), configuration);
        }
        let body = self
            .bodies
            .remove(&id)
            .unwrap_or_else(|| hcl_edit::parser::parse_body(&files[id.0 as usize].text));
        (body, &self.by_dir[&dir])
    }
}

fn configuration(dir: &str, bodies: &[&Body]) -> Configuration {
    let mut scope = Scope::of(bodies);
    scope.tfvars = super::tfvars::of_dir(dir);
    let mut zones = BTreeMap::new();
    for resource in bodies.iter().flat_map(|b| resource_blocks(b)) {
        let known = |name: &str| match resource.block.body.get_attribute(name).map(|a| scope.eval(&a.value)) {
            Some(Ok(Value::String(s))) => Some(s),
            _ => None,
        };
        if resource.resource_type == "cloudflare_zone" {
            // v4 names the zone `zone`, v5 `name`.
            zones.insert(id_reference(&resource.address()), known("zone").or_else(|| known("name")));
        } else if let Some(zone) = known("zone_id") {
            zones.entry(zone).or_insert(None);
        }
    }
    Configuration {
        account: configuration_account(dir),
        generation: generation(bodies, &scope),
        scope,
        zones,
    }
}

/// The configuration's provider generation: the major version its
/// `required_providers` asks of `cloudflare` (`~> 4.0`), else what its
/// resources show — a nested block (`filters { … }`, `email_integration { … }`)
/// is v4's, whose blocks are lists; provider v5 has none in these resources.
fn generation(bodies: &[&Body], scope: &Scope) -> Option<Generation> {
    let required = bodies
        .iter()
        .flat_map(|b| b.blocks())
        .filter(|b| b.ident.value().as_str() == "terraform")
        .flat_map(|b| b.body.blocks())
        .filter(|b| b.ident.value().as_str() == "required_providers")
        .find_map(|b| match scope.eval(&b.body.get_attribute("cloudflare")?.value) {
            Ok(provider) => major_version(provider.get("version")?.as_str()?),
            Err(_) => None,
        });
    if let Some(major) = required {
        return Some(if major >= 5 { Generation::V5 } else { Generation::V4 });
    }
    let has_block = bodies
        .iter()
        .flat_map(|b| resource_blocks(b))
        .filter(|r| resource_type(r.resource_type).is_some())
        .any(|r| r.block.body.blocks().any(|b| !META_BLOCKS.contains(&b.ident.value().as_str())));
    has_block.then_some(Generation::V4)
}

/// The first number of a version constraint: `~> 4.0` → 4, `>= 5.1` → 5.
fn major_version(constraint: &str) -> Option<u64> {
    let digits: String = constraint
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}
