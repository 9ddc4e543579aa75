//! Writes a large, deterministic load-balancing export to stdout: one API
//! envelope whose `result` holds N pools followed by N/20 health-alert
//! policies, in the shapes the API returns.
//!
//!     cargo run --release --example generate -- --count 200000 > pools.json
//!
//! The mix is fixed by the seed: about a third of the pools carry a legacy
//! `notification_email`; policies cover some fully, some in part, some not.

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
