"""The Storage and Pub/Sub pages in headless Chromium: objects listed by folder and paged, image
and text previews, uploads (file picker and drag and drop), metadata edits, download tokens and
deletes read back over the Storage API; a client's upload shows without a reload; a message
published in the page shows in the topic's recent messages and in its subscription's backlog,
and one published by a client follows without a reload. Storage changes reach the event stream
as `storage` events."""
import base64
import json
import struct
import urllib.parse
import uuid
import zlib

import pytest
import requests
from selenium.common.exceptions import ElementClickInterceptedException, NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By

from conftest import RunningEmulator
from ui.browser import button, make_driver, open_dialog, screenshot, wait, wait_css, wait_text
from ui.test_events_stream import follow

OWNER = {"Authorization": "Bearer owner"}
PROJECT = "demo-ui-storage"
BUCKET = f"{PROJECT}.appspot.com"


def png(width, height):
    """An RGB PNG of a diagonal gradient (something to see in the preview)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + bytes(c for x in range(width) for c in (x * 4 % 256, y * 4 % 256, 160)) for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


PNG = png(64, 48)
XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def emu():
    e = RunningEmulator([], project=PROJECT)
    try:
        yield e
    finally:
        e.stop()


@pytest.fixture(scope="module")
def driver():
    d = make_driver()
    yield d
    d.quit()


def put(emu, name, data, content_type):
    r = requests.post(f"{emu.url}/v0/b/{BUCKET}/o", params={"name": name}, data=data, headers={**OWNER, "Content-Type": content_type}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def meta(emu, name):
    r = requests.get(f"{emu.url}/storage/v1/b/{BUCKET}/o/{urllib.parse.quote(name, safe='')}", headers=OWNER, timeout=10)
    return r


def page(emu, name, rest="", **params):
    q = urllib.parse.urlencode({"project": PROJECT, **params})
    tail = "/" + "/".join(urllib.parse.quote(s, safe="") for s in rest.split("/")) if rest else ""
    return f"{emu.url}/ui/{name}{tail}?{q}"


def click(driver, css):
    """Clicks the element matching `css`, again if the page re-rendered it meanwhile (live updates)."""
    def done(d):
        try:
            d.find_element(By.CSS_SELECTOR, css).click()
            return True
        except (StaleElementReferenceException, NoSuchElementException, ElementClickInterceptedException):
            return False  # re-rendered, or under a toast for a moment
    wait(driver, done, message=f"could not click {css}")


def click_button(driver, text):
    """Clicks the button labelled `text`, again if the page re-rendered it meanwhile."""
    def done(d):
        try:
            button(d, text, timeout=1).click()
            return True
        except (StaleElementReferenceException, ElementClickInterceptedException, TimeoutException):
            return False
    wait(driver, done, message=f"could not click {text!r}")


def text_of(driver, css, needle=""):
    """Waits until an element matching `css` shows `needle`; returns its text. Read in one script
    call, so a live re-render between finding and reading cannot make it stale."""
    def found(d):
        texts = d.execute_script("return Array.from(document.querySelectorAll(arguments[0])).map((e) => e.innerText)", css)
        return next((t for t in texts if needle in t), False)
    return wait(driver, found, message=f"no {css} showing {needle!r}")


def objects(driver):
    """The names the open folder lists (read in one script call: the list re-renders live)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(\"ul[aria-label^='Objects in'] li\")).map((li) => li.innerText.split('\\n')[0].trim())")


def test_storage_change_events_reach_the_stream(emu):
    q, r = follow(emu, PROJECT)
    try:
        put(emu, "events/a.txt", b"a", "text/plain")
        e = q.get(timeout=10)
        assert e == {"bucket": BUCKET, "time": e["time"], "kinds": ["finalized"], "names": ["events/a.txt"], "more": False}
        requests.delete(f"{emu.url}/v0/b/{BUCKET}/o/events%2Fa.txt", headers=OWNER, timeout=10).raise_for_status()
        assert q.get(timeout=10)["kinds"] == ["deleted"]
    finally:
        r.close()


