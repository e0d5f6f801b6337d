"""simdup.cli.output: the process's standard streams (how outputs are written is
tests/writers/test_output.py's; every output option of every command on a device node and a
FIFO is tests/cli/test_output_options.py's)."""

from __future__ import annotations

import io

from simdup.cli.output import ForgivingStream


def test_forgiving_stream_never_raises() -> None:
    """Messages to a broken standard error are lost, the work is not."""

    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise OSError(5, "Input/output error")

    stream = ForgivingStream(Broken())
    assert stream.write("message\n") == len("message\n")
    stream.flush()
    assert stream.isatty() is False
