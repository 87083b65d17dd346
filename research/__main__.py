"""``python -m research COMMAND [options]``: the research commands (research/README.md).

Each command is a module of this package with its own ``main(argv)``; ``python -m
research COMMAND --help`` lists its options."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module

# command -> module of research/
COMMANDS = {
    "survey": "survey",
    "solvability": "solvability",
    "page": "page",
    "full-search": "full_search",
    "confirm-lost": "confirm_lost",
    "peer": "peer",
    "soundness": "soundness",
    "passes": "passes",
    "endgames": "endgames",
    "builds": "builds",
    "transfer": "transfer",
    "transcribe": "transcribed",
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in COMMANDS:
        print(f"usage: python -m research {{{','.join(COMMANDS)}}} [options]", file=sys.stderr)
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    module = import_module(f"research.{COMMANDS[args[0]]}")
    result: int = module.main(args[1:])
    return result


if __name__ == "__main__":
    raise SystemExit(main())
