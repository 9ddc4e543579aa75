//! Writes a large, deterministic export to stdout, in the shapes the API
//! returns:
//!
//!     cargo run --release --example generate -- --count 200000 > pools.json
//!     cargo run --release --example generate -- --custom-hostnames --count 250000 > hostnames.json
//!
//! Pools (default): one API envelope whose `result` holds N pools followed by
//! N/20 health-alert policies; about a third of the pools carry a legacy
//! `notification_email`, and policies cover some fully, some in part, some not.
//!
//! Custom hostnames: one envelope of N custom hostnames of a SaaS zone (the
//! list `GET /zones/{zone_id}/custom_hostnames` pages through), with a quarter
//! on Let's Encrypt, a quarter on the default CA, the rest on Google; RSA and
//! ECDSA; some certificates expired.
//!
//! `--yaml` writes the same export as block-style YAML (as a hand-kept or
//! converted export looks), for the YAML benchmark.

use std::io::{BufWriter, Write};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: deterministic, no dependency.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn pool_id(i: u64) -> String {
    format!("{:016x}{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15), i)
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let count: u64 = match args.iter().position(|a| a == "--count").and_then(|i| args.get(i + 1)) {
        Some(n) => n.parse().unwrap_or_else(|_| panic!("--count takes a number, got {n}")),
        None => 1000,
    };
    let seed: u64 = args
        .iter()
        .position(|a| a == "--seed")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(42);
    let mut rng = Rng(seed | 1);
    let out = std::io::stdout();
    let mut w = BufWriter::with_capacity(1 << 20, out.lock());
    let hostnames = args.iter().any(|a| a == "--custom-hostnames");
    if args.iter().any(|a| a == "--yaml") {
        let mut json = Vec::new();
        if hostnames {
            custom_hostnames(&mut json, &mut rng, count)?;
        } else {
            pools(&mut json, &mut rng, count)?;
        }
        let value: serde_json::Value = serde_json::from_slice(&json).map_err(std::io::Error::other)?;
        let mut yaml = String::new();
        block_yaml(&value, 0, &mut yaml);
        return w.write_all(yaml.as_bytes());
    }
    if hostnames {
        return custom_hostnames(&mut w, &mut rng, count);
    }
    pools(&mut w, &mut rng, count)
}

/// A JSON value as block-style YAML: mappings and sequences indented,
/// keys plain, strings double-quoted (JSON's escapes are YAML's), other
/// scalars as they are.
fn block_yaml(value: &serde_json::Value, indent: usize, out: &mut String) {
    use serde_json::Value;
    let inline = |v: &Value| match v {
        Value::Object(m) if m.is_empty() => Some("{}".to_string()),
        Value::Array(a) if a.is_empty() => Some("[]".to_string()),
        Value::Object(_) | Value::Array(_) => None,
        scalar => Some(scalar.to_string()),
    };
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                out.push_str(&pad);
                let plain = key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !key.is_empty();
                match plain {
                    true => out.push_str(key),
                    false => out.push_str(&Value::String(key.clone()).to_string()),
                }
                match inline(v) {
                    Some(text) => {
                        out.push_str(": ");
                        out.push_str(&text);
                        out.push('\n');
                    }
                    None => {
                        out.push_str(":\n");
                        block_yaml(v, indent + 2, out);
                    }
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                match inline(v) {
                    Some(text) => {
                        out.push_str(&pad);
                        out.push_str("- ");
                        out.push_str(&text);
                        out.push('\n');
                    }
                    None => {
                        // `- ` then the item's first line, the rest under it.
                        let mut item = String::new();
                        block_yaml(v, indent + 2, &mut item);
                        out.push_str(&pad);
                        out.push_str("- ");
                        out.push_str(&item[indent + 2..]);
                    }
                }
            }
        }
        scalar => {
            out.push_str(&pad);
            out.push_str(&scalar.to_string());
            out.push('\n');
        }
    }
}

