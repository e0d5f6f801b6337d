"""The pre-commit hook and the GitHub Action: their declared command lines, run as declared.

Nothing here calls the network or GitHub: the tests read `.pre-commit-hooks.yaml` and
`action.yml`, substitute file names and inputs the way pre-commit and the Actions runner do,
and run the resulting commands with the `simdup` installed next to this Python.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO, pseudo_words

BIN = Path(sys.executable).parent
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the action's shell is bash")


def load(name: str) -> Any:
    return yaml.safe_load((REPO / name).read_text(encoding="utf-8"))


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    env.update(extra)
    return env


def explain(proc: subprocess.CompletedProcess[str]) -> str:
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small project: three unrelated documents under docs/ and a README."""
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    for n in range(3):
        (root / "docs" / f"page{n}.md").write_text(pseudo_words(n), encoding="utf-8")
    (root / "README.md").write_text(pseudo_words(10), encoding="utf-8")
    return root


def plant_duplicate(root: Path) -> Path:
    copy = root / "docs" / "page0-copy.md"
    # A near-copy, not an exact one: re-wrapped, with a few words added.
    text = pseudo_words(0).replace("\n", " ")
    copy.write_text(text + "\nappendix added later\n", encoding="utf-8")
    return copy


def test_simdup_is_installed_next_to_python() -> None:
    """The commands below need the `simdup` console script of this environment."""
    assert shutil.which("simdup", path=str(BIN)), BIN


# ---------------------------------------------------------------- pre-commit


def hook(hook_id: str) -> dict[str, Any]:
    hooks: list[dict[str, Any]] = load(".pre-commit-hooks.yaml")
    (found,) = [h for h in hooks if h["id"] == hook_id]
    return found


def run_hook(h: dict[str, Any], cwd: Path, args: list[str], files: list[str]) -> Any:
    """As pre-commit runs a hook: the entry split like a shell, then args, then file names."""
    argv = shlex.split(h["entry"]) + args + (files if h.get("pass_filenames", True) else [])
    return subprocess.run(
        argv, cwd=cwd, env=environment(), capture_output=True, text=True, timeout=300
    )


def test_hooks_are_declared_for_pre_commit() -> None:
    """Each hook has the keys pre-commit requires; `simdup` takes the staged text files in one
    serial invocation (pairs across batches would be missed); `simdup-all` takes none."""
    for h in load(".pre-commit-hooks.yaml"):
        assert {"id", "name", "entry", "language"} <= set(h)
        assert h["language"] == "python" and h["require_serial"] is True
        assert shlex.split(h["entry"])[:2] == ["simdup", "scan"]
        assert "--fail-on-duplicates" in h["entry"]
    staged = hook("simdup")
    assert staged["pass_filenames"] is True and staged["types"] == ["text"]
    assert hook("simdup-all")["pass_filenames"] is False


def test_staged_files_hook_passes_then_fails_on_a_planted_duplicate(tree: Path) -> None:
    """The `simdup` hook's command over the staged files: exit 0 on distinct documents, exit 1
    naming both files once a near-copy is staged."""
    h = hook("simdup")
    files = sorted(str(p.relative_to(tree)) for p in tree.rglob("*.md"))
    clean = run_hook(h, tree, [], files)
    assert clean.returncode == 0, explain(clean)
    copy = plant_duplicate(tree)
    dirty = run_hook(h, tree, [], [*files, str(copy.relative_to(tree))])
    assert dirty.returncode == 1, explain(dirty)
    assert "docs/page0-copy.md" in dirty.stdout and "docs/page0.md" in dirty.stdout


def test_staged_files_hook_accepts_pairs_in_a_baseline(tree: Path) -> None:
    """With `args: [--baseline, FILE]` an accepted pair passes; another new copy fails."""
    h = hook("simdup")
    copy = plant_duplicate(tree)
    baseline = tree / ".simdup-baseline.json"
    files = sorted(str(p.relative_to(tree)) for p in tree.rglob("*.md"))
    subprocess.run(
        ["simdup", "scan", "-q", "-f", "json", "-o", str(baseline), *files],
        cwd=tree,
        env=environment(),
        check=True,
        timeout=300,
    )
    accepted = run_hook(h, tree, ["--baseline", baseline.name], files)
    assert accepted.returncode == 0, explain(accepted)
    (tree / "docs" / "page1-copy.md").write_text(pseudo_words(1), encoding="utf-8")
    new = run_hook(h, tree, ["--baseline", baseline.name], [*files, "docs/page1-copy.md"])
    assert new.returncode == 1, explain(new)
    assert copy.exists()


def test_whole_folder_hook_scans_the_folders_in_args(tree: Path) -> None:
    """`simdup-all` with `args: [docs]`: exit 0, then 1 once docs/ holds a near-copy."""
    h = hook("simdup-all")
    assert run_hook(h, tree, ["docs"], ["README.md"]).returncode == 0
    plant_duplicate(tree)
    dirty = run_hook(h, tree, ["docs"], ["README.md"])
    assert dirty.returncode == 1, explain(dirty)


# ---------------------------------------------------------------- GitHub Action

