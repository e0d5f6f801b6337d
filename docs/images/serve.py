"""Remake serve-zh.png and serve-en.png: the page of ``simdup serve`` after a class was checked,
in headless Chromium (Debian's chromium and chromium-driver, driven by Selenium), in Chinese
and in English.

Run from the repository's root, with the test and serve extras installed:
    python docs/images/serve.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from simdup.serving.app import ServeSettings  # noqa: E402
from tests.serving import browser  # noqa: E402
from tests.serving.conftest import Running, class_files  # noqa: E402


def main() -> None:
    reason = browser.missing()
    if reason:
        sys.exit(f"cannot take the screenshots: {reason}")
    with tempfile.TemporaryDirectory() as folder:
        files = class_files(Path(folder))
        documents = [str(files[n]) for n in ("thesis.docx", "essay.md", "own.txt", "class.zip")]
        server = Running(ServeSettings())
        try:
            for lang, locale in (("zh", "zh-CN"), ("en", "en-US")):
                driver = browser.chromium(locale, 1100, 760)
                try:
                    driver.get(server.url)
                    browser.upload(driver, documents, [str(files["source.md"])])
                    out = ROOT / "docs" / "images" / f"serve-{lang}.png"
                    driver.save_screenshot(str(out))
                    print(out.relative_to(ROOT))
                finally:
                    driver.quit()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
