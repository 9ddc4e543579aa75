//! A saved answer of the GraphQL Analytics API's `httpRequestsAdaptiveGroups`
//! grouped by `clientRequestHTTPHost` and `userAgent`: `count` is already
//! corrected for sampling. An answer with `errors` is an error (GraphQL
//! answers HTTP 200 with them). Every group of the answer, wherever the query
//! put it (`data.viewer.zones[].<alias>[]`), is read; its window is its
//! `datetime…` dimensions', when the query grouped by one.

use serde_json::Value;

use super::classes::Request;
use crate::text::error::InputError;

/// Hands each group to `sink`.
pub fn read(name: &str, text: &str, sink: &mut super::Sink<'_>) -> Result<(), InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let answer: Value = serde_json::from_str(text)
        .map_err(|e| InputError::at_line_column(name, e.line(), e.column(), format!("not a GraphQL answer: {e}")))?;
    let at = |pointer: &str, message: String| {
        let tokens = crate::text::pointer::tokens(pointer);
        let found = crate::input::json::locate::find(text, 0, &tokens);
        InputError::at_offset(name, text, found.start, message)
    };
    if let Some(errors) = answer
        .get("errors")
        .filter(|e| !e.is_null() && e.as_array().is_none_or(|a| !a.is_empty()))
    {
        let messages: Vec<String> = errors
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| e.get("message").and_then(Value::as_str).unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default();
        return Err(at(
            "/errors",
            format!(
                "the GraphQL answer has errors, so its counts are not whole: {}",
                messages.join("; ")
            ),
        ));
    }
    let Some(data) = answer.get("data").filter(|d| d.is_object()) else {
        return Err(at("", "not a GraphQL answer: it has no `data` object".into()));
    };
    let (mut groups, mut lists) = (0usize, 0usize);
    let mut stack: Vec<(String, &Value)> = vec![("/data".to_string(), data)];
    while let Some((pointer, value)) = stack.pop() {
        match value {
            Value::Object(map) if map.get("dimensions").is_some() && map.get("count").is_some() => {
                let dimensions = &map["dimensions"];
                let text_of = |key: &str| dimensions.get(key).and_then(Value::as_str);
                let Some(host) = text_of("clientRequestHTTPHost") else {
                    return Err(at(
                        &format!("{pointer}/dimensions"),
                        "a group without `clientRequestHTTPHost`: group by it and by `userAgent`".into(),
                    ));
                };
                let Some(user_agent) = text_of("userAgent") else {
                    return Err(at(
                        &format!("{pointer}/dimensions"),
                        "a group without `userAgent`: group by it and by `clientRequestHTTPHost`".into(),
                    ));
                };
                let Some(count) = map["count"].as_u64() else {
                    return Err(at(&format!("{pointer}/count"), "`count` is not a whole number of requests".into()));
                };
                let dimension = [
                    "datetime",
                    "datetimeMinute",
                    "datetimeFiveMinutes",
                    "datetimeFifteenMinutes",
                    "datetimeHour",
                    "date",
                ]
                .iter()
                .find_map(|k| dimensions.get(*k).filter(|v| !v.is_null()).map(|v| (*k, v)));
                // A time that cannot be read is an error at its place, not a group without a time.
                let when = match dimension {
                    None => None,
                    Some((key, v)) => Some(
                        match v.as_str() {
                            Some(d) if d.len() == 10 => super::timestamp(&Value::String(format!("{d}T00:00:00Z"))),
                            _ => super::timestamp(v),
                        }
                        .ok_or_else(|| at(&format!("{pointer}/dimensions/{key}"), format!("`{key}` is {v}: not a time")))?,
                    ),
                };
                groups += 1;
                sink(super::Seen {
                    request: Request {
                        user_agent,
                        tls: text_of("clientSSLProtocol").unwrap_or(""),
                        not_eyeball: text_of("requestSource").is_some_and(|s| s != "eyeball"),
                        ..Request::default()
                    },
                    host,
                    count: count as f64,
                    at: when,
                });
            }
            // A group of another query (counted by `sum`, or by nothing): its
            // requests cannot be told, and a run that read none would say none.
            Value::Object(map) if map.get("dimensions").is_some_and(Value::is_object) => {
                let dimensions = &map["dimensions"];
                let missing: Vec<&str> = ["count", "dimensions.clientRequestHTTPHost", "dimensions.userAgent"]
                    .into_iter()
                    .filter(|m| match m.strip_prefix("dimensions.") {
                        Some(d) => dimensions.get(d).is_none(),
                        None => map.get(*m).is_none(),
                    })
                    .collect();
                return Err(at(
                    &pointer,
                    format!(
                        "a group without {}: query `httpRequestsAdaptiveGroups` for `count`, grouped by `clientRequestHTTPHost` and `userAgent`",
                        missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(" and ")
                    ),
                ));
            }
            Value::Object(map) => {
                for (key, v) in map.iter().rev() {
                    let mut p = pointer.clone();
                    crate::text::pointer::push_token(&mut p, key);
                    stack.push((p, v));
                }
            }
            Value::Array(items) => {
                lists += 1;
                for (i, v) in items.iter().enumerate().rev() {
                    stack.push((format!("{pointer}/{i}"), v));
                }
            }
            _ => {}
        }
    }
    // Empty lists are a window without requests; no list at all is no answer of this query.
    if groups == 0 && lists == 0 {
        return Err(at(
            "/data",
            "a GraphQL answer with no `httpRequestsAdaptiveGroups` group (`count` and `dimensions` with `clientRequestHTTPHost` and `userAgent`)".into(),
        ));
    }
    Ok(())
}
