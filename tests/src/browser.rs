//! A real headless Chromium driven over WebDriver, for end-to-end tests of
//! the pages a local web app serves on loopback: Debian's `chromium` and
//! `chromium-driver`, installed by the test when missing, started in a
//! fresh profile with everything that would reach another host turned
//! off, and stopped with their process group when the [`Browser`] is
//! dropped.
//!
//! Whatever still tries to leave goes to a listener of the rig's own (the
//! browser's proxy) which forwards nothing and records it: a test asserts
//! that [`Browser::strays`] is empty. Names other than `localhost`
//! resolve to nothing, a second net behind the proxy.
//!
//! ```no_run
//! # async fn run() -> Result<(), String> {
//! use std::time::Duration;
//! use mcp_tests::browser::Browser;
//!
//! let browser = Browser::start().await?;
//! browser.goto("http://127.0.0.1:8080/").await?;
//! browser.click("#go").await?;
//! browser.wait_for_text("#status", "done", Duration::from_secs(5)).await?;
//! let png = browser.screenshot("after-go").await?;
//! assert!(png.is_file());
//! assert!(browser.cookies().await?.iter().all(|c| c.http_only));
//! assert_eq!(browser.strays(), []);
//! # Ok(()) }
//! ```

mod driver;
mod flags;
mod strays;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};

use driver::Driver;
pub use flags::REBINDING_NAME;
pub use strays::Stray;
use strays::StrayListener;

/// The Debian version of both packages, the one bookworm-security offered
/// when the rig was written and which its tests ran with. The archive
/// replaces Chromium with each upstream release, so this or any newer
/// version is accepted ([`crate::debian::ensure_at_least`]); the browser
/// and the driver must only be the same version, which
/// [`Browser::version`] reports.
pub const VERSION: &str = "156.0.8078.114-1~deb12u1";

/// The browser's package and the program it installs.
const BROWSER: (&str, &str) = ("chromium", "chromium");

/// The driver's package and the program it installs.
const DRIVER: (&str, &str) = ("chromium-driver", "chromedriver");

/// The browser itself, run without Debian's wrapper script
/// (`/usr/bin/chromium`): the wrapper adds Google API keys, which turn on
/// services that call Google, and loads the packaged extensions.
const BROWSER_BINARY: &str = "/usr/lib/chromium/chromium";

/// A cookie as the browser holds it, with the attributes a test of a
/// session cookie asserts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cookie {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// The host it is sent to.
    pub domain: Option<String>,
    /// The path it is sent for.
    pub path: Option<String>,
    /// Whether scripts are kept from reading it.
    pub http_only: bool,
    /// Whether it is sent over HTTPS only.
    pub secure: bool,
    /// `Strict`, `Lax` or `None`, as the browser reports it.
    pub same_site: Option<String>,
}

/// A headless Chromium with a WebDriver session open on it.
#[derive(Debug)]
pub struct Browser {
    client: Client,
    session: String,
    version: String,
    // Dropped in this order: the driver (and with its group, Chromium)
    // before the listener Chromium might still reach and the profile
    // Chromium writes to, which is kept only to be removed.
    driver: Driver,
    strays: StrayListener,
    _scratch: Scratch,
}

