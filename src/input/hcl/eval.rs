//! What an expression of a `.tf` file is worth before anything is applied
//! (docs/src/terraform.md): literals, templates of literals, a configuration's
//! variables with literal defaults and its literal locals, and a reference
//! to a resource's `id`, which stands for that resource until apply gives it
//! one; conditionals whose condition is known, and comparisons, `!`, `&&`
//! and `||` of known values (a `count = var.x != "" ? 1 : 0` decides whether a
//! resource exists). Everything else — functions, `for`, arithmetic, module
//! outputs, data sources, `count`/`each` — is unknown, and says why: a rule
//! never judges a value edgeaudit had to guess.

use std::cell::Cell;
use std::collections::BTreeMap;

use hcl_edit::structure::Body;

use hcl_edit::expr::{BinaryOperator, Expression, ObjectKey, TraversalOperator, UnaryOperator};
use hcl_edit::template::{Element, Template};
use serde_json::{Map, Value};

use super::tfvars::Assigned;
use crate::model::terraform::id_reference;

/// A value, or why it is not known before apply.
#[derive(Debug, Clone, PartialEq)]
pub enum Eval {
    Known(Value),
    Unknown(String),
}

/// Locals may name locals: a cycle (an error for Terraform too) or a chain
/// deeper than this is unknown, never a stack overflow.
const MAX_DEPTH: u8 = 32;

/// Steps (expressions, and bytes of strings built) one attribute may take:
/// locals that each name the previous one ten times grow tenfold per level,
/// which depth alone does not bound.
const BUDGET: usize = 1 << 20;

/// The names an expression of one configuration (one directory) can use.
#[derive(Debug, Default)]
pub struct Scope {
    /// `variable "x" { default = … }`: the default, `None` when there is none.
    pub variables: BTreeMap<String, Option<Expression>>,
    /// `locals { x = … }`.
    pub locals: BTreeMap<String, Expression>,
    /// What `terraform.tfvars` and `*.auto.tfvars` beside the configuration set.
    pub tfvars: super::tfvars::Tfvars,
    /// What is left of [`BUDGET`] in the evaluation under way.
    budget: Cell<usize>,
}

impl Scope {
    /// The variables and locals the files of one configuration declare.
    pub fn of(bodies: &[&Body]) -> Scope {
        let mut scope = Scope::default();
        for block in bodies.iter().flat_map(|b| b.blocks()) {
            match (block.ident.value().as_str(), block.labels.as_slice()) {
                ("variable", [name]) => {
                    scope.variables.insert(
                        name.as_str().to_string(),
                        block.body.get_attribute("default").map(|a| a.value.clone()),
                    );
                }
                ("locals", _) => {
                    for a in block.body.attributes() {
                        scope.locals.insert(a.key.value().as_str().to_string(), a.value.clone());
                    }
                }
                _ => {}
            }
        }
        scope
    }

    pub fn eval(&self, expr: &Expression) -> Eval {
        self.budget.set(BUDGET);
        self.eval_at(expr, 0)
    }

    /// Takes `steps` from the budget; `false` when it is spent.
    fn spend(&self, steps: usize) -> bool {
        let left = self.budget.get();
        self.budget.set(left.saturating_sub(steps));
        left >= steps
    }

