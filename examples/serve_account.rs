//! The stand-in service of the tests (tests/it/service), serving a generated
//! account on 127.0.0.1 until standard input closes: what `bench/run.sh`
//! exports from to measure `edgeaudit export` (its memory against the file
//! it writes).
//!
//!     cargo run --release --example serve_account -- --custom-hostnames 200000 [--excerpt]
//!
//! It serves the current API reference's custom hostnames list (1,000 a
//! page, filtered by certificate authority); `--excerpt` serves the 2024
//! excerpt's alone (50 a page, no filter).
//!
//! Prints `CLOUDFLARE_API_BASE=http://127.0.0.1:PORT ACCOUNT=… ZONE=…` on its
//! first line; the token is `test-token`.

#[path = "../tests/it/service/mod.rs"]
mod service;

use std::io::{BufRead, Write};

use serde_json::json;

const ACCOUNT: &str = "023e105f4ecef8ad9ca31a8372d0c353";
const ZONE: &str = "9a7806061c88ada191ed06f989cc3dac";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count = args
        .iter()
        .position(|a| a == "--custom-hostnames")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1000);
    let custom_hostnames = (0..count)
        .map(|i| {
            let ca = ["lets_encrypt", "google", ""][i % 3];
            json!({
                "id": format!("{:08x}-0000-4000-8000-{:012x}", i, i),
                "hostname": format!("shop{i}.customer.example"),
                "status": "active",
                "created_at": "2024-01-01T00:00:00Z",
                "ssl": {"id": format!("{:032x}", i), "type": "dv", "method": "http", "status": "active",
                        "certificate_authority": ca,
                        "bundle_method": "ubiquitous", "wildcard": false,
                        "settings": {"min_tls_version": "1.2", "http2": "on"},
                        "validation_records": [{"status": "active", "http_url": format!("http://shop{i}.customer.example/.well-known/pki-validation/ca3-{i:x}.txt"), "http_body": format!("ca3-{i:032x}")}]},
            })
        })
        .collect();
    let server = service::Service::start(service::State {
        account: ACCOUNT.into(),
        zone: ZONE.into(),
        custom_hostnames,
        total_tls: json!({"enabled": false, "certificate_authority": null}),
        unchecked: true,
        // As the current API reference: custom hostnames 1,000 a page, filtered by CA.
        reference: !args.iter().any(|a| a == "--excerpt"),
        ..service::State::default()
    });
    println!("CLOUDFLARE_API_BASE={} ACCOUNT={ACCOUNT} ZONE={ZONE}", server.base());
    let _ = std::io::stdout().flush();
    // Serves until standard input closes.
    for line in std::io::stdin().lock().lines() {
        if line.is_err() {
            break;
        }
    }
}
