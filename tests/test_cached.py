"""Derived data cached between runs (wps.cached): the same as derived from the packages, written
once, and derived in memory where the cache cannot be written."""

from __future__ import annotations

import numpy as np
import pytest

from wps import lang
from wps.cached import cached_file, source_key

TEXTS = ("Dies ist ein deutscher Satz über das Wetter von morgen.",
         "The committee approved the budget after a long debate on Tuesday.",
         "Le gouvernement a présenté hier son projet de loi sur le logement.",
         "Это предложение написано на русском языке для проверки.", "2024 — 17:30")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WPS_CACHE_DIR", str(tmp_path / "cache"))
    lang._identifier.cache_clear()
    yield tmp_path / "cache"
    lang._identifier.cache_clear()


def test_the_cached_language_model_is_the_packaged_one(cache):
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    packaged = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    first = lang._identifier()  # writes the cache
    assert [path.name.split("-")[0] for path in cache.iterdir()] == ["py3langid"]
    lang._identifier.cache_clear()
    second = lang._identifier()  # reads it
    for loaded in (first, second):
        assert loaded is not packaged
        assert loaded.nb_classes == packaged.nb_classes
        assert loaded.tk_output == packaged.tk_output
        assert loaded.tk_nextmove == packaged.tk_nextmove and loaded.tk_row == packaged.tk_row
        assert np.array_equal(loaded.nb_ptc, packaged.nb_ptc)
        assert np.array_equal(loaded.nb_pc, packaged.nb_pc)
        assert [loaded.classify(text) for text in TEXTS] == \
            [packaged.classify(text) for text in TEXTS]


def test_a_cache_file_is_written_once_and_an_unwritable_cache_is_no_error(cache, monkeypatch):
    writes = []

    def write(stream):
        writes.append(1)
        stream.write(b"derived")

    path = cached_file("thing.bin", "v1-3-4", write)
    assert path is not None and path.read_bytes() == b"derived"
    assert cached_file("thing.bin", "v1-3-4", write) == path and len(writes) == 1
    other = cached_file("other.bin", "v1-3-4", write)
    newer = cached_file("thing.bin", "v2-3-4", write)  # replaces the older thing, not other
    assert len(writes) == 3
    assert sorted(item.name for item in cache.iterdir()) == ["other-v1-3-4.bin", "thing-v2-3-4.bin"]
    assert newer is not None and other is not None

    blocked = cache / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("WPS_CACHE_DIR", str(blocked))
    assert cached_file("thing.bin", "v1-3-4", write) is None
    lang._identifier.cache_clear()
    assert lang.identify(TEXTS[1])[0] == "en"  # the package's own load


def test_the_cached_justext_stoplist_is_trafilaturas_union(cache, monkeypatch):
    from trafilatura import external

    from wps.text.extract import load_justext_stoplist

    union = set(external.jt_stoplist_init())
    for _ in range(2):  # written, then read
        monkeypatch.setattr(external, "JT_STOPLIST", ())
        load_justext_stoplist()
        assert isinstance(external.JT_STOPLIST, tuple) and set(external.JT_STOPLIST) == union
    [written] = cache.iterdir()
    assert written.name.startswith("justext-")
    lines = written.read_text(encoding="utf-8").split("\n")
    written.write_text("\n".join(lines[:len(lines) // 2]), encoding="utf-8")  # cut short
    monkeypatch.setattr(external, "JT_STOPLIST", ())
    load_justext_stoplist()
    assert set(external.JT_STOPLIST) == union  # not half of it


def test_every_install_of_a_package_shares_its_cache_file(tmp_path):
    # keyed by content, not by where or when the package was installed: a fresh virtual
    # environment wrote another 68 MB model file
    first, second = tmp_path / "a" / "model.xz", tmp_path / "b" / "model.xz"
    for path in (first, second):
        path.parent.mkdir()
        path.write_bytes(b"the same model")
    assert source_key(first, "0.4.0") == source_key(second, "0.4.0")
    second.write_bytes(b"another model!")  # same size
    assert source_key(first, "0.4.0") != source_key(second, "0.4.0")
    assert source_key(first, "0.4.0") != source_key(first, "0.4.1")
    assert source_key(first.parent, "1") == source_key(second.parent, "1")  # names and sizes
