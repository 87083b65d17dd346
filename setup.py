"""The native search core, app.solver._core (metadata lives in pyproject.toml).

Optional: where it cannot be compiled (no C compiler, no Python headers) the install
still succeeds and the solver runs on its Python search (app.solver.core says why).
"""

from setuptools import Extension, setup

NATIVE = "app/solver/native"

setup(
    ext_modules=[
        Extension(
            "app.solver._core",
            sources=[
                f"{NATIVE}/{name}.c"
                for name in (
                    "module", "state", "keys", "settle", "playout", "search", "children",
                    "followups", "reduce_settle", "reduce_obligations", "reduce_narrow",
                    "reduce_straight_back", "reduce_deferred", "reduce_passed_over",
                    "reduce_relaxed", "reduce_arranged", "arrangements", "beam", "exhaustive",
                    "jitter", "lines", "relaxation", "table", "variants",
                )
            ],
            depends=[
                f"{NATIVE}/{name}.h"
                for name in (
                    "state", "keys", "settle", "playout", "scores", "search", "frames", "arrangements",
                    "arrays", "beam", "exhaustive", "hash", "jitter", "lines", "relaxation", "table",
                    "variants",
                )
            ],
            extra_compile_args=["-std=c99", "-O2", "-fvisibility=hidden", "-Wall", "-Wextra"],
            optional=True,
        )
    ]
)