fn pools(w: &mut impl Write, rng: &mut Rng, count: u64) -> std::io::Result<()> {
    write!(w, "{{\"success\":true,\"errors\":[],\"messages\":[],\"result\":[")?;
    for i in 0..count {
        if i > 0 {
            w.write_all(b",")?;
        }
        let email = match rng.below(6) {
            0 => format!("noc-{}@example.com", i % 97),
            1 => format!("noc-{}@example.com, oncall-{}@example.com", i % 97, i % 13),
            _ => String::new(),
        };
        let healthy = match rng.below(3) {
            0 => "null",
            1 => "true",
            _ => "false",
        };
        write!(
            w,
            "{{\"id\":\"{}\",\"created_on\":\"2023-01-{:02}T05:20:00.{}Z\",\"modified_on\":\"2024-03-14T09:12:45Z\",\"description\":\"Pool {i} for service {}\",\"enabled\":{},\"minimum_origins\":1,\"monitor\":\"{:032x}\",\"name\":\"pool-{i}\",\"notification_email\":\"{email}\",\"notification_filter\":{{\"origin\":{{\"disable\":{},\"healthy\":null}},\"pool\":{{\"disable\":false,\"healthy\":{healthy}}}}},\"check_regions\":[\"WEU\",\"ENAM\"],\"latitude\":{}.{},\"longitude\":-{}.{},\"load_shedding\":{{\"default_percent\":0,\"default_policy\":\"random\",\"session_percent\":0,\"session_policy\":\"hash\"}},\"origin_steering\":{{\"policy\":\"random\"}},\"origins\":[",
            pool_id(i),
            1 + i % 28,
            rng.below(1_000_000),
            i % 500,
            rng.below(10) != 0,
            rng.next(),
            rng.below(4) == 0,
            rng.below(90),
            rng.below(10_000),
            rng.below(180),
            rng.below(10_000),
        )?;
        for o in 0..(2 + rng.below(4)) {
            if o > 0 {
                w.write_all(b",")?;
            }
            write!(
                w,
                "{{\"address\":\"198.51.{}.{}\",\"enabled\":true,\"header\":{{\"Host\":[\"svc-{i}.example.com\"]}},\"name\":\"origin-{i}-{o}\",\"virtual_network_id\":\"a5624d4e-044a-4ff0-b3e1-e2465353d4b4\",\"weight\":0.{}}}",
                rng.below(256),
                rng.below(256),
                rng.below(10),
            )?;
        }
        w.write_all(b"]}")?;
    }
    let policies = (count / 20).max(1);
    for p in 0..policies {
        let pools: Vec<String> = (0..10)
            .map(|k| format!("\"{}\"", pool_id((p * 20 + k * 2) % count.max(1))))
            .collect();
        let health = match rng.below(4) {
            0 => "\"new_health\":[\"Unhealthy\"],",
            1 => "\"new_health\":[\"unhealthy\"],",
            _ => "",
        };
        write!(
            w,
            ",{{\"id\":\"{:08x}-0000-4000-8000-{:012x}\",\"name\":\"health {p}\",\"alert_type\":\"load_balancing_health_alert\",\"enabled\":{},\"mechanisms\":{{\"email\":[{{\"id\":\"noc-{}@example.com\"}}]}},\"filters\":{{{health}\"pool_id\":[{}]}},\"created\":\"2024-04-01T10:00:00Z\"}}",
            p,
            rng.next() & 0xffff_ffff_ffff,
            rng.below(8) != 0,
            (p * 20) % 97,
            pools.join(","),
        )?;
    }
    write!(
        w,
        "],\"result_info\":{{\"count\":{},\"page\":1,\"per_page\":{},\"total_count\":{},\"total_pages\":1}}}}",
        count + policies,
        count + policies,
        count + policies
    )?;
    w.flush()
}

fn uuid(rng: &mut Rng) -> String {
    let (a, b) = (rng.next(), rng.next());
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        (b >> 48) & 0xfff,
        b & 0xffff_ffff_ffff
    )
}

fn custom_hostnames(w: &mut impl Write, rng: &mut Rng, count: u64) -> std::io::Result<()> {
    write!(w, "{{\"success\":true,\"errors\":[],\"messages\":[],\"result\":[")?;
    for i in 0..count {
        if i > 0 {
            w.write_all(b",")?;
        }
        let ca = match rng.below(4) {
            0 => "lets_encrypt",
            1 => "",
            _ => "google",
        };
        let (issuer, signature) = match (ca, rng.below(3)) {
            ("google", 0) => ("GoogleTrustServicesLLC", "ECDSAWithSHA256"),
            ("google", _) => ("GoogleTrustServicesLLC", "SHA256WithRSA"),
            (_, 0) => ("LetsEncrypt", "ECDSAWithSHA384"),
            _ => ("LetsEncrypt", "SHA256WithRSA"),
        };
        // Mostly valid in 2024; one in fifty expired before the autumn.
        let expires = if rng.below(50) == 0 { "2024-08-15" } else { "2025-01-20" };
        let wildcard = rng.below(10) == 0;
        let hostname = format!("{}shop-{i}.customer-{}.example", if wildcard { "*." } else { "" }, i % 5000);
        write!(
            w,
            "{{\"id\":\"{}\",\"hostname\":\"{hostname}\",\"status\":\"active\",\"created_at\":\"2023-0{}-1{}T08:12:{:02}.{}Z\",\"custom_metadata\":{{\"customer\":\"c-{}\",\"plan\":\"business\"}},\"ownership_verification\":{{\"type\":\"txt\",\"name\":\"_cf-custom-hostname.shop-{i}.customer-{}.example\",\"value\":\"{}\"}},\"ownership_verification_http\":{{\"http_url\":\"http://shop-{i}.customer-{}.example/.well-known/cf-custom-hostname-challenge/{}\",\"http_body\":\"{}\"}},\"ssl\":{{\"id\":\"{}\",\"type\":\"dv\",\"method\":\"{}\",\"status\":\"active\",\"bundle_method\":\"ubiquitous\",\"certificate_authority\":\"{ca}\",\"wildcard\":{wildcard},\"settings\":{{\"min_tls_version\":\"1.2\",\"http2\":\"on\",\"tls_1_3\":\"on\"}},\"validation_records\":[{{\"txt_name\":\"_acme-challenge.shop-{i}.customer-{}.example\",\"txt_value\":\"{:016x}{:016x}\",\"status\":\"active\"}}],\"issuer\":\"{issuer}\",\"signature\":\"{signature}\",\"serial_number\":\"{:x}\",\"uploaded_on\":\"2024-0{}-0{}T10:00:00Z\",\"expires_on\":\"{expires}T10:00:00Z\"}}}}",
            uuid(rng),
            1 + rng.below(9),
            rng.below(10),
            rng.below(60),
            rng.below(1000),
            i % 5000,
            i % 5000,
            uuid(rng),
            i % 5000,
            uuid(rng),
            uuid(rng),
            uuid(rng),
            if rng.below(2) == 0 { "txt" } else { "http" },
            i % 5000,
            rng.next(),
            rng.next(),
            rng.next(),
            1 + rng.below(9),
            1 + rng.below(9),
        )?;
    }
    write!(
        w,
        "],\"result_info\":{{\"count\":{count},\"page\":1,\"per_page\":{count},\"total_count\":{count},\"total_pages\":1}}}}"
    )?;
    w.flush()
}
