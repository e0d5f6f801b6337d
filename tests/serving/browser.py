"""Headless Chromium driven by Selenium through Debian's chromedriver (``apt-get install
chromium chromium-driver``): nothing is downloaded, Selenium Manager is kept offline. Used by
the page's test and by ``docs/images/serve.py`` (the screenshots of the docs)."""

from __future__ import annotations

import os
import shutil
from typing import Any


def missing() -> str | None:
    """Why a browser cannot be driven here (None: it can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return 'selenium is not installed: pip install "simdup[test]"'
    for program, package in (("chromium", "chromium"), ("chromedriver", "chromium-driver")):
        if shutil.which(program) is None:
            return f"{program} is not installed: apt-get install {package}"
    return None


def chromium(lang: str, width: int = 1200, height: int = 900) -> Any:
    """A headless Chromium whose language (Accept-Language) is ``lang`` ("zh-CN", "en-US")."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # never let Selenium Manager fetch a driver or browser
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", f"--lang={lang}", f"--window-size={width},{height}"):  # fmt: skip
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": lang})
    service = Service(executable_path=shutil.which("chromedriver") or "chromedriver")
    return webdriver.Chrome(options=options, service=service)


def upload(driver: Any, documents: list[str], sources: list[str], timeout: float = 120) -> None:
    """Choose the files in the page's two fields, press the button, wait for the table."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.find_element(By.ID, "documents").send_keys("\n".join(documents))
    if sources:
        driver.find_element(By.ID, "sources").send_keys("\n".join(sources))
    driver.find_element(By.ID, "check").click()
    WebDriverWait(driver, timeout).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "done"
        or d.find_element(By.ID, "status").get_attribute("class") == "error"
    )
