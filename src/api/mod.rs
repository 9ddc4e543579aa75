//! The service's API operations edgeaudit calls, each declared once
//! ([`operations::OPERATIONS`]): method, path template, the query parameters it
//! may carry and their values, its page sizes, the body fields it may send,
//! what its answer carries, and what edgeaudit relies on that the published
//! contract does not say. `export`, `plan`, `apply`, the Terraform renderer and
//! the stand-in service in the tests all build their requests here, and a
//! [`Call`] that the declaration does not allow is never sent.
//! A test holds every declaration against the published OpenAPI excerpt.

pub mod operations;
pub mod page;

use serde_json::Value;

pub use operations::{OPERATIONS, Op};

/// The values a query parameter may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// Any text (an id, a name).
    Text,
    /// One of these, exactly.
    OneOf(&'static [&'static str]),
    /// A whole number in this range.
    Number { min: u64, max: u64 },
}

impl Values {
    pub fn admits(self, value: &str) -> bool {
        match self {
            Values::Text => true,
            Values::OneOf(values) => values.contains(&value),
            Values::Number { min, max } => value.parse::<u64>().is_ok_and(|n| (min..=max).contains(&n)),
        }
    }
}

/// A query parameter an operation may carry.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub values: Values,
}

/// A body field an operation may send; `fields` are those of an object value
/// that are checked too (empty: not looked into).
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    pub fields: &'static [Field],
}

/// How a list is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paging {
    /// One answer holds every record: no paging parameter is sent.
    Whole,
    /// `page` and `per_page`, at most `max` records a page; the answer's
    /// `result_info` gives `count` and `total_count`.
    Pages { max: usize },
    /// Not a list.
    One,
}

/// One operation of the service's API.
#[derive(Debug, Clone, Copy)]
pub struct Operation {
    pub op: Op,
    /// The published contract's `operationId`.
    pub operation_id: &'static str,
    pub method: &'static str,
    /// With `{name}` for each path parameter, as the contract writes it.
    pub path: &'static str,
    pub query: &'static [Param],
    /// Query parameters the service's current API reference (2026) adds
    /// beyond the published excerpt, or widens (a larger `per_page`): asked
    /// first, and dropped for the excerpt's own (the floor) when the service
    /// answers 400 ([`Call::without_reference`]).
    pub reference: &'static [Param],
    pub paging: Paging,
    /// The body fields it may send (none: no body).
    pub body: &'static [Field],
    /// The fields of the answer's `result` (or of each of its records) that edgeaudit reads.
    pub reads: &'static [&'static str],
    /// What edgeaudit relies on that the published contract does not say.
    pub relies_on: &'static [&'static str],
}

