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
//! converted export looks), for the YAML benchmark. `--jsonl` writes its
//! records one a line, as `jq -c '.result[]'` of the export does (the same
//! records, without the envelope), for the JSON Lines benchmark.
//!
//! `--logpush DIR --count N --hosts H` writes N Logpush `http_requests` lines
//! about the first H custom hostnames of `--custom-hostnames` (and some other
//! hosts), gzip'd, 500,000 lines a file under `DIR/20240901/`, as Logpush
//! writes them: the traffic benchmark's input.

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
    // A number after its flag, or the default.
    let number = |flag: &str, default: u64| -> u64 {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let seed = number("--seed", 42);
    let mut rng = Rng(seed | 1);
    let out = std::io::stdout();
    let mut w = BufWriter::with_capacity(1 << 20, out.lock());
    let hostnames = args.iter().any(|a| a == "--custom-hostnames");
    if let Some(dir) = args.iter().position(|a| a == "--logpush").and_then(|i| args.get(i + 1)) {
        return logpush(std::path::Path::new(dir), &mut rng, count, number("--hosts", 10_000));
    }
    if args.iter().any(|a| a == "--yaml") {
        let mut json = Vec::new();
        if hostnames {
            custom_hostnames(&mut json, &mut rng, count, Layout::Envelope)?;
        } else {
            pools(&mut json, &mut rng, count)?;
        }
        let value: serde_json::Value = serde_json::from_slice(&json).map_err(std::io::Error::other)?;
        let mut yaml = String::new();
        block_yaml(&value, 0, &mut yaml);
        return w.write_all(yaml.as_bytes());
    }
    let layout = if args.iter().any(|a| a == "--jsonl") {
        Layout::Lines
    } else {
        Layout::Envelope
    };
    if hostnames {
        return custom_hostnames(&mut w, &mut rng, count, layout);
    }
    pools(&mut w, &mut rng, count)
}

/// How the records are written: in one API envelope, or one a line.
#[derive(Clone, Copy, PartialEq)]
enum Layout {
    Envelope,
    Lines,
}

/// User agents a zone's logs hold, most of them modern, a few from clients the
/// chain change hurts or whose user agent does not tell.
const AGENTS: [(&str, &str, u64); 12] = [
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        "TLSv1.3",
        30,
    ),
    (
        "Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
        "TLSv1.3",
        20,
    ),
    (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
        "TLSv1.3",
        15,
    ),
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
        "TLSv1.3",
        10,
    ),
    (
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36",
        "TLSv1.3",
        8,
    ),
    (
        "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
        "TLSv1.3",
        5,
    ),
    (
        "Mozilla/5.0 (Linux; Android 7.0; SM-G930F Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/64.0.3282.137 Mobile Safari/537.36",
        "TLSv1.2",
        3,
    ),
    (
        "Dalvik/2.1.0 (Linux; U; Android 7.0; Moto G (5) Build/NPPS25.137-93-14)",
        "TLSv1.2",
        2,
    ),
    ("okhttp/4.12.0", "TLSv1.3", 3),
    ("okhttp/3.12.1", "TLSv1.2", 1),
    (
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Mobile Safari/537.36",
        "TLSv1.3",
        2,
    ),
    (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 9_3_5 like Mac OS X) AppleWebKit/601.1.46 (KHTML, like Gecko) Version/9.0 Mobile/13G36 Safari/601.1",
        "TLSv1.2",
        1,
    ),
];

/// `count` Logpush lines in gzip'd files of 500,000 under `dir/20240901/`.
fn logpush(dir: &std::path::Path, rng: &mut Rng, count: u64, hosts: u64) -> std::io::Result<()> {
    let day = dir.join("20240901");
    std::fs::create_dir_all(&day)?;
    let weights: u64 = AGENTS.iter().map(|a| a.2).sum();
    let per_file = 500_000u64;
    let start: u64 = 1_725_148_800_000_000_000; // 2024-09-01T00:00:00Z in nanoseconds
    let mut written = 0u64;
    let mut file = 0u64;
    while written < count {
        let name = day.join(format!(
            "20240901T{:02}0000Z_20240901T{:02}5959Z_{:08x}.log.gz",
            file % 24,
            file % 24,
            rng.next() as u32
        ));
        let out = std::fs::File::create(name)?;
        let mut gz = flate2::write::GzEncoder::new(BufWriter::with_capacity(1 << 20, out), flate2::Compression::fast());
        let n = per_file.min(count - written);
        for k in 0..n {
            let mut pick = rng.below(weights);
            let agent = AGENTS.iter().find(|a| {
                if pick < a.2 {
                    true
                } else {
                    pick -= a.2;
                    false
                }
            });
            let (ua, tls, _) = agent.unwrap_or(&AGENTS[0]);
            // Nine requests in ten to the zone's custom hostnames, the rest elsewhere.
            let host = if rng.below(10) < 9 {
                let i = rng.below(hosts.max(1));
                format!("shop-{i}.customer-{}.example", i % 5000)
            } else {
                format!("www.site-{}.example", rng.below(1000))
            };
            let source = if rng.below(200) == 0 { "purge" } else { "eyeball" };
            writeln!(
                gz,
                "{{\"ClientIP\":\"198.51.100.{}\",\"ClientRequestHost\":\"{host}\",\"ClientRequestMethod\":\"GET\",\"ClientRequestSource\":\"{source}\",\"ClientRequestURI\":\"/static/app-{}.js\",\"ClientRequestUserAgent\":\"{ua}\",\"ClientSSLProtocol\":\"{tls}\",\"EdgeResponseStatus\":200,\"EdgeStartTimestamp\":{},\"ParentRayID\":\"00\",\"RayID\":\"{:016x}\",\"WorkerSubrequest\":false}}",
                rng.below(255),
                rng.below(100),
                start + (file * per_file + k) * 7_000_000,
                rng.next()
            )?;
        }
        gz.finish()?.flush()?;
        written += n;
        file += 1;
    }
    Ok(())
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

fn custom_hostnames(w: &mut impl Write, rng: &mut Rng, count: u64, layout: Layout) -> std::io::Result<()> {
    if layout == Layout::Envelope {
        write!(w, "{{\"success\":true,\"errors\":[],\"messages\":[],\"result\":[")?;
    }
    for i in 0..count {
        if i > 0 && layout == Layout::Envelope {
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
        if layout == Layout::Lines {
            w.write_all(b"\n")?;
        }
    }
    if layout == Layout::Envelope {
        write!(
            w,
            "],\"result_info\":{{\"count\":{count},\"page\":1,\"per_page\":{count},\"total_count\":{count},\"total_pages\":1}}}}"
        )?;
    }
    w.flush()
}
