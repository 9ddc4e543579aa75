//! A small stand-in for the service on 127.0.0.1, std only, that follows the
//! published contract and no more: the operations edgeaudit declares
//! (`edgeaudit::api`, held against the published excerpt by a test) and
//! nothing else; 400 on a query parameter, a value or a body field outside
//! them; the pools and policies lists unpaged; `result_info` with `count`
//! and `total_count` (`total_pages` only in the variant that recorded real
//! answers show); a custom hostname's `ssl` replaced by what a PATCH sends;
//! Universal SSL that ignores `certificate_authority` unless told to honour
//! it; a policy list that may lag a create by one read; the page-wide bulk
//! clear of pools ordered by name, as its description says.
//!
//! Faults: at the k-th request (every request counts, reads too) one of
//! [`Fault`]; drift: a change made to the account just before the k-th
//! request; other actors: a hook called before every request, outside the
//! lock, which may change the account or run a second client; a rate limit
//! over a shared clock. After every change a client makes, it checks on its
//! own (not with edgeaudit's code) that no (pool, event, recipient)
//! delivered before the change stopped being delivered, and records any loss
//! in `lost`.

#![allow(dead_code)]

use std::collections::{BTreeSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use edgeaudit::api::{Call, Op, Operation, parse_query};
use serde_json::{Value, json};

pub const TOKEN: &str = "test-token";

/// What goes wrong at one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// 429 with `Retry-After: 7`; not applied.
    RateLimited,
    /// 500 with a JSON error; not applied.
    Internal,
    /// 502 with an HTML page; not applied.
    BadGateway,
    /// 503 with an HTML page; not applied.
    Unavailable,
    /// The connection is closed before the request is applied, no answer.
    CloseBefore,
    /// Applied, then the connection is closed without an answer.
    CloseAfter,
    /// Applied, then no answer until the client gives up.
    Hold,
    /// HTTP 200 with `success: false`; not applied.
    Unsuccessful,
    /// 403 `success: false`; not applied.
    Forbidden,
    /// 400 whose error message echoes the request's headers (credentials too); not applied.
    EchoHeaders,
    /// 400 whose error message is written to attack the terminal and the CI log
    /// that show it (escape sequences, forged workflow commands); not applied.
    Hostile,
}

impl Fault {
    pub const ALL: [Fault; 9] = [
        Fault::RateLimited,
        Fault::Internal,
        Fault::BadGateway,
        Fault::Unavailable,
        Fault::CloseBefore,
        Fault::CloseAfter,
        Fault::Hold,
        Fault::Unsuccessful,
        Fault::Forbidden,
    ];

    /// Whether a client should get past it by retrying.
    pub fn is_transient(self) -> bool {
        !matches!(self, Fault::Unsuccessful | Fault::Forbidden | Fault::EchoHeaders | Fault::Hostile)
    }
}

pub type Drift = Box<dyn FnMut(&mut State) + Send>;

