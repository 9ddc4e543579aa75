//! A small stand-in for the service on 127.0.0.1, std only: the endpoints a
//! plan uses and the lists an export reads, with the documented behaviour —
//! the v4 envelope, pages of 25 by default, the page-wide bulk clear of pools
//! ordered by name, errors with `success: false` — and an account in memory.
//! A fault can be injected: the k-th changing request answers 500.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

pub const TOKEN: &str = "test-token";

#[derive(Default)]
pub struct State {
    pub account: String,
    /// Pool records as the API returns them.
    pub pools: Vec<Value>,
    pub policies: Vec<Value>,
    /// One zone: its id, custom hostnames and Total TLS settings.
    pub zone: String,
    pub custom_hostnames: Vec<Value>,
    pub total_tls: Value,
    /// The 1-based number of the changing request (POST, PUT, PATCH) that fails with a 500.
    pub fail_at: Option<usize>,
    pub changes: usize,
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
                    let _ = serve(stream, &s);
                }
            }
        });
        Service { port, state, stop }
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// GET a path, as the export would, and return the JSON answer.
    pub fn get(&self, path: &str) -> Value {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
        )
        .expect("send");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("read");
        let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        serde_json::from_str(body).expect("a JSON answer")
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
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
    let (mut length, mut authorized, mut expect) = (0usize, false, false);
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
        if lower.starts_with("expect:") && lower.contains("100-continue") {
            expect = true;
        }
    }
    let mut stream = stream;
    if expect {
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let mut body = vec![0; length.min(1 << 20)];
    reader.read_exact(&mut body)?;
    let (status, answer) = if authorized {
        let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
        handle(&mut state, &method, &target, &body)
    } else {
        (403, error(10000, "Authentication error"))
    };
    let text = answer.to_string();
    write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )
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

fn handle(state: &mut State, method: &str, target: &str, body: &[u8]) -> (u16, Value) {
    let path = target.split('?').next().unwrap_or("");
    let account = format!("/accounts/{}", state.account);
    let zone = format!("/zones/{}", state.zone);
    if let Some(rest) = path.strip_prefix(&zone).filter(|_| !state.zone.is_empty()) {
        return handle_zone(state, method, rest, target, body);
    }
    let Some(rest) = path.strip_prefix(&account) else {
        return (404, error(7003, "Could not route to the account"));
    };
    if method != "GET" {
        state.changes += 1;
        if state.fail_at == Some(state.changes) {
            return (500, error(10001, "Internal error (injected)"));
        }
    }
    let body: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(body).unwrap_or(Value::Null)
    };
    by_name(state);
    match (method, rest) {
        ("GET", "/load_balancers/pools") => (200, page(&state.pools, target, 25)),
        ("GET", "/alerting/v3/policies") => (200, page(&state.policies, target, 25)),
        ("POST", "/alerting/v3/policies") => {
            if body["name"].as_str().is_none() || body["alert_type"].as_str().is_none() {
                return (400, error(17000, "name and alert_type are required"));
            }
            let id = format!("{:032x}", state.policies.len() + 1);
            let mut policy = body.clone();
            policy["id"] = json!(id);
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
    if method != "GET" {
        state.changes += 1;
        if state.fail_at == Some(state.changes) {
            return (500, error(10001, "Internal error (injected)"));
        }
    }
    let body: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(body).unwrap_or(Value::Null)
    };
    match (method, rest) {
        // Custom hostnames come 50 to a page by default.
        ("GET", "/custom_hostnames") => (200, page(&state.custom_hostnames, target, 50)),
        ("GET", "/acm/total_tls") => (200, ok(state.total_tls.clone())),
        ("GET", "/ssl/certificate_packs" | "/custom_certificates" | "/dns_records") => (200, page(&[], target, 20)),
        ("GET", "/ssl/universal/settings") => (200, ok(json!({"enabled": true}))),
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
