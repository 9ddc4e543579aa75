//! A resource block of a `.tf` file as the attributes Terraform's state
//! would hold for it: an attribute is its value, a nested block is an
//! element of the list named by its type (`filters { … }` → `filters[0]`,
//! as provider v4 keeps it), an object attribute an object (v5). Values
//! unknown before apply are left out and listed with why. The same
//! structure gives the byte range of every value, by JSON pointer, for
//! locations: `/resource/<type>/<name>` (Terraform's JSON syntax) and below.

use std::collections::HashMap;

use hcl_edit::Span;
use hcl_edit::expr::{Expression, ObjectKey};
use hcl_edit::structure::{Block, Body};
use serde_json::{Map, Value};

use super::eval::{Scope, Why};
use crate::text::pointer::push_token;

/// A value of a resource not known before apply.
#[derive(Debug, Clone, PartialEq)]
pub struct Unknown {
    /// Relative to the resource (`/filters/0/pool_id`).
    pub pointer: String,
    pub why: Why,
}

/// A `resource "<type>" "<name>"` block.
pub struct ResourceBlock<'b> {
    pub resource_type: &'b str,
    pub name: &'b str,
    pub block: &'b Block,
    /// Which of the file's blocks of this address it is, when the file
    /// declares the address more than once (Terraform refuses that, but each
    /// block must be found at its own lines).
    pub copy: Option<usize>,
}

impl ResourceBlock<'_> {
    pub fn address(&self) -> String {
        format!("{}.{}", self.resource_type, self.name)
    }

    /// Where its values are, as JSON pointers: `/resource/<type>/<name>`,
    /// and `/resource/<type>/<name>/<k>` for the k-th of several blocks of
    /// one address (Terraform's JSON syntax writes those as an array).
    pub fn pointer(&self) -> String {
        let mut p = String::from(crate::model::terraform::DECLARATION);
        push_token(&mut p, self.resource_type);
        push_token(&mut p, self.name);
        if let Some(copy) = self.copy {
            push_token(&mut p, &copy.to_string());
        }
        p
    }
}

/// The file's resource blocks, in order.
pub fn resource_blocks(body: &Body) -> impl Iterator<Item = ResourceBlock<'_>> {
    let labelled = || {
        body.blocks()
            .filter(|b| b.ident.value().as_str() == "resource")
            .filter_map(|block| match block.labels.as_slice() {
                [t, n] => Some((t.as_str(), n.as_str(), block)),
                _ => None,
            })
    };
    let mut declared: HashMap<(&str, &str), usize> = HashMap::new();
    for (t, n, _) in labelled() {
        *declared.entry((t, n)).or_default() += 1;
    }
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    labelled().map(move |(resource_type, name, block)| {
        let copy = declared.get(&(resource_type, name)).is_some_and(|&n| n > 1).then(|| {
            let n = seen.entry((resource_type, name)).or_default();
            *n += 1;
            *n - 1
        });
        ResourceBlock {
            resource_type,
            name,
            block,
            copy,
        }
    })
}

/// Terraform's own arguments of every resource, not the provider's.
pub const META_BLOCKS: [&str; 3] = ["lifecycle", "provisioner", "connection"];

/// A block body's known values, and its unknown ones.
pub fn attributes(scope: &Scope, body: &Body) -> (Map<String, Value>, Vec<Unknown>) {
    let mut unknown = Vec::new();
    let values = body_values(scope, body, "", false, &mut unknown);
    (values, unknown)
}

fn body_values(scope: &Scope, body: &Body, pointer: &str, nested: bool, unknown: &mut Vec<Unknown>) -> Map<String, Value> {
    let mut out = Map::new();
    for attribute in body.attributes() {
        let key = attribute.key.value().as_str();
        if let Some(v) = value_of(scope, &attribute.value, &child(pointer, key), unknown, true) {
            out.insert(key.to_string(), v);
        }
    }
    for block in body.blocks() {
        let ident = block.ident.value().as_str();
        if !nested && META_BLOCKS.contains(&ident) {
            continue;
        }
        if ident == "dynamic" {
            let name = block.labels.first().map_or("", |l| l.as_str());
            unknown.push(Unknown {
                pointer: child(pointer, name),
                why: Why::expression(format!("a `dynamic \"{name}\"` block, whose blocks edgeaudit does not expand")),
            });
            continue;
        }
        let list = out.entry(ident.to_string()).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            // An attribute and a block of one name: Terraform rejects it; the attribute stays.
            continue;
        };
        let at = child(&child(pointer, ident), &list.len().to_string());
        list.push(Value::Object(body_values(scope, &block.body, &at, true, unknown)));
    }
    out
}

