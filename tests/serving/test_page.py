"""The page as a teacher uses it: a real Chromium (headless, driven by Selenium through
Debian's chromedriver) opens the server's page in Chinese, uploads a class (Word, Markdown,
text, a ZIP) with a source, reads the class table and opens a report; then the page in English.
Skipped, saying why, where chromium or chromedriver is not installed (CI installs both)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from . import browser
from .conftest import class_files

REASON = browser.missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


def test_a_class_uploaded_through_the_page(serve: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    files = class_files(tmp_path)
    documents = [str(files[n]) for n in ("thesis.docx", "essay.md", "own.txt", "class.zip")]
    server = serve()
    expected = server.check_json(
        [("document", Path(p).name, Path(p).read_bytes()) for p in documents]
        + [("source", "source.md", files["source.md"].read_bytes())]
    )
    driver = browser.chromium("zh-CN")
    try:
        driver.get(server.url)
        assert driver.find_element(By.TAG_NAME, "h1").text == "simdup · 查重"
        browser.upload(driver, documents, [str(files["source.md"])])
        status = driver.find_element(By.ID, "status").text
        assert status == "完成：5 篇文档。", status
        rows = driver.find_elements(By.CSS_SELECTOR, "#class tbody tr")
        shown = [(r.find_element(By.CLASS_NAME, "path").text,
                  r.find_element(By.CLASS_NAME, "ratio").text) for r in rows]  # fmt: skip
        wanted = [(d["path"], f"{100 * d['copy_ratio']:.1f}%") for d in expected["documents"]]
        assert shown == wanted
        at = [name for name, _ in shown].index("thesis.docx")
        assert float(shown[at][1].rstrip("%")) > 90
        assert "source.md" in rows[at].find_element(By.CLASS_NAME, "largest").text
        # The thesis's report, below the table, in Chinese.
        rows[at].find_element(By.LINK_TEXT, "查看").click()
        frame = driver.find_element(By.ID, "report")
        WebDriverWait(driver, 30).until(lambda d: frame.get_attribute("src"))
        driver.switch_to.frame(frame)
        WebDriverWait(driver, 30).until(lambda d: "thesis.docx" in d.find_element(
            By.TAG_NAME, "h1").text)  # fmt: skip
        assert "总文字复制比" in driver.find_element(By.TAG_NAME, "body").text
        driver.switch_to.default_content()
        # The JSON download link answers the document's own report.
        href = rows[at].find_element(By.LINK_TEXT, "JSON").get_attribute("href")
        status_code, _, body = server.request("GET", href.removeprefix(server.url[:-1]))
        assert status_code == 200 and json.loads(body)["documents"][0]["path"] == "thesis.docx"
        logs = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not logs, logs
        driver.get(server.url + "?lang=en")
        assert driver.find_element(By.TAG_NAME, "h1").text == "simdup · duplicate check"
        assert driver.find_element(By.ID, "check").text == "Check"
    finally:
        driver.quit()