    fn eval_at(&self, expr: &Expression, depth: u8) -> Eval {
        if depth > MAX_DEPTH {
            return Eval::Unknown("references nest too deep (or in a cycle)".into());
        }
        if !self.spend(1) {
            return Eval::Unknown("too large to evaluate".into());
        }
        match expr {
            Expression::Null(_) => Eval::Known(Value::Null),
            Expression::Bool(b) => Eval::Known(Value::Bool(*b.value())),
            Expression::Number(n) => Eval::Known(number(n.value())),
            Expression::String(s) => Eval::Known(Value::String(s.value().clone())),
            Expression::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items.iter() {
                    match self.eval_at(item, depth + 1) {
                        Eval::Known(v) => out.push(v),
                        unknown => return unknown,
                    }
                }
                Eval::Known(Value::Array(out))
            }
            Expression::Object(object) => {
                let mut out = Map::new();
                for (key, value) in object.iter() {
                    let key = match key {
                        ObjectKey::Ident(ident) => ident.value().as_str().to_string(),
                        ObjectKey::Expression(e) => match self.eval_at(e, depth + 1) {
                            Eval::Known(Value::String(s)) => s,
                            Eval::Known(_) => return Eval::Unknown("an object key that is not a string".into()),
                            unknown => return unknown,
                        },
                    };
                    match self.eval_at(value.expr(), depth + 1) {
                        Eval::Known(v) => {
                            out.insert(key, v);
                        }
                        unknown => return unknown,
                    }
                }
                Eval::Known(Value::Object(out))
            }
            Expression::StringTemplate(t) => self.template(t, depth),
            Expression::HeredocTemplate(h) => self.template(&h.template, depth),
            Expression::Parenthesis(p) => self.eval_at(p.inner(), depth + 1),
            Expression::Traversal(t) => self.traversal(&t.expr, &t.operators, depth),
            Expression::Variable(v) => Eval::Unknown(format!("`{}` is not a value edgeaudit can read", v.value().as_str())),
            Expression::FuncCall(call) => Eval::Unknown(format!(
                "a call of `{}(…)`, which edgeaudit does not evaluate",
                call.name.name.value().as_str()
            )),
            // Only the branch the condition takes is evaluated, as Terraform does.
            Expression::Conditional(c) => match self.eval_at(&c.cond_expr, depth + 1) {
                Eval::Known(Value::Bool(true)) => self.eval_at(&c.true_expr, depth + 1),
                Eval::Known(Value::Bool(false)) => self.eval_at(&c.false_expr, depth + 1),
                Eval::Known(_) => Eval::Unknown("a conditional whose condition is not a bool".into()),
                Eval::Unknown(why) => Eval::Unknown(format!("a conditional whose condition is not known: {why}")),
            },
            Expression::ForExpr(_) => Eval::Unknown("a `for` expression, which edgeaudit does not evaluate".into()),
            Expression::UnaryOp(op) => match (op.operator.value(), self.eval_at(&op.expr, depth + 1)) {
                (UnaryOperator::Not, Eval::Known(Value::Bool(b))) => Eval::Known(Value::Bool(!b)),
                (UnaryOperator::Neg, Eval::Known(Value::Number(n))) => match n.as_f64().and_then(|f| serde_json::Number::from_f64(-f)) {
                    Some(n) => Eval::Known(Value::Number(n)),
                    None => Eval::Unknown("a negation that is not a number".into()),
                },
                (_, Eval::Known(_)) => Eval::Unknown("an operation on a value of the wrong type".into()),
                (_, unknown) => unknown,
            },
            Expression::BinaryOp(op) => self.binary(op.operator.value(), &op.lhs_expr, &op.rhs_expr, depth),
        }
    }

    /// A comparison or a logical operation of two values; arithmetic is left unknown.
    fn binary(&self, operator: &BinaryOperator, lhs: &Expression, rhs: &Expression, depth: u8) -> Eval {
        let (left, right) = (self.eval_at(lhs, depth + 1), self.eval_at(rhs, depth + 1));
        match operator {
            // A known side decides alone where it can: `false && x` is false whatever x is.
            BinaryOperator::And | BinaryOperator::Or => {
                let decides = matches!(operator, BinaryOperator::Or);
                match (left, right) {
                    (Eval::Known(Value::Bool(b)), _) | (_, Eval::Known(Value::Bool(b))) if b == decides => Eval::Known(Value::Bool(b)),
                    (Eval::Known(Value::Bool(_)), Eval::Known(Value::Bool(_))) => Eval::Known(Value::Bool(!decides)),
                    (Eval::Unknown(why), _) | (_, Eval::Unknown(why)) => Eval::Unknown(why),
                    _ => Eval::Unknown("a logical operation on values that are not bools".into()),
                }
            }
            _ => {
                let (left, right) = match (left, right) {
                    (Eval::Known(l), Eval::Known(r)) => (l, r),
                    (Eval::Unknown(why), _) | (_, Eval::Unknown(why)) => return Eval::Unknown(why),
                };
                let numbers = left.as_f64().zip(right.as_f64());
                let result = match operator {
                    BinaryOperator::Eq => Some(numbers.map_or(left == right, |(l, r)| l == r)),
                    BinaryOperator::NotEq => Some(numbers.map_or(left != right, |(l, r)| l != r)),
                    BinaryOperator::Less => numbers.map(|(l, r)| l < r),
                    BinaryOperator::LessEq => numbers.map(|(l, r)| l <= r),
                    BinaryOperator::Greater => numbers.map(|(l, r)| l > r),
                    BinaryOperator::GreaterEq => numbers.map(|(l, r)| l >= r),
                    _ => return Eval::Unknown("arithmetic, which edgeaudit does not evaluate".into()),
                };
                match result {
                    Some(b) => Eval::Known(Value::Bool(b)),
                    None => Eval::Unknown("a comparison of values that are not numbers".into()),
                }
            }
        }
    }

    fn template(&self, template: &Template, depth: u8) -> Eval {
        let mut out = String::new();
        for element in template.iter() {
            match element {
                Element::Literal(s) => out.push_str(s.value()),
                Element::Interpolation(i) => match self.eval_at(&i.expr, depth + 1) {
                    Eval::Known(Value::String(s)) if !self.spend(s.len()) => {
                        return Eval::Unknown("too large to evaluate".into());
                    }
                    Eval::Known(Value::String(s)) => out.push_str(&s),
                    Eval::Known(v @ (Value::Number(_) | Value::Bool(_))) => out.push_str(&v.to_string()),
                    Eval::Known(_) => return Eval::Unknown("a template interpolating a list or object".into()),
                    unknown => return unknown,
                },
                Element::Directive(_) => {
                    return Eval::Unknown("a template with `%{…}` directives, which edgeaudit does not evaluate".into());
                }
            }
        }
        Eval::Known(Value::String(out))
    }

    fn traversal(&self, root: &Expression, operators: &[hcl_edit::Decorated<TraversalOperator>], depth: u8) -> Eval {
        let Expression::Variable(root) = root else {
            // `[…][0]`, `{…}.x`: a literal indexed.
            return match self.eval_at(root, depth + 1) {
                Eval::Known(v) => self.apply(v, operators, depth, "a literal"),
                unknown => unknown,
            };
        };
        let root = root.value().as_str();
        let name = dotted(root, operators);
        let first = operators.first().map(|o| o.value());
        let Some(TraversalOperator::GetAttr(first)) = first else {
            return Eval::Unknown(format!("`{name}` is not a value edgeaudit can read"));
        };
        let first = first.value().as_str();
        let rest = &operators[1..];
        match root {
            "var" => match (self.tfvars.values.get(first), &self.tfvars.unread, self.variables.get(first)) {
                (Some((_, Assigned::Json(value))), ..) => self.apply(value.clone(), rest, depth, &name),
                (Some((file, Assigned::Expression(value))), ..) => match self.eval_at(value, depth + 1) {
                    Eval::Known(v) => self.apply(v, rest, depth, &name),
                    Eval::Unknown(why) => Eval::Unknown(format!("`var.{first}` as {file} sets it: {why}")),
                },
                (None, Some(unread), _) => Eval::Unknown(format!("`var.{first}` may be set by a variables file: {unread}")),
                (None, None, Some(Some(default))) => match self.eval_at(default, depth + 1) {
                    Eval::Known(v) => self.apply(v, rest, depth, &name),
                    Eval::Unknown(why) => Eval::Unknown(format!("`var.{first}`'s default: {why}")),
                },
                (None, None, Some(None)) => Eval::Unknown(format!(
                    "`var.{first}` has no default, and no terraform.tfvars or *.auto.tfvars beside the configuration sets it, so its value comes only with a run (-var, -var-file or TF_VAR_{first})"
                )),
                (None, None, None) => Eval::Unknown(format!("`var.{first}` is not declared in this directory's configuration")),
            },
            "local" => match self.locals.get(first) {
                Some(value) => match self.eval_at(value, depth + 1) {
                    Eval::Known(v) => self.apply(v, rest, depth, &name),
                    Eval::Unknown(why) => Eval::Unknown(format!("`local.{first}`: {why}")),
                },
                None => Eval::Unknown(format!("`local.{first}` is not declared in this directory's configuration")),
            },
            "module" => Eval::Unknown(format!("`{name}` is another module's output")),
            "data" => Eval::Unknown(format!("`{name}` is read from a data source at plan time")),
            "count" | "each" | "self" => Eval::Unknown(format!("`{name}` differs per instance")),
            "path" | "terraform" => Eval::Unknown(format!("`{name}` depends on where Terraform runs")),
            resource_type => match rest {
                [op] if matches!(op.value(), TraversalOperator::GetAttr(a) if a.value().as_str() == "id") => {
                    Eval::Known(Value::String(id_reference(&format!("{resource_type}.{first}"))))
                }
                _ => Eval::Unknown(format!(
                    "`{name}` is an attribute of another resource that edgeaudit does not read (only a resource's `.id` is resolved)"
                )),
            },
        }
    }

    /// `.name`, `["key"]`, `[0]` applied to a known value.
    fn apply(&self, mut value: Value, operators: &[hcl_edit::Decorated<TraversalOperator>], depth: u8, name: &str) -> Eval {
        for op in operators {
            let next = match op.value() {
                TraversalOperator::GetAttr(key) => value.get(key.value().as_str()).cloned(),
                TraversalOperator::LegacyIndex(i) => value.get(*i.value() as usize).cloned(),
                TraversalOperator::Index(index) => match self.eval_at(index, depth + 1) {
                    Eval::Known(Value::String(key)) => value.get(&key).cloned(),
                    Eval::Known(Value::Number(n)) => n.as_u64().and_then(|i| value.get(i as usize)).cloned(),
                    Eval::Known(_) => None,
                    unknown => return unknown,
                },
                TraversalOperator::AttrSplat(_) | TraversalOperator::FullSplat(_) => {
                    return Eval::Unknown(format!("`{name}` uses a splat (`[*]`), which edgeaudit does not evaluate"));
                }
            };
            match next {
                Some(v) => value = v,
                None => return Eval::Unknown(format!("`{name}` names an element or attribute its value does not have")),
            }
        }
        Eval::Known(value)
    }
}

