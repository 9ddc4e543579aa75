//! A real browser for the HTML report's tests: Debian's Chromium driven
//! headless through its ChromeDriver (the W3C WebDriver protocol, spoken
//! with ureq over loopback to a driver this module starts on a free port).
//! No browser is downloaded; without `/usr/bin/chromium` and
//! `/usr/bin/chromedriver` the tests say so and skip, unless
//! `EDGEAUDIT_REQUIRE_BROWSER` is set (CI sets it after installing them).
#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A driver and one browser session; both end when it is dropped.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
    _profile: tempfile::TempDir,
}

/// `None` (with a notice) when the browser is not installed and not required.
pub fn start() -> Option<Browser> {
    let installed = std::path::Path::new(CHROMIUM).exists() && std::path::Path::new(CHROMEDRIVER).exists();
    if !installed {
        assert!(
            std::env::var_os("EDGEAUDIT_REQUIRE_BROWSER").is_none(),
            "EDGEAUDIT_REQUIRE_BROWSER is set but {CHROMIUM} or {CHROMEDRIVER} is missing (apt-get install chromium chromium-driver)"
        );
        eprintln!(
            "NOTICE: {CHROMIUM} or {CHROMEDRIVER} not installed; skipping the browser test (apt-get install chromium chromium-driver)"
        );
        return None;
    }
    Some(Browser::start())
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("addr").port()
}

impl Browser {
    fn start() -> Browser {
        let port = free_port();
        let driver = Command::new(CHROMEDRIVER)
            .args([format!("--port={port}"), "--allowed-ips=127.0.0.1".to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        let base = format!("http://127.0.0.1:{port}");
        // Readiness, not timing: the driver answers `/status` once it listens.
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let ready = agent
                .get(&format!("{base}/status"))
                .call()
                .ok()
                .and_then(|mut r| r.body_mut().read_to_string().ok())
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .is_some_and(|v| v["value"]["ready"] == true);
            if ready {
                break;
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().expect("profile dir");
        let mut browser = Browser {
            driver,
            base,
            session: String::new(),
            agent,
            _profile: profile,
        };
        // The flags that keep Chromium off the network and quiet in a sandboxed root shell.
        let args = [
            "--headless=new".to_string(),
            "--no-sandbox".to_string(),
            "--disable-gpu".to_string(),
            "--disable-dev-shm-usage".to_string(),
            "--no-first-run".to_string(),
            "--disable-background-networking".to_string(),
            "--disable-component-update".to_string(),
            "--disable-sync".to_string(),
            "--disable-quic".to_string(),
            "--hide-scrollbars".to_string(),
            "--window-size=1280,1000".to_string(),
            format!("--user-data-dir={}", browser._profile.path().display()),
        ];
        let answer = browser.command(
            "POST",
            "/session",
            json!({"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
                "goog:loggingPrefs": {"performance": "ALL"}
            }}}),
        );
        browser.session = answer["sessionId"].as_str().expect("a session").to_string();
        browser
    }

    /// One WebDriver command; its `value`. A WebDriver error fails the test.
    fn command(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}{path}", self.base);
        let response = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(serde_json::to_vec(&body).unwrap_or_default()),
        };
        let mut response = response.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .unwrap_or_default();
        let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert!(status < 400, "{method} {path}: {status} {answer}");
        answer.get("value").cloned().unwrap_or(answer)
    }

    fn session_path(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    /// Opens a page (a `file://` URL), waiting until it has loaded. The
    /// requests logged so far (the browser's own start page) are read and
    /// dropped first, so [`Browser::requested_by`] tells this page's.
    pub fn open(&self, url: &str) {
        let _ = self.requests();
        self.command("POST", &self.session_path("/url"), json!({"url": url}));
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns what it returns.
    pub fn script(&self, script: &str, args: Value) -> Value {
        self.command("POST", &self.session_path("/execute/sync"), json!({"script": script, "args": args}))
    }

    /// Clicks the element `css` selects, as a person would.
    pub fn click(&self, css: &str) {
        let element = self.command(
            "POST",
            &self.session_path("/element"),
            json!({"using": "css selector", "value": css}),
        );
        let id = element
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}: {element}"))
            .to_string();
        self.command("POST", &self.session_path(&format!("/element/{id}/click")), json!({}));
    }

    /// The URLs asked for since the last call by documents whose address
    /// starts with `page` (Chromium's performance log, which hands each entry
    /// over once; the browser's own pages are left out), and every `http`,
    /// `https`, `ws` or `wss` URL any document asked for.
    pub fn requested_by(&self, page: &str) -> Vec<String> {
        self.requests()
            .into_iter()
            .filter(|(document, url)| document.starts_with(page) || ["http:", "https:", "ws:", "wss:"].iter().any(|s| url.starts_with(s)))
            .map(|(_, url)| url)
            .collect()
    }

    /// (document, URL) of every request logged since the last call.
    fn requests(&self) -> Vec<(String, String)> {
        let log = self.command("POST", &self.session_path("/se/log"), json!({"type": "performance"}));
        log.as_array()
            .into_iter()
            .flatten()
            .filter_map(|entry| serde_json::from_str::<Value>(entry["message"].as_str()?).ok())
            .filter(|m| m["message"]["method"] == "Network.requestWillBeSent")
            .filter_map(|m| {
                let params = &m["message"]["params"];
                Some((
                    params["documentURL"].as_str()?.to_string(),
                    params["request"]["url"].as_str()?.to_string(),
                ))
            })
            .collect()
    }

    /// The whole page as PNG bytes: the window sized to the page first.
    pub fn screenshot(&self) -> Vec<u8> {
        let height = self
            .script("return Math.ceil(document.documentElement.scrollHeight);", json!([]))
            .as_u64()
            .unwrap_or(1000)
            .clamp(600, 8000);
        self.command("POST", &self.session_path("/window/rect"), json!({"width": 1280, "height": height}));
        let encoded = self.command("GET", &self.session_path("/screenshot"), Value::Null);
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str().unwrap_or(""))
            .expect("a base64 PNG")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.agent.delete(&format!("{}/session/{}", self.base, self.session)).call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// `file:///…` of a path.
pub fn file_url(path: &std::path::Path) -> String {
    format!("file://{}", path.canonicalize().expect("an existing file").display())
}
