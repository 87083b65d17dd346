"""The native search core, app.solver._core (metadata lives in pyproject.toml).

The solver is the core: where it cannot be compiled (no C compiler, no Python headers)
the install stops with a message that names what to install.
"""

from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, CompileError, ExecError, LinkError, PlatformError

NEEDED = (
    "the solver's native core (app.solver._core) could not be built: it needs a C compiler "
    "and the Python headers. On Debian or Ubuntu: apt-get install gcc python3-dev; on "
    "Fedora: dnf install gcc python3-devel; on macOS: xcode-select --install. Then run "
    "pip install again."
)
BUILD_ERRORS = (CCompilerError, CompileError, ExecError, LinkError, PlatformError, OSError)


class BuildCore(build_ext):
    """build_ext that stops with `NEEDED` (and the compiler's own words above it) when
    the core does not build, instead of a traceback."""

    def run(self) -> None:
        try:
            super().run()
        except BUILD_ERRORS as exc:
            raise SystemExit(f"{NEEDED}\n({type(exc).__name__}: {exc})") from exc

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except BUILD_ERRORS as exc:
            raise SystemExit(f"{NEEDED}\n({type(exc).__name__}: {exc})") from exc

NATIVE = Path("app/solver/native")

setup(
    cmdclass={"build_ext": BuildCore},
    ext_modules=[
        Extension(
            "app.solver._core",
            # Every file of the core: a new reduction (reduce_*.c) needs no line here.
            sources=sorted(path.as_posix() for path in NATIVE.glob("*.c")),
            depends=sorted(path.as_posix() for path in NATIVE.glob("*.h")),
            extra_compile_args=["-std=c99", "-O2", "-fvisibility=hidden", "-Wall", "-Wextra"],
        )
    ]
)
