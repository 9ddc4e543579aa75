//! The one way edgeaudit talks to the service (docs/src/commands/apply.md): a blocking
//! HTTPS client (ureq with rustls) to `CLOUDFLARE_API_BASE` only, with
//! connect and request timeouts, pacing under the rate limit, `Retry-After`
//! on 429, and bounded retries with backoff. Reads are retried here; a
//! change is sent once (a 429 is not an answer: it was not applied) and a
//! lost or failed answer is handed back as unknown, for the caller to look
//! at the account before it sends again.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::credentials::Credentials;
use super::pace::{Clock, Pacer};

pub const DEFAULT_BASE: &str = "https://api.cloudflare.com/client/v4";
pub const BASE_VAR: &str = "CLOUDFLARE_API_BASE";
/// No answer is read past this: a page of the largest list is a few MB.
const MAX_ANSWER: u64 = 256 << 20;
/// A list is read to at most this many pages; more is taken for a broken `result_info`.
const MAX_PAGES: u64 = 1_000_000;

/// How the client behaves; the defaults suit the real API.
#[derive(Debug, Clone)]
pub struct Settings {
    pub base: String,
    /// A whole request, from connecting to the last byte of the answer.
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// Attempts after the first, for one request.
    pub retries: u32,
    /// The first wait before a retry; doubled at each, at most a minute.
    pub backoff: Duration,
    /// Requests per five minutes (0: unpaced).
    pub rate: u32,
}

impl Settings {
    pub fn new(base: String) -> Settings {
        Settings {
            base,
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            retries: 5,
            backoff: Duration::from_secs(1),
            rate: super::pace::DEFAULT_RATE,
        }
    }
}

/// `CLOUDFLARE_API_BASE`, or the v4 API, checked by [`check_base`].
pub fn base_from_env() -> Result<String, String> {
    match std::env::var(BASE_VAR) {
        Ok(base) if !base.trim().is_empty() => check_base(base.trim()),
        _ => Ok(DEFAULT_BASE.to_string()),
    }
}

/// An address the live commands may talk to: `https://…`, or plain
/// `http://` to a loopback address only (a stand-in on this machine).
pub fn check_base(base: &str) -> Result<String, String> {
    let base = base.trim_end_matches('/');
    let uri: ureq::http::Uri = base
        .parse()
        .map_err(|_| format!("{BASE_VAR} `{base}` is not an address: expected https://host/path"))?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(format!("{BASE_VAR} `{base}` is not an address: expected https://host/path"));
    };
    // No user name or password in the address: it would be sent, and shown.
    if authority.as_str().contains('@') {
        return Err(format!("{BASE_VAR}: an address with a user name or password is not accepted"));
    }
    if uri.query().is_some() {
        return Err(format!("{BASE_VAR} `{base}`: an address with a query is not accepted"));
    }
    let host = authority.host().trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(format!("{BASE_VAR} `{base}` names no host"));
    }
    match scheme.to_ascii_lowercase().as_str() {
        "https" => Ok(base.to_string()),
        "http" if is_loopback(host) => Ok(base.to_string()),
        "http" => Err(format!(
            "{BASE_VAR} `{base}`: plain http only to a loopback address (127.0.0.1, ::1, localhost): credentials would cross the network unencrypted"
        )),
        other => Err(format!("{BASE_VAR} `{base}`: unsupported scheme `{other}`: expected https")),
    }
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A request that did not succeed, named by method and path (never a credential).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveError {
    pub request: String,
    pub why: String,
}

impl std::fmt::Display for LiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.request, self.why)
    }
}

/// What came of one change.
#[derive(Debug, Clone)]
pub enum Change {
    /// The service answered `success: true`; its `result`.
    Done(Value),
    /// The service answered that it did not make the change (4xx, `success: false`).
    Refused(String),
    /// No usable answer (closed connection, timeout, 5xx): it may or may not have happened.
    Unknown(String),
}

/// Requests sent, by sort.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub reads: usize,
    pub changes: usize,
    /// Sends after a lost answer, a 5xx or a 429.
    pub retries: usize,
    pub rate_limited: usize,
}

/// One exchange's outcome.
enum Exchange {
    Answer {
        status: u16,
        retry_after: Option<Duration>,
        body: Value,
        text: String,
    },
    Lost(String),
}

pub struct Client {
    agent: ureq::Agent,
    settings: Settings,
    credentials: Credentials,
    clock: Arc<dyn Clock>,
    pacer: Pacer,
    pub counts: Counts,
    progress: indicatif::ProgressBar,
}

