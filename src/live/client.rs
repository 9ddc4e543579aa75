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
use crate::api::{Call, Operation, Paging};

pub const DEFAULT_BASE: &str = "https://api.cloudflare.com/client/v4";
pub const BASE_VAR: &str = "CLOUDFLARE_API_BASE";
/// No answer is read past this: a page of the largest list is a few MB.
const MAX_ANSWER: u64 = 256 << 20;
/// A list is read to at most this many pages; more is taken for a broken `result_info`.
pub const MAX_PAGES: u64 = 1_000_000;

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
    /// The service's HTTP status, when it answered.
    pub status: Option<u16>,
}

impl LiveError {
    /// The service answered that there is no such resource.
    pub fn is_gone(&self) -> bool {
        self.status == Some(404)
    }
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
    /// The service has no such resource (404): deleted since it was read.
    Gone(String),
    /// Rate limited (429): not applied; wait this long, check again, then send.
    Later(Duration),
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
    /// Not sent: the call is not one its operation's declaration allows.
    NotSent(String),
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
    /// Operations whose current-reference parameters the service refused
    /// (400): asked with the published excerpt's alone from then on.
    excerpt_only: std::collections::HashSet<crate::api::Op>,
}

impl Client {
    pub fn new(settings: Settings, credentials: Credentials, clock: Arc<dyn Clock>) -> Client {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(settings.timeout))
            .timeout_connect(Some(settings.connect_timeout))
            .max_redirects(0)
            .proxy(proxy_for(&settings.base))
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
            excerpt_only: std::collections::HashSet::new(),
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