def test_folders_objects_paging_and_previews(emu, driver):
    put(emu, "photos/dot.png", PNG, "image/png")
    put(emu, "photos/notes.txt", f"hello from the bucket {XSS}".encode(), "text/plain")
    for i in range(55):
        put(emu, f"many/f{i:03}.bin", b"x", "application/octet-stream")
    driver.get(page(emu, "storage", BUCKET))
    wait_text(driver, "h1", "Storage")
    wait(driver, lambda d: {"many/", "photos/"} <= set(objects(d)))
    wait_text(driver, "ul[aria-label='Buckets'] li", BUCKET)
    # A folder holds 55 objects: 50 shown, "Load more" shows the rest.
    driver.find_element(By.CSS_SELECTOR, "ul[aria-label^='Objects in'] a[href*='/many']").click()
    wait(driver, lambda d: len(objects(d)) == 50)
    assert objects(driver)[0] == "f000.bin"
    button(driver, "Load more").click()
    wait(driver, lambda d: len(objects(d)) == 55)
    assert "many" in driver.current_url
    # The text preview shows the object's text as text; the image preview is an <img>.
    driver.get(page(emu, "storage", f"{BUCKET}/photos", object="photos/notes.txt"))
    wait_text(driver, "pre.text-preview", "hello from the bucket")
    assert XSS in text_of(driver, "pre.text-preview")
    click(driver, "ul[aria-label^='Objects in'] li[data-name='photos/dot.png'] button")
    img = wait_css(driver, "img.preview")
    wait(driver, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) == 64)
    assert "image/png" in text_of(driver, "section.card", "Content type")
    screenshot(driver, "storage")


