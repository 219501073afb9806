"""The web UI in headless Chromium, against the MakeItSo story (Examples/MakeItSo): every page shows
the story, edits made in the UI are seen over the API, the request log explains a denial, a
function's invocation shows its log line, the control page resets and restores, an open document
follows API writes without a reload, and hostile values are shown as text.

Screenshots of every page land in .build/ui-screenshots (or UI_SCREENSHOTS_DIR: `UI_SCREENSHOTS_DIR=docs/ui`
regenerates the pictures the README shows)."""
import time
import urllib.parse

import pytest
import requests
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from conftest import RunningEmulator
from makeitso.test_story import Device, idle
from ui.browser import button, make_driver, open_dialog, resize, screenshot, wait, wait_css, wait_text

OWNER = {"Authorization": "Bearer owner"}
XSS = "<img src=x onerror=alert(1)>"
APPLE = ("apple-alice", "alice@privaterelay.appleid.com")


@pytest.fixture(scope="module")
def story():
    """The MakeItSo story told over HTTP, plus a denied read, a note holding hostile markup, and a
    user whose display name is hostile markup."""
    emu = RunningEmulator(["--config", "Examples/MakeItSo/emulator.json"], project=None)
    try:
        phone, tablet = Device(emu), Device(emu)
        phone.sign_in_anonymously()
        alice = phone.uid
        phone.add_task("buy milk")
        phone.add_task("call mum")
        linked = phone.link_apple(*APPLE)
        assert linked.status_code == 200, linked.text
        tablet.sign_in_anonymously()
        anonymous_token = tablet.token
        tablet.add_task("water plants")
        tablet.sign_in_with_apple(*APPLE)
        r = tablet.call("migrateTasks", {"idToken": anonymous_token})
        assert r.status_code == 200, r.text
        idle(emu)
        # A read the rules deny: no ID token.
        task = requests.post(f"{tablet.docs}:runQuery", headers={"Authorization": f"Bearer {tablet.token}"}, timeout=10, json={"structuredQuery": {
            "from": [{"collectionId": "tasks"}], "where": {"fieldFilter": {"field": {"fieldPath": "userId"}, "op": "EQUAL", "value": {"stringValue": alice}}}}})
        task_path = next(e["document"]["name"] for e in task.json() if "document" in e).split("/documents/")[1]
        denied = requests.get(f"{tablet.docs}/{task_path}", timeout=10)
        assert denied.status_code == 403
        # Hostile markup in a document and in a user.
        assert requests.patch(f"{tablet.docs}/notes/xss", headers=OWNER, timeout=10,
                              json={"fields": {"html": {"stringValue": XSS}}}).status_code == 200
        r = requests.post(f"{emu.url}/identitytoolkit.googleapis.com/v1/projects/{emu.project}/accounts", headers=OWNER, timeout=10,
                          json={"localId": "xss-user", "displayName": XSS, "email": "mallory@example.com"})
        assert r.status_code == 200, r.text
        yield {"emu": emu, "alice": alice, "task": task_path, "docs": tablet.docs}
    finally:
        emu.stop()


@pytest.fixture(scope="module")
def driver():
    d = make_driver()
    yield d
    d.quit()


def url(story, page, rest="", **params):
    emu = story["emu"]
    q = urllib.parse.urlencode({"project": emu.project, **params})
    tail = "/" + "/".join(urllib.parse.quote(s, safe="") for s in rest.split("/")) if rest else ""
    return f"{emu.url}/ui/{page}{tail}?{q}" if page else f"{emu.url}/ui/?{q}"


def api(story, method, path, **kw):
    r = requests.request(method, story["emu"].url + path, headers=OWNER, timeout=10, **kw)
    assert r.status_code == 200, r.text
    return r.json()


def no_alert(driver):
    try:
        driver.switch_to.alert
    except NoAlertPresentException:
        return True
    return False


def test_overview_shows_the_story(story, driver):
    driver.get(url(story, ""))
    wait_text(driver, "h1", "Overview")
    card = wait_text(driver, "section.card", "Functions")
    assert "4" in card.text  # migrateTasks, onTaskWritten, onUserCreated, beforeCreate
    wait_text(driver, "section.card", "firestore.rules")
    assert "demo-makeitso" in driver.find_element(By.ID, "project").text
    auth = wait_text(driver, "section.card", "users")
    assert auth.find_element(By.CSS_SELECTOR, ".stat").text == "2"  # Alice (the tablet's anonymous account was deleted) and xss-user
    wait_text(driver, "section.card", "FIRESTORE_EMULATOR_HOST=")
    screenshot(driver, "overview")


