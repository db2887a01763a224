#!/usr/bin/env python3
"""The dashboard in a real browser: Chromium driven by selenium against a real `vouch serve`.

    python3 Tests/browser/test_dashboard.py [path/to/vouch]     (default: .build/debug/vouch)

Starts the server on 127.0.0.1 (a free port) with a temporary data directory, then, as a
person would: signs in, creates an app (its session lifetime typed with units, a bad one refused
inline), sets its access-token lifetime and audiences (a bad audience refused inline), creates a
service credential (shown once, proven with /introspect, then listed by name) and revokes it,
a provider and a key generated in the browser, proves a token signed with the
downloaded private key opens a session on a described device, sees the device on the user page,
cuts the key off with a reason after the confirmation page counts its session, sees the session
gone, signs one of two later devices out, validates a good and a bad token, suspends a user,
creates a registration secret, makes a webhook endpoint (a private URL refused inline, the secret
shown once), lists the event a suspension owes it and replays it, pauses it, finds that no page logs a console error (no /favicon.ico 404), is
refused a post without the CSRF token, and signs out. Screenshots go to .build-artifacts/screenshots/ (ignored by git; CI keeps them).

Exits 0 when every step passed, 1 naming the failed step otherwise. Without Chromium,
chromedriver or selenium it skips with exit 0, except in CI (CI=true), where it fails.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHOTS = os.path.join(ROOT, ".build-artifacts", "screenshots")
ADMIN_TOKEN = "browser-test-admin-token-" + os.urandom(8).hex()


def missing_tools():
    missing = [tool for tool in ("chromium", "chromedriver") if shutil.which(tool) is None]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip)")
    return missing


class JWKSSource:
    """A provider's JWKS on 127.0.0.1 (a thread of this process): one RSA key, or 503 once told to fail."""

    def __init__(self):
        import base64
        import http.server
        import threading
        from cryptography.hazmat.primitives.asymmetric import rsa

        numbers = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key().public_numbers()

        def b64(number):
            return base64.urlsafe_b64encode(number.to_bytes((number.bit_length() + 7) // 8, "big")).rstrip(b"=").decode()

        self.document = json.dumps({"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": "browser-idp-1",
                                              "n": b64(numbers.n), "e": b64(numbers.e)}]}).encode()
        self.failing = False
        source = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if source.failing:
                    self.send_response(503)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "max-age=300")
                self.end_headers()
                self.wfile.write(source.document)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/jwks.json" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()


class Server:
    """`vouch serve` on a free loopback port, stopped (SIGTERM, then SIGKILL) on exit."""

    def __init__(self, binary):
        self.data = tempfile.mkdtemp(prefix="vouch-browser-")
        env = dict(os.environ, VOUCH_ADMIN_TOKEN=ADMIN_TOKEN)
        self.log = open(os.path.join(self.data, "serve.log"), "w+")
        self.process = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", os.path.join(self.data, "data"),
             "--rate-limit", "0", "--allow-loopback-outbound"],
            stdout=subprocess.PIPE, stderr=self.log, env=env, text=True)
        printed = []
        for _ in range(20):  # a few lines (the data directory it created) come first
            line = self.process.stdout.readline()
            printed.append(line)
            if "listening on" in line or not line:
                break
        if "listening on" not in printed[-1]:
            raise RuntimeError("vouch serve did not start: " + "".join(printed) + self.tail())
        self.url = printed[-1].strip().split()[-1]

    def tail(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-3000:]

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.data, ignore_errors=True)

    def post_json(self, path, body):
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode() if body is not None else b"",
                                         method="POST", headers={"Content-Type": "application/json"})
        return self.exchange(request)

    def introspect(self, credential):
        """`POST /introspect` with a service credential: (200, {"active": false}) when it works."""
        return self.exchange(urllib.request.Request(
            self.url + "/introspect", data=b"token=not-a-token", method="POST",
            headers={"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer " + credential}))

    def get_json(self, path, session_token):
        return self.exchange(urllib.request.Request(self.url + path, headers={"Authorization": "Bearer " + session_token}))

    def exchange(self, request):
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")


