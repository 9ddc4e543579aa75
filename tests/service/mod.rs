//! A small stand-in for the service on 127.0.0.1, std only: the endpoints a
//! plan uses and the lists an export reads, with the documented behaviour —
//! the v4 envelope, pages of 25 by default, the page-wide bulk clear of pools
//! ordered by name, errors with `success: false` — and an account in memory.
//!
//! Faults: at the k-th request (every request counts, reads too) one of
//! [`Fault`]; drift: a change made to the account just before the k-th
//! request; a rate limit over a shared clock. After every change a client
//! makes, it checks on its own (not with edgeaudit's code) that no
//! (pool, event, recipient) delivered before the change stopped being
//! delivered, and records any loss in `lost`.

#![allow(dead_code)]

use std::collections::{BTreeSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
        !matches!(self, Fault::Unsuccessful | Fault::Forbidden)
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
}

pub struct Service {
    pub port: u16,
    pub state: Arc<Mutex<State>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Service {
    pub fn start(state: State) -> Service {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("addr").port();
        let state = Arc::new(Mutex::new(state));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (s, st) = (state.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if st.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    let s = s.clone();
                    // One thread per connection: a held answer holds only its own.
                    std::thread::spawn(move || {
                        let _ = serve(stream, &s);
                    });
                }
            }
        });
        Service { port, state, stop }
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