def test_overview_lists_the_indexes_production_will_need(story, driver):
    # A query production refuses without a composite index (equality on one field, order by another).
    r = requests.post(f"{story['docs']}:runQuery", headers=OWNER, timeout=10, json={"structuredQuery": {
        "from": [{"collectionId": "tasks"}], "where": {"fieldFilter": {"field": {"fieldPath": "userId"}, "op": "EQUAL", "value": {"stringValue": story["alice"]}}},
        "orderBy": [{"field": {"fieldPath": "title"}, "direction": "DESCENDING"}]}})
    assert r.status_code == 200, r.text
    driver.get(url(story, ""))
    card = wait_text(driver, "section.card", "indexes production will need")
    assert '"fieldPath": "userId"' in card.text and '"fieldPath": "title"' in card.text and '"order": "DESCENDING"' in card.text


def test_auth_page_shows_alice_with_apple(story, driver):
    driver.get(url(story, "auth"))
    row = wait_text(driver, "tbody tr", story["alice"])
    assert "apple.com" in row.text
    row.find_element(By.CSS_SELECTOR, "button.link").click()
    detail = wait_text(driver, "section.card", "Multi-factor authentication")
    assert "alice@privaterelay.appleid.com" in detail.text
    wait_text(driver, "section.card", "Email action codes")
    screenshot(driver, "auth")


def test_firestore_shows_tasks_and_the_profile_the_trigger_wrote(story, driver):
    driver.get(url(story, "firestore", "tasks"))
    wait_text(driver, ".pane", "3 documents")
    items = driver.find_elements(By.CSS_SELECTOR, "ul[aria-label='Documents'] li")
    assert len(items) == 3
    driver.get(url(story, "firestore", f"users/{story['alice']}"))
    row = wait_css(driver, "tr[data-field='taskCount']")
    assert "3" in row.text and "integer" in row.text
    screenshot(driver, "firestore")


def test_requests_log_explains_a_denial(story, driver):
    driver.get(url(story, "requests", outcome="deny"))
    row = wait_text(driver, "tbody tr", story["task"])
    assert "deny" in row.text and "unauthenticated" in row.text
    row.find_element(By.CSS_SELECTOR, "button.link").click()
    detail = wait_text(driver, "section.card", "Deciding expressions")
    assert "request.auth != null" in detail.text  # signedIn()'s body decided
    highlighted = wait_css(driver, ".source .ln.deny")
    assert "request.auth != null" in highlighted.text
    screenshot(driver, "requests")
    # Filters narrow the log; the URL keeps them (reloads and links show the same view).
    caller = driver.find_element(By.CSS_SELECTOR, "input[aria-label='Caller']")
    caller.send_keys("admin")
    wait(driver, lambda d: "caller=admin" in d.current_url)


def test_function_invocation_and_its_log_line(story, driver):
    line = f"users/{story['alice']}.taskCount = 3"
    driver.get(url(story, "functions", function="onTaskWritten"))
    row = wait_text(driver, "table[aria-label='Invocations'] tbody tr", "onTaskWritten")
    assert "ok" in row.text
    # The text filter searches every log line (the table shows each invocation's first one).
    driver.find_element(By.CSS_SELECTOR, "input[aria-label='Search invocations']").send_keys(line)
    wait_text(driver, "p[aria-live='polite']", "1 of ")  # only the migration's recount left Alice at 3
    wait_text(driver, "table[aria-label='Invocations'] tbody tr", "onTaskWritten").find_element(By.CSS_SELECTOR, "button.link").click()
    detail = wait_text(driver, "section.card", "Logs")
    assert line in detail.text
    assert '"type": "document.' in detail.text  # the input: the event the trigger got
    screenshot(driver, "functions")
    # Re-running the event runs the trigger again (the count stays 3: it recounts).
    before = len(api(story, "GET", f"/emulator/v1/projects/{story['emu'].project}/functions/logs")["invocations"])
    button(driver, "Re-run event").click()
    wait(driver, lambda d: len(api(story, "GET", f"/emulator/v1/projects/{story['emu'].project}/functions/logs")["invocations"]) > before)


def test_edit_a_document_in_the_ui_and_read_it_over_the_api(story, driver):
    api(story, "PATCH", f"/v1/projects/{story['emu'].project}/databases/(default)/documents/notes/edit",
        json={"fields": {"title": {"stringValue": "draft"}}})
    driver.get(url(story, "firestore", "notes/edit"))
    row = wait_css(driver, "tr[data-field='title']")
    row.find_element(By.CSS_SELECTOR, "button[aria-label='Edit field title']").click()
    dialog = open_dialog(driver)
    value = dialog.find_element(By.CSS_SELECTOR, "textarea[aria-label='Value']")
    value.clear()
    value.send_keys("final")
    button(driver, "Save", dialog).click()
    wait_text(driver, "tr[data-field='title']", "final")
    # A new field of another type, through the typed editor.
    button(driver, "+ Field").click()
    dialog = open_dialog(driver)
    dialog.find_element(By.CSS_SELECTOR, "label.field input").send_keys("priority")
    type_select = dialog.find_element(By.CSS_SELECTOR, "select[aria-label='Type']")
    type_select.find_element(By.CSS_SELECTOR, "option[value='integer']").click()
    number = dialog.find_element(By.CSS_SELECTOR, "input[aria-label='Value']")
    number.clear()
    number.send_keys("7")
    button(driver, "Save", dialog).click()
    wait_css(driver, "tr[data-field='priority']")
    doc = api(story, "GET", f"/v1/projects/{story['emu'].project}/databases/(default)/documents/notes/edit")
    assert doc["fields"] == {"title": {"stringValue": "final"}, "priority": {"integerValue": "7"}}


