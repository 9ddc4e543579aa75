//! Which clients a request came from, as the versioned table in
//! `rules/user-agents.yaml` says (docs/src/traffic.md): first match wins, each row with its
//! citation. Compiled once; a user agent is classified once per run (a
//! distinct user agent recurs millions of times in a log).

use regex::Regex;
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::text::error::InputError;

/// The table, embedded so the binary needs no files at run time.
pub const TABLE: (&str, &str) = ("rules/user-agents.yaml", include_str!("../../rules/user-agents.yaml"));

crate::listed! {
    /// What a request's client makes of the change.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
    pub enum Class {
        /// Not an end user's request: not counted at all.
        Excluded = "excluded",
        /// A crawler's request (a search engine's, an ad or preview bot's, a
        /// monitoring agent's): made from its own servers, whatever platform
        /// it names; left out of the share like an excluded one, and counted.
        Crawler = "crawler",
        NotImpacted = "not_impacted",
        /// Fails against the short chain.
        Impacted = "impacted",
        /// The request does not tell.
        Unknown = "unknown",
        /// Never trusted ISRG Root X1: broken since 2021, not by this change.
        AlreadyBroken = "already_broken",
    }
}

impl Class {
    /// Whether a request of this class counts in the shares (and their
    /// window): not the service's own, not a crawler's.
    pub fn is_counted(self) -> bool {
        !matches!(self, Class::Excluded | Class::Crawler)
    }
}

/// How a request came, where it decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// `ClientRequestSource` other than `eyeball`.
    NotEyeball,
    /// A Worker's subrequest.
    WorkerSubrequest,
    /// A bot the service verified (`BotScoreSrc` "Verified Bot", or a
    /// `VerifiedBotCategory`).
    VerifiedBot,
    /// A request the service scored as automated for certain (`BotScore` 1).
    Automated,
}

/// What a row's `match` reads, where one token decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Token {
    /// The platform's own token (`Linux; Android 6.0.1`, `CPU iPhone OS
    /// 9_3`): where one is present, its first occurrence decides, and no
    /// `app` row is read.
    Platform,
    /// An app's token naming the OS (`FBSV/4.4.3`, `Android/22`, `okhttp/`):
    /// read only when no platform token is present.
    App,
}

