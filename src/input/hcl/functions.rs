//! Terraform's functions that modules use to shape the values edgeaudit
//! reads, on known values, as Terraform's documentation defines them
//! (https://developer.hashicorp.com/terraform/language/functions): what a
//! call gives, or why it is not a value (an error Terraform would stop at).

use serde_json::{Map, Value};

/// The functions evaluated on known arguments (`try` and `can`, which read
/// their arguments as given, are the evaluator's): any other call is left
/// unknown.
pub const NAMES: [&str; 25] = [
    "merge",
    "concat",
    "flatten",
    "keys",
    "values",
    "lookup",
    "contains",
    "length",
    "coalesce",
    "tomap",
    "toset",
    "tolist",
    "lower",
    "upper",
    "format",
    "join",
    "split",
    "replace",
    "startswith",
    "endswith",
    "strcontains",
    "anytrue",
    "alltrue",
    "distinct",
    "trimspace",
];

/// Why a call gives no value.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// An error Terraform stops at (what `try` passes over).
    Invalid(String),
    /// A form edgeaudit does not evaluate: not known, not an error.
    NotEvaluated(String),
}

impl From<String> for Failure {
    fn from(why: String) -> Self {
        Failure::Invalid(why)
    }
}

impl From<&str> for Failure {
    fn from(why: &str) -> Self {
        Failure::Invalid(why.to_string())
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Invalid(why) | Failure::NotEvaluated(why) => f.write_str(why),
        }
    }
}

fn string(v: &Value, name: &str) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(format!("`{name}` takes a string")),
    }
}

fn list<'v>(v: &'v Value, name: &str) -> Result<&'v Vec<Value>, String> {
    v.as_array().ok_or_else(|| format!("`{name}` takes a list"))
}

/// `distinct`: each value once, where it first is.
fn distinct(items: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for item in items {
        if !out.contains(item) {
            out.push(item.clone());
        }
    }
    out
}

/// `toset`: distinct, in Terraform's order for a set of strings (sorted).
fn set(items: &[Value]) -> Vec<Value> {
    let mut out = distinct(items);
    if out.iter().all(Value::is_string) {
        out.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    }
    out
}

fn flatten_into(items: &[Value], out: &mut Vec<Value>) {
    for item in items {
        match item {
            Value::Array(inner) => flatten_into(inner, out),
            other => out.push(other.clone()),
        }
    }
}

/// `format`'s verbs edgeaudit writes: `%s`, `%d`, `%v`, `%q` and `%%`.
fn format(spec: &str, args: &[Value]) -> Result<String, Failure> {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some(verb @ ('s' | 'd' | 'v' | 'q')) => {
                let arg = args.next().ok_or("`format` has fewer arguments than verbs")?;
                match (verb, arg) {
                    ('q', v) => out.push_str(&serde_json::to_string(&string(v, "format")?).unwrap_or_default()),
                    ('d', Value::Number(n)) if n.is_i64() || n.is_u64() => out.push_str(&n.to_string()),
                    ('d', _) => return Err("`format`'s `%d` takes a whole number".into()),
                    (_, v) => out.push_str(&string(v, "format")?),
                }
            }
            _ => {
                return Err(Failure::NotEvaluated(
                    "`format` with a verb edgeaudit does not write (`%s`, `%d`, `%v`, `%q`)".into(),
                ));
            }
        }
    }
    Ok(out)
}

/// `replace(string, substring, replacement)`: a substring written `/…/` is a regular expression.
fn replace(s: &str, from: &str, to: &str) -> Result<String, String> {
    match from.strip_prefix('/').and_then(|f| f.strip_suffix('/')) {
        Some(pattern) if from.len() >= 2 => {
            let re = regex::Regex::new(pattern).map_err(|e| format!("`replace`'s pattern: {e}"))?;
            // Terraform writes `$1`; the regex crate reads `${1}` the same.
            Ok(re.replace_all(s, to).into_owned())
        }
        _ => Ok(s.replace(from, to)),
    }
}

