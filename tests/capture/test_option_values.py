"""Rendering options refuse NaN, infinities and out-of-range values, naming the option."""

from __future__ import annotations

import math

import pytest

from wps.capture import CaptureOptions
from wps.cli import main
from wps.errors import UsageError


@pytest.mark.parametrize("field", ["timeout_s", "settle_s", "scroll_max_seconds",
                                   "scroll_pause_s"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_options_refuse_non_finite_numbers(field, value):
    with pytest.raises(UsageError) as caught:
        CaptureOptions(**{field: value})
    assert str(caught.value).startswith(f"{field} must be a finite number")
    assert str(caught.value).endswith(f"got {value:g}")


def test_timeout_must_be_positive_and_waits_may_be_zero():
    with pytest.raises(UsageError, match=r"^timeout_s must be a finite number > 0, got 0$"):
        CaptureOptions(timeout_s=0)
    with pytest.raises(UsageError, match=r"^settle_s must be a finite number >= 0, got -1$"):
        CaptureOptions(settle_s=-1)
    with pytest.raises(UsageError, match=r"^scroll_max_steps must be >= 0, got -2$"):
        CaptureOptions(scroll_max_steps=-2)
    options = CaptureOptions(settle_s=0, scroll_max_seconds=0, scroll_max_steps=0)
    assert options.settle_s == 0 and options.timeout_s == 30.0


@pytest.mark.parametrize(("option", "value", "rule"), [
    ("--timeout", "nan", "> 0"), ("--timeout", "inf", "> 0"), ("--timeout", "0", "> 0"),
    ("--settle", "nan", ">= 0"), ("--settle", "-1", ">= 0"),
    ("--scroll-seconds", "nan", ">= 0"), ("--scroll-seconds", "inf", ">= 0"),
])
def test_cli_names_the_option(option, value, rule, tmp_path, capsys):
    out = tmp_path / "capture"
    code = main(["capture", "http://127.0.0.1:9/never", "--out", str(out), option, value])
    assert code == UsageError.exit_code
    shown = f"{float(value):g}"
    assert capsys.readouterr().err == (
        f"wps: error: {option} must be a finite number {rule}, got {shown}\n")
    assert not out.exists()