def test_upload_edit_token_and_delete(emu, driver, tmp_path):
    driver.get(page(emu, "storage", f"{BUCKET}/up"))
    wait_text(driver, ".pane", "This folder is empty.")
    # The file picker.
    f = tmp_path / "picked.txt"
    f.write_text("picked in the browser")
    driver.find_element(By.CSS_SELECTOR, "input[type='file']").send_keys(str(f))
    wait_text(driver, "ul[aria-label^='Objects in'] li", "picked.txt")
    r = requests.get(f"{emu.url}/v0/b/{BUCKET}/o/up%2Fpicked.txt", params={"alt": "media"}, headers=OWNER, timeout=10)
    assert r.text == "picked in the browser"
    # Drag and drop: a drop event carrying a file.
    driver.execute_script("""
        const dt = new DataTransfer();
        dt.items.add(new File(['dropped bytes'], 'dropped.json', {type: 'application/json'}));
        document.querySelector('.dropzone').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));""")
    wait_text(driver, "ul[aria-label^='Objects in'] li", "dropped.json")
    assert meta(emu, "up/dropped.json").json()["contentType"] == "application/json"
    # The single dropped file is opened: edit its metadata.
    wait_text(driver, "pre.text-preview", "dropped bytes")
    click_button(driver, "Edit metadata")
    dialog = open_dialog(driver)
    ctype = dialog.find_element(By.CSS_SELECTOR, "label.field input")
    ctype.clear()
    ctype.send_keys("text/plain")
    inputs = dialog.find_elements(By.CSS_SELECTOR, "label.field input")
    inputs[1].send_keys("public, max-age=60")
    dialog.find_element(By.CSS_SELECTOR, "textarea[aria-label='Custom metadata']").send_keys("owner = alice\nstage = draft")
    button(driver, "Save", dialog).click()
    wait_text(driver, "section.card", "max-age=60")
    o = meta(emu, "up/dropped.json").json()
    assert o["contentType"] == "text/plain" and o["cacheControl"] == "public, max-age=60"
    assert {k: v for k, v in o["metadata"].items() if k != "firebaseStorageDownloadTokens"} == {"owner": "alice", "stage": "draft"}
    # Removing a line removes the key.
    click_button(driver, "Edit metadata")
    dialog = open_dialog(driver)
    area = dialog.find_element(By.CSS_SELECTOR, "textarea[aria-label='Custom metadata']")
    area.clear()
    area.send_keys("owner = bob")
    button(driver, "Save", dialog).click()
    wait_text(driver, "section.card dl", "bob")
    assert {k: v for k, v in meta(emu, "up/dropped.json").json().get("metadata", {}).items() if k != "firebaseStorageDownloadTokens"} == {"owner": "bob"}
    # Download tokens: create one, its URL downloads without credentials; revoke it.
    before = meta(emu, "up/dropped.json").json().get("metadata", {}).get("firebaseStorageDownloadTokens", "")
    click_button(driver, "Create token")
    wait(driver, lambda d: meta(emu, "up/dropped.json").json().get("metadata", {}).get("firebaseStorageDownloadTokens", "") != before)
    tokens = meta(emu, "up/dropped.json").json()["metadata"]["firebaseStorageDownloadTokens"].split(",")
    def newest_link(d):
        try:
            a = d.find_element(By.CSS_SELECTOR, "ul[aria-label='Download tokens'] li:last-child a")
            return a.text == tokens[-1] and a.get_attribute("href")
        except (StaleElementReferenceException, NoSuchElementException):
            return False
    href = wait(driver, newest_link)
    assert requests.get(href, timeout=10).text == "dropped bytes"
    n = len(tokens)
    click(driver, "ul[aria-label='Download tokens'] li:last-child button")
    button(driver, "Revoke", open_dialog(driver)).click()
    wait(driver, lambda d: len([t for t in meta(emu, "up/dropped.json").json().get("metadata", {}).get("firebaseStorageDownloadTokens", "").split(",") if t]) == n - 1)
    # Download: the bytes fetched with the owner's credentials, saved under the object's base name
    # (the page's anchor click is caught: a headless browser's downloads are not readable here).
    driver.execute_script("""
        const made = URL.createObjectURL.bind(URL);
        window.__blobs = [];
        URL.createObjectURL = (b) => { window.__blobs.push(b); return made(b); };
        HTMLAnchorElement.prototype.click = function () { window.__saved = this.download; };""")
    click_button(driver, "Download")
    wait(driver, lambda d: d.execute_script("return window.__saved") == "dropped.json")
    assert driver.execute_async_script("const done = arguments[0]; window.__blobs[window.__blobs.length - 1].text().then(done)") == "dropped bytes"
    # Delete.
    click_button(driver, "Delete")
    button(driver, "Delete", open_dialog(driver)).click()
    wait(driver, lambda d: "dropped.json" not in objects(d))
    assert meta(emu, "up/dropped.json").status_code == 404


def test_a_clients_upload_and_delete_show_without_a_reload(emu, driver):
    driver.get(page(emu, "storage", f"{BUCKET}/live"))
    wait_text(driver, ".pane", "This folder is empty.")
    driver.execute_script("window.__same = true")
    put(emu, "live/from-client.txt", b"v1", "text/plain")
    wait_text(driver, "ul[aria-label^='Objects in'] li", "from-client.txt")
    click(driver, "ul[aria-label^='Objects in'] li[data-name='live/from-client.txt'] button")
    wait_text(driver, "pre.text-preview", "v1")
    put(emu, "live/from-client.txt", b"version two", "text/plain")  # the open object follows
    wait_text(driver, "pre.text-preview", "version two")
    requests.delete(f"{emu.url}/v0/b/{BUCKET}/o/live%2Ffrom-client.txt", headers=OWNER, timeout=10).raise_for_status()
    wait(driver, lambda d: "from-client.txt" not in objects(d))
    assert driver.execute_script("return window.__same") is True  # no reload