#[derive(Default)]
pub struct State {
    pub account: String,
    /// Pool records as the API returns them.
    pub pools: Vec<Value>,
    pub policies: Vec<Value>,
    /// One zone: its id, custom hostnames, Total TLS and Universal SSL
    /// settings (`null`: enabled, no CA named) and certificate packs.
    pub zone: String,
    pub custom_hostnames: Vec<Value>,
    pub total_tls: Value,
    pub universal_ssl: Value,
    pub certificate_packs: Vec<Value>,
    /// A fault at the k-th request (1-based), and from there on when `persistent`.
    pub fault: Option<(usize, Fault)>,
    pub persistent: bool,
    /// A change to the account just before the k-th request.
    pub drift: Option<(usize, Drift)>,
    /// Requests seen, and changing ones (POST, PUT, PATCH) applied.
    pub requests: usize,
    pub changes: usize,
    /// Every request: method and target.
    pub log: Vec<String>,
    /// Alerts a change lost: (request, delivery).
    pub lost: Vec<String>,
    /// At most this many requests per window of the clock, else 429.
    pub rate_limit: Option<(usize, Arc<dyn edgeaudit::live::pace::Clock>)>,
    pub rate_window: VecDeque<Duration>,
    pub rate_limited: usize,
    /// Zone records the zones list answers besides the one zone.
    pub extra_zones: Vec<Value>,
    /// Skips the loss check (it costs pools × policies per change).
    pub unchecked: bool,
    pub next_id: usize,
    /// `result_info.total_pages` in list answers, as recorded real answers carry it.
    pub total_pages: bool,
    /// Universal SSL takes `certificate_authority` from a PATCH (the
    /// contract lists only `enabled`: by default it is ignored).
    pub honours_universal_ca: bool,
    /// The pools list, which the contract does not page, paged anyway: this
    /// many a page (25 by default, `per_page` when asked), with
    /// `result_info` when the flag says so; or, with `ignores_paging`, the
    /// first page whatever is asked.
    pub pools_paged: Option<(usize, bool)>,
    pub ignores_paging: bool,
    /// The page-wide clear pages pools by at most this many, whatever
    /// `per_page` asks (a service that caps it).
    pub clear_cap: Option<usize>,
    /// The policy list leaves out a created policy for this long after its
    /// create (on `clock`): a list that lags.
    pub policy_lag: Option<Duration>,
    pub created_at: Vec<(String, Duration)>,
    /// The policy list leaves out a policy created since the last read, once.
    pub lagging_policies: bool,
    pub hidden_once: Vec<String>,
    /// Serves what the current API reference (2026) adds to the custom
    /// hostnames list: `per_page` up to 1,000 and the `certificate_authority`
    /// filter (its `total_count` the zone's, unfiltered). Without it, as the
    /// 2024 excerpt: both are outside the contract (400).
    pub reference: bool,
    /// Requests refused for being outside the contract: (request, why).
    pub outside: Vec<(String, String)>,
    /// Every request in full: method, target, body.
    pub sent: Vec<(String, String, Value)>,
    /// The custom hostnames by id (kept by `hostname_at`).
    pub hostname_index: std::collections::HashMap<String, usize>,
    /// A clock to stamp each request with, in `times`.
    pub clock: Option<Arc<dyn edgeaudit::live::pace::Clock>>,
    pub times: Vec<Duration>,
}

/// A hook run before every request (1-based index, `METHOD target`), outside
/// the state's lock: another actor in the account, or a second client.
pub type Hook = Box<dyn FnMut(usize, &str) + Send>;

pub struct Service {
    pub port: u16,
    pub state: Arc<Mutex<State>>,
    pub hook: Arc<Mutex<Option<Hook>>>,
    seen: Arc<std::sync::atomic::AtomicUsize>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Service {
    pub fn start(state: State) -> Service {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("addr").port();
        let state = Arc::new(Mutex::new(state));
        let hook: Arc<Mutex<Option<Hook>>> = Arc::new(Mutex::new(None));
        let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (s, h, n, st) = (state.clone(), hook.clone(), seen.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if st.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    let (s, h, n) = (s.clone(), h.clone(), n.clone());
                    // One thread per connection: a held answer holds only its own.
                    std::thread::spawn(move || {
                        let _ = serve(stream, &s, &h, &n);
                    });
                }
            }
        });
        Service {
            port,
            state,
            hook,
            seen,
            stop,
        }
    }

    /// Runs `hook` before every request from now on (see [`Hook`]).
    pub fn before_each(&self, hook: Hook) {
        *self.hook.lock().unwrap_or_else(|e| e.into_inner()) = Some(hook);
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut state)
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(
    stream: TcpStream,
    state: &Mutex<State>,
    hook: &Mutex<Option<Hook>>,
    seen: &std::sync::atomic::AtomicUsize,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
        let (mut length, mut authorized, mut expect, mut close) = (0usize, false, false, false);
        let (mut email, mut key) = (false, false);
        let mut header_lines = String::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header)? == 0 || header == "\r\n" {
                break;
            }
            header_lines.push_str(&header);
            let lower = header.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
            if lower.starts_with("authorization:") && header.trim_end().ends_with(&format!("Bearer {TOKEN}")) {
                authorized = true;
            }
            email |= lower.starts_with("x-auth-email:") && lower.trim_end().ends_with("ops@example.com");
            key |= lower.starts_with("x-auth-key:") && header.trim_end().ends_with(TOKEN);
            if lower.starts_with("expect:") && lower.contains("100-continue") {
                expect = true;
            }
            if lower.starts_with("connection:") && lower.contains("close") {
                close = true;
            }
        }
        let mut stream = stream.try_clone()?;
        if expect {
            stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        }
        let mut body = vec![0; length.min(1 << 20)];
        reader.read_exact(&mut body)?;
        // Another actor, outside the lock: it may change the account or send requests of its own.
        let n = seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let taken = hook.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(mut run) = taken {
            run(n, &format!("{method} {target}"));
            let mut slot = hook.lock().unwrap_or_else(|e| e.into_inner());
            if slot.is_none() {
                *slot = Some(run);
            }
        }
        let headers = header_lines.clone();
        let reply = {
            let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
            respond(&mut state, &method, &target, &body, authorized || (email && key), &headers)
        };
        match reply {
            Reply::Answer(status, extra, text) => {
                // One write: pieces would wait on the peer's delayed acknowledgement.
                let whole = format!("HTTP/1.1 {status} X\r\n{extra}Content-Length: {}\r\n\r\n{text}", text.len());
                stream.write_all(whole.as_bytes())?;
            }
            Reply::Close => return Ok(()),
            Reply::Hold => {
                // Until the client gives up and closes (or 30 s pass).
                let mut sink = [0u8; 256];
                while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
                return Ok(());
            }
        }
        if close {
            return Ok(());
        }
    }
}