impl Browser {
    /// Installs Chromium and its driver if they are missing, checks that
    /// they are the same version, starts the driver and opens a session
    /// on a fresh headless browser.
    ///
    /// Call it from a multi-threaded Tokio runtime: the install and the
    /// driver's start block one of its threads while they last.
    ///
    /// # Errors
    ///
    /// A message naming what is missing when the packages cannot be
    /// installed here (see [`crate::debian`]), naming both versions when
    /// the browser's and the driver's differ, or saying why the driver or
    /// the browser did not start.
    pub async fn start() -> Result<Browser, String> {
        let (chromium, chromedriver, version) = tokio::task::spawn_blocking(install)
            .await
            .map_err(|e| format!("the install of Chromium panicked: {e}"))??;
        let scratch = Scratch::create()?;
        let strays = StrayListener::start()?;
        let driver = {
            let dir = scratch.0.clone();
            tokio::task::spawn_blocking(move || Driver::start(&chromedriver, &dir))
                .await
                .map_err(|e| format!("the start of chromedriver panicked: {e}"))??
        };
        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "goog:chromeOptions".to_owned(),
            json!({
                "binary": chromium,
                "args": flags::chromium_args(&scratch.profile(), strays.port(), crate::debian::is_root()),
                "prefs": flags::chromium_prefs(),
            }),
        );
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities)
            .connect(&driver.url())
            .await
            .map_err(|e| {
                format!(
                    "chromedriver opens no session on {}: {e}; {}",
                    chromium.display(),
                    driver.log_tail()
                )
            })?;
        let session = client
            .session_id()
            .await
            .ok()
            .flatten()
            .ok_or_else(|| "chromedriver answered without a session id".to_owned())?;
        let browser = Browser {
            client,
            session,
            version,
            driver,
            strays,
            _scratch: scratch,
        };
        browser.check_session_version()?;
        Ok(browser)
    }

    /// The driver checks the browser's version at the session's start;
    /// this is the version the session reports, said plainly if it is
    /// not the one the programs reported.
    fn check_session_version(&self) -> Result<(), String> {
        let reported = self
            .client
            .capabilities()
            .and_then(|capabilities| capabilities.get("browserVersion"))
            .and_then(Value::as_str);
        match reported {
            Some(reported) if reported == self.version => Ok(()),
            other => Err(format!(
                "the session reports Chromium {}, not {} as `chromium --version` did",
                other.unwrap_or("(no browserVersion)"),
                self.version
            )),
        }
    }

    /// The upstream version of Chromium and of its driver, which are the
    /// same (`156.0.8078.114`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The WebDriver client, for what the methods here do not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Loads `url` and waits for the page's load event.
    ///
    /// # Errors
    ///
    /// The driver's error, with the URL.
    pub async fn goto(&self, url: &str) -> Result<(), String> {
        self.client
            .goto(url)
            .await
            .map_err(|e| format!("cannot load {url}: {e}"))
    }

    /// The URL the browser shows now.
    ///
    /// # Errors
    ///
    /// The driver's error.
    pub async fn current_url(&self) -> Result<String, String> {
        self.client
            .current_url()
            .await
            .map(String::from)
            .map_err(|e| format!("no current URL: {e}"))
    }

    /// The first element `css` selects, now.
    ///
    /// # Errors
    ///
    /// The selector and the driver's error, when nothing matches.
    pub async fn find(&self, css: &str) -> Result<Element, String> {
        self.client
            .find(Locator::Css(css))
            .await
            .map_err(|e| format!("no element matches `{css}`: {e}"))
    }

    /// Every element `css` selects, now; none is no error.
    ///
    /// # Errors
    ///
    /// The selector and the driver's error.
    pub async fn find_all(&self, css: &str) -> Result<Vec<Element>, String> {
        self.client
            .find_all(Locator::Css(css))
            .await
            .map_err(|e| format!("cannot look for `{css}`: {e}"))
    }

    /// The rendered text of the first element `css` selects.
    ///
    /// # Errors
    ///
    /// As [`Browser::find`], or the driver's error reading the text.
    pub async fn text_of(&self, css: &str) -> Result<String, String> {
        self.find(css)
            .await?
            .text()
            .await
            .map_err(|e| format!("cannot read the text of `{css}`: {e}"))
    }

    /// Clicks the first element `css` selects, as a person would: the
    /// driver refuses when it is hidden or covered.
    ///
    /// # Errors
    ///
    /// As [`Browser::find`], or the driver's refusal to click.
    pub async fn click(&self, css: &str) -> Result<(), String> {
        self.find(css)
            .await?
            .click()
            .await
            .map_err(|e| format!("cannot click `{css}`: {e}"))
    }

    /// Empties the field `css` selects and types `text` into it.
    ///
    /// # Errors
    ///
    /// As [`Browser::find`], or the driver's refusal to type.
    pub async fn fill(&self, css: &str, text: &str) -> Result<(), String> {
        let field = self.find(css).await?;
        field
            .clear()
            .await
            .map_err(|e| format!("cannot empty `{css}`: {e}"))?;
        field
            .send_keys(text)
            .await
            .map_err(|e| format!("cannot type into `{css}`: {e}"))
    }

    /// The first element `css` selects, once there is one, waiting up to
    /// `timeout`.
    ///
    /// # Errors
    ///
    /// The selector and the timeout, when none appeared in time.
    pub async fn wait_for(&self, css: &str, timeout: Duration) -> Result<Element, String> {
        self.client
            .wait()
            .at_most(timeout)
            .every(Duration::from_millis(25))
            .for_element(Locator::Css(css))
            .await
            .map_err(|e| format!("no element matches `{css}` within {timeout:?}: {e}"))
    }

    /// Waits up to `timeout` for the text of the first element `css`
    /// selects to contain `text`, and returns the whole text.
    ///
    /// # Errors
    ///
    /// The selector, the text expected and the text last seen, when it
    /// did not come in time.
    pub async fn wait_for_text(
        &self,
        css: &str,
        text: &str,
        timeout: Duration,
    ) -> Result<String, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let seen = self.text_of(css).await;
            match &seen {
                Ok(seen) if seen.contains(text) => return Ok(seen.clone()),
                _ if Instant::now() >= deadline => {
                    return Err(format!(
                        "the text of `{css}` does not contain {text:?} within {timeout:?}: \
                         last {seen:?}"
                    ))
                }
                _ => tokio::time::sleep(Duration::from_millis(25)).await,
            }
        }
    }

    /// Runs `script` in the page as the body of a function called with
    /// `args` (`arguments[0]`, ...), and returns what it returns. The
    /// driver runs it whatever the page's CSP says.
    ///
    /// # Errors
    ///
    /// The driver's error, or the script's exception.
    pub async fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value, String> {
        self.client
            .execute(script, args)
            .await
            .map_err(|e| format!("the script failed: {e}"))
    }

    /// Saves what the page shows as
    /// `<target>/browser-artifacts/<name>.png` and returns the file's
    /// path, kept after the test for a person to look at.
    ///
    /// # Errors
    ///
    /// A name that is not a plain file name, or the driver's or the file
    /// system's error.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf, String> {
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(format!("{name:?} is not a plain file name"));
        }
        let png = self
            .client
            .screenshot()
            .await
            .map_err(|e| format!("no screenshot: {e}"))?;
        let dir = artifacts_dir();
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path)
    }

    /// The cookies the browser holds for the page it shows, `HttpOnly`
    /// ones included (WebDriver sees what scripts cannot).
    ///
    /// # Errors
    ///
    /// The driver's error.
    pub async fn cookies(&self) -> Result<Vec<Cookie>, String> {
        let cookies = self
            .client
            .get_all_cookies()
            .await
            .map_err(|e| format!("cannot read the cookies: {e}"))?;
        Ok(cookies
            .into_iter()
            .map(|cookie| Cookie {
                name: cookie.name().to_owned(),
                value: cookie.value().to_owned(),
                domain: cookie.domain().map(str::to_owned),
                path: cookie.path().map(str::to_owned),
                http_only: cookie.http_only().unwrap_or(false),
                secure: cookie.secure().unwrap_or(false),
                same_site: cookie.same_site().map(|same_site| same_site.to_string()),
            })
            .collect())
    }

    /// Every request that tried to leave this machine so far, as the
    /// stray listener recorded it: empty when all is well.
    pub fn strays(&self) -> Vec<Stray> {
        self.strays.seen()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ending the session has the driver quit Chromium cleanly; the
        // driver's own Drop then stops their process group regardless.
        self.driver.end_session(&self.session);
    }
}

