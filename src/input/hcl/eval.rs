//! What an expression of a `.tf` file is worth before anything is applied
//! (docs/src/terraform.md), as Terraform would plan it with the
//! configuration's own defaults: literals, templates, a configuration's
//! variables and locals, a reference to a resource's `id` (which stands for
//! that resource until apply gives it one), conditionals whose condition is
//! known, comparisons, arithmetic and logic, `for` expressions (with `if`)
//! over known lists and maps, splats, and the functions modules use
//! ([`super::functions`], with `try` and `can`). Everything else — module
//! outputs, data sources, `count`/`each`, other functions — is unknown, and
//! says why: a rule never judges a value edgeaudit had to guess.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use hcl_edit::structure::Body;

use hcl_edit::expr::{BinaryOperator, Expression, ObjectKey, TraversalOperator, UnaryOperator};
use hcl_edit::template::{Element, Template};
use serde_json::{Map, Value};

use super::tfvars::Assigned;
use crate::model::terraform::id_reference;
pub use crate::model::unknown::{Source, Why};

/// A value, or why it is not known before apply.
#[derive(Debug, Clone, PartialEq)]
enum Eval {
    Known(Value),
    Unknown(Why),
    /// An error Terraform would stop at (a key a map does not have, a
    /// function given the wrong type): what `try` passes over and `can`
    /// calls false. Said as unknown outside this module.
    Invalid(String),
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
    /// The names a `for` expression binds, innermost last.
    bound: RefCell<Vec<(String, Value)>>,
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

    /// The value of `expr`, or why it is not known (what Terraform would stop
    /// at included: edgeaudit judges no value it cannot read).
    pub fn eval(&self, expr: &Expression) -> Result<Value, Why> {
        match self.evaluate(expr) {
            Eval::Known(value) => Ok(value),
            Eval::Unknown(why) => Err(why),
            Eval::Invalid(why) => Err(Why::expression(why)),
        }
    }

    /// [`Scope::eval`] of a part of an expression just evaluated whole, within
    /// what is left of that evaluation's budget: reading an unknown list or
    /// object member by member costs no more than reading it whole did.
    pub fn eval_part(&self, expr: &Expression) -> Result<Value, Why> {
        self.bound.borrow_mut().clear();
        match self.eval_at(expr, 0) {
            Eval::Known(value) => Ok(value),
            Eval::Unknown(why) => Err(why),
            Eval::Invalid(why) => Err(Why::expression(why)),
        }
    }

    fn evaluate(&self, expr: &Expression) -> Eval {
        self.budget.set(BUDGET);
        self.bound.borrow_mut().clear();
        self.eval_at(expr, 0)
    }

    /// The keys of a map whose values may not all be known, as Terraform
    /// knows them before apply: an object's own keys, a `for`'s keys over a
    /// known collection, a `merge` of such maps, a local or a conditional
    /// that comes to one, a known map's or set's own. `None` when the keys
    /// themselves are not known. `for_each` over such a map makes known
    /// instances, whatever their values.
    pub fn keys_of(&self, expr: &Expression) -> Option<Vec<String>> {
        self.budget.set(BUDGET);
        self.bound.borrow_mut().clear();
        self.keys_at(expr, 0)
    }