impl Client {
    pub fn new(settings: Settings, credentials: Credentials, clock: Arc<dyn Clock>) -> Client {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(settings.timeout))
            .timeout_connect(Some(settings.connect_timeout))
            .max_redirects(0)
            .user_agent(format!("edgeaudit/{}", env!("CARGO_PKG_VERSION")))
            .build();
        Client {
            agent: config.into(),
            pacer: Pacer::new(settings.rate),
            settings,
            credentials,
            clock,
            counts: Counts::default(),
            progress: indicatif::ProgressBar::hidden(),
        }
    }

    /// Shows progress on standard error (the caller decides: only on a terminal).
    pub fn show_progress(&mut self, what: &str) {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_prefix(what.to_string());
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {prefix}: {pos} requests, {msg}") {
            bar.set_style(style);
        }
        self.progress = bar;
    }

    pub fn finish_progress(&self) {
        self.progress.finish_and_clear();
    }

    pub fn base(&self) -> &str {
        &self.settings.base
    }

    fn backoff(&self, attempt: u32) -> Duration {
        self.settings
            .backoff
            .saturating_mul(1u32 << attempt.min(16))
            .min(Duration::from_secs(60))
    }

    /// One request and its answer, paced.
    fn exchange(&mut self, method: &str, path: &str, body: Option<&Value>) -> Exchange {
        self.pacer.wait(self.clock.as_ref());
        self.progress.inc(1);
        self.progress.set_message(format!("{method} {path}"));
        let url = format!("{}{path}", self.settings.base);
        let mut request = ureq::http::Request::builder().method(method).uri(&url);
        for (name, value) in self.credentials.headers() {
            request = request.header(name, value);
        }
        let payload = body.map(|b| serde_json::to_vec(b).unwrap_or_default()).unwrap_or_default();
        if body.is_some() {
            request = request.header("Content-Type", "application/json");
        }
        let request = match request.body(payload) {
            Ok(r) => r,
            Err(e) => return Exchange::Lost(format!("cannot make the request: {e}")),
        };
        let mut response = match self.agent.run(request) {
            Ok(r) => r,
            Err(e) => return Exchange::Lost(lost(&e)),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|s| Duration::from_secs(s.min(3600)));
        let text = match response.body_mut().with_config().limit(MAX_ANSWER).read_to_string() {
            Ok(t) => t,
            Err(e) => return Exchange::Lost(lost(&e)),
        };
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Exchange::Answer {
            status,
            retry_after,
            body,
            text,
        }
    }

    /// A GET, retried on a lost answer, a 5xx or a 429; the answer's envelope
    /// when it says `success: true`.
    pub fn read(&mut self, path: &str) -> Result<Value, LiveError> {
        let name = format!("GET {path}");
        let mut attempt = 0;
        loop {
            self.counts.reads += 1;
            // What went wrong, and how long to wait before the next attempt.
            let (why, wait) = match self.exchange("GET", path, None) {
                Exchange::Answer { status, body, .. } if (200..300).contains(&status) && success(&body) => return Ok(body),
                Exchange::Answer {
                    status: 429, retry_after, ..
                } => {
                    self.counts.rate_limited += 1;
                    ("HTTP 429 (rate limited)".to_string(), self.wait_for(retry_after, attempt))
                }
                Exchange::Answer { status, text, .. } if status >= 500 => {
                    (format!("HTTP {status}: {}", excerpt(&text)), self.backoff(attempt))
                }
                Exchange::Answer { status, body, text, .. } => {
                    return Err(LiveError {
                        request: name,
                        why: refused(status, &body, &text),
                    });
                }
                Exchange::Lost(why) => (why, self.backoff(attempt)),
            };
            if attempt >= self.settings.retries {
                return Err(LiveError {
                    request: name,
                    why: format!("{why}; gave up after {} attempts", attempt + 1),
                });
            }
            self.clock.sleep(wait);
            attempt += 1;
            self.counts.retries += 1;
        }
    }

    /// How long a 429 asks to wait: its `Retry-After`, else the backoff.
    fn wait_for(&self, retry_after: Option<Duration>, attempt: u32) -> Duration {
        retry_after.unwrap_or_else(|| self.backoff(attempt))
    }

    /// A change (POST, PUT, PATCH), sent once; a 429 is waited out and sent
    /// again (it was not applied), within the retries.
    pub fn change(&mut self, method: &str, path: &str, body: &Value) -> Change {
        let mut attempt = 0;
        loop {
            self.counts.changes += 1;
            match self.exchange(method, path, Some(body)) {
                Exchange::Answer { status, body, .. } if (200..300).contains(&status) && success(&body) => {
                    return Change::Done(body.get("result").cloned().unwrap_or(Value::Null));
                }
                Exchange::Answer {
                    status: 429, retry_after, ..
                } if attempt < self.settings.retries => {
                    self.counts.rate_limited += 1;
                    self.counts.retries += 1;
                    self.clock.sleep(self.wait_for(retry_after, attempt));
                    attempt += 1;
                }
                Exchange::Answer { status, text, .. } if status >= 500 || status == 429 => {
                    return Change::Unknown(format!("HTTP {status}: {}", excerpt(&text)));
                }
                Exchange::Answer { status, body, text, .. } => return Change::Refused(refused(status, &body, &text)),
                Exchange::Lost(why) => return Change::Unknown(why),
            }
        }
    }

    /// Waits before sending a change again after an unknown outcome.
    pub fn pause_before_retry(&mut self, attempt: u32) {
        self.counts.retries += 1;
        self.clock.sleep(self.backoff(attempt));
    }

    pub fn retries(&self) -> u32 {
        self.settings.retries
    }

    /// Every page of a list: `path?per_page=N&page=P` (plus `query`) until
    /// `result_info.total_pages`; the envelopes as they came.
    pub fn pages(&mut self, path: &str, per_page: usize, query: &str) -> Result<Vec<Value>, LiveError> {
        let mut pages = Vec::new();
        let mut page: u64 = 1;
        loop {
            let target = format!("{path}?per_page={per_page}&page={page}{query}");
            let envelope = self.read(&target)?;
            let total = envelope
                .get("result_info")
                .and_then(|i| i.get("total_pages"))
                .and_then(Value::as_u64)
                .unwrap_or(1);
            let empty = envelope.get("result").and_then(Value::as_array).is_none_or(Vec::is_empty);
            pages.push(envelope);
            if total > MAX_PAGES {
                return Err(LiveError {
                    request: format!("GET {target}"),
                    why: format!("`result_info.total_pages` is {total}: more than the {MAX_PAGES} pages edgeaudit reads"),
                });
            }
            // An empty page ends the list even if the count said more: the
            // records were deleted meanwhile (EX001 then tells).
            if page >= total || empty {
                return Ok(pages);
            }
            page += 1;
        }
    }

    /// The records of every page of a list.
    pub fn records(&mut self, path: &str, per_page: usize) -> Result<Vec<Value>, LiveError> {
        Ok(self
            .pages(path, per_page, "")?
            .into_iter()
            .flat_map(|mut page| match page.get_mut("result").map(Value::take) {
                Some(Value::Array(records)) => records,
                _ => Vec::new(),
            })
            .collect())
    }
}