class Steps:
    def __init__(self, server, binary, driver, downloads):
        self.server, self.binary, self.driver, self.downloads = server, binary, driver, downloads
        self.current = "(none)"
        self.shots = 0

    # ---- helpers -------------------------------------------------------------------------
    def step(self, name):
        self.current = name
        print("== " + name, flush=True)

    def shot(self, name, scroll_to=None):
        """A screenshot of the window; with `scroll_to` (CSS), that element scrolled to the top first."""
        if scroll_to:
            self.driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", self.find(scroll_to))
        self.shots += 1
        self.driver.save_screenshot(os.path.join(SHOTS, "%02d-%s.png" % (self.shots, name)))

    def open(self, path):
        self.driver.get(self.server.url + path)

    def find(self, css):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def finds(self, css):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self):
        return self.find("body").text

    def expect(self, condition, message):
        if not condition:
            raise AssertionError(message)

    def wait(self, predicate, what, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if predicate():
                    return
            except Exception:  # the page may be between loads
                pass
            time.sleep(0.1)
        raise AssertionError("timed out waiting for " + what)

    def submit(self, form_css, fields=None, button=None):
        from selenium.webdriver.support.ui import Select
        form = self.find(form_css)
        for name, value in (fields or {}).items():
            from selenium.webdriver.common.by import By
            element = form.find_element(By.NAME, name)
            if element.tag_name == "select":
                Select(element).select_by_visible_text(value)
            else:
                element.clear()
                element.send_keys(value)
        from selenium.webdriver.common.by import By
        form.find_element(By.CSS_SELECTOR, button or "button[type=submit]").click()

    def mint(self, provider, key, private_key, user, nonce):
        return subprocess.check_output(
            [self.binary, "token", "mint", "--provider-id", provider, "--key-id", key, "--private-key", private_key,
             # `--nonce=…`: a base64url nonce may start with `-`.
             "--user-id", user, "--nonce=" + nonce], text=True).strip()

    def sign_in_device(self, provider, key, private_key, app, name):
        """`POST /sessions` for alice from a device called `name`; returns the session token."""
        token = self.mint(provider, key, private_key, "alice", self.nonce())
        status, body = self.server.post_json("/sessions", {
            "identity_token": token, "app_id": app, "device": {"name": name, "platform": "Linux", "app_version": "1.0 (7)"}})
        self.expect(status == 201 and "session_token" in body, "POST /sessions answered %s %r" % (status, body))
        return body["session_token"]

    def nonce(self):
        status, body = self.server.post_json("/nonces", None)
        self.expect(status == 201, "POST /nonces answered %s" % status)
        return body["nonce"]

    def console_errors(self):
        """What the console logged as errors since the last look (reading the log empties it)."""
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def clean_console(self, page):
        # The icon is asked for after the page has loaded: a moment for that request to end.
        time.sleep(1)
        errors = self.console_errors()
        self.expect(not errors, "%s logged console errors: %r" % (page, errors))

    def no_horizontal_scroll(self, page):
        overflow = self.driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        self.expect(overflow <= 1, "%s scrolls sideways by %spx at phone width" % (page, overflow))

    # ---- the walk --------------------------------------------------------------------------
    def run(self):
        from selenium.webdriver.common.keys import Keys

        self.step("/ leads to the sign-in page")
        self.open("/")
        self.wait(lambda: self.driver.current_url.endswith("/dashboard/sign-in"), "the sign-in page")
        self.shot("sign-in")

        self.step("the sign-in page logs no console error: its icon is the dashboard's own, not a /favicon.ico 404")
        self.clean_console("/dashboard/sign-in")
        icon = self.find("link[rel=icon]").get_attribute("href")
        self.expect(icon.endswith("/dashboard/assets/favicon.svg"), "the page names its icon: %r" % icon)
        answer = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(arguments[0]).then(r => done([r.status, r.headers.get('Content-Type')]), e => done(String(e)));""", icon)
        self.expect(answer == [200, "image/svg+xml"], "the icon answers %r" % (answer,))

        self.step("a wrong admin token is refused inline")
        self.find("#admin-token").send_keys("not-the-token", Keys.ENTER)
        self.wait(lambda: "not the admin token" in self.text(), "the inline error")
        self.shot("sign-in-refused")

        self.step("sign in with the admin token, keyboard only")
        self.find("#admin-token").send_keys(ADMIN_TOKEN, Keys.ENTER)
        self.wait(lambda: self.driver.current_url.endswith("/dashboard/apps"), "the apps page")
        cookie = self.driver.get_cookie("vouch_dashboard")
        self.expect(cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Strict", "session cookie flags: %r" % cookie)

        self.step("create an app")
        self.submit("form[action='/dashboard/apps']", {"name": "Browser <App>", "session_ttl_seconds": "1h"})
        self.wait(lambda: "Created app Browser <App>" in self.text(), "the notice")
        self.expect("Sessions last 1 hour" in self.text(), "the lifetime is shown in words")
        self.expect("challenges answered within 30 seconds" in self.text(), "the default challenge margin is shown")
        self.expect("Live sockets on this instance: 0" in self.text(), "the app's live sockets are counted")
        app_id = self.find("section.app code.copy").text
        self.expect(app_id.startswith("layer:///apps/"), "app id shown: " + app_id)
        self.shot("apps")

        self.step("rename the app and change its session lifetime")
        self.submit("section.app form", {"name": "Browser App", "session_ttl_seconds": "90 minutes",
                                         "challenge_margin_seconds": "45s"})
        self.wait(lambda: "Saved app Browser App" in self.text(), "the rename notice")
        self.expect("challenges answered within 45 seconds" in self.text(), "the new margin is shown")
        self.expect("Sessions last 90 minutes" in self.text(), "the new lifetime is shown")
        self.expect(self.find("section.app input[name=session_ttl_seconds]").get_attribute("value") == "90 minutes",
                    "the field holds the same words")

        self.step("a lifetime the form cannot read is an inline error, and changes nothing")
        self.submit("section.app form", {"session_ttl_seconds": "soon"})
        self.wait(lambda: "must be a duration such as 30d, 12h, 90m" in self.find("[role=alert]").text, "the inline error")
        self.expect("Sessions last 90 minutes" in self.text(), "the lifetime is unchanged")
        self.shot("app-duration-refused")
        self.submit("section.app form", {"session_ttl_seconds": "2h"})
        self.wait(lambda: "Sessions last 2 hours" in self.text(), "the lifetime typed with a unit")

        self.step("set the access-token lifetime and the audiences, one per line")
        self.submit("section.app form.app-settings", {"access_token_ttl_seconds": "2m",
                                                      "audiences": "chat.example.com\nhttps://media.example.com"})
        self.wait(lambda: "Access tokens last 2 minutes" in self.text(), "the new access-token lifetime")
        self.expect("audiences: the app id, chat.example.com, https://media.example.com" in self.text(),
                    "the audiences are shown: " + self.find("section.app p.access-tokens").text)
        self.expect(self.find("section.app textarea[name=audiences]").get_attribute("value")
                    == "chat.example.com\nhttps://media.example.com", "the field holds them one per line")

        self.step("an audience with a space is an inline error, and changes nothing")
        self.submit("section.app form.app-settings", {"audiences": "chat server"})
        self.wait(lambda: "Each audience is 1…200 characters" in self.find("[role=alert]").text, "the inline error")
        self.expect("chat.example.com, https://media.example.com" in self.text(), "the audiences are unchanged")
        self.shot("app-audience-refused")

        self.step("create a service credential: shown once, it works, then listed by name")
        self.submit("section.app form.service-credential-form", {"name": "chat server"})
        self.wait(lambda: self.find("#created-credential").text.startswith("vsc_"), "the new credential")
        credential = self.find("#created-credential").text
        self.expect(len(credential) == 47, "vsc_ and 43 characters: %r" % credential)
        self.expect("copy it now" in self.find("#created-service-credential").text, "the note to copy it now")
        self.shot("service-credential-created")
        status, body = self.server.introspect(credential)
        self.expect(status == 200 and body == {"active": False}, "the credential works: %s %r" % (status, body))
        self.open("/dashboard/apps")
        self.expect(credential not in self.driver.page_source and not self.finds("#created-credential"),
                    "the credential is not shown again")
        cells = [cell.text for cell in self.finds("section.app table.service-credentials tr.credential-live td")]
        self.expect(cells[0] == "chat server" and cells[3] == "Revoke", "the credential's row: %r" % cells)
        self.shot("service-credentials", scroll_to="section.app form.app-settings")

        self.step("revoke the service credential: refused at once")
        self.submit("section.app table.service-credentials tr.credential-live form")
        self.wait(lambda: "Revoked service credential chat server" in self.find(".notice").text, "the revocation notice")
        self.expect(not self.finds("tr.credential-live") and len(self.finds("tr.credential-revoked")) == 1,
                    "the row shows it revoked, without a button")
        # Each instance caches a credential's record for a second: refused within it.
        self.wait(lambda: self.server.introspect(credential)[0] == 401, "the revoked credential refused", seconds=5)
        self.shot("service-credential-revoked", scroll_to="section.app table.service-credentials")

        self.step("create a provider and bind the app")
        self.find("nav a[href='/dashboard/providers']").click()
        self.submit("form[action='/dashboard/providers']", {"name": "Browser Backend"})
        self.wait(lambda: "Created provider Browser Backend" in self.text(), "the provider page")
        provider_id = self.find("#provider-id").text
        self.submit("form[action$='/bind']", {"app": "Browser App"})
        self.wait(lambda: "Bound " + app_id in self.text(), "the bind notice")

        self.step("generate a key pair in the browser; download the private key")
        self.find("#generate-key").click()
        self.wait(lambda: self.find("#keygen-result").is_displayed(), "the generated key", seconds=120)
        key_id = self.find("#generated-key-id").text
        private_pem = self.find("#private-key").get_attribute("value")
        self.expect(key_id.startswith("layer:///keys/"), "key id: " + key_id)
        self.expect(private_pem.startswith("-----BEGIN PRIVATE KEY-----"), "a PKCS#8 private key is shown")
        self.shot("key-generated")
        self.find("#download-private-key").click()
        downloaded = os.path.join(self.downloads, "vouch-%s-private.pem" % key_id.split("/")[-1])
        self.wait(lambda: os.path.exists(downloaded) and open(downloaded).read() == private_pem, "the download")
        self.open("/dashboard/providers/" + provider_id.split("/")[-1])
        self.expect(key_id in self.text(), "the new key is listed")
        self.shot("provider")

        self.step("a token signed with the downloaded private key opens a session on a described device")
        phone = self.sign_in_device(provider_id, key_id, downloaded, app_id, "Browser <test> phone")

        self.step("the key's table shows when it last verified a token")
        self.open("/dashboard/providers/" + provider_id.split("/")[-1])
        verified = self.find("tr.key-active td.last-verified").text
        self.expect(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", verified) is not None,
                    "last verified is a time after the sign-in: %r" % verified)
        self.shot("key-last-verified")

        self.step("the user page lists the device")
        user_page = "/dashboard/users?app=%s&user=alice" % app_id.split("/")[-1]
        self.open(user_page)
        cells = [cell.text for cell in self.finds("#user-devices tr.device td")]
        self.expect(cells[:3] == ["Browser <test> phone", "Linux", "1.0 (7)"], "the device's row: %r" % cells)
        self.expect(self.find("#user-sessions").text == "1", "one live session")
        self.shot("user-devices")

        self.step("cut off the key with a reason, after the confirmation page counts its one session")
        self.open("/dashboard/providers/" + provider_id.split("/")[-1])
        self.expect(self.find("tr.key-active td.key-cutoff").text == "never", "no cutoff yet")
        self.submit("tr.key-active form.key-cutoff-form")
        self.wait(lambda: self.find("#cutoff-live").text == "1", "the confirmation page's count")
        self.expect(self.find("#cutoff-object").text == key_id, "the confirmation names the key")
        self.find("#cutoff-reason").send_keys("Browser test: key rotated")
        self.shot("cutoff-confirm")
        self.submit("#cutoff-confirm")
        self.wait(lambda: "1 session ended" in self.find(".notice").text, "the cutoff's result")
        self.expect("Browser test: key rotated" in self.find("tr.key-active td.key-cutoff").text, "the key shows its last cutoff")
        self.shot("key-cut-off")
        status, body = self.server.get_json("/users/me", phone)
        self.expect(status == 401 and body.get("data", {}).get("reason") == "session_revoked"
                    and body["data"].get("detail") == "Browser test: key rotated",
                    "the device is told to sign in again, with the reason: %s %r" % (status, body))

        self.step("the cut-off session is gone from the user page")
        self.open(user_page)
        self.expect(self.find("#user-sessions").text == "0" and not self.finds("#user-devices tr.device"),
                    "no live session is listed")
        self.shot("user-no-devices")

        self.step("two devices sign in after the cutoff; one is signed out from the user page")
        tablet = self.sign_in_device(provider_id, key_id, downloaded, app_id, "Tablet")
        self.sign_in_device(provider_id, key_id, downloaded, app_id, "Second phone")
        self.open(user_page)
        self.expect(self.find("#user-sessions").text == "2", "sessions opened after the cutoff live")
        self.find("#user-devices tr.device:first-child button").click()
        self.wait(lambda: "Signed out “Tablet”" in self.find(".notice").text, "the sign-out notice")
        names = [row.find_elements("css selector", "td")[0].text for row in self.finds("#user-devices tr.device")]
        self.expect(names == ["Second phone"], "only the other device is left: %r" % names)
        self.expect(self.server.get_json("/users/me", tablet)[0] == 401, "the signed-out device is refused")
        self.shot("user-device-signed-out")

        self.step("the validation tool: a good token")
        good = self.mint(provider_id, key_id, downloaded, "bob", self.nonce())
        self.find("nav a[href='/dashboard/validate']").click()
        self.submit("form[action='/dashboard/validate']", {"app": "Browser App", "identity_token": good})
        self.wait(lambda: self.find("#verdict").text.startswith("Valid"), "a valid verdict")
        self.expect("Server time" in self.text() and '"prn": "bob"' in self.find("#token-claims").text, "claims shown")
        self.shot("validate-good")

        self.step("the validation tool: a bad token shows every reason with its hint")
        header, claims, _ = good.split(".")
        _, _, other_signature = self.mint(provider_id, key_id, downloaded, "carol", self.nonce()).split(".")
        self.submit("form[action='/dashboard/validate']", {"identity_token": header + "." + claims + "." + other_signature})
        self.wait(lambda: self.find("#verdict").text.startswith("Not valid"), "an invalid verdict")
        reasons = [element.text for element in self.finds("code.reason")]
        self.expect(any("signature" in reason for reason in reasons), "a signature reason: %r" % reasons)
        self.shot("validate-bad")

        self.step("the nonce was not consumed: the good token still opens a session")
        status, body = self.server.post_json("/sessions", {"identity_token": good, "app_id": app_id})
        self.expect(status == 201, "POST /sessions answered %s %r" % (status, body))

        self.step("disable and enable the key")
        self.open("/dashboard/providers/" + provider_id.split("/")[-1])
        self.submit("tr.key-active form[action$='/status']")
        self.wait(lambda: "is now disabled" in self.text(), "disabled")
        self.submit("tr.key-disabled form[action$='/status']")
        self.wait(lambda: "is now active" in self.text(), "enabled")

        self.step("look up and suspend a user")
        self.find("nav a[href='/dashboard/users']").click()
        self.submit("form[action='/dashboard/users']", {"app": "Browser App", "user": "alice"})
        self.wait(lambda: self.find("#user-sessions").text == "1", "alice's one session")
        self.submit("form[action='/dashboard/users/suspension']")
        self.wait(lambda: self.find("#user-status").text == "suspended", "suspended")
        self.expect(self.find("#user-sessions").text == "0", "suspension ended the session")
        self.shot("user-suspended")
        status, body = self.server.post_json("/sessions", {"identity_token": self.mint(
            provider_id, key_id, downloaded, "alice", self.nonce()), "app_id": app_id})
        self.expect(status != 201, "a suspended user cannot sign in (got %s)" % status)

        self.step("a registration secret is shown once")
        self.open("/dashboard/apps/%s/secrets" % app_id.split("/")[-1])
        self.submit("form[action$='/secrets']")
        self.wait(lambda: self.find("#created-application-secret").text != "", "the new secret")
        self.shot("secret-created")

        self.step("webhooks: a private URL refused inline, an endpoint made with its secret shown once, then paused")
        webhooks = "/dashboard/apps/%s/webhooks" % app_id.split("/")[-1]
        self.open("/dashboard/apps")
        self.find("a[href='%s']" % webhooks).click()
        self.wait(lambda: self.driver.current_url.endswith(webhooks), "the webhooks page")
        self.find("form.webhook-form input[name='event_session.ended']").click()
        self.submit("form.webhook-form", {"url": "https://10.0.0.9/hook"})
        self.wait(lambda: "private address" in self.find("[role=alert]").text, "the refusal, inline")
        self.shot("webhook-refused")
        self.find("form.webhook-form input[name='event_session.ended']").click()
        self.find("form.webhook-form input[name='event_user.suspended']").click()
        self.submit("form.webhook-form", {"url": "https://93.184.215.14/vouch-events"})
        self.wait(lambda: self.find("#created-webhook-secret").text.startswith("whsec_"), "the new endpoint's secret")
        secret = self.find("#created-webhook-secret").text
        self.expect("session.ended, user.suspended" in self.find("table.webhooks").text, "the endpoint's events listed")
        self.shot("webhook-created")
        self.open(webhooks)
        self.expect(secret not in self.driver.page_source, "the secret is not shown again")

        self.step("webhook deliveries: a suspension's event is owed to the endpoint, listed with its state, and replayed")
        self.open("/dashboard/users")
        self.submit("form[action='/dashboard/users']", {"app": "Browser App", "user": "mallory"})
        self.wait(lambda: self.find("#user-status").text == "active", "mallory's page")
        self.submit("form[action='/dashboard/users/suspension']")
        self.wait(lambda: self.find("#user-status").text == "suspended", "mallory suspended")
        self.open(webhooks)
        self.find("table.webhooks a[href*='/webhooks/']").click()
        self.wait(lambda: "mallory #1" in self.find("table.deliveries").text, "the suspension's event, owed to the endpoint")
        self.expect("user.suspended" in self.find("table.deliveries").text, "the event's type listed")
        self.shot("webhook-deliveries")
        self.submit("table.deliveries form[action$='/replay']")
        self.wait(lambda: "will be sent again" in self.find(".notice").text, "the replay notice")
        self.open(webhooks)
        self.submit("table.webhooks form[action$='/pause']")
        self.wait(lambda: "Paused the webhook" in self.find(".notice").text, "the pause notice")
        self.expect("paused by an operator" in self.find("table.webhooks").text, "the row says why it is paused")
        self.expect(self.finds("table.webhooks form[action$='/resume']"), "a Resume button")
        self.shot("webhooks")

        self.step("a user's data: downloaded as a file, then the user erased, a pseudonym left in the audit log")
        self.open("/dashboard/users?app=%s&user=mallory" % app_id.split("/")[-1])
        self.find("#user-export").click()
        exported = os.path.join(self.downloads, "vouch-user-export.json")
        self.wait(lambda: os.path.exists(exported) and open(exported).read().endswith("}"), "the export file")
        export = json.load(open(exported))
        self.expect(export["user"]["user_id"] == "mallory" and export["suspended"] is True, "the export: %r" % export)
        self.expect([e["type"] for e in export["events"]] == ["user.suspended"], "the user's event: %r" % export["events"])
        self.find("#user-erase input[name='confirm']").click()
        self.shot("user-data", scroll_to="#user-erase")
        self.submit("#user-erase")
        self.wait(lambda: "Deleted mallory" in self.find(".notice").text, "the erasure's notice")
        pseudonym = re.search(r"erased-[0-9a-f]{24}", self.find(".notice").text).group(0)
        self.open("/dashboard/users?app=%s&user=mallory" % app_id.split("/")[-1])
        self.expect("has not signed in to this app yet" in self.text(), "mallory is unknown now")
        self.open("/dashboard/audit")
        self.expect(pseudonym in self.text() and "mallory" not in self.text(), "the audit log names the pseudonym only")

        self.step("no page logs a console error, and none asks for /favicon.ico")
        # What earlier steps logged (their deliberate refusals) is read and let go, all but CSP violations.
        earlier = [entry["message"] for entry in self.driver.get_log("browser")]
        self.expect(not [m for m in earlier if "Content Security Policy" in m], "CSP violations: %r" % earlier)
        app_uuid, provider_uuid = app_id.split("/")[-1], provider_id.split("/")[-1]
        for path in ("/dashboard/apps", "/dashboard/apps/%s/secrets" % app_uuid, "/dashboard/apps/%s/webhooks" % app_uuid,
                     "/dashboard/providers",
                     "/dashboard/providers/" + provider_uuid, "/dashboard/users?app=%s&user=alice" % app_uuid,
                     "/dashboard/validate", "/dashboard/audit"):
            self.open(path)
            self.clean_console(path)

        self.step("a post without the CSRF token is refused and changes nothing")
        status = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch('/dashboard/apps', {method: 'POST', credentials: 'same-origin',
                  headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'name=Forged'})
              .then(r => done(r.status), e => done(String(e)));""")
        self.expect(status == 403, "the forged post answered %r" % status)
        self.open("/dashboard/apps")
        self.expect("Forged" not in self.text(), "no app was created by the forged post")

        self.step("delete the key, with confirmation")
        self.open("/dashboard/providers/" + provider_id.split("/")[-1])
        self.find("form.confirm-delete input[name=confirm]").click()
        self.submit("form.confirm-delete")
        self.wait(lambda: "Deleted key" in self.text(), "the deletion")

        self.step("give the provider a key source (its JWKS URL), fetch now: the key it publishes is listed")
        source = JWKSSource()
        try:
            self.submit("#key-source-form", {"jwks_uri": source.url})
            self.wait(lambda: "Saved the key source" in self.text(), "the notice")
            self.expect("Not fetched yet" in self.find("#key-source").text, "a new source is pending")
            self.submit("form[action$='/key-source/refresh']")
            self.wait(lambda: self.find("#key-source-status").text == "ok", "the fetched set")
            rows = [row.text for row in self.finds("#source-keys tbody tr")]
            self.expect(len(rows) == 1 and "browser-idp-1" in rows[0] and "published" in rows[0], "the key's row: %r" % rows)
            self.shot("provider-key-source", scroll_to="#key-source")

            self.step("the source fails: the alert says since when, why, and until when its last keys verify")
            source.failing = True
            time.sleep(11)  # the instance's turn to fetch again (10 s)
            self.submit("form[action$='/key-source/refresh']")
            self.wait(lambda: self.finds("#key-source-alert"), "the alert")
            alert = self.find("#key-source-alert").text
            self.expect("HTTP 503" in alert and "still verify until" in alert, "the alert: " + alert)
            self.shot("provider-key-source-failing", scroll_to="#key-source")

            self.step("a JWKS URL at a private address is refused inline")
            self.submit("#key-source-form", {"jwks_uri": "http://10.0.0.8/jwks.json"})
            self.wait(lambda: "private address" in self.find("[role=alert]").text, "the inline refusal")
        finally:
            source.stop()

        self.step("the audit page lists what this test just did, by this dashboard session")
        self.find("nav a[href='/dashboard/audit']").click()
        self.wait(lambda: self.driver.current_url.endswith("/dashboard/audit"), "the audit page")
        rows = [[cell.text for cell in row.find_elements("css selector", "td")]
                for row in self.finds("#audit-entries tbody tr")]
        actions = [row[2] for row in rows]
        for action in ("dashboard.sign_in", "app.create", "app.update", "provider.create", "provider.bind", "key.create",
                       "key.disable", "key.enable", "user.suspend", "secret.create", "key.delete", "sign_in.rejected",
                       "cutoff.key", "session.revoke", "service_credential.create", "service_credential.revoke",
                       "webhook.create", "webhook.update", "webhook.replay"):
            self.expect(action in actions, "the audit page shows %s: %r" % (action, actions))
        admin_rows = [row for row in rows if row[2] != "sign_in.rejected"]
        self.expect(all(row[1].startswith("dashboard:") for row in admin_rows),
                    "every admin entry is this dashboard session's: %r" % admin_rows)
        self.expect("provider.update" in actions and "provider.key_source_refresh" in actions,
                    "the key source's changes and fetches are audited: %r" % actions)
        refused = [row[2:4] for row in admin_rows if row[3] != "ok"]
        self.expect(refused == [["provider.update", "http_422"], ["webhook.create", "http_422"]]
                    + [["app.update", "http_422"]] * 2,
                    "only the private JWKS URL, the private webhook, the unreadable lifetime and the bad audience "
                    "were refused: %r" % refused)
        self.expect(len({row[1] for row in admin_rows}) == 1, "one session did all of it")
        self.expect(actions.index("key.delete") < actions.index("app.create"), "newest first")
        self.expect("Forged" not in self.text() and ADMIN_TOKEN not in self.driver.page_source,
                    "neither the refused post nor the admin token appear")
        self.shot("audit")

        self.step("the audit page filters with a plain GET form and pages with links")
        self.submit("#audit-filters", {"kind": "Rejected sign-ins"})
        self.wait(lambda: "kind=sign_in_rejected" in self.driver.current_url, "the filtered page")
        rejected = [[cell.text for cell in row.find_elements("css selector", "td")]
                    for row in self.finds("#audit-entries tbody tr")]
        self.expect(rejected and all(row[2] == "sign_in.rejected" and row[1] == "—" for row in rejected),
                    "only rejected sign-ins, with no actor: %r" % rejected)
        self.expect(any(row[3] == "eit_user_suspended" and row[4] == "Browser App" for row in rejected),
                    "the suspended user's refused sign-in, by reason and app: %r" % rejected)
        self.shot("audit-rejected")
        self.find("#audit-entries tbody td a[title='%s']" % app_id.split("/")[-1]).click()
        self.wait(lambda: "app_id=" + app_id.split("/")[-1] in self.driver.current_url, "the app's entries")
        self.expect("app.create" in self.text() and "provider.create" not in self.text(),
                    "the app's link shows the app's entries only")
        self.open("/dashboard/audit?limit=3")
        first_page = [row.text for row in self.finds("#audit-entries tbody tr")]
        self.expect(len(first_page) == 3, "three entries per page: %r" % first_page)
        self.find("#audit-older").click()
        self.wait(lambda: "before=" in self.driver.current_url, "the next page")
        second_page = [row.text for row in self.finds("#audit-entries tbody tr")]
        self.expect(second_page and not set(second_page) & set(first_page), "the older page holds other entries")
        self.expect(self.find("#audit-newest").is_displayed(), "a link back to the newest entries")

        self.step("usable at phone width")
        self.driver.set_window_size(390, 844)
        for path, name in (("/dashboard/apps", "phone-apps"),
                           ("/dashboard/providers/" + provider_id.split("/")[-1], "phone-provider"),
                           ("/dashboard/users?app=%s&user=alice" % app_id.split("/")[-1], "phone-users"),
                           ("/dashboard/audit", "phone-audit")):
            self.open(path)
            self.no_horizontal_scroll(path)
            self.shot(name)
        self.driver.set_window_size(1280, 1000)

        self.step("no Content-Security-Policy violations were reported")
        violations = [entry["message"] for entry in self.driver.get_log("browser")
                      if "Content Security Policy" in entry["message"]]
        self.expect(not violations, "CSP violations: %r" % violations)

        self.step("sign out: the session is gone")
        self.open("/dashboard/apps")
        self.find(".sign-out button").click()
        self.wait(lambda: self.driver.current_url.endswith("/dashboard/sign-in"), "the sign-in page")
        self.open("/dashboard/apps")
        self.wait(lambda: self.driver.current_url.endswith("/dashboard/sign-in"), "the redirect to sign-in")
        self.shot("signed-out")