impl Operation {
    pub fn of(op: Op) -> &'static Operation {
        // The registry is in the enum's order (a unit test holds it so).
        &OPERATIONS[op as usize]
    }

    /// A call of this operation, its path parameters filled in order (each
    /// encoded as one path segment).
    pub fn call(&'static self, ids: &[&str]) -> Call {
        let encoded: Vec<String> = ids.iter().map(|id| segment(id)).collect();
        let encoded: Vec<&str> = encoded.iter().map(String::as_str).collect();
        self.call_encoded(&encoded)
    }

    /// A call with path parameters written as given: already one segment
    /// each, or a placeholder a person fills in (`{account_id}`).
    pub fn call_encoded(&'static self, segments: &[&str]) -> Call {
        let mut path = String::with_capacity(self.path.len() + 64);
        let mut segments = segments.iter();
        let mut rest = self.path;
        while let Some(open) = rest.find('{') {
            path.push_str(&rest[..open]);
            let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
            path.push_str(segments.next().copied().unwrap_or(&rest[open..close]));
            rest = &rest[close..];
        }
        path.push_str(rest);
        Call {
            operation: self,
            path,
            query: Vec::new(),
            body: None,
        }
    }

    /// A call with each path parameter filled by its id (encoded as one
    /// segment), or left as the template's `{name}` where the id is not
    /// known: how a message shows the request a person sends.
    pub fn call_or_placeholders(&'static self, ids: &[Option<&str>]) -> Call {
        let encoded: Vec<Option<String>> = ids.iter().map(|id| id.map(segment)).collect();
        let mut placeholders = Vec::new();
        let mut rest = self.path;
        while let Some(open) = rest.find('{') {
            let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
            placeholders.push(&rest[open..close]);
            rest = &rest[close..];
        }
        let segments: Vec<&str> = placeholders
            .iter()
            .enumerate()
            .map(|(i, placeholder)| encoded.get(i).and_then(|e| e.as_deref()).unwrap_or(placeholder))
            .collect();
        self.call_encoded(&segments)
    }

    /// Whether `path` (no query) is this operation's, any value in each parameter.
    pub fn matches_path(&self, path: &str) -> bool {
        let mut wanted = self.path.split('/');
        let mut given = path.split('/');
        loop {
            match (wanted.next(), given.next()) {
                (None, None) => return true,
                (Some(w), Some(g)) if w.starts_with('{') => {
                    if g.is_empty() || g == "." || g == ".." {
                        return false;
                    }
                }
                (Some(w), Some(g)) if w == g => {}
                _ => return false,
            }
        }
    }

    /// The operation a method and path (with or without a query) are of.
    pub fn find(method: &str, target: &str) -> Option<&'static Operation> {
        let path = target.split('?').next().unwrap_or("");
        OPERATIONS.iter().find(|o| o.method == method && o.matches_path(path))
    }

    /// The largest page this operation serves (1 when it is not paged).
    pub fn max_per_page(&self) -> usize {
        match self.paging {
            Paging::Pages { max } => max,
            Paging::Whole | Paging::One => 1,
        }
    }

    /// The largest page the current reference serves, where it widens the
    /// excerpt's; else the excerpt's.
    pub fn reference_per_page(&self) -> usize {
        self.reference
            .iter()
            .find_map(|p| match (p.name, p.values) {
                ("per_page", Values::Number { max, .. }) => usize::try_from(max).ok(),
                _ => None,
            })
            .unwrap_or_else(|| self.max_per_page())
    }

    /// Whether the current reference adds to this operation what the excerpt has not.
    pub fn has_reference(&self) -> bool {
        !self.reference.is_empty()
    }

    /// Why this query is not one the operation may carry, if it is not: the
    /// excerpt's parameters, or the current reference's too when `reference`
    /// (false: a service that serves only the excerpt).
    pub fn check_query_in(&self, query: &[(String, String)], reference: bool) -> Result<(), String> {
        for (name, value) in query {
            let widened = reference
                .then(|| self.reference.iter().find(|p| p.name == name && p.values.admits(value)))
                .flatten();
            if widened.is_some() {
                continue;
            }
            match self.query.iter().find(|p| p.name == name) {
                None => return Err(format!("`{name}` is not a parameter of {}", self.operation_id)),
                Some(p) if !p.values.admits(value) => {
                    return Err(format!("`{name}={value}` is outside what {} takes", self.operation_id));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Why this body is not one the operation may send, if it is not: every
    /// field (and every field of a checked object) must be declared.
    pub fn check_body(&self, body: Option<&Value>) -> Result<(), String> {
        fn fields(value: &Value, allowed: &[Field], at: &str, op: &str) -> Result<(), String> {
            let Some(object) = value.as_object() else {
                return Err(format!("the body of {op}{at} is not an object"));
            };
            for (name, v) in object {
                match allowed.iter().find(|f| f.name == name) {
                    None => return Err(format!("`{at}{name}` is not a field {op} takes")),
                    Some(f) if !f.fields.is_empty() && !v.is_null() => fields(v, f.fields, &format!("{at}{name}."), op)?,
                    Some(_) => {}
                }
            }
            Ok(())
        }
        match (body, self.body.is_empty()) {
            (None, true) => Ok(()),
            (Some(_), true) => Err(format!("{} takes no body", self.operation_id)),
            (None, false) => Err(format!("{} needs a body", self.operation_id)),
            (Some(b), false) => fields(b, self.body, "", self.operation_id),
        }
    }
}

/// One request: an operation, its path, query and body.
#[derive(Debug, Clone)]
pub struct Call {
    pub operation: &'static Operation,
    /// The path without the query, parameters filled.
    pub path: String,
    pub query: Vec<(String, String)>,
    pub body: Option<Value>,
}

impl Call {
    pub fn with(mut self, name: &str, value: impl ToString) -> Call {
        self.query.push((name.to_string(), value.to_string()));
        self
    }

    pub fn body(mut self, body: Value) -> Call {
        self.body = Some(body);
        self
    }

    /// Path and query, as sent.
    pub fn target(&self) -> String {
        let mut target = self.path.clone();
        for (i, (name, value)) in self.query.iter().enumerate() {
            target.push(if i == 0 { '?' } else { '&' });
            target.push_str(&query_part(name));
            target.push('=');
            target.push_str(&query_part(value));
        }
        target
    }

    /// `GET /path?query`, as logs and errors name it.
    pub fn name(&self) -> String {
        format!("{} {}", self.operation.method, self.target())
    }

    /// Why the declaration does not allow this call, if it does not.
    pub fn check(&self) -> Result<(), String> {
        self.check_in(true)
    }

    /// As [`Call::check`]; with `reference` false, only what the published
    /// excerpt allows (what a service of that contract alone serves).
    pub fn check_in(&self, reference: bool) -> Result<(), String> {
        if !self.operation.matches_path(&self.path) {
            return Err(format!("`{}` is not the path of {}", self.path, self.operation.operation_id));
        }
        self.operation.check_query_in(&self.query, reference)?;
        self.operation.check_body(self.body.as_ref())
    }

    /// Whether the call asks what only the current reference allows.
    pub fn uses_reference(&self) -> bool {
        self.check_in(false).is_err() && self.check_in(true).is_ok()
    }

    /// The call with what only the current reference allows left out, and
    /// its page size the excerpt's largest where it asked more.
    pub fn without_reference(&self) -> Call {
        let operation = self.operation;
        let mut call = self.clone();
        call.query.retain(|(name, _)| operation.query.iter().any(|p| p.name == name));
        let floor = operation.max_per_page();
        for (name, value) in &mut call.query {
            if name == "per_page" && value.parse::<usize>().is_ok_and(|n| n > floor) {
                *value = floor.to_string();
            }
        }
        call
    }
}

/// An id as one path segment: anything but unreserved characters
/// percent-encoded, so no id can reach another endpoint.
pub fn segment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    // `.` and `..` would name this path or its parent: their dots are encoded too.
    let dots = id == "." || id == "..";
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'~') || (b == b'.' && !dots) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A query name or value, encoded like a segment but keeping `.` (`account.id`).
fn query_part(text: &str) -> String {
    segment(text)
}

/// The query of a target as (name, value) pairs, decoded.
pub fn parse_query(target: &str) -> Vec<(String, String)> {
    let Some((_, query)) = target.split_once('?') else {
        return Vec::new();
    };
    query
        .split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_registry_is_in_the_order_of_its_enum() {
        for (i, operation) in OPERATIONS.iter().enumerate() {
            assert_eq!(operation.op as usize, i, "{:?}", operation.op);
        }
    }

    #[test]
    fn a_call_fills_its_path_and_is_checked_against_its_declaration() {
        let call = Operation::of(Op::ListCustomHostnames)
            .call(&["z/1"])
            .with("per_page", 50)
            .with("page", 2);
        assert_eq!(call.target(), "/zones/z%2F1/custom_hostnames?per_page=50&page=2");
        assert!(call.check().is_ok());
        // The current reference's larger page and filter: allowed, not by the excerpt alone.
        let reference = Operation::of(Op::ListCustomHostnames)
            .call(&["z"])
            .with("per_page", 1000)
            .with("certificate_authority", "lets_encrypt");
        assert!(reference.check().is_ok() && reference.check_in(false).is_err() && reference.uses_reference());
        let floor = reference.without_reference();
        assert_eq!(floor.target(), "/zones/z/custom_hostnames?per_page=50");
        assert!(floor.check_in(false).is_ok() && !floor.uses_reference());
        let too_large = Operation::of(Op::ListCustomHostnames).call(&["z"]).with("per_page", 1001);
        assert!(too_large.check().is_err());
        let no_such_ca = Operation::of(Op::ListCustomHostnames)
            .call(&["z"])
            .with("certificate_authority", "digicert");
        assert!(no_such_ca.check().is_err());
        let unpaged = Operation::of(Op::GetPool).call(&["a", "p"]).with("per_page", 25);
        assert!(unpaged.check().unwrap_err().contains("per_page"));
        // An unpaged list takes them only as relied on beyond the contract (read on where it pages anyway).
        let read_on = Operation::of(Op::ListPools).call(&["a"]).with("page", 2).with("per_page", 25);
        assert!(read_on.check().is_ok());
        assert!(Operation::of(Op::ListPools).relies_on.iter().any(|r| r.contains("`page`")));
        let status = Operation::of(Op::ListCustomCertificates).call(&["z"]).with("status", "all");
        assert!(status.check().is_err());
        let put = Operation::of(Op::UpdatePolicy)
            .call(&["a", "p"])
            .body(json!({"name": "x", "conditions": {}}));
        assert!(put.check().unwrap_err().contains("conditions"));
        let ssl = Operation::of(Op::EditCustomHostname)
            .call(&["z", "h"])
            .body(json!({"ssl": {"method": "http", "status": "active"}}));
        assert!(ssl.check().unwrap_err().contains("ssl.status"));
        assert_eq!(
            Operation::find("PATCH", "/accounts/a/load_balancers/pools?per_page=25&page=1").map(|o| o.op),
            Some(Op::ClearPools)
        );
        assert_eq!(
            Operation::find("PATCH", "/accounts/a/load_balancers/pools/p1").map(|o| o.op),
            Some(Op::PatchPool)
        );
        assert!(Operation::find("PATCH", "/accounts/a/load_balancers/pools/../x").is_none());
    }

    #[test]
    fn a_query_reads_back_as_written() {
        let call = Operation::of(Op::ListZones).call(&[]).with("account.id", "a b").with("page", 1);
        assert_eq!(
            parse_query(&call.target()),
            vec![("account.id".to_string(), "a b".to_string()), ("page".to_string(), "1".to_string())]
        );
    }
}