/// An expression's value; an object literal member by member and a list
/// literal element by element, so that an unknown member (`filters = {
/// pool_id = data.….ids, new_health = [...] }`) leaves out only itself: the
/// known members are kept, each unknown one recorded at its own pointer.
/// `None` when the whole value is unknown.
/// `whole` for an attribute's value (a fresh budget), not for its members,
/// which share what the whole left.
fn value_of(scope: &Scope, expr: &hcl_edit::expr::Expression, pointer: &str, unknown: &mut Vec<Unknown>, whole: bool) -> Option<Value> {
    let value = if whole { scope.eval(expr) } else { scope.eval_part(expr) };
    match value {
        Ok(v) => Some(v),
        Err(why) => match expr {
            hcl_edit::expr::Expression::Object(object) => {
                let mut out = Map::new();
                for (key, value) in object.iter() {
                    let name = match key {
                        hcl_edit::expr::ObjectKey::Ident(ident) => ident.value().as_str().to_string(),
                        hcl_edit::expr::ObjectKey::Expression(e) => match scope.eval_part(e) {
                            Ok(Value::String(s)) => s,
                            // A key not known: the whole object is.
                            _ => {
                                unknown.push(Unknown {
                                    pointer: pointer.to_string(),
                                    why,
                                });
                                return None;
                            }
                        },
                    };
                    if let Some(v) = value_of(scope, value.expr(), &child(pointer, &name), unknown, false) {
                        out.insert(name, v);
                    }
                }
                Some(Value::Object(out))
            }
            // A list literal element by element: its length is known, and so
            // are the elements that are (`[cloudflare_….web.id, data.….id]`).
            // An unknown element holds its place (null), recorded at its index.
            hcl_edit::expr::Expression::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    out.push(value_of(scope, item, &child(pointer, &i.to_string()), unknown, false).unwrap_or(Value::Null));
                }
                Some(Value::Array(out))
            }
            _ => {
                unknown.push(Unknown {
                    pointer: pointer.to_string(),
                    why,
                });
                None
            }
        },
    }
}

fn child(pointer: &str, token: &str) -> String {
    let mut p = pointer.to_string();
    push_token(&mut p, token);
    p
}

/// The byte range of every resource, attribute, block and element, by pointer.
pub fn node_ranges(body: &Body) -> HashMap<String, (usize, usize)> {
    let mut ranges = HashMap::new();
    for resource in resource_blocks(body) {
        let pointer = resource.pointer();
        // A list of resources (an account's pools) is where its first one is.
        insert(
            &mut ranges,
            &format!("{}/{}", crate::model::terraform::DECLARATION, resource.resource_type),
            resource.block.span(),
        );
        insert(&mut ranges, &pointer, resource.block.span());
        body_ranges(&resource.block.body, &pointer, &mut ranges);
    }
    ranges
}

fn insert(ranges: &mut HashMap<String, (usize, usize)>, pointer: &str, span: Option<std::ops::Range<usize>>) {
    if let Some(span) = span {
        ranges.entry(pointer.to_string()).or_insert((span.start, span.end));
    }
}