INPUT = re.compile(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}")


def scan_step(action: dict[str, Any]) -> dict[str, Any]:
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "scan"]
    return step


def run_action(tmp: Path, cwd: Path, **inputs: str) -> tuple[Any, dict[str, str]]:
    """The scan step as the runner runs it: inputs (or their defaults) substituted into its
    env, the script run by `bash --noprofile --norc -eo pipefail`; returns the process and the
    step outputs it wrote to $GITHUB_OUTPUT."""
    action = load("action.yml")
    values = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    unknown = set(inputs) - set(values)
    assert not unknown, unknown
    values.update(inputs)
    step = scan_step(action)
    env = {k: INPUT.sub(lambda m: values[m.group(1)], str(v)) for k, v in step["env"].items()}
    assert not any("${{" in v for v in env.values()), env
    script = tmp / "scan-step.sh"
    script.write_text(step["run"], encoding="utf-8")
    output = tmp / "github-output"
    output.write_text("", encoding="utf-8")
    runner_temp = tmp / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=cwd,
        env=environment(**env, GITHUB_OUTPUT=str(output), RUNNER_TEMP=str(runner_temp)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    outputs = dict(
        line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines() if line
    )
    return proc, outputs


def test_action_is_a_composite_that_installs_itself() -> None:
    """The action sets up Python, installs simdup from its own folder, runs the scan in one
    bash step fed only through env, and uploads SARIF with codeql-action only when asked."""
    action = load("action.yml")
    assert action["runs"]["using"] == "composite"
    assert {"paths", "threshold", "baseline", "format", "sarif-file", "upload-sarif"} <= set(
        action["inputs"]
    )
    assert action["inputs"]["paths"]["default"] == "."
    assert str(action["inputs"]["threshold"]["default"]) == "3"
    assert action["inputs"]["format"]["default"] == "text"
    steps = action["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    install = steps[1]
    assert "pip install" in install["run"] and "${{" not in install["run"]
    assert install["env"]["SIMDUP_ACTION_PATH"] == "${{ github.action_path }}"
    scan = scan_step(action)
    assert scan["shell"] == "bash" and "${{" not in scan["run"]
    (upload,) = [s for s in steps if "upload-sarif" in s.get("uses", "")]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert "always()" in upload["if"] and "inputs.upload-sarif == 'true'" in upload["if"]
    assert upload["with"]["sarif_file"] == "${{ steps.scan.outputs.sarif-file }}"


def test_action_scan_passes_then_fails_on_a_planted_duplicate(tmp_path: Path, tree: Path) -> None:
    """With the default inputs (paths '.', threshold 3, text): exit 0, then exit 1 with the pair
    in the log once a near-copy is added."""
    clean, outputs = run_action(tmp_path, tree)
    assert clean.returncode == 0, explain(clean)
    assert outputs == {}
    plant_duplicate(tree)
    dirty, _ = run_action(tmp_path, tree)
    assert dirty.returncode == 1, explain(dirty)
    assert "page0-copy.md" in dirty.stdout


def test_action_paths_threshold_format_and_baseline(tmp_path: Path, tree: Path) -> None:
    """Several paths, a threshold, JSON format and a baseline reach simdup: the accepted pair
    passes, and the JSON log shows the threshold."""
    plant_duplicate(tree)
    baseline = tmp_path / "baseline.json"
    subprocess.run(
        ["simdup", "scan", "-q", "-f", "json", "-o", str(baseline), "docs"],
        cwd=tree,
        env=environment(),
        check=True,
        timeout=300,
    )
    proc, _ = run_action(
        tmp_path,
        tree,
        paths="docs\nREADME.md",
        threshold="2",
        format="json",
        baseline=str(baseline),
    )
    assert proc.returncode == 0, explain(proc)
    report = json.loads(proc.stdout)
    assert report["settings"]["threshold"] == 2
    assert {f["path"] for f in report["files"]} >= {"README.md", "docs/page0-copy.md"}


def test_action_writes_sarif_for_upload_and_keeps_the_exit_code(tmp_path: Path, tree: Path) -> None:
    """upload-sarif 'true': the step still exits 1 on a duplicate, and writes a SARIF file in
    $RUNNER_TEMP (outside the scanned folder) whose name it gives as the `sarif-file` output
    for the upload step."""
    plant_duplicate(tree)
    proc, outputs = run_action(tmp_path, tree, **{"upload-sarif": "true"})
    assert proc.returncode == 1, explain(proc)
    sarif = Path(outputs["sarif-file"])
    assert sarif.parent == tmp_path / "runner-temp"
    log = json.loads(sarif.read_text(encoding="utf-8"))
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"].startswith("simdup/")
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for loc in (*result["locations"], *result["relatedLocations"])
    }
    assert uris == {"docs/page0.md", "docs/page0-copy.md"}


def test_action_usage_error_is_not_hidden(tmp_path: Path, tree: Path) -> None:
    """A bad input (format 'xml') fails the step with simdup's usage-error code 2."""
    proc, _ = run_action(tmp_path, tree, format="xml")
    assert proc.returncode == 2, explain(proc)