    /// Turns the progress shown into a bar of `requests` (a run whose
    /// requests are known, as `apply`'s estimate): the rate, the time left
    /// and the share of the API's rate limit the run uses.
    pub fn expect_requests(&mut self, requests: u64) {
        if self.progress.is_hidden() {
            return;
        }
        self.progress.set_length(requests);
        let template = "{prefix}: [{bar:24}] {pos}/{len} requests, {per_sec}, about {eta} left; {msg}";
        if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
            self.progress.set_style(style.progress_chars("=> "));
        }
    }

    /// What the progress line says of the request being sent: the share of
    /// the rate limit used in the last five minutes, and the request (its
    /// ids encoded as path segments: nothing in it acts on a terminal).
    fn progress_words(&self, method: &str, target: &str) -> String {
        match self.pacer.share(self.clock.as_ref()) {
            Some(share) => format!("{:.0} % of the rate limit used; {method} {target}", share * 100.0),
            None => format!("unpaced; {method} {target}"),
        }
    }

    pub fn finish_progress(&self) {
        self.progress.finish_and_clear();
    }

    pub fn base(&self) -> &str {
        &self.settings.base
    }

    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    /// Requests per five minutes this client keeps to (0: unpaced).
    pub fn rate(&self) -> u32 {
        self.settings.rate
    }

    /// `text` with every credential value replaced: what the service
    /// answers may echo the request's headers.
    pub fn redact(&self, text: &str) -> String {
        self.credentials.redact(text)
    }

    /// What redacts this client's credentials, for a writer of its own.
    pub fn redactor(&self) -> Credentials {
        self.credentials.clone()
    }

    fn backoff(&self, attempt: u32) -> Duration {
        self.settings
            .backoff
            .saturating_mul(1u32 << attempt.min(16))
            .min(Duration::from_secs(60))
    }

    /// Waits, if pacing asks, until `n` requests can be sent one after the
    /// other without a wait between them: a change and the reads that check
    /// it go out together, so no pause falls between the check and the change.
    pub fn reserve(&mut self, n: usize) {
        self.pacer.reserve(self.clock.as_ref(), n);
    }

    /// One request and its answer, paced. A call its declaration does not
    /// allow is never sent.
    fn exchange(&mut self, call: &Call) -> Exchange {
        if let Err(why) = call.check() {
            return Exchange::NotSent(format!("not sent: not a request the published contract allows ({why})"));
        }
        self.pacer.wait(self.clock.as_ref());
        let method = call.operation.method;
        let target = call.target();
        self.progress.inc(1);
        self.progress.set_message(self.progress_words(method, &target));
        let url = format!("{}{target}", self.settings.base);
        let mut request = ureq::http::Request::builder().method(method).uri(&url);
        for (name, value) in self.credentials.headers() {
            request = request.header(name, value);
        }
        let payload = call
            .body
            .as_ref()
            .map(|b| serde_json::to_vec(b).unwrap_or_default())
            .unwrap_or_default();
        if call.body.is_some() {
            request = request.header("Content-Type", "application/json");
        }
        let request = match request.body(payload) {
            Ok(r) => r,
            Err(e) => return Exchange::Lost(format!("cannot make the request: {e}")),
        };
        let mut response = match self.agent.run(request) {
            Ok(r) => r,
            Err(e) => return Exchange::Lost(self.redact(&lost(&e))),
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
            Err(e) => return Exchange::Lost(self.redact(&lost(&e))),
        };
        // Nothing the service echoes of a credential goes further than here.
        let text = self.credentials.redact_secrets(text);
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
    pub fn read(&mut self, call: &Call) -> Result<Value, LiveError> {
        let mut attempt = 0;
        loop {
            self.counts.reads += 1;
            // What went wrong, and how long to wait before the next attempt.
            let (why, wait) = match self.exchange(call) {
                Exchange::NotSent(why) => {
                    return Err(LiveError {
                        request: call.name(),
                        why,
                        status: None,
                    });
                }
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
                        request: call.name(),
                        why: self.redact(&refused(status, &body, &text)),
                        status: Some(status),
                    });
                }
                Exchange::Lost(why) => (why, self.backoff(attempt)),
            };
            if attempt >= self.settings.retries {
                return Err(LiveError {
                    request: call.name(),
                    why: self.redact(&format!("{why}; gave up after {} attempts", attempt + 1)),
                    status: None,
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

    /// A change (POST, PUT, PATCH, DELETE), sent once: whatever comes back,
    /// the caller looks at the account before it sends it again.
    pub fn change(&mut self, call: &Call) -> Change {
        self.counts.changes += 1;
        match self.exchange(call) {
            Exchange::NotSent(why) => Change::Refused(why),
            Exchange::Answer { status, body, .. } if (200..300).contains(&status) && success(&body) => {
                Change::Done(body.get("result").cloned().unwrap_or(Value::Null))
            }
            Exchange::Answer {
                status: 429, retry_after, ..
            } => {
                self.counts.rate_limited += 1;
                Change::Later(self.wait_for(retry_after, 0))
            }
            Exchange::Answer { status, text, .. } if status >= 500 => {
                Change::Unknown(self.redact(&format!("HTTP {status}: {}", excerpt(&text))))
            }
            Exchange::Answer {
                status: 404, body, text, ..
            } => Change::Gone(self.redact(&refused(404, &body, &text))),
            Exchange::Answer { status, body, text, .. } => Change::Refused(self.redact(&refused(status, &body, &text))),
            Exchange::Lost(why) => Change::Unknown(why),
        }
    }

    /// Waits before sending a change again: `wait` when the service named it
    /// (a 429), else the backoff of this attempt.
    pub fn pause_before_retry(&mut self, attempt: u32, wait: Option<Duration>) {
        self.counts.retries += 1;
        let wait = wait.unwrap_or_else(|| self.backoff(attempt));
        self.clock.sleep(wait);
    }

    pub fn retries(&self) -> u32 {
        self.settings.retries
    }

    /// Every page of a list, each handed to `page` as it comes (so that a
    /// caller holds one page at a time): one request for a list the contract
    /// does not page; else `page=1, 2, …` at `per_page` (at most the
    /// operation's largest) until `result_info.total_count` records came or a
    /// page comes back short. A `total_pages` is not needed (the contract
    /// does not define it) but is followed where it says more.
    pub fn for_each_page(
        &mut self,
        call: &Call,
        page: &mut dyn FnMut(&mut Client, u64, Value) -> Result<(), LiveError>,
    ) -> Result<(), LiveError> {
        if !matches!(call.operation.paging, Paging::Pages { .. }) {
            let envelope = self.read(call)?;
            if call.operation.paging == Paging::Whole {
                return self.read_on(call, envelope, page);
            }
            return page(self, 1, envelope);
        }
        let mut seen: u64 = 0;
        let mut number: u64 = 1;
        loop {
            let (envelope, per_page) = self.read_page(call, number)?;
            let number_of = |name: &str| envelope.get("result_info").and_then(|i| i.get(name)).and_then(Value::as_u64);
            let (total, pages, served) = (number_of("total_count"), number_of("total_pages"), number_of("per_page"));
            let count = envelope.get("result").and_then(Value::as_array).map_or(0, Vec::len) as u64;
            seen += count;
            page(self, number, envelope)?;
            if pages.is_some_and(|p| p > MAX_PAGES) || number >= MAX_PAGES {
                return Err(LiveError {
                    request: call.name(),
                    why: format!("more than the {MAX_PAGES} pages edgeaudit reads of one list"),
                    status: None,
                });
            }
            // A short page ends the list (short of the page size the service
            // says it used); so does the count it gave.
            let short = count < served.unwrap_or(per_page as u64).min(per_page as u64);
            let counted = total.is_some_and(|t| seen >= t) && pages.is_none_or(|p| number >= p);
            if short || counted {
                return Ok(());
            }
            number += 1;
        }
    }

    /// The page size asked of a paged list: the current reference's largest
    /// where it widens the excerpt's and the service has not refused it,
    /// else the excerpt's.
    pub fn page_size(&self, operation: &Operation) -> usize {
        if self.takes_reference(operation.op) {
            operation.reference_per_page()
        } else {
            operation.max_per_page()
        }
    }

    /// Whether the service has not refused the current reference's
    /// parameters of this operation (so far in this run).
    pub fn takes_reference(&self, op: crate::api::Op) -> bool {
        Operation::of(op).has_reference() && !self.excerpt_only.contains(&op)
    }

    /// A read of a call that may ask what only the current reference allows:
    /// on a 400 it is sent again as the excerpt allows, and the operation is
    /// asked that way for the rest of the run. The answer, and the call that got it.
    pub fn read_widest(&mut self, call: &Call) -> Result<(Value, Call), LiveError> {
        let call = if self.takes_reference(call.operation.op) {
            call.clone()
        } else {
            call.without_reference()
        };
        match self.read(&call) {
            Err(e) if e.status == Some(400) && call.uses_reference() => {
                self.excerpt_only.insert(call.operation.op);
                let floor = call.without_reference();
                let envelope = self.read(&floor)?;
                Ok((envelope, floor))
            }
            Err(e) => Err(e),
            Ok(envelope) => Ok((envelope, call)),
        }
    }

    /// Page `number` of a paged list at [`Client::page_size`] (stepping down
    /// on a 400, [`Client::read_widest`]): its envelope and the size asked.
    pub fn read_page(&mut self, call: &Call, number: u64) -> Result<(Value, usize), LiveError> {
        let size = self.page_size(call.operation);
        let (envelope, asked) = self.read_widest(&call.clone().with("page", number).with("per_page", size))?;
        let per_page = asked
            .query
            .iter()
            .find(|(name, _)| name == "per_page")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(size);
        Ok((envelope, per_page))
    }

    /// A list the contract does not page, from its first answer: when that
    /// answer shows paging anyway (`result_info.total_count` above the
    /// records it holds, or a full page of the service's default size
    /// without `result_info`), the list is read on (`page=2…` at the size it
    /// answered with) until complete. A service that then refuses the
    /// parameters (400) or answers the first page again had no more to give
    /// when only the page's size hinted at more, and is an error when its
    /// count said more: never part of a list taken for all of it.
    fn read_on(
        &mut self,
        call: &Call,
        first: Value,
        page: &mut dyn FnMut(&mut Client, u64, Value) -> Result<(), LiveError>,
    ) -> Result<(), LiveError> {
        let records = |envelope: &Value| envelope.get("result").and_then(Value::as_array).map_or(0, Vec::len) as u64;
        let ids = |envelope: &Value| -> std::collections::HashSet<String> {
            envelope
                .get("result")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|r| r.get("id").and_then(Value::as_str).map(str::to_string))
                .collect()
        };
        let total = first.pointer("/result_info/total_count").and_then(Value::as_u64);
        let size = records(&first);
        let paged = match total {
            Some(total) => total > size,
            None => first.get("result_info").is_none() && size > 0 && size.is_multiple_of(crate::api::operations::DEFAULT_PAGE as u64),
        };
        if !paged {
            return page(self, 1, first);
        }
        if size == 0 {
            return Err(LiveError {
                request: call.name(),
                why: format!(
                    "the answer holds no record but counts {}: a list that cannot be read on",
                    total.unwrap_or_default()
                ),
                status: None,
            });
        }
        let first_ids = ids(&first);
        let mut seen = size;
        page(self, 1, first)?;
        let incomplete = |request: String, seen: u64, why: &str| LiveError {
            request,
            why: format!(
                "the list is paged although the contract does not page it, and {why}: {seen} of {} records read",
                total.map_or_else(|| "more".to_string(), |t| t.to_string())
            ),
            status: None,
        };
        let mut number: u64 = 1;
        loop {
            number += 1;
            let target = call.clone().with("page", number).with("per_page", size);
            let envelope = match self.read(&target) {
                Ok(envelope) => envelope,
                // It takes no paging: a round first page was the whole list.
                Err(e) if e.status == Some(400) && total.is_none() => return Ok(()),
                Err(e) if e.status == Some(400) => return Err(incomplete(target.name(), seen, "the service refuses to page it")),
                Err(e) => return Err(e),
            };
            let count = records(&envelope);
            if count > 0 && ids(&envelope).is_subset(&first_ids) {
                return match total {
                    Some(t) if seen < t => Err(incomplete(target.name(), seen, "the service ignores `page`")),
                    _ => Ok(()),
                };
            }
            seen += count;
            page(self, number, envelope)?;
            if count < size || total.is_some_and(|t| seen >= t) {
                break;
            }
            if number >= MAX_PAGES {
                return Err(incomplete(target.name(), seen, "it has more pages than edgeaudit reads"));
            }
        }
        match total {
            Some(t) if seen < t => Err(incomplete(call.name(), seen, "its pages ended short of its count")),
            _ => Ok(()),
        }
    }

    /// Every page of a list, the envelopes as they came.
    pub fn pages(&mut self, call: &Call) -> Result<Vec<Value>, LiveError> {
        let mut pages = Vec::new();
        self.for_each_page(call, &mut |_, _, envelope| {
            pages.push(envelope);
            Ok(())
        })?;
        Ok(pages)
    }

    /// The records of every page of a list.
    pub fn records(&mut self, call: &Call) -> Result<Vec<Value>, LiveError> {
        Ok(self
            .pages(call)?
            .into_iter()
            .flat_map(|mut page| match page.get_mut("result").map(Value::take) {
                Some(Value::Array(records)) => records,
                _ => Vec::new(),
            })
            .collect())
    }
}

/// Loopback is never reached through a proxy (a stand-in on this machine);
/// the real API goes through `HTTPS_PROXY` (or `ALL_PROXY`) unless `NO_PROXY`
/// names it.
fn proxy_for(base: &str) -> Option<ureq::Proxy> {
    let uri: ureq::http::Uri = base.parse().ok()?;
    let host = uri.host()?.trim_start_matches('[').trim_end_matches(']');
    if is_loopback(host) || !uri.scheme_str().is_some_and(|s| s.eq_ignore_ascii_case("https")) {
        return None;
    }
    let no_proxy = ["NO_PROXY", "no_proxy"].iter().find_map(|v| std::env::var(v).ok());
    let address = ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|a| !a.trim().is_empty()))?;
    if no_proxy.is_some_and(|list| bypasses(&list, host)) {
        return None;
    }
    ureq::Proxy::new(address.trim()).ok()
}

/// Whether a `NO_PROXY` list names `host`: `*`, the host, or a domain it is in.
fn bypasses(list: &str, host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    list.split([',', ' ']).map(str::trim).filter(|e| !e.is_empty()).any(|entry| {
        let entry = entry.to_ascii_lowercase();
        let entry = entry.split(':').next().unwrap_or("");
        let domain = entry.trim_start_matches("*.").trim_start_matches('.');
        entry == "*" || host == domain || host.ends_with(&format!(".{domain}"))
    })
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
    crate::text::escape::terminal::value(&cut).into_owned()
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
    fn no_proxy_names_hosts_and_the_domains_they_are_in() {
        assert!(bypasses("localhost, .cloudflare.com", "api.cloudflare.com"));
        assert!(bypasses("cloudflare.com", "api.cloudflare.com"));
        assert!(bypasses("*", "api.cloudflare.com"));
        assert!(bypasses("api.cloudflare.com:443", "API.cloudflare.com"));
        assert!(!bypasses("example.com,flare.com", "api.cloudflare.com"));
        assert!(proxy_for("http://127.0.0.1:8080").is_none(), "loopback goes direct");
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
