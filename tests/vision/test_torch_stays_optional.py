"""torch is an optional extra: the core and ``wps segment`` with dom-cohesion never import it,
even though the registry imports the ``sam`` and ``websam`` subpackages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
import wps
from wps.cli import main
from wps.segmenters import build_segmenter, segmenter_names

assert {"sam", "websam"} <= set(segmenter_names())
build_segmenter("dom-cohesion")
code = main(["segment", sys.argv[1], "--out", sys.argv[2]])
heavy = sorted(name for name in ("torch", "torchvision", "segment_anything") if name in sys.modules)
print(code, heavy)
"""


def test_wps_segment_with_dom_cohesion_never_imports_torch(webis_page: Path,
                                                           tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(webis_page), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "0 []", done.stdout + done.stderr
    assert (tmp_path / "out" / "segmentation.json").is_file()