fn success(body: &Value) -> bool {
    body.get("success").and_then(Value::as_bool) == Some(true)
}

/// Why an answer was a refusal: the API's errors, else an excerpt.
fn refused(status: u16, body: &Value, text: &str) -> String {
    let errors: Vec<String> = body
        .get("errors")
        .and_then(Value::as_array)
        .map(|errors| {
            errors
                .iter()
                .map(|e| match (e.get("code"), e.get("message").and_then(Value::as_str)) {
                    (Some(code), Some(m)) => format!("{m} ({code})"),
                    (_, Some(m)) => m.to_string(),
                    _ => e.to_string(),
                })
                .collect()
        })
        .unwrap_or_default();
    let what = if errors.is_empty() { excerpt(text) } else { errors.join("; ") };
    if (200..300).contains(&status) {
        format!("HTTP {status} with `success` not true: {what}")
    } else {
        format!("HTTP {status}: {what}")
    }
}

/// The start of an answer that is not JSON (an HTML error page), on one line.
fn excerpt(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = one_line.chars().take(160).collect();
    crate::words::escaped(&cut).into_owned()
}

fn lost(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(t) => format!("no answer in time ({t})"),
        other => format!("no answer: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_only_to_loopback() {
        assert_eq!(
            check_base("https://api.example.com/client/v4/").as_deref(),
            Ok("https://api.example.com/client/v4")
        );
        assert!(check_base("http://127.0.0.1:8080").is_ok());
        assert!(check_base("http://[::1]:8080/x").is_ok());
        assert!(check_base("http://localhost:1").is_ok());
        for bad in [
            "http://api.example.com",
            "http://10.0.0.1:80",
            "ftp://x",
            "api.example.com",
            "http://:80",
        ] {
            assert!(check_base(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn refusals_name_the_api_errors_or_the_start_of_the_page() {
        let body = serde_json::json!({"success": false, "errors": [{"code": 10000, "message": "Authentication error"}]});
        assert_eq!(refused(403, &body, ""), "HTTP 403: Authentication error (10000)");
        assert_eq!(
            refused(200, &body, ""),
            "HTTP 200 with `success` not true: Authentication error (10000)"
        );
        assert_eq!(
            refused(502, &Value::Null, "<html>\n <b>Bad\tgateway</b></html>"),
            "HTTP 502: <html> <b>Bad gateway</b></html>"
        );
    }
}
