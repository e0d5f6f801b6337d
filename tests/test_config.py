"""Configuration files: [tool.simdup] in pyproject.toml, .simdup.toml, and `simdup config`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from simdup.cli import cli
from simdup.config import find_config

TEXT = (
    "The quick brown fox jumps over the lazy dog near the quiet river bank today, while "
    "seven curious herons watch patient fishermen mending green nets beside old boats.\n"
)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def explain(result: Result) -> str:
    return f"exit {result.exit_code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (a .git folder) with docs/ holding two documents, as working directory."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "docs" / "build").mkdir(parents=True)
    (root / "docs" / "a.txt").write_text(TEXT, encoding="utf-8")
    (root / "docs" / "build" / "b.txt").write_text(TEXT, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def settings_json(*args: str) -> dict[str, dict[str, object]]:
    result = run("config", *args, "--format", "json")
    assert result.exit_code == 0, explain(result)
    settings: dict[str, dict[str, object]] = json.loads(result.stdout)["settings"]
    return settings


def test_pyproject_threshold_shows_in_config_and_scan_settings(project: Path) -> None:
    """[tool.simdup] threshold = 2 is listed by `simdup config` with the file as its source
    and is the threshold in the JSON settings of a scan."""
    (project / "pyproject.toml").write_text("[tool.simdup]\nthreshold = 2\n", encoding="utf-8")
    text = run("config", "docs")
    assert text.exit_code == 0, explain(text)
    assert "configuration file: " in text.stdout and "pyproject.toml" in text.stdout
    line = next(x for x in text.stdout.splitlines() if x.startswith("threshold "))
    assert " 2 " in line and "pyproject.toml" in line
    setting = settings_json("docs")["threshold"]
    assert setting == {"value": 2, "source": str(project / "pyproject.toml")}
    scan = run("scan", "docs", "-j", "1", "-f", "json")
    assert scan.exit_code == 0, explain(scan)
    assert json.loads(scan.stdout)["settings"]["threshold"] == 2


def test_command_line_wins_over_the_file(project: Path) -> None:
    """-k 4 overrides the file's threshold, in `simdup config` and in a scan."""
    (project / "pyproject.toml").write_text("[tool.simdup]\nthreshold = 2\n", encoding="utf-8")
    assert settings_json("docs", "-k", "4")["threshold"] == {
        "value": 4,
        "source": "command line",
    }
    scan = run("scan", "docs", "-j", "1", "-f", "json", "-k", "4")
    assert json.loads(scan.stdout)["settings"]["threshold"] == 4


def test_simdup_toml_with_top_level_keys(project: Path) -> None:
    """.simdup.toml holds top-level keys; dashes and underscores both name an option; the
    file can choose the output format."""
    (project / ".simdup.toml").write_text(
        'verify_radius = 10\nformat = "json"\nmin-similarity = 0.7\n', encoding="utf-8"
    )
    settings = settings_json("docs")
    assert settings["verify-radius"]["value"] == 10
    assert settings["min-similarity"]["value"] == 0.7
    assert settings["threshold"] == {"value": 3, "source": "default"}
    scan = run("scan", "docs", "-j", "1")
    assert scan.exit_code == 0, explain(scan)
    report = json.loads(scan.stdout)  # format = "json" came from the file
    assert report["settings"]["verify_radius"] == 10


def test_simdup_toml_wins_over_pyproject_in_the_same_folder(project: Path) -> None:
    """Both in one folder: .simdup.toml is the file read."""
    (project / "pyproject.toml").write_text("[tool.simdup]\nthreshold = 2\n", encoding="utf-8")
    (project / ".simdup.toml").write_text("threshold = 5\n", encoding="utf-8")
    assert settings_json("docs")["threshold"]["value"] == 5