fn number(n: &hcl_edit::Number) -> Value {
    if let Some(u) = n.as_u64() {
        Value::from(u)
    } else if let Some(i) = n.as_i64() {
        Value::from(i)
    } else {
        n.as_f64().map_or(Value::Null, Value::from)
    }
}

/// `var.x.y[0]`, as written, for messages.
fn dotted(root: &str, operators: &[hcl_edit::Decorated<TraversalOperator>]) -> String {
    let mut name = root.to_string();
    for op in operators {
        match op.value() {
            TraversalOperator::GetAttr(a) => {
                name.push('.');
                name.push_str(a.value().as_str());
            }
            TraversalOperator::LegacyIndex(i) => name.push_str(&format!(".{}", i.value())),
            TraversalOperator::Index(_) => name.push_str("[…]"),
            TraversalOperator::AttrSplat(_) => name.push_str(".*"),
            TraversalOperator::FullSplat(_) => name.push_str("[*]"),
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(source: &str) -> Scope {
        Scope::of(&[&hcl_edit::parser::parse_body(source).expect("test source parses")])
    }

    fn eval(scope: &Scope, expr: &str) -> Eval {
        scope.eval(&hcl_edit::parser::parse_expr(expr).expect("test expression parses"))
    }

    #[test]
    fn literals_templates_variables_locals_and_ids_resolve() {
        let s = scope(
            r#"
            variable "team" { default = "ops" }
            variable "emails" { default = ["a@x.io", "b@x.io"] }
            variable "zone" {}
            locals {
              domain = "x.io"
              ops    = "${var.team}@${local.domain}"
              cfg    = { healths = ["Unhealthy"] }
            }
            "#,
        );
        assert_eq!(eval(&s, r#""plain""#), Eval::Known(Value::from("plain")));
        assert_eq!(eval(&s, "local.ops"), Eval::Known(Value::from("ops@x.io")));
        assert_eq!(eval(&s, "var.emails[1]"), Eval::Known(Value::from("b@x.io")));
        assert_eq!(eval(&s, "local.cfg.healths"), Eval::Known(serde_json::json!(["Unhealthy"])));
        assert_eq!(eval(&s, "[true, 3, null]"), Eval::Known(serde_json::json!([true, 3, null])));
        assert_eq!(
            eval(&s, "[cloudflare_load_balancer_pool.web.id]"),
            Eval::Known(serde_json::json!(["${cloudflare_load_balancer_pool.web.id}"]))
        );
        assert_eq!(eval(&s, "<<-EOT\n  one\n  two\n  EOT"), Eval::Known(Value::from("one\ntwo\n")));
    }

    #[test]
    fn anything_else_is_unknown_and_says_why() {
        let s = scope("variable \"zone\" {}\nlocals {\n a = local.b\n b = local.a\n}\n");
        let why = |e: &str| match eval(&s, e) {
            Eval::Unknown(why) => why,
            Eval::Known(v) => panic!("{e} resolved to {v}"),
        };
        assert!(why("var.zone").contains("no default"));
        assert!(why("var.nope").contains("not declared"));
        assert!(why("local.a").contains("too deep"));
        assert!(why("module.lb.pool_id").contains("another module"));
        assert!(why("data.cloudflare_zone.z.id").contains("data source"));
        assert!(why("cloudflare_load_balancer_pool.web[0].id").contains("attribute of another resource"));
        assert!(why("cloudflare_load_balancer_pool.web.name").contains("only a resource's `.id`"));
        assert!(why("each.value").contains("per instance"));
        assert!(why("file(\"cert.pem\")").contains("file("));
        assert!(why("var.zone == \"\" ? \"a\" : \"b\"").contains("conditional"));
        assert!(why("[for e in [\"a\"] : e]").contains("for"));
        assert!(why("\"${var.zone}.x\"").contains("no default"));
        assert!(why("[\"ok\", var.zone]").contains("no default"));
    }

    #[test]
    fn conditionals_comparisons_and_logic_of_known_values_resolve() {
        let s = scope("variable \"team\" { default = \"\" }\nvariable \"n\" { default = 2 }\nvariable \"zone\" {}\n");
        assert_eq!(eval(&s, r#"var.team != "" ? 1 : 0"#), Eval::Known(Value::from(0)));
        assert_eq!(eval(&s, r#"var.team == "" ? 1 : 0"#), Eval::Known(Value::from(1)));
        assert_eq!(eval(&s, "var.n > 1 && !false"), Eval::Known(Value::from(true)));
        assert_eq!(eval(&s, "var.n >= 3 || var.n == 2.0"), Eval::Known(Value::from(true)));
        assert_eq!(eval(&s, "-var.n < 0"), Eval::Known(Value::from(true)));
        // A known side decides alone; the branch not taken is never read.
        assert_eq!(eval(&s, r#"false && var.zone == "x""#), Eval::Known(Value::from(false)));
        assert_eq!(eval(&s, r#"true ? 1 : var.zone"#), Eval::Known(Value::from(1)));
        let why = |e: &str| match eval(&s, e) {
            Eval::Unknown(why) => why,
            Eval::Known(v) => panic!("{e} resolved to {v}"),
        };
        assert!(why(r#"var.zone != "" ? 1 : 0"#).contains("conditional whose condition is not known"));
        assert!(why("var.n + 1").contains("arithmetic"));
        assert!(why(r#""a" < "b""#).contains("not numbers"));
    }

    #[test]
    fn locals_that_multiply_are_cut_short() {
        // Each local names the previous ten times: 8 × 10¹² bytes unbounded.
        let mut source = String::from("locals {\n  a0 = \"xxxxxxxx\"\n");
        for i in 1..=12 {
            source.push_str(&format!("  a{i} = \"{}\"\n", format!("${{local.a{}}}", i - 1).repeat(10)));
        }
        source.push_str("}\n");
        let result = eval(&scope(&source), "local.a12");
        assert!(matches!(&result, Eval::Unknown(why) if why.contains("too large")), "{result:?}");
        assert_eq!(eval(&scope(&source), "local.a2"), Eval::Known(Value::from("x".repeat(800))));
    }
}
