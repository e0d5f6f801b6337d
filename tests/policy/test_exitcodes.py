"""simdup.policy.exitcodes: the exit statuses are pinned, and one policy picks them for a scan."""

from __future__ import annotations

import signal

import pytest

from simdup.policy.exitcodes import ExitCode, scan_exit_code, stopped_exit_code


def test_exit_codes_are_pinned() -> None:
    """Scripts depend on these numbers: they never change."""
    assert {c.name: int(c) for c in ExitCode} == {
        "OK": 0,
        "DUPLICATES_FOUND": 1,
        "USAGE": 2,
        "FILES_SKIPPED": 3,
        "ERROR": 4,
        "HANGUP": 129,
        "INTERRUPTED": 130,
        "TERMINATED": 143,
    }


def test_a_run_stopped_by_a_signal_exits_128_plus_its_number() -> None:
    """Ctrl-C 130, SIGTERM 143, SIGHUP 129: what a shell reports for a process killed by it."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        assert stopped_exit_code(signum) == 128 + signum


@pytest.mark.parametrize(
    ("duplicates", "skipped", "fail_on_duplicates", "strict", "expected"),
    [
        (0, 0, False, False, ExitCode.OK),
        (5, 5, False, False, ExitCode.OK),  # reporting is not failing
        (1, 0, True, False, ExitCode.DUPLICATES_FOUND),
        (0, 3, True, False, ExitCode.OK),
        (0, 1, False, True, ExitCode.FILES_SKIPPED),
        (2, 0, False, True, ExitCode.OK),
        (2, 2, True, True, ExitCode.DUPLICATES_FOUND),  # duplicates take precedence
        (0, 2, True, True, ExitCode.FILES_SKIPPED),
        (0, 0, True, True, ExitCode.OK),
    ],
)
def test_scan_exit_code_policy(
    duplicates: int, skipped: int, fail_on_duplicates: bool, strict: bool, expected: ExitCode
) -> None:
    """--fail-on-duplicates gives 1 with (new) duplicate pairs, --strict gives 3 with skips,
    1 wins over 3, and otherwise a scan succeeds."""
    got = scan_exit_code(
        duplicates=duplicates,
        skipped=skipped,
        fail_on_duplicates=fail_on_duplicates,
        strict=strict,
    )
    assert got is expected