    fn keys_at(&self, expr: &Expression, depth: u8) -> Option<Vec<String>> {
        if depth > MAX_DEPTH || !self.spend(1) {
            return None;
        }
        if let Eval::Known(value) = self.eval_at(expr, depth + 1) {
            return match value {
                Value::Object(map) => Some(map.keys().cloned().collect()),
                // A set of strings: each string is an instance's key.
                Value::Array(items) => items.iter().map(|i| i.as_str().map(str::to_string)).collect(),
                _ => None,
            };
        }
        match expr {
            Expression::Object(object) => object
                .iter()
                .map(|(key, _)| match key {
                    ObjectKey::Ident(ident) => Some(ident.value().as_str().to_string()),
                    ObjectKey::Expression(e) => match self.eval_at(e, depth + 1) {
                        Eval::Known(Value::String(s)) => Some(s),
                        _ => None,
                    },
                })
                .collect(),
            Expression::Parenthesis(p) => self.keys_at(p.inner(), depth + 1),
            Expression::Conditional(c) => match self.eval_at(&c.cond_expr, depth + 1) {
                Eval::Known(Value::Bool(true)) => self.keys_at(&c.true_expr, depth + 1),
                Eval::Known(Value::Bool(false)) => self.keys_at(&c.false_expr, depth + 1),
                _ => None,
            },
            Expression::FuncCall(call) if call.name.namespace.is_empty() && call.name.name.value().as_str() == "merge" => {
                let mut keys: Vec<String> = Vec::new();
                for arg in call.args.iter() {
                    for key in self.keys_at(arg, depth + 1)? {
                        if !keys.contains(&key) {
                            keys.push(key);
                        }
                    }
                }
                keys.sort();
                Some(keys)
            }
            Expression::ForExpr(f) if f.key_expr.is_some() => self.for_keys(f, depth),
            Expression::Traversal(t) => match (&t.expr, t.operators.as_slice()) {
                (Expression::Variable(root), [op]) if root.value().as_str() == "local" => match op.value() {
                    TraversalOperator::GetAttr(name) => self.keys_at(self.locals.get(name.value().as_str())?, depth + 1),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    /// A `{for …}`'s keys over a known collection, its values unread.
    fn for_keys(&self, f: &hcl_edit::expr::ForExpr, depth: u8) -> Option<Vec<String>> {
        let Eval::Known(collection) = self.eval_at(&f.intro.collection_expr, depth + 1) else {
            return None;
        };
        let items = for_items(collection).ok()?;
        let key_expr = f.key_expr.as_ref()?;
        let mut keys = Vec::new();
        for (key, value) in items {
            // `Some(None)`: the `if` leaves the element out; `None`: not known.
            let key = self.with_bound(f, key, value, || {
                let kept = match &f.cond {
                    None => true,
                    Some(cond) => match self.eval_at(&cond.expr, depth + 1) {
                        Eval::Known(Value::Bool(b)) => b,
                        _ => return None,
                    },
                };
                if !kept {
                    return Some(None);
                }
                match self.eval_at(key_expr, depth + 1) {
                    Eval::Known(Value::String(s)) => Some(Some(s)),
                    Eval::Known(v @ (Value::Number(_) | Value::Bool(_))) => Some(Some(v.to_string())),
                    _ => None,
                }
            });
            if let Some(k) = key?
                && !keys.contains(&k)
            {
                keys.push(k);
            }
        }
        keys.sort();
        Some(keys)
    }

    /// A name a `for` expression binds, if it is one.
    fn bound_value(&self, name: &str) -> Option<Value> {
        self.bound.borrow().iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    }

    /// Takes `steps` from the budget; `false` when it is spent.
    fn spend(&self, steps: usize) -> bool {
        let left = self.budget.get();
        self.budget.set(left.saturating_sub(steps));
        left >= steps
    }

    fn eval_at(&self, expr: &Expression, depth: u8) -> Eval {
        if depth > MAX_DEPTH {
            return Eval::Unknown(Why::expression("references nest too deep (or in a cycle)"));
        }
        if !self.spend(1) {
            return Eval::Unknown(Why::expression("too large to evaluate"));
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
                            Eval::Known(_) => return Eval::Unknown(Why::expression("an object key that is not a string")),
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
            Expression::Variable(v) => match self.bound_value(v.value().as_str()) {
                Some(value) => Eval::Known(value),
                None => Eval::Unknown(Why::expression(format!(
                    "`{}` is not a value edgeaudit can read",
                    v.value().as_str()
                ))),
            },
            Expression::FuncCall(call) => self.call(call, depth),
            // Only the branch the condition takes is evaluated, as Terraform does.
            Expression::Conditional(c) => match self.eval_at(&c.cond_expr, depth + 1) {
                Eval::Known(Value::Bool(true)) => self.eval_at(&c.true_expr, depth + 1),
                Eval::Known(Value::Bool(false)) => self.eval_at(&c.false_expr, depth + 1),
                Eval::Known(_) => Eval::Unknown(Why::expression("a conditional whose condition is not a bool")),
                Eval::Unknown(why) => Eval::Unknown(why.within(|why| format!("a conditional whose condition is not known: {why}"))),
                invalid @ Eval::Invalid(_) => invalid,
            },
            Expression::ForExpr(f) => self.for_expr(f, depth),
            Expression::UnaryOp(op) => match (op.operator.value(), self.eval_at(&op.expr, depth + 1)) {
                (UnaryOperator::Not, Eval::Known(Value::Bool(b))) => Eval::Known(Value::Bool(!b)),
                (UnaryOperator::Neg, Eval::Known(Value::Number(n))) => match n.as_f64().and_then(|f| serde_json::Number::from_f64(-f)) {
                    Some(n) => Eval::Known(Value::Number(n)),
                    None => Eval::Unknown(Why::expression("a negation that is not a number")),
                },
                (_, Eval::Known(_)) => Eval::Unknown(Why::expression("an operation on a value of the wrong type")),
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
                    _ => Eval::Unknown(Why::expression("a logical operation on values that are not bools")),
                }
            }
            _ => {
                let (left, right) = match (left, right) {
                    (Eval::Known(l), Eval::Known(r)) => (l, r),
                    (Eval::Invalid(why), _) | (_, Eval::Invalid(why)) => return Eval::Invalid(why),
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
                    _ => return arithmetic(operator, &left, &right),
                };
                match result {
                    Some(b) => Eval::Known(Value::Bool(b)),
                    None => Eval::Unknown(Why::expression("a comparison of values that are not numbers")),
                }
            }
        }
    }

    /// A function call: `try` and `can` on their arguments as given, the
    /// others ([`super::functions`]) on known arguments (`f(list...)`
    /// expands a list).
    fn call(&self, call: &hcl_edit::expr::FuncCall, depth: u8) -> Eval {
        let name = call.name.name.value().as_str();
        if !call.name.namespace.is_empty() {
            return Eval::Unknown(Why::expression(format!(
                "a provider function `{name}(…)`, which edgeaudit does not evaluate"
            )));
        }
        match name {
            // The first argument that is a value; an unknown one stops the search (Terraform's too).
            "try" => {
                let mut last = Eval::Invalid("`try` with no argument that is a value".into());
                for arg in call.args.iter() {
                    match self.eval_at(arg, depth + 1) {
                        Eval::Invalid(why) => last = Eval::Invalid(why),
                        known_or_unknown => return known_or_unknown,
                    }
                }
                return last;
            }
            "can" => {
                return match call.args.iter().next().map(|arg| self.eval_at(arg, depth + 1)) {
                    Some(Eval::Known(_)) => Eval::Known(Value::Bool(true)),
                    Some(Eval::Invalid(_)) => Eval::Known(Value::Bool(false)),
                    Some(unknown) => unknown,
                    None => Eval::Invalid("`can` takes one argument".into()),
                };
            }
            _ => {}
        }
        if !super::functions::NAMES.contains(&name) {
            return Eval::Unknown(Why::expression(format!("a call of `{name}(…)`, which edgeaudit does not evaluate")));
        }
        let mut args = Vec::with_capacity(call.args.len());
        for arg in call.args.iter() {
            match self.eval_at(arg, depth + 1) {
                Eval::Known(v) => args.push(v),
                other => return other,
            }
        }
        if call.args.expand_final() {
            match args.pop() {
                Some(Value::Array(rest)) => args.extend(rest),
                _ => return Eval::Invalid(format!("`{name}(…)`'s `...` expands no list")),
            }
        }
        match super::functions::call(name, &args) {
            Ok(v) if self.spend(v.to_string().len() / 64 + 1) => Eval::Known(v),
            Ok(_) => Eval::Unknown(Why::expression("too large to evaluate")),
            Err(super::functions::Failure::Invalid(why)) => Eval::Invalid(why),
            Err(super::functions::Failure::NotEvaluated(why)) => Eval::Unknown(Why::expression(why)),
        }
    }

    /// `[for k, v in c : … if …]` and `{for k, v in c : k => v if …}` over a
    /// known list (index, element) or map (key, value, in key order).
    fn for_expr(&self, f: &hcl_edit::expr::ForExpr, depth: u8) -> Eval {
        let collection = match self.eval_at(&f.intro.collection_expr, depth + 1) {
            Eval::Known(v) => v,
            Eval::Unknown(why) => return Eval::Unknown(why.within(|why| format!("a `for` over a collection that is not known: {why}"))),
            invalid => return invalid,
        };
        let items = match for_items(collection) {
            Ok(items) => items,
            Err(invalid) => return invalid,
        };
        let mut list = Vec::new();
        let mut object = Map::new();
        for (key, value) in items {
            if let Some(stop) = self.with_bound(f, key, value, || self.for_element(f, depth, &mut list, &mut object)) {
                return stop;
            }
        }
        Eval::Known(if f.key_expr.is_some() {
            Value::Object(object)
        } else {
            Value::Array(list)
        })
    }

    /// Runs `each` with the `for`'s names bound to one element (its key or
    /// index, and its value), and unbinds them after.
    fn with_bound<T>(&self, f: &hcl_edit::expr::ForExpr, key: Value, value: Value, each: impl FnOnce() -> T) -> T {
        let before = self.bound.borrow().len();
        if let Some(k) = &f.intro.key_var {
            self.bound.borrow_mut().push((k.value().as_str().to_string(), key));
        }
        self.bound
            .borrow_mut()
            .push((f.intro.value_var.value().as_str().to_string(), value));
        let out = each();
        self.bound.borrow_mut().truncate(before);
        out
    }

    /// One element of a `for`, with its names bound: added to `list` or
    /// `object`; what stops the whole expression, if anything does.
    fn for_element(&self, f: &hcl_edit::expr::ForExpr, depth: u8, list: &mut Vec<Value>, object: &mut Map<String, Value>) -> Option<Eval> {
        if let Some(cond) = &f.cond {
            match self.eval_at(&cond.expr, depth + 1) {
                Eval::Known(Value::Bool(true)) => {}
                Eval::Known(Value::Bool(false)) => return None,
                Eval::Known(_) => return Some(Eval::Invalid("a `for`'s `if` that is not a bool".into())),
                other => return Some(other),
            }
        }
        let value = match self.eval_at(&f.value_expr, depth + 1) {
            Eval::Known(v) => v,
            other => return Some(other),
        };
        match &f.key_expr {
            None => list.push(value),
            Some(key_expr) => {
                let key = match self.eval_at(key_expr, depth + 1) {
                    Eval::Known(Value::String(s)) => s,
                    Eval::Known(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
                    Eval::Known(_) => return Some(Eval::Invalid("a `for`'s key that is not a string".into())),
                    other => return Some(other),
                };
                if f.grouping {
                    match object.entry(key).or_insert_with(|| Value::Array(Vec::new())) {
                        Value::Array(group) => group.push(value),
                        _ => return Some(Eval::Invalid("a `for` grouping into a value that is not a list".into())),
                    }
                } else if object.insert(key.clone(), value).is_some() {
                    return Some(Eval::Invalid(format!(
                        "a `for` that makes the key `{key}` twice (`...` groups them)"
                    )));
                }
            }
        }
        None
    }

    fn template(&self, template: &Template, depth: u8) -> Eval {
        let mut out = String::new();
        for element in template.iter() {
            match element {
                Element::Literal(s) => out.push_str(s.value()),
                Element::Interpolation(i) => match self.eval_at(&i.expr, depth + 1) {
                    Eval::Known(Value::String(s)) if !self.spend(s.len()) => {
                        return Eval::Unknown(Why::expression("too large to evaluate"));
                    }
                    Eval::Known(Value::String(s)) => out.push_str(&s),
                    Eval::Known(v @ (Value::Number(_) | Value::Bool(_))) => out.push_str(&v.to_string()),
                    Eval::Known(_) => return Eval::Unknown(Why::expression("a template interpolating a list or object")),
                    unknown => return unknown,
                },
                Element::Directive(_) => {
                    return Eval::Unknown(Why::expression(
                        "a template with `%{…}` directives, which edgeaudit does not evaluate",
                    ));
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
        if let Some(value) = self.bound_value(root) {
            return self.apply(value, operators, depth, &name);
        }
        let first = operators.first().map(|o| o.value());
        let Some(TraversalOperator::GetAttr(first)) = first else {
            return Eval::Unknown(Why::expression(format!("`{name}` is not a value edgeaudit can read")));
        };
        let first = first.value().as_str();
        let rest = &operators[1..];
        match root {
            "var" => match (self.tfvars.values.get(first), &self.tfvars.unread, self.variables.get(first)) {
                (Some((_, Assigned::Json(value))), ..) => self.apply(value.clone(), rest, depth, &name),
                (Some((file, Assigned::Expression(value))), ..) => match self.eval_at(value, depth + 1) {
                    Eval::Known(v) => self.apply(v, rest, depth, &name),
                    Eval::Unknown(why) => Eval::Unknown(why.within(|why| format!("`var.{first}` as {file} sets it: {why}"))),
                    Eval::Invalid(why) => Eval::Invalid(format!("`var.{first}` as {file} sets it: {why}")),
                },
                (None, Some(unread), _) => Eval::Unknown(Why::new(
                    Source::Variable,
                    format!("`var.{first}` may be set by a variables file: {unread}"),
                )),
                (None, None, Some(Some(default))) => match self.eval_at(default, depth + 1) {
                    Eval::Known(v) => self.apply(v, rest, depth, &name),
                    Eval::Unknown(why) => Eval::Unknown(why.within(|why| format!("`var.{first}`'s default: {why}"))),
                    Eval::Invalid(why) => Eval::Invalid(format!("`var.{first}`'s default: {why}")),
                },
                (None, None, Some(None)) => Eval::Unknown(Why::new(
                    Source::Variable,
                    format!(
                        "`var.{first}` has no default, and no terraform.tfvars or *.auto.tfvars beside the configuration sets it, so its value comes only with a run (-var, -var-file or TF_VAR_{first})"
                    ),
                )),
                // Not a value to give on the command line: Terraform refuses an undeclared one.
                (None, None, None) => Eval::Unknown(Why::expression(format!(
                    "`var.{first}` is not declared in this directory's configuration"
                ))),
            },
            "local" => match self.locals.get(first) {
                Some(value) => match self.eval_at(value, depth + 1) {
                    Eval::Known(v) => self.apply(v, rest, depth, &name),
                    Eval::Unknown(why) => Eval::Unknown(why.within(|why| format!("`local.{first}`: {why}"))),
                    Eval::Invalid(why) => Eval::Invalid(format!("`local.{first}`: {why}")),
                },
                None => Eval::Unknown(Why::expression(format!(
                    "`local.{first}` is not declared in this directory's configuration"
                ))),
            },
            "module" => Eval::Unknown(Why::new(Source::Plan, format!("`{name}` is another module's output"))),
            "data" => Eval::Unknown(Why::new(Source::Plan, format!("`{name}` is read from a data source at plan time"))),
            "count" | "each" | "self" => Eval::Unknown(Why::new(Source::Plan, format!("`{name}` differs per instance"))),
            "path" | "terraform" => Eval::Unknown(Why::new(Source::Plan, format!("`{name}` depends on where Terraform runs"))),
            resource_type => match rest {
                [op] if matches!(op.value(), TraversalOperator::GetAttr(a) if a.value().as_str() == "id") => {
                    Eval::Known(Value::String(id_reference(&format!("{resource_type}.{first}"))))
                }
                _ => Eval::Unknown(Why::new(
                    Source::Plan,
                    format!(
                        "`{name}` is an attribute of another resource that edgeaudit does not read (only a resource's `.id` is resolved)"
                    ),
                )),
            },
        }
    }

    /// `.name`, `["key"]`, `[0]` applied to a known value.
    fn apply(&self, mut value: Value, operators: &[hcl_edit::Decorated<TraversalOperator>], depth: u8, name: &str) -> Eval {
        for (i, op) in operators.iter().enumerate() {
            let next = match op.value() {
                TraversalOperator::GetAttr(key) => value.get(key.value().as_str()).cloned(),
                TraversalOperator::LegacyIndex(i) => value.get(*i.value() as usize).cloned(),
                TraversalOperator::Index(index) => match self.eval_at(index, depth + 1) {
                    Eval::Known(Value::String(key)) => value.get(&key).cloned(),
                    Eval::Known(Value::Number(n)) => n.as_u64().and_then(|i| value.get(i as usize)).cloned(),
                    Eval::Known(_) => None,
                    unknown => return unknown,
                },
                // `list[*].x`: what follows, applied to each element (a value
                // that is not a list is a list of itself; null, of nothing).
                TraversalOperator::AttrSplat(_) | TraversalOperator::FullSplat(_) => {
                    let elements = match value {
                        Value::Array(items) => items,
                        Value::Null => Vec::new(),
                        other => vec![other],
                    };
                    let mut out = Vec::with_capacity(elements.len());
                    for element in elements {
                        match self.apply(element, &operators[i + 1..], depth, name) {
                            Eval::Known(v) => out.push(v),
                            other => return other,
                        }
                    }
                    return Eval::Known(Value::Array(out));
                }
            };
            match next {
                Some(v) => value = v,
                None => return Eval::Invalid(format!("`{name}` names an element or attribute its value does not have")),
            }
        }
        Eval::Known(value)
    }
}

/// A `for`'s elements: a list's (index, element), a map's (key, value) in
/// key order; what a `for` over anything else is.
fn for_items(collection: Value) -> Result<Vec<(Value, Value)>, Eval> {
    match collection {
        Value::Array(items) => Ok(items.into_iter().enumerate().map(|(i, v)| (Value::from(i), v)).collect()),
        Value::Object(map) => Ok(map.into_iter().map(|(k, v)| (Value::String(k), v)).collect()),
        Value::Null => Err(Eval::Invalid("a `for` over null".into())),
        _ => Err(Eval::Invalid("a `for` over a value that is neither a list nor a map".into())),
    }
}

/// `+ - * / %` of two numbers, as Terraform's numbers (whole where they are).
fn arithmetic(operator: &BinaryOperator, left: &Value, right: &Value) -> Eval {
    let (Some(l), Some(r)) = (left.as_f64(), right.as_f64()) else {
        return Eval::Invalid("arithmetic on values that are not numbers".into());
    };
    let result = match operator {
        BinaryOperator::Plus => l + r,
        BinaryOperator::Minus => l - r,
        BinaryOperator::Mul => l * r,
        BinaryOperator::Div if r != 0.0 => l / r,
        BinaryOperator::Mod if r != 0.0 => l % r,
        BinaryOperator::Div | BinaryOperator::Mod => return Eval::Invalid("a division by zero".into()),
        _ => return Eval::Invalid("an operator edgeaudit does not know".into()),
    };
    if result.fract() == 0.0 && result.abs() < 9.0e15 {
        Eval::Known(Value::from(result as i64))
    } else {
        serde_json::Number::from_f64(result).map_or(Eval::Invalid("a number out of range".into()), |n| Eval::Known(Value::Number(n)))
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
        scope.evaluate(&hcl_edit::parser::parse_expr(expr).expect("test expression parses"))
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
            Eval::Unknown(why) => why.text,
            Eval::Invalid(why) => why,
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
        assert!(why("[for e in var.zone : e]").contains("`for` over a collection that is not known"));
        assert!(why("\"${var.zone}.x\"").contains("no default"));
        assert!(why("[\"ok\", var.zone]").contains("no default"));
    }

    /// What gives a value is kept through what holds it: a local of a
    /// conditional on a variable is the variable's to set.
    #[test]
    fn an_unknown_keeps_its_source_through_what_holds_it() {
        let s = scope(
            "variable \"zone\" {}\nvariable \"ids\" { default = data.cloudflare_zones.all.ids }\nlocals {\n on = var.zone != \"\" ? [var.zone] : []\n ids = [for id in var.ids : lower(id)]\n}\n",
        );
        let source = |e: &str| match s.eval(&hcl_edit::parser::parse_expr(e).expect("test expression parses")) {
            Err(why) => why.source,
            Ok(v) => panic!("{e} resolved to {v}"),
        };
        assert_eq!(source("var.zone"), Source::Variable);
        assert_eq!(source("local.on"), Source::Variable);
        assert_eq!(source("merge({a = 1}, { b = var.zone })"), Source::Variable);
        assert_eq!(source("local.ids"), Source::Plan, "a variable whose default is a data source's");
        assert_eq!(source("module.lb.pool_id"), Source::Plan);
        assert_eq!(source("data.terraform_remote_state.net.outputs.pool_id"), Source::Plan);
        assert_eq!(source("cloudflare_load_balancer_pool.web.name"), Source::Plan);
        assert_eq!(source("each.key"), Source::Plan);
        assert_eq!(source("file(\"cert.pem\")"), Source::Expression);
        assert_eq!(source("lookup({}, \"a\")"), Source::Expression, "what Terraform stops at");
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
            Eval::Unknown(why) => why.text,
            Eval::Invalid(why) => why,
            Eval::Known(v) => panic!("{e} resolved to {v}"),
        };
        assert!(why(r#"var.zone != "" ? 1 : 0"#).contains("conditional whose condition is not known"));
        assert!(why("var.zone + 1").contains("no default"));
        assert!(why(r#""a" < "b""#).contains("not numbers"));
    }

    /// A certificate-pack module as real ones are written: `for_each` over a
    /// `merge` of a conditional on a variable's default and a `for` with
    /// `if` over a map whose default is empty; every key known from the
    /// defaults.
    #[test]
    fn for_expressions_functions_and_splats_as_terraform_plans_them() {
        let s = scope(
            r#"
            variable "main_certificate" { default = true }
            variable "records" { default = {} }
            variable "certificate_authority" { default = "lets_encrypt" }
            variable "hosts" { default = ["a.example.com", "b.example.com", "a.example.com"] }
            variable "pools" { default = [{ id = "p1", emails = ["A@x.io"] }, { id = "p2", emails = [] }] }
            variable "zone" {}
            locals {
              base_cert = var.main_certificate ? { main_domain = { hosts = ["example.com", "*.example.com"] } } : {}
              record_certs = { for name, r in var.records : name => { hosts = [r.host] } if r.certificate }
              all_certificate_hosts = merge(local.base_cert, local.record_certs)
            }
            "#,
        );
        assert_eq!(
            eval(&s, "local.all_certificate_hosts"),
            Eval::Known(serde_json::json!({"main_domain": {"hosts": ["example.com", "*.example.com"]}}))
        );
        assert_eq!(
            eval(&s, "keys(local.all_certificate_hosts)"),
            Eval::Known(serde_json::json!(["main_domain"]))
        );
        assert_eq!(
            eval(&s, "upper(var.certificate_authority)"),
            Eval::Known(Value::from("LETS_ENCRYPT"))
        );
        assert_eq!(
            eval(&s, "distinct(var.hosts)"),
            Eval::Known(serde_json::json!(["a.example.com", "b.example.com"]))
        );
        assert_eq!(
            eval(&s, "[for h in var.hosts : upper(h) if startswith(h, \"a.\")]"),
            Eval::Known(serde_json::json!(["A.EXAMPLE.COM", "A.EXAMPLE.COM"]))
        );
        assert_eq!(
            eval(&s, "{for p in var.pools : p.id => length(p.emails)}"),
            Eval::Known(serde_json::json!({"p1": 1, "p2": 0}))
        );
        assert_eq!(
            eval(&s, "{for p in var.pools : \"all\" => p.id...}"),
            Eval::Known(serde_json::json!({"all": ["p1", "p2"]}))
        );
        assert_eq!(eval(&s, "var.pools[*].id"), Eval::Known(serde_json::json!(["p1", "p2"])));
        assert_eq!(eval(&s, "flatten(var.pools[*].emails)"), Eval::Known(serde_json::json!(["A@x.io"])));
        assert_eq!(
            eval(&s, "join(\",\", [for e in flatten(var.pools.*.emails) : lower(e)])"),
            Eval::Known(Value::from("a@x.io"))
        );
        assert_eq!(eval(&s, "length(var.hosts) * 2 - 1"), Eval::Known(Value::from(5)));
        // `try` passes over what Terraform would stop at, not over what is not known.
        assert_eq!(
            eval(&s, "try(var.pools[0].missing, \"fallback\")"),
            Eval::Known(Value::from("fallback"))
        );
        assert_eq!(eval(&s, "can(var.pools[0].missing)"), Eval::Known(Value::from(false)));
        assert_eq!(eval(&s, "can(var.pools[0].id)"), Eval::Known(Value::from(true)));
        assert!(matches!(eval(&s, "try(var.zone, \"fallback\")"), Eval::Unknown(why) if why.text.contains("no default")));
        assert!(matches!(eval(&s, "merge(var.zone, {})"), Eval::Unknown(why) if why.text.contains("no default")));
        assert!(matches!(eval(&s, "lookup({}, \"a\")"), Eval::Invalid(why) if why.contains("no default")));
    }

    /// A map whose keys are known and values are not: its keys, as
    /// `for_each` plans them.
    #[test]
    fn the_keys_of_a_map_whose_values_are_unknown_are_known() {
        let s = scope(
            r#"
            variable "records" { default = { www = { ttl = 1 }, api = { ttl = 1 }, old = { ttl = 0 } } }
            variable "zone" {}
            locals {
              ids     = { for name, r in var.records : name => data.cloudflare_zone.z[name].id if r.ttl > 0 }
              extra   = { root = var.zone }
              all     = merge(local.ids, local.extra)
            }
            "#,
        );
        assert!(matches!(eval(&s, "local.all"), Eval::Unknown(_)));
        let keys = |e: &str| s.keys_of(&hcl_edit::parser::parse_expr(e).expect("parses"));
        assert_eq!(keys("local.ids"), Some(vec!["api".to_string(), "www".to_string()]));
        assert_eq!(
            keys("local.all"),
            Some(vec!["api".to_string(), "root".to_string(), "www".to_string()])
        );
        assert_eq!(keys("toset([\"a\", \"b\"])"), Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(keys("var.zone"), None);
        assert_eq!(keys("{ for k in var.zone : k => 1 }"), None);
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
        assert!(
            matches!(&result, Eval::Unknown(why) if why.text.contains("too large")),
            "{result:?}"
        );
        assert_eq!(eval(&scope(&source), "local.a2"), Eval::Known(Value::from("x".repeat(800))));
    }
}