def test_pyproject_without_a_simdup_table_is_passed_over(project: Path) -> None:
    """A pyproject.toml without [tool.simdup] does not stop the search."""
    (project / "docs" / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (project / "pyproject.toml").write_text("[tool.simdup]\nthreshold = 1\n", encoding="utf-8")
    found = find_config(str(project / "docs"))
    assert found is not None and found.path == str(project / "pyproject.toml")


def test_search_stops_at_the_repository_root(project: Path) -> None:
    """A configuration file above the repository root belongs to another project."""
    (project.parent / ".simdup.toml").write_text("threshold = 1\n", encoding="utf-8")
    assert find_config(str(project / "docs")) is None
    settings = settings_json("docs")
    assert settings["threshold"] == {"value": 3, "source": "default"}
    text = run("config", "docs")
    assert "configuration file: none found" in text.stdout


def test_list_option_exclude(project: Path) -> None:
    """exclude takes a list of globs (a single string is a list of one)."""
    (project / ".simdup.toml").write_text('exclude = ["build"]\n', encoding="utf-8")
    scan = run("scan", "docs", "-j", "1", "-f", "json")
    assert json.loads(scan.stdout)["summary"]["files_found"] == 1
    (project / ".simdup.toml").write_text('exclude = "build"\n', encoding="utf-8")
    assert settings_json("docs")["exclude"]["value"] == ["build"]


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("colour = 1\n", "colour"),
        ("threshold = 99\n", "threshold"),
        ('threshold = "two"\n', "threshold"),
        ("threshold = true\n", "threshold"),
        ('format = "yaml"\n', "format"),
        ("exclude = 3\n", "exclude"),
        ('verify = "no"\n', "verify"),
        ('max-size = "12Q"\n', "max-size"),
    ],
)
def test_bad_key_or_value_is_a_usage_error_naming_file_and_key(
    project: Path, content: str, key: str
) -> None:
    """An unknown key or a bad value exits 2, naming the file and the key, for scan and
    config alike."""
    (project / ".simdup.toml").write_text(content, encoding="utf-8")
    for args in (["scan", "docs", "-j", "1"], ["config", "docs"]):
        result = run(*args)
        assert result.exit_code == 2, explain(result)
        assert ".simdup.toml" in result.stderr and key in result.stderr, explain(result)


def test_bad_value_in_pyproject_names_the_table(project: Path) -> None:
    """A bad value in pyproject.toml is reported as being in [tool.simdup]."""
    (project / "pyproject.toml").write_text("[tool.simdup]\nthreshold = -1\n", encoding="utf-8")
    result = run("scan", "docs", "-j", "1")
    assert result.exit_code == 2, explain(result)
    assert "pyproject.toml [tool.simdup]: threshold" in result.stderr


def test_invalid_toml_is_a_usage_error(project: Path) -> None:
    """A file that is not TOML exits 2 and names the file."""
    (project / ".simdup.toml").write_text("threshold = = 2\n", encoding="utf-8")
    result = run("config", "docs")
    assert result.exit_code == 2 and ".simdup.toml" in result.stderr, explain(result)


def test_path_values_are_relative_to_the_file(project: Path) -> None:
    """A path in the file (here the report's output) is relative to the file's folder, not
    to the working directory."""
    (project / ".simdup.toml").write_text('output = "reports/out.txt"\n', encoding="utf-8")
    (project / "reports").mkdir()
    assert settings_json("docs")["output"]["value"] == str(project / "reports" / "out.txt")


def test_on_off_option_is_named_by_its_positive_half(project: Path) -> None:
    """`ignore = false` in the file is --no-ignore: the key of an on/off pair is its
    positive name."""
    (project / ".simdup.toml").write_text("ignore = false\nverify = false\n", encoding="utf-8")
    settings = settings_json("docs")
    assert settings["ignore"]["value"] is False and settings["verify"]["value"] is False
    scan = run("scan", "docs", "-j", "1", "-f", "json")
    assert json.loads(scan.stdout)["settings"]["ignore_files"] is False