fn serve(stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
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
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header)? == 0 || header == "\r\n" {
                break;
            }
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
        let reply = {
            let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
            respond(&mut state, &method, &target, &body, authorized || (email && key))
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

fn respond(state: &mut State, method: &str, target: &str, body: &[u8], authorized: bool) -> Reply {
    state.requests += 1;
    state.log.push(format!("{method} {target}"));
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

fn page(records: &[Value], target: &str, default_per_page: usize) -> Value {
    let per_page = query(target, "per_page").unwrap_or(default_per_page).max(1);
    let page = query(target, "page").unwrap_or(1).max(1);
    let slice: Vec<Value> = records.iter().skip((page - 1) * per_page).take(per_page).cloned().collect();
    let mut answer = ok(Value::Array(slice.clone()));
    answer["result_info"] = json!({
        "page": page, "per_page": per_page, "count": slice.len(),
        "total_count": records.len(), "total_pages": records.len().div_ceil(per_page),
    });
    answer
}

fn by_name(state: &mut State) {
    state
        .pools
        .sort_by(|a, b| (a["name"].as_str(), a["id"].as_str()).cmp(&(b["name"].as_str(), b["id"].as_str())));
}

/// Every (pool, event, recipient) a legacy e-mail would send, delivered now
/// by the legacy e-mail or by a policy. Written apart from edgeaudit's own
/// model, so that it checks that model rather than repeat it.
pub fn delivered(state: &State) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for pool in &state.pools {
        let id = pool["id"].as_str().unwrap_or("");
        let legacy: Vec<String> = pool["notification_email"]
            .as_str()
            .unwrap_or("")
            .split(',')
            .map(|r| r.trim().to_ascii_lowercase())
            .filter(|r| !r.is_empty())
            .collect();
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

fn legacy_sends(pool: &Value, source: &str, health: &str) -> bool {
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

fn policy_sends(p: &Value, pool: &str, source: &str, health: &str, recipient: &str) -> bool {
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
    let account = format!("/accounts/{}", state.account);
    let zone = format!("/zones/{}", state.zone);
    if path == "/zones" && method == "GET" {
        let mut zones = if state.zone.is_empty() {
            vec![]
        } else {
            vec![json!({"id": state.zone, "name": "example.com", "account": {"id": state.account}})]
        };
        zones.extend(state.extra_zones.iter().cloned());
        return (200, page(&zones, target, 20));
    }
    if let Some(rest) = path.strip_prefix(&zone).filter(|_| !state.zone.is_empty()) {
        return handle_zone(state, method, rest, target, body);
    }
    let Some(rest) = path.strip_prefix(&account) else {
        return (404, error(7003, "Could not route to the account"));
    };
    let body: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(body).unwrap_or(Value::Null)
    };
    by_name(state);
    match (method, rest) {
        ("GET", "/load_balancers/pools") => (200, page(&state.pools, target, 25)),
        ("GET", "/alerting/v3/policies") => (200, page(&state.policies, target, 25)),
        ("GET", p) if p.starts_with("/alerting/v3/policies/") => {
            let id = &p["/alerting/v3/policies/".len()..];
            match state.policies.iter().find(|policy| policy["id"] == id) {
                Some(policy) => (200, ok(policy.clone())),
                None => (404, error(17001, "policy not found")),
            }
        }
        ("GET", p) if p.starts_with("/load_balancers/pools/") => {
            let id = &p["/load_balancers/pools/".len()..];
            match state.pools.iter().find(|pool| pool["id"] == id) {
                Some(pool) => (200, ok(pool.clone())),
                None => (404, error(1003, "pool not found")),
            }
        }
        ("POST", "/alerting/v3/policies") => {
            if body["name"].as_str().is_none() || body["alert_type"].as_str().is_none() {
                return (400, error(17000, "name and alert_type are required"));
            }
            state.next_id += 1;
            let id = format!("{:032x}", 0xc0ffee0000u64 + state.next_id as u64);
            let mut policy = body.clone();
            policy["id"] = json!(id);
            policy["created"] = json!("2024-10-01T00:00:00Z");
            policy["modified"] = json!("2024-10-01T00:00:00Z");
            state.policies.push(policy);
            (200, ok(json!({"id": id})))
        }
        // PUT replaces the whole policy: what the body leaves out is gone.
        ("PUT", p) if p.starts_with("/alerting/v3/policies/") => {
            let id = &p["/alerting/v3/policies/".len()..];
            if body["name"].as_str().is_none() || body["alert_type"].as_str().is_none() {
                return (400, error(17000, "name and alert_type are required"));
            }
            match state.policies.iter_mut().find(|policy| policy["id"] == id) {
                Some(policy) => {
                    let mut replaced = body.clone();
                    replaced["id"] = json!(id);
                    replaced["created"] = policy["created"].clone();
                    replaced["modified"] = json!("2024-10-02T00:00:00Z");
                    *policy = replaced;
                    (200, ok(json!({"id": id})))
                }
                None => (404, error(17001, "policy not found")),
            }
        }
        ("PATCH", "/load_balancers/pools") => {
            if body != json!({"notification_email": ""}) {
                return (400, error(1002, "only notification_email can be patched in bulk"));
            }
            let per_page = query(target, "per_page").unwrap_or(25).max(1);
            let page = query(target, "page").unwrap_or(1).max(1);
            for pool in state.pools.iter_mut().skip((page - 1) * per_page).take(per_page) {
                pool["notification_email"] = json!("");
            }
            let cleared: Vec<Value> = state.pools.iter().skip((page - 1) * per_page).take(per_page).cloned().collect();
            (200, ok(Value::Array(cleared)))
        }
        ("PATCH", p) if p.starts_with("/load_balancers/pools/") => {
            let id = &p["/load_balancers/pools/".len()..];
            match state.pools.iter_mut().find(|pool| pool["id"] == id) {
                Some(pool) => {
                    if let Some(v) = body.get("notification_email") {
                        pool["notification_email"] = v.clone();
                    }
                    (200, ok(pool.clone()))
                }
                None => (404, error(1003, "pool not found")),
            }
        }
        _ => (404, error(7000, "No route for that URI")),
    }
}

fn handle_zone(state: &mut State, method: &str, rest: &str, target: &str, body: &[u8]) -> (u16, Value) {
    let body: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(body).unwrap_or(Value::Null)
    };
    match (method, rest) {
        // Custom hostnames come 50 to a page by default.
        ("GET", "/custom_hostnames") => (200, page(&state.custom_hostnames, target, 50)),
        ("GET", p) if p.starts_with("/custom_hostnames/") => {
            let id = &p["/custom_hostnames/".len()..];
            match state.custom_hostnames.iter().find(|h| h["id"] == id) {
                Some(h) => (200, ok(h.clone())),
                None => (404, error(1436, "custom hostname not found")),
            }
        }
        ("GET", "/acm/total_tls") => (200, ok(state.total_tls.clone())),
        ("GET", "/ssl/certificate_packs") => (200, page(&state.certificate_packs, target, 20)),
        ("GET", "/custom_certificates" | "/dns_records") => (200, page(&[], target, 20)),
        ("GET", "/ssl/universal/settings") => (200, ok(universal_ssl(state))),
        // The zone's universal certificates are issued again by the CA named.
        ("PATCH", "/ssl/universal/settings") => {
            let mut settings = universal_ssl(state);
            for field in ["enabled", "certificate_authority"] {
                if let Some(value) = body.get(field) {
                    settings[field] = value.clone();
                }
            }
            if let Some(ca) = body.get("certificate_authority") {
                for pack in state.certificate_packs.iter_mut().filter(|p| p["type"] == "universal") {
                    pack["certificate_authority"] = ca.clone();
                }
            }
            state.universal_ssl = settings.clone();
            (200, ok(settings))
        }
        ("POST", "/acm/total_tls") => {
            state.total_tls =
                json!({"enabled": body["enabled"], "certificate_authority": body["certificate_authority"], "validity_period": 90});
            (200, ok(state.total_tls.clone()))
        }
        ("PATCH", p) if p.starts_with("/custom_hostnames/") => {
            let id = &p["/custom_hostnames/".len()..];
            let Some(host) = state.custom_hostnames.iter_mut().find(|h| h["id"] == id) else {
                return (404, error(1436, "custom hostname not found"));
            };
            let (Some(method), Some(kind)) = (body["ssl"]["method"].as_str(), body["ssl"]["type"].as_str()) else {
                return (400, error(1409, "ssl.method and ssl.type are required"));
            };
            host["ssl"]["method"] = json!(method);
            host["ssl"]["type"] = json!(kind);
            host["ssl"]["certificate_authority"] = body["ssl"]["certificate_authority"].clone();
            (200, ok(host.clone()))
        }
        _ => (404, error(7000, "No route for that URI")),
    }
}