fn body_ranges(body: &Body, pointer: &str, ranges: &mut HashMap<String, (usize, usize)>) {
    for attribute in body.attributes() {
        let at = child(pointer, attribute.key.value().as_str());
        expression_ranges(&attribute.value, &at, ranges);
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for block in body.blocks() {
        let ident = block.ident.value().as_str();
        let (ident, index) = if ident == "dynamic" {
            (block.labels.first().map_or("", |l| l.as_str()), 0)
        } else {
            let n = counts.entry(ident).or_default();
            *n += 1;
            (ident, *n - 1)
        };
        let list = child(pointer, ident);
        // The list itself is where its first block is.
        insert(ranges, &list, block.span());
        let at = child(&list, &index.to_string());
        insert(ranges, &at, block.span());
        body_ranges(&block.body, &at, ranges);
    }
}

fn expression_ranges(expr: &Expression, pointer: &str, ranges: &mut HashMap<String, (usize, usize)>) {
    insert(ranges, pointer, expr.span());
    match expr {
        Expression::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                expression_ranges(item, &child(pointer, &i.to_string()), ranges);
            }
        }
        Expression::Object(object) => {
            for (key, value) in object.iter() {
                let key = match key {
                    ObjectKey::Ident(ident) => ident.value().as_str().to_string(),
                    ObjectKey::Expression(Expression::String(s)) => s.value().clone(),
                    ObjectKey::Expression(_) => continue,
                };
                expression_ranges(value.expr(), &child(pointer, &key), ranges);
            }
        }
        Expression::Parenthesis(p) => expression_ranges(p.inner(), pointer, ranges),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"resource "cloudflare_notification_policy" "ops" {
  name       = "ops"
  enabled    = true
  email_integration {
    id = "ops@x.io"
  }
  email_integration {
    id = var.pager
  }
  filters {
    pool_id    = [cloudflare_load_balancer_pool.web.id]
    new_health = ["Unhealthy"]
  }
  dynamic "webhooks_integration" {
    for_each = []
    content {}
  }
  lifecycle {
    ignore_changes = [name]
  }
}
"#;

    /// A list too large to evaluate whole is not evaluated again element by
    /// element with a fresh budget each: its elements share what it left.
    #[test]
    fn members_of_a_value_too_large_share_its_budget() {
        // `local.a4` is 80,000 bytes: one fits the budget, twenty do not.
        let mut source = String::from("locals {\n  a0 = \"xxxxxxxx\"\n");
        for i in 1..=4 {
            source.push_str(&format!("  a{i} = \"{}\"\n", format!("${{local.a{}}}", i - 1).repeat(10)));
        }
        let twenty = vec!["local.a4"; 20].join(", ");
        source.push_str(&"}\nresource \"cloudflare_load_balancer_pool\" \"p\" {\n  x = [{}]\n}\n".replace("{}", &twenty));
        let body = hcl_edit::parser::parse_body(&source).expect("parses");
        let scope = Scope::of(&[&body]);
        let resource = resource_blocks(&body).next().expect("one resource");
        let (values, unknown) = attributes(&scope, &resource.block.body);
        let built = values
            .get("x")
            .and_then(Value::as_array)
            .map_or(0, |x| x.iter().filter(|v| v.is_string()).count());
        assert!(built < 20, "each member evaluated with a budget of its own: {built} built");
        assert!(unknown.iter().any(|u| u.why.text.contains("too large")), "{unknown:?}");
    }

    #[test]
    fn blocks_become_lists_and_unknowns_are_listed() {
        let body = hcl_edit::parser::parse_body(SOURCE).expect("parses");
        let resource = resource_blocks(&body).next().expect("one resource");
        assert_eq!(resource.address(), "cloudflare_notification_policy.ops");
        let (values, unknown) = attributes(&Scope::default(), &resource.block.body);
        assert_eq!(values["email_integration"], serde_json::json!([{"id": "ops@x.io"}, {}]));
        assert_eq!(
            values["filters"],
            serde_json::json!([{"pool_id": ["${cloudflare_load_balancer_pool.web.id}"], "new_health": ["Unhealthy"]}])
        );
        assert!(!values.contains_key("lifecycle"));
        let where_: Vec<&str> = unknown.iter().map(|u| u.pointer.as_str()).collect();
        assert_eq!(where_, ["/email_integration/1/id", "/webhooks_integration"]);
    }

    #[test]
    fn ranges_are_the_values_own() {
        let body = hcl_edit::parser::parse_body(SOURCE).expect("parses");
        let ranges = node_ranges(&body);
        let text = |p: &str| {
            let (s, e) = ranges[p];
            &SOURCE[s..e]
        };
        let base = "/resource/cloudflare_notification_policy/ops";
        assert_eq!(text(&format!("{base}/name")), "\"ops\"");
        assert_eq!(text(&format!("{base}/email_integration/1/id")), "var.pager");
        assert_eq!(text(&format!("{base}/filters/0/pool_id/0")), "cloudflare_load_balancer_pool.web.id");
        assert_eq!(text(&format!("{base}/filters/0/new_health/0")), "\"Unhealthy\"");
        assert!(text(base).starts_with("resource \"cloudflare_notification_policy\""));
        assert!(text(&format!("{base}/filters")).starts_with("filters {"));
    }

    #[test]
    fn blocks_of_one_address_are_each_at_their_own_pointer() {
        let source = "resource \"cloudflare_record\" \"a\" {\n  name = \"x\"\n}\nresource \"cloudflare_record\" \"b\" {}\nresource \"cloudflare_record\" \"a\" {\n  name = \"y\"\n}\n";
        let body = hcl_edit::parser::parse_body(source).expect("parses");
        let pointers: Vec<String> = resource_blocks(&body).map(|r| r.pointer()).collect();
        assert_eq!(
            pointers,
            [
                "/resource/cloudflare_record/a/0",
                "/resource/cloudflare_record/b",
                "/resource/cloudflare_record/a/1"
            ]
        );
        let ranges = node_ranges(&body);
        let text = |p: &str| ranges.get(p).map(|&(s, e)| &source[s..e]);
        assert_eq!(text("/resource/cloudflare_record/a/0/name"), Some("\"x\""));
        assert_eq!(text("/resource/cloudflare_record/a/1/name"), Some("\"y\""));
    }
}
