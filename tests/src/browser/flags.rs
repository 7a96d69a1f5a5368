//! The command line and preferences Chromium runs with: headless, in a
//! profile of its own, and with every feature that would reach another
//! host turned off. Two nets catch what the switches miss: names other
//! than the loopback ones resolve to nothing, and any request that is not
//! for loopback goes to the rig's stray listener instead of the network.

use std::path::Path;

use serde_json::{json, Value};

/// A name that resolves to 127.0.0.1 in the rig's browser, as an
/// attacker's name does once its DNS answer is rebound to loopback: what
/// a DNS-rebinding page would make the browser send as `Host`. It is not
/// a real name (`.test` is reserved), and nothing else resolves.
pub const REBINDING_NAME: &str = "rebind.test";

/// Features that fetch from Google's servers on their own (hints, models,
/// translation, media routes, autofill, certificate-transparency lists,
/// the network-time clock), or start a background service that does.
const DISABLED_FEATURES: &[&str] = &[
    "OptimizationHints",
    "OptimizationHintsFetching",
    "OptimizationGuideModelDownloading",
    "OptimizationTargetPrediction",
    "MediaRouter",
    "DialMediaRouteProvider",
    "Translate",
    "AutofillServerCommunication",
    "CertificateTransparencyComponentUpdater",
    "NetworkTimeServiceQuerying",
    "InterestFeedContentSuggestions",
    "SafeBrowsingBetterTelemetryOptIn",
    "PrivacySandboxSettings4",
];

/// Chromium's switches for a test: `profile` is a fresh directory of the
/// test's own, and `stray_port` the loopback port of the listener that
/// records whatever tries to leave.
pub(super) fn chromium_args(profile: &Path, stray_port: u16, as_root: bool) -> Vec<String> {
    let mut args = vec![
        "--headless=new".to_owned(),
        format!("--user-data-dir={}", profile.display()),
        // Nothing in the background: no networking on its own, component
        // or extension updates, sync, bundled apps, extensions,
        // domain-reliability beacons, hyperlink-auditing pings, first-run
        // pages or default-browser checks.
        "--disable-background-networking".to_owned(),
        "--disable-component-update".to_owned(),
        "--disable-component-extensions-with-background-pages".to_owned(),
        "--disable-sync".to_owned(),
        "--disable-default-apps".to_owned(),
        "--disable-extensions".to_owned(),
        "--disable-domain-reliability".to_owned(),
        "--disable-client-side-phishing-detection".to_owned(),
        "--safebrowsing-disable-auto-update".to_owned(),
        "--disable-breakpad".to_owned(),
        "--no-pings".to_owned(),
        "--no-first-run".to_owned(),
        "--no-default-browser-check".to_owned(),
        "--disable-search-engine-choice-screen".to_owned(),
        "--disable-field-trial-config".to_owned(),
        // Metrics are recorded (some code paths expect it) but never sent.
        "--metrics-recording-only".to_owned(),
        format!("--disable-features={}", DISABLED_FEATURES.join(",")),
        // Two services the switches above leave on in this version (the
        // component updater's check for required components, and the
        // signed-in accounts lookup), found by the stray listener: their
        // servers are moved to port 0 of loopback, where no connection
        // can be made, so they fail here without a request.
        "--component-updater=url-source=http://127.0.0.1:0/".to_owned(),
        "--gaia-url=http://127.0.0.1:0/".to_owned(),
        // Every name but the loopback ones (127.0.0.2 too: the host's
        // sandbox proxy for MCP Apps views listens there) resolves to
        // nothing, except one name of the test's own that stands for an
        // attacker's name whose DNS now answers 127.0.0.1 (a rebinding).
        format!(
            "--host-resolver-rules=MAP {REBINDING_NAME} 127.0.0.1, MAP * ~NOTFOUND, \
             EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE 127.0.0.2"
        ),
        // Every request that is not for loopback goes to the stray
        // listener. Chromium bypasses a proxy for loopback implicitly;
        // the bypass list says so in so many words.
        format!("--proxy-server=http://127.0.0.1:{stray_port}"),
        format!("--proxy-bypass-list=127.0.0.1;127.0.0.2;localhost;[::1];{REBINDING_NAME}"),
        // Containers often have a small /dev/shm; a file under /tmp serves.
        "--disable-dev-shm-usage".to_owned(),
        "--window-size=1280,800".to_owned(),
    ];
    if as_root {
        // Chromium refuses to start as root with its sandbox on (the
        // sandbox needs an unprivileged user to drop to); CI runs as root.
        args.push("--no-sandbox".to_owned());
    }
    args
}

/// Preferences of the fresh profile: no Safe Browsing lookups, no
/// prediction of the next page (which preconnects and prefetches), no
/// search suggestions or search engine (whose server Chromium preconnects
/// to), no spelling service, no signing in.
pub(super) fn chromium_prefs() -> Value {
    json!({
        "safebrowsing": { "enabled": false },
        "net": { "network_prediction_options": 2 },
        "search": { "suggest_enabled": false },
        // Typing in a text box otherwise fetches a dictionary (through
        // redirector.gvt1.com).
        "spellcheck": { "use_spelling_service": false, "dictionaries": [], "dictionary": "" },
        "browser": { "enable_spellchecking": false },
        "translate": { "enabled": false },
        "signin": { "allowed": false },
        "default_search_provider": { "enabled": false },
        // The default engine of Debian's build is DuckDuckGo, whose start
        // page Chromium preconnects to; one on a closed loopback port
        // (port 1) takes its place, with no page of its own.
        "default_search_provider_data": { "template_url_data": {
            "short_name": "none",
            "keyword": "none",
            "url": "http://127.0.0.1:1/?q={searchTerms}",
            "new_tab_url": "about:blank",
            "prepopulate_id": 0,
        } },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_is_off_only_for_root() {
        let profile = Path::new("/tmp/profile");
        let user = chromium_args(profile, 9, false);
        let root = chromium_args(profile, 9, true);
        assert!(!user.iter().any(|arg| arg == "--no-sandbox"));
        assert!(root.iter().any(|arg| arg == "--no-sandbox"));
        assert!(user.contains(&"--proxy-server=http://127.0.0.1:9".to_owned()));
        assert!(user.contains(&"--user-data-dir=/tmp/profile".to_owned()));
    }
}
