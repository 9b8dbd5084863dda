"""wps.files: atomic writes of files and folders, JSONL reading with errors that name file and line."""

from __future__ import annotations

import os

import pytest

from wps.errors import InputFileError, UsageError
from wps.files import atomic_file, iter_jsonl, read_text, staging_directory, write_text_atomic


def test_iter_jsonl_skips_blank_lines_and_numbers_the_rest(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"a": 1}\n\n  \n{"b": "ü"}\n', encoding="utf-8")
    assert list(iter_jsonl(path)) == [(1, {"a": 1}), (4, {"b": "ü"})]


@pytest.mark.parametrize(("content", "message"), [
    (b'{"a": 1}\n{broken\n', r"s.jsonl:2: not a JSON line"),
    (b'{"a": 1}\n[1, 2]\n', r"s.jsonl:2: a line must be a JSON object"),
    (b'{"a": "\xff"}\n', r"s.jsonl: unreadable file \(not UTF-8 text\)"),
])
def test_iter_jsonl_errors_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "s.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputFileError, match=message):
        list(iter_jsonl(path))
    with pytest.raises(InputFileError, match="missing.jsonl: no such file"):
        list(iter_jsonl(tmp_path / "missing.jsonl"))


def test_read_text_names_what_the_file_should_be(tmp_path):
    with pytest.raises(InputFileError, match="none.txt: no such URL list"):
        read_text(tmp_path / "none.txt", "URL list")
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe")
    with pytest.raises(InputFileError, match="bad.txt: unreadable URL list"):
        read_text(tmp_path / "bad.txt", "URL list")


def test_atomic_file_keeps_the_old_file_on_error(tmp_path):
    path = write_text_atomic(tmp_path / "a.bin", "old")
    with pytest.raises(RuntimeError):
        with atomic_file(path, binary=True) as stream:
            stream.write(b"half")
            raise RuntimeError("stage failed")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["a.bin"]
    with atomic_file(path, binary=True) as stream:
        stream.write(b"new")
    umask = os.umask(0)
    os.umask(umask)
    assert path.read_bytes() == b"new"
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # an ordinary file, not mkstemp's 0600


def test_staging_directory_replaces_a_folder_only_when_complete(tmp_path):
    target = tmp_path / "page"
    with staging_directory(target) as staging:
        (staging / "first.txt").write_text("1")
    with pytest.raises(RuntimeError):
        with staging_directory(target) as staging:
            (staging / "second.txt").write_text("2")
            raise RuntimeError("stage failed")
    assert [p.name for p in target.iterdir()] == ["first.txt"]
    with staging_directory(target) as staging:
        (staging / "third.txt").write_text("3")
    assert [p.name for p in target.iterdir()] == ["third.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["page"]  # no staging or old folder left
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="file: exists and is not a folder"):
        with staging_directory(tmp_path / "file"):
            pass