/// Where screenshots are kept: `browser-artifacts` in the target directory.
pub fn artifacts_dir() -> PathBuf {
    crate::build::target_dir().join("browser-artifacts")
}

/// Installs both packages if need be and returns the browser's and the
/// driver's paths and their common upstream version.
fn install() -> Result<(PathBuf, PathBuf, String), String> {
    let wrapper = crate::debian::ensure_at_least(BROWSER.0, VERSION, BROWSER.1)?;
    let chromium = PathBuf::from(BROWSER_BINARY);
    if !chromium.is_file() {
        return Err(format!(
            "{} has no {BROWSER_BINARY}: this rig knows the layout of Debian's {} package only",
            wrapper.display(),
            BROWSER.0
        ));
    }
    let chromedriver = crate::debian::ensure_at_least(DRIVER.0, VERSION, DRIVER.1)?;
    let browser = reported_version(&chromium)?;
    let driver = reported_version(&chromedriver)?;
    if browser != driver {
        return Err(format!(
            "Chromium is {browser} but chromedriver is {driver}: the driver only drives its \
             own version; install {} and {} of one version (`apt-get install {}={VERSION} \
             {}={VERSION}`, or both at the newest)",
            BROWSER.0, DRIVER.0, BROWSER.0, DRIVER.0
        ));
    }
    Ok((chromium, chromedriver, browser))
}

/// The upstream version a program prints with `--version`: the first word
/// that starts with a digit (`Chromium 156.0.8078.114 built on Debian`,
/// `ChromeDriver 156.0.8078.114 (...)`).
fn reported_version(program: &Path) -> Result<String, String> {
    let out = std::process::Command::new(program)
        .arg("--version")
        .output()
        .map_err(|e| format!("{} does not run: {e}", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    version_in(&text).ok_or_else(|| {
        format!(
            "{} --version says no version: {text:?} {:?}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn version_in(text: &str) -> Option<String> {
    text.split_whitespace()
        .find(|word| word.starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_owned)
}

/// A directory of the browser's own under the system's temporary one:
/// the profile and the driver's log; removed when dropped.
#[derive(Debug)]
struct Scratch(PathBuf);

impl Scratch {
    fn create() -> Result<Scratch, String> {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for a profile: {e}"))?;
        let suffix: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let dir = std::env::temp_dir().join(format!("mcp-browser-{suffix}"));
        std::fs::create_dir_all(dir.join("profile"))
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }

    fn profile(&self) -> PathBuf {
        self.0.join("profile")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::version_in;

    #[test]
    fn the_version_is_the_first_number() {
        assert_eq!(
            version_in("Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)\n")
                .as_deref(),
            Some("156.0.8078.114")
        );
        assert_eq!(
            version_in("ChromeDriver 156.0.8078.114 (abc-refs/branch-heads/8078@{#1})\n")
                .as_deref(),
            Some("156.0.8078.114")
        );
        assert_eq!(version_in("ChromeDriver\n"), None);
    }
}
