"""SimHash, shingles and MinHash on texts whose answer is known by hand."""

from __future__ import annotations

from wps.dedup import minhash
from wps.dedup.simhash import bands, hamming_distance, simhash

LONG = (
    "the committee met on tuesday to discuss the new budget for the city library and agreed"
    " to extend its opening hours during the winter months"
)


def test_simhash_is_order_and_case_insensitive() -> None:
    assert simhash(LONG) == simhash(" ".join(reversed(LONG.upper().split())))
    assert simhash("") is None and simhash(" ... ") is None
    assert hamming_distance(0b1011, 0b0001) == 2


def test_simhash_of_a_single_word_is_its_hash_bits() -> None:
    import xxhash

    assert simhash("river") == xxhash.xxh3_64_intdigest(b"river")


def test_simhash_separates_near_and_far_texts() -> None:
    near = LONG + " again"
    assert hamming_distance(simhash(LONG), simhash(near)) <= 3
    far = "completely unrelated words about football scores and a recipe for cake with cherries"
    assert hamming_distance(simhash(LONG), simhash(far)) > 10
    assert bands(0x0004_0003_0002_0001) == [1, 2, 3, 4]


def test_shingles_ignore_short_blocks() -> None:
    text = (
        "Home | About | Contact\n"
        + "one two three four five six seven eight nine ten eleven twelve"
    )
    got = minhash.shingles(text)
    assert len(got) == 11  # 12 tokens -> 11 two-word shingles; menu line ignored
    assert minhash.shingles("one two three four five six seven eight nine ten eleven") == set()


def test_resemblance_by_hand() -> None:
    first = set(range(10))
    second = set(range(5, 15))
    assert minhash.resemblance(first, second) == 5 / 15
    assert minhash.resemblance(set(), set()) == 0.0


def test_minhash_estimates_resemblance() -> None:
    first = {i * 7919 for i in range(1000)}
    second = {i * 7919 for i in range(500, 1500)}  # Jaccard 500 / 1500
    estimate = minhash.estimated_resemblance(minhash.signature(first), minhash.signature(second))
    assert abs(estimate - 1 / 3) < 0.12
    sig = minhash.signature(first)
    assert minhash.estimated_resemblance(sig, minhash.signature(set(first))) == 1.0
    assert len(minhash.band_hashes(sig)) == minhash.PERMUTATIONS // minhash.BAND_ROWS
    assert minhash.signature(set()) is None