def pubsub(emu, method, path, body=None):
    r = requests.request(method, f"{emu.url}/v1/projects/{PROJECT}/{path}", json=body, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def test_publish_in_the_page_shows_recent_messages_and_backlog(emu, driver):
    topic = "orders-" + uuid.uuid4().hex[:6]
    pubsub(emu, "PUT", f"topics/{topic}", {})
    pubsub(emu, "PUT", f"subscriptions/{topic}-sub", {"topic": f"projects/{PROJECT}/topics/{topic}", "ackDeadlineSeconds": 42,
                                                       "enableMessageOrdering": True})
    driver.get(page(emu, "pubsub"))
    wait_text(driver, "h1", "Pub/Sub")
    click(driver, f"table[aria-label='Topics'] tr[data-key$='/topics/{topic}'] button.link")
    form = wait_css(driver, f"form[aria-label='Publish to {topic}']")
    assert f"topic={topic}" in driver.current_url
    form.find_element(By.CSS_SELECTOR, "textarea[aria-label='Message data']").send_keys(f'{{"id": 1, "html": "{XSS}"}}')
    form.find_element(By.CSS_SELECTOR, "textarea[aria-label='Attributes']").send_keys("kind = order\nregion = eu")
    form.find_element(By.CSS_SELECTOR, "input[aria-label='Ordering key']").send_keys("customer-7")
    button(driver, "Publish", form).click()
    row = text_of(driver, "table[aria-label='Recent messages'] tbody tr", "customer-7")
    assert XSS in row and "kind = order" in row and "region = eu" in row
    backlog = f"table[aria-label='Subscriptions'] tr[data-key$='/{topic}-sub'] td:nth-child(3)"
    wait(driver, lambda d: text_of(d, backlog) == "1")
    sub = text_of(driver, "table[aria-label='Subscriptions'] tbody tr", f"{topic}-sub")
    assert "ack 42 s" in sub and "ordered" in sub
    # What the page published is what a subscriber pulls.
    pulled = pubsub(emu, "POST", f"subscriptions/{topic}-sub:pull", {"maxMessages": 10})["receivedMessages"]
    m = pulled[0]["message"]
    assert json.loads(base64.b64decode(m["data"])) == {"id": 1, "html": XSS}
    assert m["attributes"] == {"kind": "order", "region": "eu"} and m["orderingKey"] == "customer-7"
    # Acknowledged: the backlog empties; the recent list keeps the message.
    pubsub(emu, "POST", f"subscriptions/{topic}-sub:acknowledge", {"ackIds": [pulled[0]["ackId"]]})
    wait(driver, lambda d: text_of(d, backlog) == "0")
    # A client's publish follows without a reload.
    data = base64.b64encode(b"from a client").decode()
    pubsub(emu, "POST", f"topics/{topic}:publish", {"messages": [{"data": data}]})
    wait_text(driver, "table[aria-label='Recent messages'] tbody tr:first-child", "from a client")
    wait(driver, lambda d: text_of(d, backlog) == "1")
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, ".toast"))  # nothing over the picture
    screenshot(driver, "pubsub")
    # The deep link survives a reload.
    driver.refresh()
    wait_text(driver, "table[aria-label='Recent messages'] tbody tr", "from a client")


def test_overview_counts_storage_and_pubsub(emu, driver):
    driver.get(page(emu, ""))
    listed = requests.get(f"{emu.url}/emulator/v1/projects/{PROJECT}/storage/buckets", timeout=10).json()["buckets"]
    lines = text_of(driver, "section.card[aria-label='Storage']", "buckets").split("\n")
    assert lines[lines.index("objects") - 1] == f"{sum(b['objects'] for b in listed):,}" and lines[lines.index("buckets") - 1] == str(len(listed))
    lines = text_of(driver, "section.card[aria-label='Pub/Sub']", "topics").split("\n")
    assert int(lines[lines.index("topics") - 1]) >= 1
    driver.find_element(By.CSS_SELECTOR, "#nav a[href^='/ui/pubsub']").click()
    wait_text(driver, "h1", "Pub/Sub")
    driver.find_element(By.CSS_SELECTOR, "#nav a[href^='/ui/storage']").click()
    wait_text(driver, "h1", "Storage")
