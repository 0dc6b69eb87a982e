//! A real browser for the pages crdgen writes: Debian's Chromium, headless, driven over
//! its DevTools protocol on the debugging pipe (`--remote-debugging-pipe`: commands in
//! on descriptor 3, answers and events out on 4, each a JSON message ended by a NUL).
//! No HTTP or WebSocket client is needed, and nothing listens on a port.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one answer may take before the browser is taken for hung.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// A running headless Chromium and one page in it.
pub struct Browser {
    child: Child,
    commands: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
    session: String,
    /// Every event the page sent so far, in order.
    pub events: Vec<Value>,
    _profile: tempfile::TempDir,
}

/// Where Debian installs Chromium (`.ci/run` installs it when missing).
const CHROMIUM: &str = "/usr/bin/chromium";

impl Browser {
    /// A headless Chromium with an empty profile and a blank page, its network
    /// switched off but for what a page asks; `Err` (why) when none can start.
    pub fn start() -> Result<Browser, String> {
        let chromium = std::env::var("CRDGEN_CHROMIUM").unwrap_or_else(|_| CHROMIUM.to_owned());
        if !Path::new(&chromium).exists() {
            return Err(format!("no {chromium} (Debian's `chromium` package)"));
        }
        let profile = tempfile::tempdir().map_err(|e| e.to_string())?;
        // The shell puts our pipes on the descriptors the debugging pipe uses, and
        // Chromium's own output aside.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 0</dev/null 1>/dev/null 2>/dev/null"#)
            .arg(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--remote-debugging-pipe",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {chromium}: {e}"))?;
        let commands = child.stdin.take().expect("piped");
        let output = child.stdout.take().expect("piped");
        let (send, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(output);
            let mut buf = Vec::new();
            while reader.read_until(0, &mut buf).is_ok_and(|n| n > 0) {
                buf.pop();
                if let Ok(message) = serde_json::from_slice(&buf)
                    && send.send(message).is_err()
                {
                    return;
                }
                buf.clear();
            }
        });
        let mut browser = Browser {
            child,
            commands,
            messages,
            next_id: 0,
            session: String::new(),
            events: Vec::new(),
            _profile: profile,
        };
        let target = browser.call("Target.createTarget", json!({"url": "about:blank"}))?;
        let target = target["targetId"].as_str().unwrap_or_default().to_owned();
        let attached = browser.call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        )?;
        browser.session = attached["sessionId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        for domain in ["Runtime", "Log", "Network", "Page"] {
            browser.call(&format!("{domain}.enable"), json!({}))?;
        }
        Ok(browser)
    }

    /// Sends a command (to the page, once attached) and waits for its answer, keeping
    /// the page's events that come meanwhile.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            message["sessionId"] = self.session.clone().into();
        }
        let mut bytes = serde_json::to_vec(&message).map_err(|e| e.to_string())?;
        bytes.push(0);
        self.commands
            .write_all(&bytes)
            .and_then(|()| self.commands.flush())
            .map_err(|e| format!("{method}: the browser is gone: {e}"))?;
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        loop {
            let message = self.next_message(deadline, method)?;
            if message["id"] == id {
                if let Some(error) = message.get("error") {
                    return Err(format!("{method}: {error}"));
                }
                return Ok(message["result"].clone());
            }
        }
    }

    /// Opens `path` (a file) and waits for its load event.
    pub fn open(&mut self, path: &Path) -> Result<(), String> {
        let url = format!("file://{}", path.display());
        self.call("Page.navigate", json!({"url": url}))?;
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        let seen = |events: &[Value]| events.iter().any(|e| e["method"] == "Page.loadEventFired");
        while !seen(&self.events) {
            self.next_message(deadline, "Page.loadEventFired")?;
        }
        Ok(())
    }

    /// Runs `expression` in the page and answers its value (a promise's, awaited).
    pub fn eval(&mut self, expression: &str) -> Result<Value, String> {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        )?;
        if let Some(exception) = result.get("exceptionDetails") {
            return Err(format!("the page threw: {exception}"));
        }
        Ok(result["result"]["value"].clone())
    }

    /// Lays the page out in a window `width` pixels wide (and 900 high), as a desktop
    /// browser of that size would.
    pub fn set_width(&mut self, width: u32) -> Result<(), String> {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
        )
        .map(drop)
    }

    /// A PNG of the page as it shows now.
    pub fn screenshot(&mut self) -> Result<Vec<u8>, String> {
        use base64::Engine as _;
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}))?;
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap_or_default())
            .map_err(|e| e.to_string())
    }

    /// Every console error, uncaught exception and error logged so far.
    pub fn errors(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match e["method"].as_str()? {
                "Runtime.exceptionThrown" => Some(e["params"]["exceptionDetails"].to_string()),
                "Runtime.consoleAPICalled" if e["params"]["type"] == "error" => {
                    Some(e["params"]["args"].to_string())
                }
                "Log.entryAdded" if e["params"]["entry"]["level"] == "error" => {
                    Some(e["params"]["entry"].to_string())
                }
                _ => None,
            })
            .collect()
    }

    /// Every URL the page asked the network for.
    pub fn requests(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["method"] == "Network.requestWillBeSent")
            .filter_map(|e| e["params"]["request"]["url"].as_str().map(str::to_owned))
            .collect()
    }

    fn next_message(&mut self, deadline: Instant, waiting: &str) -> Result<Value, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.messages.recv_timeout(left) {
            Ok(message) => {
                if message.get("method").is_some() {
                    self.events.push(message.clone());
                }
                Ok(message)
            }
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("no {waiting} within {ANSWER_TIMEOUT:?}"))
            }
            Err(RecvTimeoutError::Disconnected) => {
                Err(format!("the browser ended before {waiting}"))
            }
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.session.clear();
        let _ = self.call("Browser.close", json!({}));
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
