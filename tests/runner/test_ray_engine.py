"""The Ray engine of `wps batch` on a local Ray instance: the same records as the local engine, and
a driver killed with SIGKILL half-way, then rerun, leaves one output per page and no staging."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from wps.capture import CaptureOptions
from wps.cli import main
from wps.pipeline import PipelineOptions
from wps.runner import BatchOptions, page_folder_name, run_batch

pytest.importorskip("ray")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CAPTURE = CaptureOptions(settle_s=0, scroll_max_steps=1, scroll_pause_s=0.05, timeout_s=60,
                         allow_private=True)  # with screenshots: they travel to the CPU tasks
TOPICS = ["rivers", "bridges", "mills", "ferries", "orchards"]


def page(topic: str) -> str:
    paragraphs = "".join(
        f"<p>The {topic} of the valley changed in year {n}: people who lived beside them wrote "
        f"long letters about the {topic}, and the local paper printed every one of them.</p>"
        for n in range(3))
    links = "".join(f"<li><a href='/{other}'>{other}</a></li>" for other in TOPICS)
    return (f"<!doctype html><title>{topic}</title><body><nav><ul>{links}</ul></nav>"
            f"<main><h1>On {topic}</h1>{paragraphs}</main><footer>(c) valley news</footer></body>")


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray instance for the module (run_batch uses it and leaves it running)."""
    from wps.executor.ray import import_ray

    ray = import_ray(local=True)
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture()
def site(page_server):
    urls = [page_server.add_html(f"/ray-{topic}", page(topic)) for topic in TOPICS]
    return urls, page_server.url("/ray-missing")


def records(out, urls) -> dict[str, list[str]]:
    """Each page's segments.jsonl lines, as sorted canonical JSON."""
    return {url: sorted(json.dumps(json.loads(line), sort_keys=True) for line in
                        (out / page_folder_name(url) / "segments.jsonl").read_text().splitlines())
            for url in urls}


def test_ray_engine_writes_the_same_records_as_the_local_engine(site, local_ray, tmp_path):
    urls, missing = site
    pipeline = PipelineOptions(capture_options=CAPTURE)
    options = {"pipeline": pipeline, "progress": False, "host_delay_s": 0, "per_host": None,
               "images": True}
    local = run_batch([*urls, missing], tmp_path / "local", BatchOptions(**options))
    on_ray = run_batch([*urls, missing], tmp_path / "ray",
                       BatchOptions(engine="ray", renderers=2, **options))
    assert (local.done, local.failed) == (on_ray.done, on_ray.failed) == (len(urls), 1)
    expected = records(tmp_path / "local", urls)
    assert all(expected.values())
    assert records(tmp_path / "ray", urls) == expected
    for url in urls:  # the screenshot went through Ray's object store to the CPU task
        assert (tmp_path / "ray" / page_folder_name(url) / "capture" / "screenshot.png").stat().st_size
        assert (tmp_path / "ray" / ".done" / page_folder_name(url)).is_file()
    failures = [json.loads((tmp_path / name / "failures.jsonl").read_text())
                for name in ("local", "ray")]
    assert failures[0] == failures[1] and failures[0]["exit_code"] == 13
    assert json.loads((tmp_path / "ray" / "summary.json").read_text())["engine"] == "ray"


def _markers(out) -> list[str]:
    """The pages marked done (a killed writer may leave its ``.NAME.tmp-*`` file beside them)."""
    folder = out / ".done"
    if not folder.is_dir():
        return []
    return [p.name for p in folder.iterdir() if not p.name.startswith(".")]


def test_ray_driver_killed_half_way_then_rerun_finishes_each_page_once(page_server, local_ray,
                                                                      tmp_path, capsys):
    def slow(topic):
        def answer(handler) -> None:
            time.sleep(1.0)
            page_server.reply(handler, page(topic).encode())
        return answer

    for topic in TOPICS:
        page_server.routes[f"/ray-slow-{topic}"] = slow(topic)
    urls = [page_server.url(f"/ray-slow-{topic}") for topic in TOPICS]
    listing, out = tmp_path / "urls.txt", tmp_path / "out"
    listing.write_text("\n".join(urls) + "\n")
    args = [str(listing), "--out", str(out), "--engine", "ray", "--renderers", "2",
            "--settle", "0", "--scroll-steps", "1", "--timeout", "60", "--allow-private",
            "--segmenter", "baseline", "--no-progress", "--host-delay", "0"]
    driver = subprocess.Popen([sys.executable, "-m", "wps", "batch", *args],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not _markers(out):  # a finished marker, not the temporary file it is written to
            assert driver.poll() is None and time.monotonic() < deadline, driver.communicate()
            time.sleep(0.2)
        os.kill(driver.pid, signal.SIGKILL)  # half-way: at least one page done, others running
        driver.wait()
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    done_before = len(_markers(out))
    assert done_before < len(urls)

    assert main(["batch", *args]) == 0  # in this process, on the module's Ray instance
    assert f"{len(urls) - done_before} done, {done_before} skipped" in capsys.readouterr().err
    assert sorted(p.name for p in (out / ".done").iterdir()) == sorted(map(page_folder_name, urls))
    pages = sorted(p.name for p in out.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert pages == sorted(map(page_folder_name, urls))  # exactly one folder per page
    leftovers = [p.name for folder in (out, out / ".done") for p in folder.iterdir()
                 if any(tag in p.name for tag in (".staging-", ".old-", ".tmp-"))]
    assert leftovers == []
    for url in urls:
        lines = (out / page_folder_name(url) / "segments.jsonl").read_text().splitlines()
        assert lines and all(json.loads(line)["url"] == url for line in lines)