def test_edit_a_user_in_the_ui_and_read_it_over_the_api(story, driver):
    driver.get(url(story, "auth", search="alice"))
    wait_text(driver, "tbody tr", story["alice"]).find_element(By.CSS_SELECTOR, "button.link").click()
    button(driver, "Edit").click()
    dialog = open_dialog(driver)
    name = dialog.find_element(By.XPATH, ".//label[contains(., 'Display name')]/input")
    name.clear()
    name.send_keys("Alice")
    claims = dialog.find_element(By.XPATH, ".//label[contains(., 'Custom claims')]/textarea")
    claims.clear()
    claims.send_keys('{"premium": true}')
    button(driver, "Save", dialog).click()
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"))
    users = api(story, "POST", f"/identitytoolkit.googleapis.com/v1/projects/{story['emu'].project}/accounts:lookup",
                json={"localId": [story["alice"]]})["users"]
    assert users[0]["displayName"] == "Alice"
    assert users[0]["customAttributes"] == '{"premium":true}'


def test_open_document_follows_api_writes_without_reload(story, driver):
    path = f"/v1/projects/{story['emu'].project}/databases/(default)/documents/notes/live"
    api(story, "PATCH", path, json={"fields": {"n": {"integerValue": "1"}}})
    driver.get(url(story, "firestore", "notes/live"))
    wait_text(driver, "tr[data-field='n']", "1")
    driver.execute_script("window.__sameDocument = true")
    api(story, "PATCH", path, json={"fields": {"n": {"integerValue": "2"}, "added": {"stringValue": "by the API"}}})
    wait_text(driver, "tr[data-field='added']", "by the API")
    assert "2" in driver.find_element(By.CSS_SELECTOR, "tr[data-field='n']").text
    assert driver.execute_script("return window.__sameDocument") is True  # no reload happened


def test_pages_left_behind_let_go_of_their_event_stream(story, driver):
    """Every Firestore page holds an event stream. A page the browser leaves (and may keep in its
    back-forward cache) or hides must close it: Chromium allows six HTTP/1.1 connections per host,
    so the seventh page load used to wait about a minute for a free one. A page brought back
    follows writes again."""
    path = f"/v1/projects/{story['emu'].project}/databases/(default)/documents/notes/revisited"
    api(story, "PATCH", path, json={"fields": {"n": {"integerValue": "0"}}})
    for i in range(9):
        driver.get("about:blank")
        started = time.monotonic()
        driver.get(url(story, "firestore", "notes/revisited"))
        wait_text(driver, "tr[data-field='n']", "0", timeout=10)
        assert time.monotonic() - started < 10, f"page load {i + 1} waited for a connection"
    driver.get("about:blank")
    driver.back()
    wait_text(driver, "tr[data-field='n']", "0", timeout=10)
    api(story, "PATCH", path, json={"fields": {"n": {"integerValue": "1"}}})
    wait_text(driver, "tr[data-field='n']", "1", timeout=10)


def test_hostile_values_are_shown_as_text(story, driver):
    driver.get(url(story, "firestore", "notes/xss"))
    cell = wait_text(driver, "tr[data-field='html'] td.value", XSS)
    assert cell.text == XSS
    assert not driver.find_elements(By.CSS_SELECTOR, "img[src='x']")
    assert no_alert(driver)
    driver.get(url(story, "auth", search="xss-user"))
    row = wait_text(driver, "tbody tr", XSS)
    assert XSS in row.text
    assert not driver.find_elements(By.CSS_SELECTOR, "img[src='x']")
    assert no_alert(driver)


