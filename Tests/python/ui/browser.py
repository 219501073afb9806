"""Headless Chromium for the UI tests: Debian's `chromium` and `chromium-driver` (Tests/run-all.sh
installs them), driven by Selenium. No sleeps: every wait is an explicit condition."""
import os
import pathlib
import shutil

import pytest

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - requirements.txt installs selenium
    webdriver = None

TIMEOUT = 15


def chromium_paths():
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return browser, driver


def make_driver(width=1280, height=800):
    """A headless Chromium with a fixed window size (screenshots are 1280x800 unless asked)."""
    browser, driver = chromium_paths()
    if webdriver is None or not browser or not driver:
        pytest.skip("headless Chromium is missing: apt-get install chromium chromium-driver (Tests/run-all.sh does)")
    opts = Options()
    opts.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--force-device-scale-factor=1",
                f"--window-size={width},{height}", "--disable-extensions", "--no-first-run", "--lang=en-US"):
        opts.add_argument(arg)
    d = webdriver.Chrome(options=opts, service=Service(driver))
    d.set_page_load_timeout(30)
    resize(d, width, height)
    return d


def resize(driver, width, height):
    """Makes the viewport (not the window) `width` x `height`."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(width + (width - inner[0]), height + (height - inner[1]))


def wait(driver, condition, timeout=TIMEOUT, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition, message)


def wait_text(driver, css, text, timeout=TIMEOUT):
    """Waits until an element matching `css` contains `text`; returns it."""
    def found(d):
        for e in d.find_elements(By.CSS_SELECTOR, css):
            try:
                if text in e.text:
                    return e
            except Exception:  # re-rendered while reading
                continue
        return False
    return wait(driver, found, timeout, f"no {css} containing {text!r}")


def wait_css(driver, css, timeout=TIMEOUT):
    return wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, css)), timeout, f"no {css}")


def wait_clickable(driver, css, timeout=TIMEOUT):
    return wait(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, css)), timeout, f"{css} not clickable")


def button(driver, text, within=None, timeout=TIMEOUT):
    """The first visible, enabled button whose text is `text`."""
    root = within or driver

    def found(_):
        for b in root.find_elements(By.TAG_NAME, "button"):
            try:
                if b.text.strip() == text and b.is_displayed() and b.is_enabled():
                    return b
            except Exception:
                continue
        return False
    return wait(driver, found, timeout, f"no button {text!r}")


def open_dialog(driver):
    return wait_css(driver, "dialog[open]")


def screenshot(driver, name):
    """Saves a PNG in UI_SCREENSHOTS_DIR (docs/ui when regenerating the committed pictures) or .build."""
    out = pathlib.Path(os.environ.get("UI_SCREENSHOTS_DIR") or pathlib.Path(__file__).resolve().parents[3] / ".build" / "ui-screenshots")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.png"
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000, f"{path} looks empty"
    return path