enum Reply {
    /// Status, extra header lines, body.
    Answer(u16, String, String),
    Close,
    Hold,
}

fn json_answer(status: u16, body: Value) -> Reply {
    Reply::Answer(status, "Content-Type: application/json\r\n".into(), body.to_string())
}

fn html(status: u16, title: &str) -> Reply {
    Reply::Answer(
        status,
        "Content-Type: text/html\r\n".into(),
        format!("<html><head><title>{status} {title}</title></head>\n<body><center><h1>{status} {title}</h1></center></body></html>\n"),
    )
}

fn respond(state: &mut State, method: &str, target: &str, body: &[u8], authorized: bool, headers: &str) -> Reply {
    state.requests += 1;
    state.log.push(format!("{method} {target}"));
    state.sent.push((
        method.to_string(),
        target.to_string(),
        serde_json::from_slice(body).unwrap_or(Value::Null),
    ));
    if let Some(clock) = state.clock.clone() {
        state.times.push(clock.now());
    }
    let n = state.requests;
    if let Some((at, drift)) = state.drift.as_mut()
        && *at == n
    {
        let mut drift = std::mem::replace(drift, Box::new(|_| {}));
        drift(state);
    }
    if let Some((limit, clock)) = state.rate_limit.clone() {
        let now = clock.now();
        let window = edgeaudit::live::pace::WINDOW;
        while state.rate_window.front().is_some_and(|&t| now.saturating_sub(t) >= window) {
            state.rate_window.pop_front();
        }
        if state.rate_window.len() >= limit {
            state.rate_limited += 1;
            let wait = state.rate_window.front().map_or(window, |&t| (t + window).saturating_sub(now));
            return Reply::Answer(
                429,
                format!("Retry-After: {}\r\nContent-Type: application/json\r\n", wait.as_secs().max(1)),
                error(971, "Please wait and consider throttling your request speed").to_string(),
            );
        }
        state.rate_window.push_back(now);
    }
    let fault = match state.fault {
        Some((at, fault)) if at == n || (state.persistent && n > at) => Some(fault),
        _ => None,
    };
    match fault {
        Some(Fault::RateLimited) => {
            return Reply::Answer(
                429,
                "Retry-After: 7\r\nContent-Type: application/json\r\n".into(),
                error(971, "Please wait and consider throttling your request speed").to_string(),
            );
        }
        Some(Fault::Internal) => return json_answer(500, error(10001, "Internal error (injected)")),
        Some(Fault::BadGateway) => return html(502, "Bad Gateway"),
        Some(Fault::Unavailable) => return html(503, "Service Temporarily Unavailable"),
        Some(Fault::CloseBefore) => return Reply::Close,
        Some(Fault::Unsuccessful) => return json_answer(200, error(10002, "Internal processing error (injected)")),
        Some(Fault::Forbidden) => return json_answer(403, error(10000, "Authentication error (injected)")),
        Some(Fault::Hostile) => {
            return json_answer(
                400,
                error(
                    10004,
                    "bad request\n::error file=README.md,line=1::forged by the service \u{1b}]52;c;ZWNobyBwd25lZA==\u{7} ##[add-mask]x \u{202e}",
                ),
            );
        }
        Some(Fault::EchoHeaders) => {
            return json_answer(
                400,
                error(10003, &format!("Bad request; your request was:\n{method} {target}\n{headers}")),
            );
        }
        _ => {}
    }
    if !authorized {
        return json_answer(403, error(10000, "Authentication error"));
    }
    let changing = method != "GET";
    let check = changing && !state.unchecked;
    let watched = if check { delivered(state) } else { BTreeSet::new() };
    let (status, answer) = handle(state, method, target, body);
    if changing && (200..300).contains(&status) {
        state.changes += 1;
    }
    if check && (200..300).contains(&status) {
        let now = delivered(state);
        for lost in watched.difference(&now) {
            state.lost.push(format!("{method} {target} lost {lost}"));
        }
    }
    match fault {
        Some(Fault::CloseAfter) => Reply::Close,
        Some(Fault::Hold) => Reply::Hold,
        _ => json_answer(status, answer),
    }
}

