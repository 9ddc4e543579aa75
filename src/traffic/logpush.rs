//! Logpush `http_requests` lines (NDJSON, as Logpush writes them: one request a
//! line, `{DATE}/….log.gz`; Logpull and Instant Logs lines have the same keys).
//! `ClientRequestHost` and `ClientRequestUserAgent` are required;
//! `ClientSSLProtocol`, `ClientRequestSource`, `WorkerSubrequest`,
//! `ParentRayID` and `EdgeStartTimestamp` are read when present. A line that
//! is not such an object is an error at its line and column.

use std::io::BufRead;

use serde::Deserialize;

use super::classes::Request;
// `Option<Cow<str>>` would not borrow (serde copies every string it holds): `Text` does.
use crate::input::shape::Text;
use crate::text::error::InputError;

/// No line is read past this: a request's line is a few hundred bytes.
const MAX_LINE: usize = 1 << 20;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Line<'a> {
    #[serde(borrow)]
    client_request_host: Option<Text<'a>>,
    #[serde(borrow)]
    client_request_user_agent: Option<Text<'a>>,
    #[serde(borrow, rename = "ClientSSLProtocol")]
    client_ssl_protocol: Option<Text<'a>>,
    #[serde(borrow)]
    client_request_source: Option<Text<'a>>,
    worker_subrequest: Option<bool>,
    #[serde(borrow, rename = "ParentRayID")]
    parent_ray_id: Option<Text<'a>>,
    edge_start_timestamp: Option<serde_json::Value>,
    #[serde(borrow)]
    bot_score_src: Option<Text<'a>>,
    #[serde(borrow)]
    verified_bot_category: Option<Text<'a>>,
    bot_score: Option<serde_json::Value>,
}

/// Hands each line to `sink`. Lines are parsed where the decoder's buffer
/// holds them; only a line split across two buffers is copied.
pub fn read(name: &str, reader: &mut dyn BufRead, sink: &mut super::Sink<'_>) -> Result<(), InputError> {
    let mut carry: Vec<u8> = Vec::new();
    let mut number = 0usize;
    loop {
        let chunk = reader
            .fill_buf()
            .map_err(|e| InputError::at_line_column(name, number + 1, 1, format!("cannot read: {e}")))?;
        if chunk.is_empty() {
            if !carry.is_empty() {
                number += 1;
                line(name, number, &carry, sink)?;
            }
            return Ok(());
        }
        let mut start = 0;
        if !carry.is_empty() {
            match memchr::memchr(b'\n', chunk) {
                Some(i) => {
                    carry.extend_from_slice(&chunk[..=i]);
                    number += 1;
                    line(name, number, &carry, sink)?;
                    carry.clear();
                    start = i + 1;
                }
                None => start = chunk.len(),
            }
            if start == chunk.len() && !carry.is_empty() {
                carry.extend_from_slice(chunk);
            }
        }
        while let Some(i) = memchr::memchr(b'\n', &chunk[start..]) {
            number += 1;
            line(name, number, &chunk[start..start + i + 1], sink)?;
            start += i + 1;
        }
        if start < chunk.len() {
            carry.extend_from_slice(&chunk[start..]);
        }
        if carry.len() > MAX_LINE {
            return Err(InputError::at_line_column(
                name,
                number + 1,
                1,
                format!("a line longer than {MAX_LINE} bytes: not a Logpush line"),
            ));
        }
        let consumed = chunk.len();
        reader.consume(consumed);
    }
}

/// One line (with its line end, if any).
fn line(name: &str, number: usize, text: &[u8], sink: &mut super::Sink<'_>) -> Result<(), InputError> {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let text = if number == 1 {
        text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text)
    } else {
        text
    };
    if text.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    // The line's UTF-8 checked once, not string by string as `from_slice` would.
    let text = std::str::from_utf8(text).map_err(|e| {
        InputError::at_line_column(
            name,
            number,
            e.valid_up_to() + 1,
            format!("not a Logpush `http_requests` line: {e}"),
        )
    })?;
    let line: Line<'_> = serde_json::from_str(text)
        .map_err(|e| InputError::at_line_column(name, number, e.column().max(1), format!("not a Logpush `http_requests` line: {e}")))?;
    let missing = |field: &str| {
        InputError::at_line_column(
            name,
            number,
            1,
            format!("a Logpush line without `{field}`: the job's fields must include ClientRequestHost and ClientRequestUserAgent"),
        )
    };
    let host = line
        .client_request_host
        .as_ref()
        .map(Text::as_str)
        .ok_or_else(|| missing("ClientRequestHost"))?;
    let user_agent = line
        .client_request_user_agent
        .as_ref()
        .map(Text::as_str)
        .ok_or_else(|| missing("ClientRequestUserAgent"))?;
    let not_eyeball = line
        .client_request_source
        .as_ref()
        .map(Text::as_str)
        .is_some_and(|s| !s.is_empty() && s != "eyeball");
    // `WorkerSubrequest` says it; only a line without it is judged by its `ParentRayID`.
    let worker_subrequest = line.worker_subrequest.unwrap_or_else(|| {
        line.parent_ray_id
            .as_ref()
            .map(Text::as_str)
            .is_some_and(|p| !p.is_empty() && p != "00")
    });
    let field_at = |key: &str| text.find(&format!("\"{key}\"")).map_or(1, |i| text[..i].chars().count() + 1);
    let at = match &line.edge_start_timestamp {
        None | Some(serde_json::Value::Null) => None,
        Some(value) => Some(super::timestamp(value).ok_or_else(|| {
            InputError::at_line_column(
                name,
                number,
                field_at("EdgeStartTimestamp"),
                format!(
                    "`EdgeStartTimestamp` is {value}: not a time Logpush writes (RFC 3339, unix seconds, milliseconds or nanoseconds, or `YYYY-MM-DD HH:MM:SS` in UTC)"
                ),
            )
        })?),
    };
    let verified_bot = line
        .bot_score_src
        .as_ref()
        .is_some_and(|s| s.as_str().eq_ignore_ascii_case("Verified Bot"))
        || line.verified_bot_category.as_ref().is_some_and(|c| !c.as_str().trim().is_empty());
    let bot_score = match &line.bot_score {
        None | Some(serde_json::Value::Null) => None,
        Some(value) => Some(
            value
                .as_u64()
                .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
                .and_then(|n| u8::try_from(n).ok())
                .filter(|n| *n <= 99)
                .ok_or_else(|| {
                    InputError::at_line_column(
                        name,
                        number,
                        field_at("BotScore"),
                        format!("`BotScore` is {value}: not a bot score (a whole number from 1 to 99)"),
                    )
                })?,
        ),
    };
    sink(super::Seen {
        request: Request {
            user_agent,
            tls: line.client_ssl_protocol.as_ref().map(Text::as_str).unwrap_or(""),
            not_eyeball,
            worker_subrequest,
            verified_bot,
            bot_score,
        },
        host,
        count: 1.0,
        at,
    });
    Ok(())
}