def test_control_page_snapshot_restore_and_reset(story, driver):
    emu = story["emu"]
    project = "demo-ui-control"
    docs = f"/v1/projects/{project}/databases/(default)/documents"
    api(story, "POST", "/emulator/v1/projects", json={"projectId": project})
    api(story, "PATCH", docs + "/things/a", json={"fields": {"v": {"integerValue": "1"}}})
    driver.get(f"{emu.url}/ui/control?project={project}")
    form_input = wait_css(driver, "input[placeholder='before-test']")
    form_input.send_keys("ui-snap")
    button(driver, "Save snapshot").click()
    wait_text(driver, "table[aria-label='Snapshots']", "ui-snap")
    screenshot(driver, "control")
    api(story, "DELETE", docs + "/things/a")
    driver.find_element(By.CSS_SELECTOR, "button[aria-label='Restore ui-snap']").click()
    wait_text(driver, ".toast", "Restored ui-snap")
    assert api(story, "GET", docs + "/things/a")["fields"]["v"] == {"integerValue": "1"}
    button(driver, f"Reset {project}").click()
    button(driver, "Reset", open_dialog(driver)).click()
    wait_text(driver, ".toast", f"Reset {project}")
    r = requests.get(emu.url + docs + "/things/a", headers=OWNER, timeout=10)
    assert r.status_code == 404


def test_deep_links_survive_reload_and_keyboard_reaches_the_pages(story, driver):
    for page, rest, heading in [("", "", "Overview"), ("auth", "", "Auth"), ("firestore", "tasks", "Firestore"),
                                ("requests", "", "Requests"), ("functions", "", "Functions"), ("control", "", "Control")]:
        driver.get(url(story, page, rest))
        wait_text(driver, "h1", heading)
        driver.refresh()
        wait_text(driver, "h1", heading)
    # The nav is made of links: Tab reaches them and Enter follows one.
    driver.get(url(story, ""))
    wait_text(driver, "h1", "Overview")
    body = driver.find_element(By.TAG_NAME, "body")
    for _ in range(12):
        body = driver.switch_to.active_element
        if body.text == "Requests":
            break
        body.send_keys(Keys.TAB)
    assert driver.switch_to.active_element.text == "Requests"
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_text(driver, "h1", "Requests")
    assert "/ui/requests" in driver.current_url


def test_dark_theme_and_narrow_window(story, driver):
    driver.get(url(story, "firestore", "tasks"))
    wait_text(driver, ".pane", "3 documents")
    driver.find_element(By.ID, "theme").click()
    theme = driver.execute_script("return document.documentElement.dataset.theme")
    assert theme in ("dark", "light")
    if theme != "dark":
        driver.find_element(By.ID, "theme").click()
    assert driver.execute_script("return getComputedStyle(document.body).backgroundColor") == "rgb(15, 20, 27)"
    driver.refresh()  # the choice is remembered
    wait_text(driver, ".pane", "3 documents")
    assert driver.execute_script("return document.documentElement.dataset.theme") == "dark"
    screenshot(driver, "firestore-dark")
    resize(driver, 420, 900)
    try:
        wait_text(driver, ".pane", "3 documents")
        # One column: nothing wider than the window.
        assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")
        screenshot(driver, "firestore-narrow")
    finally:
        resize(driver, 1280, 800)
        driver.find_element(By.ID, "theme").click()


def test_query_shows_results_and_their_cost(story, driver):
    driver.get(url(story, "firestore", "tasks"))
    wait_text(driver, ".pane", "3 documents")
    button(driver, "Query…").click()
    driver.find_element(By.CSS_SELECTOR, "input[aria-label='Field']").send_keys("title")
    driver.find_element(By.CSS_SELECTOR, "select[aria-label='Operator'] option[value='EQUAL']").click()
    driver.find_element(By.CSS_SELECTOR, "input[aria-label='Value']").send_keys('"call mum"')
    button(driver, "Run query").click()
    cost = wait_text(driver, "p[aria-live='polite']", "reads billed")
    assert cost.text.startswith("1 documents")
    results = driver.find_elements(By.CSS_SELECTOR, "ul[aria-label='Query results'] li")
    assert len(results) == 1 and 'title: "call mum"' in results[0].text  # the filtered field's value is shown


def test_admin_token_guards_the_ui(emulator_factory, driver):
    emu = emulator_factory("--admin-token", "s3cret", project="demo-ui-token")
    driver.get(f"{emu.url}/ui/")
    dialog = wait_text(driver, "dialog[open]", "Admin token required")
    assert "Overview" not in driver.find_element(By.ID, "main").text  # nothing is shown without it
    dialog.find_element(By.ID, "admin-token").send_keys("wrong")
    button(driver, "Use token", dialog).click()
    wait(driver, EC.staleness_of(dialog))
    dialog = wait_text(driver, "dialog[open]", "Admin token required")  # asked again
    token = dialog.find_element(By.ID, "admin-token")
    token.clear()
    token.send_keys("s3cret")
    button(driver, "Use token", dialog).click()
    wait_text(driver, "h1", "Overview")
    wait_text(driver, "section.card", "demo-ui-token")
    driver.execute_script("sessionStorage.clear()")
