"""simdup.report.config: the settings ``simdup config`` lists."""

from __future__ import annotations

import io


def test_config_listing_aligns_values_and_names_their_sources() -> None:
    """``simdup config`` as text (golden) and as JSON."""
    import json

    from simdup.config import COMMAND_LINE, DEFAULT, Setting, Settings
    from simdup.report.config import render_settings

    settings = Settings(
        "proj/pyproject.toml",
        (
            Setting("threshold", "threshold", 4, COMMAND_LINE),
            Setting("exclude", "exclude", ("build/*",), "proj/pyproject.toml"),
            Setting("output", "output", None, DEFAULT),
        ),
    )
    out = io.StringIO()
    render_settings(settings, "text", out)
    assert out.getvalue() == (
        "configuration file: proj/pyproject.toml\n"
        "threshold  4            (command line)\n"
        'exclude    ["build/*"]  (proj/pyproject.toml)\n'
        "output     -            (default)\n"
    )
    as_json = io.StringIO()
    render_settings(settings, "json", as_json)
    assert json.loads(as_json.getvalue()) == settings.describe()