fn error(code: u32, message: &str) -> Value {
    json!({"success": false, "errors": [{"code": code, "message": message}], "messages": [], "result": null})
}

fn ok(result: Value) -> Value {
    json!({"success": true, "errors": [], "messages": [], "result": result})
}

fn query(target: &str, key: &str) -> Option<usize> {
    let q = target.split_once('?')?.1;
    q.split('&').find_map(|kv| kv.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

fn universal_ssl(state: &State) -> Value {
    if state.universal_ssl.is_null() {
        json!({"enabled": true})
    } else {
        state.universal_ssl.clone()
    }
}

/// A page of a paged list, as the contract's `result_info` gives it.
fn page(state: &State, records: &[Value], target: &str, default_per_page: usize) -> Value {
    let all: Vec<&Value> = records.iter().collect();
    page_of(state, &all, records.len(), target, default_per_page)
}

/// A page of `records`, with `total_count` given (a filtered list's is the
/// unfiltered one's, as the current reference defines it).
fn page_of(state: &State, records: &[&Value], total_count: usize, target: &str, default_per_page: usize) -> Value {
    let per_page = query(target, "per_page").unwrap_or(default_per_page).max(1);
    let page = query(target, "page").unwrap_or(1).max(1);
    let slice: Vec<Value> = records
        .iter()
        .skip((page - 1).saturating_mul(per_page))
        .take(per_page)
        .map(|r| (*r).clone())
        .collect();
    let mut answer = ok(Value::Array(slice.clone()));
    answer["result_info"] = json!({"page": page, "per_page": per_page, "count": slice.len(), "total_count": total_count});
    if state.total_pages {
        answer["result_info"]["total_pages"] = json!(records.len().div_ceil(per_page));
    }
    answer
}

/// The custom hostnames list, filtered by certificate authority when asked.
fn hostnames_page(state: &State, target: &str) -> Value {
    let wanted = parse_query(target)
        .into_iter()
        .find(|(name, _)| name == "certificate_authority")
        .map(|(_, value)| value);
    let records: Vec<&Value> = state
        .custom_hostnames
        .iter()
        .filter(|h| wanted.as_deref().is_none_or(|ca| h["ssl"]["certificate_authority"] == ca))
        .collect();
    page_of(state, &records, state.custom_hostnames.len(), target, 20)
}

/// A list the contract does not page: every record in one answer.
fn whole(records: &[Value]) -> Value {
    let mut answer = ok(Value::Array(records.to_vec()));
    answer["result_info"] = json!({"page": 1, "per_page": records.len(), "count": records.len(), "total_count": records.len()});
    answer
}

fn by_name(state: &mut State) {
    state
        .pools
        .sort_by(|a, b| (a["name"].as_str(), a["id"].as_str()).cmp(&(b["name"].as_str(), b["id"].as_str())));
}

/// A pool's legacy recipients, trimmed and lower-cased.
pub fn legacy_recipients(pool: &Value) -> Vec<String> {
    pool["notification_email"]
        .as_str()
        .unwrap_or("")
        .split(',')
        .map(|r| r.trim().to_ascii_lowercase())
        .filter(|r| !r.is_empty())
        .collect()
}

/// Every (pool, event, recipient) a legacy e-mail would send, delivered now
/// by the legacy e-mail or by a policy. Written apart from edgeaudit's own
/// model, so that it checks that model rather than repeat it.
pub fn delivered(state: &State) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for pool in &state.pools {
        let id = pool["id"].as_str().unwrap_or("");
        let legacy = legacy_recipients(pool);
        let mut wanted: Vec<String> = legacy.clone();
        // Recipients policies send this pool's alerts to count too.
        for policy in &state.policies {
            for r in policy["mechanisms"]["email"].as_array().into_iter().flatten() {
                let r = r["id"].as_str().unwrap_or("").trim().to_ascii_lowercase();
                if !wanted.contains(&r) {
                    wanted.push(r);
                }
            }
        }
        for source in ["pool", "origin"] {
            for health in ["Healthy", "Unhealthy"] {
                for r in &wanted {
                    let by_legacy = legacy.contains(r) && legacy_sends(pool, source, health);
                    let by_policy = state.policies.iter().any(|p| policy_sends(p, id, source, health, r));
                    if by_legacy || by_policy {
                        out.insert(format!("{id} {source} {health} {r}"));
                    }
                }
            }
        }
    }
    out
}

pub fn legacy_sends(pool: &Value, source: &str, health: &str) -> bool {
    let filter = &pool["notification_filter"][source];
    if filter["disable"] == json!(true) {
        return false;
    }
    match filter["healthy"].as_bool() {
        None => true,
        Some(true) => health == "Healthy",
        Some(false) => health == "Unhealthy",
    }
}

pub fn policy_sends(p: &Value, pool: &str, source: &str, health: &str, recipient: &str) -> bool {
    let admits = |v: &Value, wanted: &str| v.as_array().is_none_or(|a| a.is_empty() || a.iter().any(|x| x == wanted));
    let health_alert = matches!(p["alert_type"].as_str(), Some("load_balancing_health_alert" | "g6_health_alert"));
    let mechanisms = p["mechanisms"]
        .as_object()
        .is_some_and(|m| m.values().any(|v| v.as_array().is_some_and(|a| !a.is_empty())));
    let pools = p["filters"]["pool_id"]
        .as_array()
        .is_none_or(|a| a.is_empty() || a.iter().any(|x| x.as_str().is_some_and(|x| x.eq_ignore_ascii_case(pool))));
    health_alert
        && p["enabled"] != json!(false)
        && mechanisms
        && pools
        && admits(&p["filters"]["event_source"], source)
        && admits(&p["filters"]["new_health"], health)
        && p["mechanisms"]["email"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|e| e["id"].as_str().is_some_and(|e| e.trim().eq_ignore_ascii_case(recipient)))
}

fn handle(state: &mut State, method: &str, target: &str, body: &[u8]) -> (u16, Value) {
    let path = target.split('?').next().unwrap_or("");
    let body: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(body).unwrap_or(Value::Null)
    };
    // Only what the contract publishes: the operation, its parameters and values, its body fields.
    let Some(operation) = Operation::find(method, target) else {
        return (404, error(7000, "No route for that URI"));
    };
    let call = Call {
        operation,
        path: path.to_string(),
        query: parse_query(target),
        body: (!body.is_null()).then(|| body.clone()),
    };
    if let Err(why) = call.check_in(state.reference) {
        state.outside.push((format!("{method} {target}"), why.clone()));
        return (400, error(1001, &format!("Invalid request: {why}")));
    }
    let account = format!("/accounts/{}", state.account);
    let zone = format!("/zones/{}", state.zone);
    if operation.op == Op::ListZones {
        let mut zones = if state.zone.is_empty() {
            vec![]
        } else {
            vec![json!({"id": state.zone, "name": "example.com", "account": {"id": state.account}})]
        };
        zones.extend(state.extra_zones.iter().cloned());
        return (200, page(state, &zones, target, 20));
    }
    if let Some(rest) = path.strip_prefix(&zone).filter(|_| !state.zone.is_empty()) {
        return handle_zone(state, operation.op, rest, target, &body);
    }
    if path.strip_prefix(&account).is_none() {
        return (404, error(7003, "Could not route to the account"));
    }
    let last = path.rsplit('/').next().unwrap_or("").to_string();
    by_name(state);
    match operation.op {
        Op::ListPools => match state.pools_paged {
            None => (200, whole(&state.pools)),
            Some((size, info)) => {
                let per_page = query(target, "per_page").unwrap_or(size).max(1);
                let page = if state.ignores_paging {
                    1
                } else {
                    query(target, "page").unwrap_or(1).max(1)
                };
                let slice: Vec<Value> = state.pools.iter().skip((page - 1) * per_page).take(per_page).cloned().collect();
                let mut answer = ok(Value::Array(slice.clone()));
                if info {
                    answer["result_info"] =
                        json!({"page": page, "per_page": per_page, "count": slice.len(), "total_count": state.pools.len()});
                }
                (200, answer)
            }
        },
        Op::ListPolicies => {
            let hidden = std::mem::take(&mut state.hidden_once);
            let now = state.clock.as_ref().map(|c| c.now());
            let lagging = |id: &Value| match (state.policy_lag, now) {
                (Some(lag), Some(now)) => state.created_at.iter().any(|(c, at)| id == c.as_str() && now < *at + lag),
                _ => false,
            };
            let shown: Vec<Value> = state
                .policies
                .iter()
                .filter(|p| !hidden.iter().any(|h| p["id"] == h.as_str()) && !lagging(&p["id"]))
                .cloned()
                .collect();
            (200, whole(&shown))
        }
        Op::GetPool => match state.pools.iter().find(|pool| pool["id"] == last.as_str()) {
            Some(pool) => (200, ok(pool.clone())),
            None => (404, error(1003, "pool not found")),
        },
        Op::CreatePolicy => {
            if body["name"].as_str().is_none() || body["alert_type"].as_str().is_none() {
                return (400, error(17000, "name and alert_type are required"));
            }
            state.next_id += 1;
            let id = format!("{:032x}", 0xc0ffee0000u64 + state.next_id as u64);
            let mut policy = body.clone();
            policy["id"] = json!(id);
            policy["created"] = json!(format!("2024-10-01T00:00:{:02}Z", state.next_id % 60));
            policy["modified"] = policy["created"].clone();
            state.policies.push(policy);
            if state.lagging_policies {
                state.hidden_once.push(id.clone());
            }
            if let Some(clock) = &state.clock {
                let at = clock.now();
                state.created_at.push((id.clone(), at));
            }
            (200, ok(json!({"id": id})))
        }
        // PUT replaces the whole policy: what the body leaves out is gone.
        Op::UpdatePolicy => {
            if body["name"].as_str().is_none() || body["alert_type"].as_str().is_none() {
                return (400, error(17000, "name and alert_type are required"));
            }
            match state.policies.iter_mut().find(|policy| policy["id"] == last.as_str()) {
                Some(policy) => {
                    let mut replaced = body.clone();
                    replaced["id"] = json!(last);
                    replaced["created"] = policy["created"].clone();
                    replaced["modified"] = json!("2024-10-02T00:00:00Z");
                    *policy = replaced;
                    (200, ok(json!({"id": last})))
                }
                None => (404, error(17001, "policy not found")),
            }
        }
        Op::DeletePolicy => {
            let before = state.policies.len();
            state.policies.retain(|p| p["id"] != last.as_str());
            if state.policies.len() == before {
                (404, error(17001, "policy not found"))
            } else {
                (200, ok(json!({"id": last})))
            }
        }
        Op::ClearPools => {
            if body != json!({"notification_email": ""}) {
                return (400, error(1002, "only notification_email can be patched in bulk"));
            }
            let per_page = query(target, "per_page")
                .unwrap_or(25)
                .max(1)
                .min(state.clear_cap.unwrap_or(usize::MAX));
            let page = query(target, "page").unwrap_or(1).max(1);
            for pool in state.pools.iter_mut().skip((page - 1) * per_page).take(per_page) {
                pool["notification_email"] = json!("");
            }
            let cleared: Vec<Value> = state.pools.iter().skip((page - 1) * per_page).take(per_page).cloned().collect();
            (200, ok(Value::Array(cleared)))
        }
        Op::PatchPool => match state.pools.iter_mut().find(|pool| pool["id"] == last.as_str()) {
            Some(pool) => {
                if let Some(v) = body.get("notification_email") {
                    pool["notification_email"] = v.clone();
                }
                (200, ok(pool.clone()))
            }
            None => (404, error(1003, "pool not found")),
        },
        _ => (404, error(7000, "No route for that URI")),
    }
}

