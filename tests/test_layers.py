"""The layers of ``wps`` (README: Layout) hold: import-linter's contract in ``pyproject.toml``
fails on any import from a lower layer into a higher one, lazy imports inside functions
included."""

from __future__ import annotations

from pathlib import Path

import wps

PYPROJECT = Path(wps.__file__).resolve().parent.parent / "pyproject.toml"


def test_no_module_imports_from_a_higher_layer(capsys):
    from importlinter.cli import lint_imports

    code = lint_imports(config_filename=str(PYPROJECT), no_cache=True)
    report = capsys.readouterr().out
    broken = [line for line in report.splitlines() if "not allowed" in line or "->" in line]
    assert code == 0, "\n".join(broken) or report[-2000:]
