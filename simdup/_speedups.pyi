from collections.abc import Callable

def collapse(text: str, /) -> str: ...
def digest(
    text: str,
    memo: dict[str, bytes],
    codes: dict[str, int],
    register: Callable[[str], int],
    cut: Callable[[str], list[str]],
    n_slots: int,
    /,
) -> tuple[bytes, bytes, dict[int, int], int]: ...
def simhash(hashes: object, weights: object, /) -> int: ...
