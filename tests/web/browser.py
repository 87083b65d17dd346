"""Where Chromium is and how it is started, for tests/web and scripts/play_screenshots.py."""

from __future__ import annotations

import os
import shutil

# As the machine's own probe starts it: no sandbox (root), and none of the background
# connections a closed network refuses.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """`CHROMIUM_PATH`, else `chromium` on the PATH (Debian's package), else its usual place."""
    return os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