fn handle_zone(state: &mut State, op: Op, rest: &str, target: &str, body: &Value) -> (u16, Value) {
    let last = rest.rsplit('/').next().unwrap_or("").to_string();
    match op {
        // Custom hostnames come 20 to a page by default.
        Op::ListCustomHostnames => (200, hostnames_page(state, target)),
        Op::GetCustomHostname => match hostname_at(state, &last) {
            Some(i) => (200, ok(state.custom_hostnames[i].clone())),
            None => (404, error(1436, "custom hostname not found")),
        },
        Op::GetTotalTls => (200, ok(state.total_tls.clone())),
        Op::ListCertificatePacks => (200, whole(&state.certificate_packs)),
        Op::ListCustomCertificates | Op::ListDnsRecords => (200, page(state, &[], target, 20)),
        Op::GetUniversalSsl => (200, ok(universal_ssl(state))),
        // The zone's universal certificates are issued again by the CA named, when the service takes it.
        Op::EditUniversalSsl => {
            let mut settings = universal_ssl(state);
            if let Some(value) = body.get("enabled") {
                settings["enabled"] = value.clone();
            }
            if state.honours_universal_ca
                && let Some(ca) = body.get("certificate_authority")
            {
                settings["certificate_authority"] = ca.clone();
                for pack in state.certificate_packs.iter_mut().filter(|p| p["type"] == "universal") {
                    pack["certificate_authority"] = ca.clone();
                }
            }
            state.universal_ssl = settings.clone();
            let mut answer = settings;
            if let Some(fields) = answer.as_object_mut() {
                // The contract's answer is `{enabled}`.
                fields.retain(|k, _| k == "enabled");
            }
            (200, ok(answer))
        }
        Op::SetTotalTls => {
            state.total_tls =
                json!({"enabled": body["enabled"], "certificate_authority": body["certificate_authority"], "validity_period": 90});
            (200, ok(state.total_tls.clone()))
        }
        // The `ssl` sent replaces the hostname's: a writable field left out is reset.
        Op::EditCustomHostname => {
            let Some(i) = hostname_at(state, &last) else {
                return (404, error(1436, "custom hostname not found"));
            };
            let host = &mut state.custom_hostnames[i];
            let (Some(_), Some(_)) = (body["ssl"]["method"].as_str(), body["ssl"]["type"].as_str()) else {
                return (400, error(1409, "ssl.method and ssl.type are required"));
            };
            let mut ssl = host["ssl"].as_object().cloned().unwrap_or_default();
            ssl.retain(|k, _| !WRITABLE_SSL.contains(&k.as_str()));
            let defaults = json!({"bundle_method": "ubiquitous", "wildcard": false, "settings": {}});
            for field in WRITABLE_SSL {
                if let Some(v) = body["ssl"].get(*field).or_else(|| defaults.get(*field)) {
                    ssl.insert(field.to_string(), v.clone());
                }
            }
            host["ssl"] = Value::Object(ssl);
            (200, ok(host.clone()))
        }
        _ => (404, error(7000, "No route for that URI")),
    }
}

/// Where the custom hostname `id` is in the zone's list: from an index of
/// the list by id, made again whenever it does not point right (tests
/// change the list as they like): a zone of many hostnames is served in
/// constant time a request.
fn hostname_at(state: &mut State, id: &str) -> Option<usize> {
    let points_right = |state: &State, i: usize| state.custom_hostnames.get(i).is_some_and(|h| h["id"] == id);
    if let Some(&i) = state.hostname_index.get(id)
        && points_right(state, i)
    {
        return Some(i);
    }
    state.hostname_index = state
        .custom_hostnames
        .iter()
        .enumerate()
        .filter_map(|(i, h)| h["id"].as_str().map(|id| (id.to_string(), i)))
        .collect();
    state.hostname_index.get(id).copied().filter(|&i| points_right(state, i))
}

/// The fields of a custom hostname's `ssl` a PATCH sets (the rest the service keeps).
const WRITABLE_SSL: &[&str] = &["bundle_method", "certificate_authority", "method", "settings", "type", "wildcard"];