class NoScriptSteps(Steps):
    """The same dashboard with JavaScript turned off: every form still does its job."""

    def run(self):
        from selenium.webdriver.common.keys import Keys

        self.step("JavaScript off: sign in")
        self.open("/dashboard/sign-in")
        self.find("#admin-token").send_keys(ADMIN_TOKEN, Keys.ENTER)
        self.wait(lambda: self.driver.current_url.endswith("/dashboard/apps"), "the apps page")

        self.step("JavaScript off: create an app and a provider, validate a token")
        self.submit("form[action='/dashboard/apps']", {"name": "No Script App"})
        self.wait(lambda: "Created app No Script App" in self.text(), "the notice")
        app_id = self.find(".notice").text.split(": ")[-1]
        self.open("/dashboard/providers")
        self.submit("form[action='/dashboard/providers']", {"name": "No Script Backend"})
        self.wait(lambda: "Created provider No Script Backend" in self.text(), "the provider page")
        self.expect(self.find("#keygen").get_dom_attribute("hidden") is not None,
                    "the key generator stays hidden without JavaScript")
        self.step("JavaScript off: cut off an app's sessions through the confirmation page")
        self.open("/dashboard/apps")
        self.submit("#app-%s form.cutoff-form" % app_id.split("/")[-1], {"reason": "No script cutoff"})
        self.wait(lambda: self.find("#cutoff-live").text == "0", "the confirmation page")
        self.expect(self.find("#cutoff-reason").get_attribute("value") == "No script cutoff", "the reason carried over")
        self.shot("nojs-cutoff-confirm")
        self.submit("#cutoff-confirm")
        self.wait(lambda: "0 sessions ended" in self.find(".notice").text, "the cutoff's result")
        self.expect("No script cutoff" in self.text(), "the app shows its last cutoff")

        self.step("JavaScript off: create a service credential, shown once")
        self.submit("#app-%s form.service-credential-form" % app_id.split("/")[-1], {"name": "No script service"})
        self.wait(lambda: self.find("#created-credential").text.startswith("vsc_"), "the new credential")
        self.expect(self.server.introspect(self.find("#created-credential").text)[0] == 200, "the credential works")

        self.open("/dashboard/validate")
        self.submit("form[action='/dashboard/validate']", {"app": "No Script App", "identity_token": "not.a.token"})
        self.wait(lambda: self.find("#verdict").text.startswith("Not valid"), "an invalid verdict")
        self.shot("nojs-validate")

        self.step("JavaScript off: sign out")
        self.find(".sign-out button").click()
        self.wait(lambda: self.driver.current_url.endswith("/dashboard/sign-in"), "the sign-in page")


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/debug/vouch"))
    missing = missing_tools()
    if missing:
        message = "browser test: missing " + ", ".join(missing) + " (apt-get install chromium chromium-driver; pip install selenium)"
        if os.environ.get("CI") == "true":
            print(message + ": FAILED (CI=true)", file=sys.stderr)
            return 1
        print(message + ": skipped", file=sys.stderr)
        return 0
    if not os.access(binary, os.X_OK):
        print("browser test: no vouch binary at " + binary, file=sys.stderr)
        return 1
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.makedirs(SHOTS, exist_ok=True)
    for old in os.listdir(SHOTS):
        os.remove(os.path.join(SHOTS, old))
    downloads = tempfile.mkdtemp(prefix="vouch-downloads-")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                     "--disable-gpu", "--no-first-run"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"download.default_directory": downloads,
                                              "download.prompt_for_download": False})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    server = Server(binary)
    driver = None
    steps = None
    try:
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
        driver.set_page_load_timeout(60)
        driver.set_script_timeout(60)
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
        steps = Steps(server, binary, driver, downloads)
        steps.run()
        # The same browser with the page's scripts turned off (WebDriver's own commands still run).
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        shots = steps.shots
        steps = NoScriptSteps(server, binary, driver, downloads)
        steps.shots = shots
        steps.run()
        print("browser test: OK (%d screenshots in %s)" % (steps.shots, os.path.relpath(SHOTS, ROOT)))
        return 0
    except Exception:
        traceback.print_exc()
        if driver is not None:
            try:
                driver.save_screenshot(os.path.join(SHOTS, "failure.png"))
            except Exception:
                pass
        print("---- vouch serve log\n" + server.tail(), file=sys.stderr)
        print("browser test: FAILED at step: %s" % (steps.current if steps else "starting Chromium"), file=sys.stderr)
        return 1
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
        shutil.rmtree(downloads, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