/// The value of `name(args…)`, every argument known.
pub fn call(name: &str, args: &[Value]) -> Result<Value, Failure> {
    let arg = |i: usize| args.get(i).ok_or_else(|| format!("`{name}` takes more arguments"));
    Ok(match name {
        "merge" => {
            let mut out = Map::new();
            for a in args {
                match a {
                    Value::Object(m) => out.extend(m.clone()),
                    Value::Null => {}
                    _ => return Err("`merge` takes maps or objects".into()),
                }
            }
            Value::Object(out)
        }
        "concat" => {
            let mut out = Vec::new();
            for a in args {
                out.extend(list(a, name)?.iter().cloned());
            }
            Value::Array(out)
        }
        "flatten" => {
            let mut out = Vec::new();
            flatten_into(list(arg(0)?, name)?, &mut out);
            Value::Array(out)
        }
        // Keys in lexicographic order, values in the order of their keys (serde_json's maps are sorted).
        "keys" => Value::Array(
            arg(0)?
                .as_object()
                .ok_or("`keys` takes a map")?
                .keys()
                .cloned()
                .map(Value::String)
                .collect(),
        ),
        "values" => Value::Array(arg(0)?.as_object().ok_or("`values` takes a map")?.values().cloned().collect()),
        "lookup" => {
            let map = arg(0)?.as_object().ok_or("`lookup` takes a map")?;
            let key = string(arg(1)?, name)?;
            match (map.get(&key), args.get(2)) {
                (Some(v), _) => v.clone(),
                (None, Some(default)) => default.clone(),
                (None, None) => return Err(format!("`lookup` of `{key}`, which the map does not have, with no default").into()),
            }
        }
        "contains" => Value::Bool(list(arg(0)?, name)?.contains(arg(1)?)),
        "length" => Value::from(match arg(0)? {
            Value::Array(a) => a.len(),
            Value::Object(m) => m.len(),
            Value::String(s) => s.chars().count(),
            _ => return Err("`length` takes a list, a map or a string".into()),
        }),
        "coalesce" => args
            .iter()
            .find(|a| !a.is_null() && a.as_str() != Some(""))
            .cloned()
            .ok_or("`coalesce` of nothing but null and empty strings")?,
        "tomap" => Value::Object(arg(0)?.as_object().ok_or("`tomap` takes a map or an object")?.clone()),
        "toset" => Value::Array(set(list(arg(0)?, name)?)),
        "tolist" => Value::Array(list(arg(0)?, name)?.clone()),
        "distinct" => Value::Array(distinct(list(arg(0)?, name)?)),
        "lower" => Value::String(string(arg(0)?, name)?.to_lowercase()),
        "upper" => Value::String(string(arg(0)?, name)?.to_uppercase()),
        "trimspace" => Value::String(string(arg(0)?, name)?.trim().to_string()),
        "format" => Value::String(format(&string(arg(0)?, name)?, &args[1..])?),
        "join" => {
            let separator = string(arg(0)?, name)?;
            let mut parts = Vec::new();
            for a in &args[1..] {
                for item in list(a, name)? {
                    parts.push(string(item, name)?);
                }
            }
            Value::String(parts.join(&separator))
        }
        "split" => {
            let (separator, s) = (string(arg(0)?, name)?, string(arg(1)?, name)?);
            Value::Array(s.split(separator.as_str()).map(|p| Value::String(p.to_string())).collect())
        }
        "replace" => Value::String(replace(&string(arg(0)?, name)?, &string(arg(1)?, name)?, &string(arg(2)?, name)?)?),
        "startswith" => Value::Bool(string(arg(0)?, name)?.starts_with(&string(arg(1)?, name)?)),
        "endswith" => Value::Bool(string(arg(0)?, name)?.ends_with(&string(arg(1)?, name)?)),
        "strcontains" => Value::Bool(string(arg(0)?, name)?.contains(&string(arg(1)?, name)?)),
        "anytrue" | "alltrue" => {
            let items = list(arg(0)?, name)?;
            let truth = |v: &Value| match v {
                Value::Bool(b) => Ok(*b),
                Value::String(s) if s == "true" || s == "false" => Ok(s == "true"),
                _ => Err(format!("`{name}` takes a list of bools")),
            };
            let mut values = Vec::with_capacity(items.len());
            for item in items {
                values.push(truth(item)?);
            }
            Value::Bool(if name == "anytrue" {
                values.iter().any(|b| *b)
            } else {
                values.iter().all(|b| *b)
            })
        }
        other => return Err(Failure::NotEvaluated(format!("`{other}(…)`, which edgeaudit does not evaluate"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call_ok(name: &str, args: Value) -> Value {
        call(name, args.as_array().expect("args")).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// The examples of Terraform's documentation, function by function.
    #[test]
    fn terraforms_documented_examples() {
        assert_eq!(
            call_ok("merge", json!([{"a": "b", "c": "d"}, {"e": "f", "c": "z"}])),
            json!({"a": "b", "c": "z", "e": "f"})
        );
        assert_eq!(call_ok("concat", json!([["a", ""], ["b", "c"]])), json!(["a", "", "b", "c"]));
        assert_eq!(call_ok("flatten", json!([[["a", "b"], [], ["c"]]])), json!(["a", "b", "c"]));
        assert_eq!(call_ok("flatten", json!([[[["a", []], ["b"]]]])), json!(["a", "b"]));
        assert_eq!(call_ok("keys", json!([{"a": 1, "c": 2, "d": 3}])), json!(["a", "c", "d"]));
        assert_eq!(call_ok("values", json!([{"a": 3, "c": 2, "d": 1}])), json!([3, 2, 1]));
        assert_eq!(call_ok("lookup", json!([{"a": "ay", "b": "bee"}, "a", "what?"])), json!("ay"));
        assert_eq!(call_ok("lookup", json!([{"a": "ay", "b": "bee"}, "c", "what?"])), json!("what?"));
        assert!(call("lookup", json!([{"a": "ay"}, "c"]).as_array().unwrap()).is_err());
        assert_eq!(call_ok("contains", json!([["a", "b", "c"], "a"])), json!(true));
        assert_eq!(call_ok("contains", json!([["a", "b", "c"], "d"])), json!(false));
        assert_eq!(call_ok("length", json!([[]])), json!(0));
        assert_eq!(call_ok("length", json!([["a", "b"]])), json!(2));
        assert_eq!(call_ok("length", json!([{"a": "b"}])), json!(1));
        assert_eq!(call_ok("length", json!(["hello"])), json!(5));
        assert_eq!(call_ok("coalesce", json!(["a", "b"])), json!("a"));
        assert_eq!(call_ok("coalesce", json!(["", "b"])), json!("b"));
        assert_eq!(call_ok("coalesce", json!([1, 2])), json!(1));
        assert_eq!(call_ok("tomap", json!([{"a": 1, "b": 2}])), json!({"a": 1, "b": 2}));
        assert_eq!(call_ok("toset", json!([["a", "b", "c"]])), json!(["a", "b", "c"]));
        assert_eq!(call_ok("toset", json!([["c", "b", "b"]])), json!(["b", "c"]));
        assert_eq!(call_ok("tolist", json!([["a", "b", "c"]])), json!(["a", "b", "c"]));
        assert_eq!(call_ok("lower", json!(["HELLO"])), json!("hello"));
        assert_eq!(call_ok("upper", json!(["hello"])), json!("HELLO"));
        assert_eq!(call_ok("format", json!(["Hello, %s!", "Ander"])), json!("Hello, Ander!"));
        assert_eq!(call_ok("format", json!(["There are %d lights", 4])), json!("There are 4 lights"));
        assert_eq!(call_ok("join", json!(["-", ["foo", "bar", "baz"]])), json!("foo-bar-baz"));
        assert_eq!(call_ok("join", json!([", ", ["foo"]])), json!("foo"));
        assert_eq!(call_ok("split", json!([",", "foo,bar,baz"])), json!(["foo", "bar", "baz"]));
        assert_eq!(call_ok("split", json!([",", "foo"])), json!(["foo"]));
        assert_eq!(call_ok("split", json!([",", ""])), json!([""]));
        assert_eq!(call_ok("replace", json!(["1 + 2 + 3", "+", "-"])), json!("1 - 2 - 3"));
        assert_eq!(
            call_ok("replace", json!(["hello world", "/w.*d/", "everybody"])),
            json!("hello everybody")
        );
        assert_eq!(call_ok("startswith", json!(["hello world", "hello"])), json!(true));
        assert_eq!(call_ok("startswith", json!(["hello world", "world"])), json!(false));
        assert_eq!(call_ok("endswith", json!(["hello world", "world"])), json!(true));
        assert_eq!(call_ok("strcontains", json!(["hello world", "wor"])), json!(true));
        assert_eq!(call_ok("strcontains", json!(["hello world", "wod"])), json!(false));
        assert_eq!(call_ok("anytrue", json!([["true"]])), json!(true));
        assert_eq!(call_ok("anytrue", json!([[true, false]])), json!(true));
        assert_eq!(call_ok("anytrue", json!([[]])), json!(false));
        assert_eq!(call_ok("alltrue", json!([["true", true]])), json!(true));
        assert_eq!(call_ok("alltrue", json!([[true, false]])), json!(false));
        assert_eq!(call_ok("alltrue", json!([[]])), json!(true));
        assert_eq!(
            call_ok("distinct", json!([["a", "b", "a", "c", "d", "b"]])),
            json!(["a", "b", "c", "d"])
        );
        assert_eq!(call_ok("trimspace", json!(["  hello\n\n"])), json!("hello"));
        assert!(matches!(call("file", &[json!("x")]), Err(Failure::NotEvaluated(_))));
        // A verb edgeaudit does not write is not known, not an error `try` would pass over.
        assert!(matches!(
            call("format", &[json!("%.2f"), json!(1.5)]),
            Err(Failure::NotEvaluated(_))
        ));
        assert!(matches!(call("lookup", &[json!({}), json!("a")]), Err(Failure::Invalid(_))));
    }
}