/// One request, as the table reads it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Request<'a> {
    pub user_agent: &'a str,
    /// `TLSv1.2`, `TLSv1.3`, `none`; empty when not given.
    pub tls: &'a str,
    pub not_eyeball: bool,
    pub worker_subrequest: bool,
    /// The service verified the bot (Logpush's bot fields).
    pub verified_bot: bool,
    /// The service's bot score (1: automated, 99: human), when given.
    pub bot_score: Option<u8>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableSpec {
    version: u32,
    rows: Vec<RowSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowSpec {
    id: Spanned<String>,
    class: Class,
    request: Option<Origin>,
    #[serde(rename = "match")]
    pattern: Option<Spanned<String>>,
    token: Option<Token>,
    from: Option<String>,
    below: Option<String>,
    tls: Option<String>,
    why: String,
    citation: String,
}

/// One row of the table, compiled.
#[derive(Debug)]
pub struct Row {
    pub id: String,
    pub class: Class,
    request: Option<Origin>,
    pattern: Option<Regex>,
    pub token: Option<Token>,
    from: Option<Vec<u64>>,
    below: Option<Vec<u64>>,
    tls: Option<String>,
    pub why: String,
    pub citation: String,
}

#[derive(Debug)]
pub struct Table {
    pub version: u32,
    pub rows: Vec<Row>,
}

/// `7.0.1`, `10_12_1`, `141` as numbers to compare part by part (a missing part is 0).
pub fn version(text: &str) -> Option<Vec<u64>> {
    text.split(['.', '_']).map(|part| part.parse::<u64>().ok()).collect()
}

fn compare(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| a.get(i).copied().unwrap_or(0).cmp(&b.get(i).copied().unwrap_or(0)))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

impl Table {
    /// The built-in table.
    pub fn builtin() -> Result<Table, InputError> {
        Table::parse(TABLE.0, TABLE.1)
    }

    /// A table from its YAML; an invalid row is an error at its line and column.
    pub fn parse(name: &str, text: &str) -> Result<Table, InputError> {
        let spec: TableSpec = crate::input::yaml::parse_small(name, text, "user-agent table")?;
        let mut rows = Vec::with_capacity(spec.rows.len());
        for row in spec.rows {
            let at = |s: &Spanned<String>, message: String| {
                InputError::at_line_column(name, s.referenced.line() as usize, s.referenced.column() as usize, message)
            };
            let pattern = match &row.pattern {
                Some(p) => Some(
                    Regex::new(&p.value).map_err(|e| at(p, format!("row {}: its `match` is no regular expression: {e}", row.id.value)))?,
                ),
                None => None,
            };
            let bound = |text: &Option<String>, which: &str| -> Result<Option<Vec<u64>>, InputError> {
                match text {
                    None => Ok(None),
                    Some(t) => version(t).map(Some).ok_or_else(|| {
                        at(
                            &row.id,
                            format!(
                                "row {}: `{which}: {t}` is not a version (numbers split by `.` or `_`)",
                                row.id.value
                            ),
                        )
                    }),
                }
            };
            let (from, below) = (bound(&row.from, "from")?, bound(&row.below, "below")?);
            let versioned = pattern
                .as_ref()
                .is_some_and(|p| p.capture_names().any(|n| n.is_some_and(|n| n.starts_with("version"))));
            if (from.is_some() || below.is_some()) && !versioned {
                return Err(at(
                    &row.id,
                    format!(
                        "row {}: `from`/`below` compare the `version` group of `match`, and it has none",
                        row.id.value
                    ),
                ));
            }
            if rows.iter().any(|r: &Row| r.id == row.id.value) {
                return Err(at(&row.id, format!("row {} is defined twice", row.id.value)));
            }
            if row.token.is_some() && pattern.is_none() {
                return Err(at(
                    &row.id,
                    format!("row {}: `token` says what its `match` reads, and it has none", row.id.value),
                ));
            }
            rows.push(Row {
                id: row.id.value,
                class: row.class,
                request: row.request,
                token: row.token,
                pattern,
                from,
                below,
                tls: row.tls,
                why: row.why,
                citation: row.citation,
            });
        }
        Ok(Table {
            version: spec.version,
            rows,
        })
    }

    /// The first row the request matches; `None`: not impacted. Where a
    /// platform's own token is present, no app row is read.
    pub fn row(&self, request: &Request<'_>) -> Option<&Row> {
        // Whether a platform token is present, looked for once and only when an app row is reached.
        let platform = std::cell::OnceCell::new();
        let platform_present = || {
            *platform.get_or_init(|| {
                self.rows
                    .iter()
                    .filter(|row| row.token == Some(Token::Platform))
                    .any(|row| row.pattern.as_ref().is_some_and(|p| p.is_match(request.user_agent)))
            })
        };
        self.rows
            .iter()
            .filter(|row| row.token != Some(Token::App) || !platform_present())
            .find(|row| row.matches(request))
    }

    pub fn classify(&self, request: &Request<'_>) -> Class {
        self.row(request).map_or(Class::NotImpacted, |r| r.class)
    }
}

impl Row {
    /// What the row matches, in words (the book's table).
    pub fn condition(&self) -> String {
        let mut parts = Vec::new();
        match self.request {
            Some(Origin::NotEyeball) => parts.push("`ClientRequestSource` other than `eyeball`".to_string()),
            Some(Origin::WorkerSubrequest) => parts.push("a Worker subrequest".to_string()),
            Some(Origin::VerifiedBot) => parts.push("a bot the service verified".to_string()),
            Some(Origin::Automated) => parts.push("`BotScore` 1 (automated)".to_string()),
            None => {}
        }
        match self.token {
            Some(Token::Platform) => parts.push("the platform's own token (its first occurrence decides)".to_string()),
            Some(Token::App) => parts.push("an app's token, read only when no platform token is present".to_string()),
            None => {}
        }
        if let Some(p) = &self.pattern {
            parts.push(format!("user agent `{}`", p.as_str()));
        }
        let version = |v: &Vec<u64>| v.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
        match (&self.from, &self.below) {
            (Some(f), Some(b)) => parts.push(format!("version from {} below {}", version(f), version(b))),
            (Some(f), None) => parts.push(format!("version from {}", version(f))),
            (None, Some(b)) => parts.push(format!("version below {}", version(b))),
            (None, None) => {}
        }
        if let Some(tls) = &self.tls {
            parts.push(format!("over {tls}"));
        }
        parts.join(", ")
    }

    fn matches(&self, r: &Request<'_>) -> bool {
        match self.request {
            Some(Origin::NotEyeball) if !r.not_eyeball => return false,
            Some(Origin::WorkerSubrequest) if !r.worker_subrequest => return false,
            Some(Origin::VerifiedBot) if !r.verified_bot => return false,
            Some(Origin::Automated) if r.bot_score != Some(1) => return false,
            _ => {}
        }
        if self.tls.as_deref().is_some_and(|tls| !tls.eq_ignore_ascii_case(r.tls)) {
            return false;
        }
        let Some(pattern) = &self.pattern else { return true };
        if self.from.is_none() && self.below.is_none() {
            return pattern.is_match(r.user_agent);
        }
        let in_range = |c: regex::Captures<'_>| {
            // `version`, or the first of `version2`, `version3`, … that took part.
            let group = pattern
                .capture_names()
                .flatten()
                .filter(|n| n.starts_with("version"))
                .find_map(|n| c.name(n));
            let Some(v) = group.and_then(|v| version(v.as_str())) else {
                return false;
            };
            self.from.as_ref().is_none_or(|f| compare(&v, f).is_ge()) && self.below.as_ref().is_none_or(|b| compare(&v, b).is_lt())
        };
        // A platform's version is read once, from its first token; elsewhere
        // any occurrence in range (a user agent may name several).
        if self.token == Some(Token::Platform) {
            return pattern.captures(r.user_agent).is_some_and(in_range);
        }
        pattern.captures_iter(r.user_agent).any(in_range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(ua: &str, tls: &str) -> Class {
        Table::builtin().expect("the table").classify(&Request {
            user_agent: ua,
            tls,
            ..Request::default()
        })
    }

    #[test]
    fn each_row_and_the_default() {
        let table = Table::builtin().expect("the table");
        let row = |ua: &str, tls: &str| {
            table
                .row(&Request {
                    user_agent: ua,
                    tls,
                    ..Request::default()
                })
                .map(|r| r.id.as_str())
        };
        assert_eq!(
            row("Mozilla/5.0 (Android 7.0; Mobile; rv:68.0) Gecko/68.0 Firefox/68.0", ""),
            Some("firefox-android")
        );
        assert_eq!(
            row(
                "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Mobile Safari/537.36",
                ""
            ),
            Some("chrome-reduced-user-agent")
        );
        assert_eq!(
            row(
                "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/115.0.0.0 Mobile Safari/537.36",
                ""
            ),
            None
        );
        assert_eq!(
            row("Dalvik/2.1.0 (Linux; U; Android 7.0; SM-G930F Build/NRD90M)", ""),
            Some("android-7.0-or-earlier")
        );
        assert_eq!(
            row("Mozilla/5.0 (Linux; Android 7.1; Pixel) Chrome/60.0", ""),
            Some("android-7.1-no-patch")
        );
        assert_eq!(row("Mozilla/5.0 (Linux; Android 7.1.1; Pixel) Chrome/60.0", ""), None);
        assert_eq!(row("okhttp/4.9.0", "TLSv1.3"), Some("okhttp-tls-1.3"));
        assert_eq!(row("okhttp/4.9.0", "TLSv1.2"), Some("okhttp"));
        assert_eq!(
            row("Mozilla/5.0 (iPhone; CPU iPhone OS 9_3_5 like Mac OS X) AppleWebKit/601.1.46", ""),
            Some("ios-before-10")
        );
        assert_eq!(
            row("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_6) AppleWebKit/601.7.7", ""),
            Some("macos-before-10.12.1")
        );
        assert_eq!(row("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_12_1) Safari/602.2.14", ""), None);
        assert_eq!(row("Java/1.8.0_131", ""), Some("java-8-before-u141"));
        assert_eq!(row("Java/1.8.0_141", ""), None);
        let excluded = table.classify(&Request {
            user_agent: "Dalvik/2.1.0 (Linux; U; Android 6.0)",
            worker_subrequest: true,
            ..Request::default()
        });
        assert_eq!(excluded, Class::Excluded);
        assert_eq!(class("curl/8.5.0", ""), Class::NotImpacted);
    }

    /// The forms other corpora hold (yauaa's, WhichBrowser's, woothee's test
    /// strings, shortened to what decides).
    #[test]
    fn crawlers_platform_tokens_and_app_tokens() {
        let cases: &[(&str, Class)] = &[
            // Crawlers, whatever platform they name.
            (
                "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2272.96 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (Linux; U; Android 4.0.4; en-us) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30 Google-Safety",
                Class::Crawler,
            ),
            ("Mediapartners-Google", Class::Crawler),
            (
                "Mozilla/5.0 (Linux; Android 5.0; SM-G900P Build/LRX21T) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0 Mobile Safari/537.36 (compatible; AdsBot-Google-Mobile; +http://www.google.com/mobile/adsbot.html)",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 9_1 like Mac OS X) AppleWebKit/601.1.46 (KHTML, like Gecko) Version/9.0 Mobile/13B143 Safari/601.1 (compatible; AdsBot-Google-Mobile; +http://www.google.com/mobile/adsbot.html)",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (Linux; Android 7.0; SM-G930V Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0.3071.125 Mobile Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 7_0 like Mac OS X) AppleWebKit/537.51.1 (KHTML, like Gecko) Version/7.0 Mobile/11A465 Safari/9537.53 BingPreview/1.0b",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (Linux; Android 6.0.1; Moto G (4)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/67.0 Mobile Safari/537.36 PTST/180626.140107",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 6_0 like Mac OS X) AppleWebKit/536.26 (KHTML, like Gecko) Version/6.0 Mobile/10A5376e Safari/8536.25 (Applebot/0.1)",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.9; rv:28.0) Gecko/20100101 Firefox/28.0 (FlipboardProxy/1.1; +http://flipboard.com/browserproxy)",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (Android 3.0; YRSpider; +http://www.yunrang.com/yrspider.html)",
                Class::Crawler,
            ),
            (
                "Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; AspiegelBot)",
                Class::Crawler,
            ),
            // A phone whose model has "bot" in its name is a phone.
            (
                "Mozilla/5.0 (Linux; Android 6.0; CUBOT NOTE S Build/MRA58K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/52.0 Mobile Safari/537.36",
                Class::Impacted,
            ),
            (
                "Orca-Android/2.2.5-release OS/4.0.3 Model/HTC_Sensation_Z710e VersionCode/108531 Product/Messenger",
                Class::Impacted,
            ),
            ("com.eurosport.news.android/3.5.9/Android/4.0.3/HUAWEI-U9200", Class::Impacted),
            // Android in the forms real corpora hold.
            (
                "Mozilla/5.0 (Linux; U; android 6.0.1; zh-cn) AppleWebKit/537.36 Mobile Safari/537.36",
                Class::Impacted,
            ),
            ("Mozilla/5.0 (Linux; Android-4.0.3; TV) AppleWebKit/534.30", Class::Impacted),
            (
                "Opera/9.80 (Linux; Andr0id 4.4.2; MStar) Presto/2.12 Version/12.50",
                Class::Impacted,
            ),
            ("SomeSDK/2.3 android/4.0.3", Class::Impacted),
            (
                "UCWEB/2.0 (Linux; U; Adr 4.0.4; en-US; GT-S7562) U2/1.0.0 UCBrowser/9.7.0.520 Mobile",
                Class::Impacted,
            ),
            ("Mozilla/5.0 (Linux; U; Android Eclair; md-us) AppleWebKit/530.17", Class::Impacted),
            ("Mozilla/5.0 (Linux; Android KeyLimePie) AppleWebKit/537.36", Class::Impacted),
            (
                "[FBAN/FB4A;FBAV/35.0.0.48.273;FBDM/{density=1.33125,width=800,height=1205};FBLC/en_US;FBCR/;FBPN/com.facebook.katana;FBDV/Nexus 7;FBSV/4.4.3;FBBK/1;]",
                Class::Impacted,
            ),
            ("MyApp/1.0 (Android API 25)", Class::Unknown),
            ("Mozilla/5.0 (Linux; U; Android Nougat; en-us) AppleWebKit/537.36", Class::Unknown),
            ("MyApp/1.0 (Android API 23)", Class::Impacted),
            ("MyApp/3.2 Android/22", Class::Impacted),
            ("Mozilla/5.0 (Linux;%20Android%206.0.1;%20SM-G920F)", Class::Impacted),
            // An app's version is not the OS's.
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 14_8_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 FABUILD-iOS/4.4.1",
                Class::NotImpacted,
            ),
            (
                "Mozilla/5.0 (Linux; Android 9; SM-G960F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0 Mobile Safari/537.36 Wallet Android/5.1.1",
                Class::NotImpacted,
            ),
            (
                "Mozilla/5.0 (Android 7.0; Mobile; rv:57.0) Gecko/57.0 QwantMobile/3.5",
                Class::NotImpacted,
            ),
            ("Outlook-iOS-Android/1.0", Class::NotImpacted),
            (
                "Mozilla/5.0 (Linux; Android 9; CUBOT X19) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/80.0 Mobile Safari/537.36",
                Class::NotImpacted,
            ),
            (
                "uphold-sdk-javascript/v2.4.1 (MT6737; 9; es_US) Wallet Android/5.1.1",
                Class::NotImpacted,
            ),
            (
                "uphold-sdk-javascript/v2.4.1 (MT6580; 6.0; en_US) Wallet Android/5.1.1",
                Class::Impacted,
            ),
            (
                "Shopify Mobile/iOS/9.124.2 (iPhone15,3/com.jadedpixel.shopify/16.6.0) - Build 1184",
                Class::NotImpacted,
            ),
            (
                "Mozilla/5.0 (Windows Phone 10.0; Android 4.2.1; Microsoft; Lumia 950) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/46.0 Mobile Safari/537.36 Edge/13.10586",
                Class::NotImpacted,
            ),
            (
                "Groupon/2.8.3084 (Android 4.3; LGE Mako / Google Nexus 4; )[preload=false;locale=de_DE;clientidbase=android-google]",
                Class::Impacted,
            ),
            (
                "Mozilla/5.0 (Linux; U; Android 2.1-update1; de-de; E10i Build/2.1.1.C.0.0) AppleWebKit/530.17 (KHTML, like Gecko) Version/4.0 Mobile Safari/530.17 Google-HTTP-Java-Client/1.10.3-beta (gzip)",
                Class::Impacted,
            ),
            ("AbtestCenter-okhttp/1.0", Class::Unknown),
            // Old Apple forms.
            (
                "Mozilla/5.0 (iPad; CPU iPad OS 8_0 like Mac OS X) AppleWebKit/600.1.4",
                Class::AlreadyBroken,
            ),
            (
                "Mozilla/5.0 (iPad; CPU OS 8.1.2 like Mac OS X) AppleWebKit/600.1.4",
                Class::AlreadyBroken,
            ),
            (
                "Mozilla/5.0 (iPad; U; CPU OS_3_2_2 like Mac OS X; en-us) AppleWebKit/531.21.10",
                Class::AlreadyBroken,
            ),
            ("Mozilla/5.0 (iPad; U; iPad; OS 5_0 like Mac OS X)", Class::AlreadyBroken),
            (
                "Mozilla/5.0 (iPhone; U; CPU like Mac OS X; en) AppleWebKit/420+ (KHTML, like Gecko) Version/3.0 Mobile/1A543a Safari/419.3",
                Class::AlreadyBroken,
            ),
            (
                "[FBAN/FBIOS;FBAV/60.0.0.37.141;FBBV/33303808;FBDV/iPhone5,2;FBMD/iPhone;FBSN/iPhone OS;FBSV/9.3.5;FBSS/2;FBCR/;FBID/phone;FBLC/en_US;FBOP/5]",
                Class::AlreadyBroken,
            ),
            ("Mozilla/4.0 (compatible; MSIE 5.23; Mac_PowerPC)", Class::AlreadyBroken),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X10_11_5) AppleWebKit/601.6.17",
                Class::AlreadyBroken,
            ),
        ];
        let mut wrong = Vec::new();
        for (ua, expected) in cases {
            let got = class(ua, "");
            if got != *expected {
                wrong.push(format!("{expected:?} expected, {got:?}: {ua}"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
        // The service's own verdict on bots, where Logpush carries it.
        let table = Table::builtin().expect("the table");
        let android_6 = "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X) AppleWebKit/537.36 Chrome/99.0 Mobile Safari/537.36";
        let with = |verified_bot: bool, bot_score: Option<u8>| {
            table.classify(&Request {
                user_agent: android_6,
                verified_bot,
                bot_score,
                ..Request::default()
            })
        };
        assert_eq!(with(false, None), Class::Impacted);
        assert_eq!(with(true, None), Class::Crawler);
        assert_eq!(with(false, Some(1)), Class::Crawler);
        assert_eq!(
            with(false, Some(2)),
            Class::Impacted,
            "a low score that is not certain stays a client"
        );
    }

    #[test]
    fn versions_compare_part_by_part() {
        let lt = |a: &str, b: &str| compare(&version(a).unwrap(), &version(b).unwrap()).is_lt();
        assert!(lt("7.0", "7.1") && lt("7", "7.1") && lt("7.1", "7.1.1") && lt("9_3_5", "10") && lt("10.11.6", "10.12.1"));
        assert!(!lt("10", "7.1") && !lt("7.1.0", "7.1"));
    }

    #[test]
    fn a_broken_table_is_an_error_at_its_row() {
        let bad = "version: 1\nrows:\n  - id: x\n    class: impacted\n    match: '('\n    why: w\n    citation: c\n";
        let e = Table::parse("t.yaml", bad).expect_err("no regex");
        assert!(e.to_string().contains("t.yaml:5:12"), "{e}");
        let unranged = "version: 1\nrows:\n  - id: x\n    class: impacted\n    match: 'a'\n    below: '7'\n    why: w\n    citation: c\n";
        assert!(
            Table::parse("t.yaml", unranged)
                .expect_err("no group")
                .to_string()
                .contains("`version` group")
        );
    }
}
