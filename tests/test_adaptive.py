"""adaptive: dense regions get fewer lines per chunk, sparse regions more, cut at semantic boundaries."""

from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, chunk_document, get_strategy, load_document
from chunktui.engine.strategies.adaptive import DensityMap, density_factor, is_code_like

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"

DENSE = "    result[index] = compute(alpha, beta) + offset; if (flag) { total += 1; }"
SPARSE = "a short plain line"


def run(text: str, kind: str = "prose", **params):
    cs = chunk_document(Document(text=text, kind=kind), "adaptive", params)
    for c in cs.chunks:
        assert c.text == text[c.start : c.end]
    assert not cs.gaps
    return cs


def core_lengths(cs):
    return [c.metadata["core_end_line"] - c.metadata["core_start_line"] + 1 for c in cs.chunks]


def test_factor_is_two_at_zero_one_at_half_and_half_at_one():
    assert density_factor(0.0) == 2.0
    assert density_factor(0.5) == 1.0
    assert density_factor(1.0) == 0.5


def test_code_like_lines():
    assert is_code_like("x = compute(a);")
    assert is_code_like("        return total")  # indented block
    assert not is_code_like("A sentence about harbors, ships (and boats).")
    assert not is_code_like("    - an indented list item")


def test_dense_code_shrinks_chunks():
    cs = run("\n".join([DENSE] * 400) + "\n", "code", size=100, overlap=0)
    assert all(c.metadata["density"] > 0.9 for c in cs.chunks)
    assert all(c.metadata["target_lines"] < 60 for c in cs.chunks)
    assert max(core_lengths(cs)[:-1]) <= 60 + 15
    assert len(cs.chunks) >= 6


def test_sparse_prose_grows_chunks():
    cs = run("\n".join([SPARSE] * 400) + "\n", size=100, overlap=0, max_tokens=0)  # lines, not tokens
    assert all(c.metadata["density"] < 0.2 for c in cs.chunks)
    assert all(c.metadata["target_lines"] > 150 for c in cs.chunks)
    assert min(core_lengths(cs)[:-1]) >= 150 - 40
    assert len(cs.chunks) <= 3


def test_mixed_document_adapts_per_region():
    text = "\n".join([SPARSE] * 300 + [DENSE] * 300) + "\n"
    cs = run(text, "code", size=60, overlap=5)
    prose = [c for c in cs.chunks if c.metadata["core_end_line"] <= 300]
    code = [c for c in cs.chunks if c.metadata["core_start_line"] > 360]
    assert prose and code
    assert min(c.line_count for c in prose) > max(c.line_count for c in code)
    assert all(c.overlap_prev_lines == 5 for c in cs.chunks[1:])


def test_density_map_ranges():
    dmap = DensityMap([SPARSE, "", DENSE, DENSE])
    assert dmap.density(3, 4) > dmap.density(1, 2)
    assert 0.0 <= dmap.density(1, 4) <= 1.0
    assert dmap.density(1, 99) == dmap.density(1, 4)


def test_cuts_prefer_headings_near_the_adapted_target():
    lines = ["# Top"] + [SPARSE] * 150 + ["", "## Next"] + [SPARSE] * 200
    cs = run("\n".join(lines) + "\n", "markdown", size=80, overlap=0, max_tokens=0)
    # sparse: target ~2x 80 lines; the heading at line 153 is within the +-25% window
    assert cs.chunks[1].metadata["core_start_line"] == 153
    assert cs.chunks[1].boundary_label == "## Next"
    assert cs.chunks[1].metadata["header_path"] == ["Top", "Next"]


@pytest.mark.parametrize("name", ["inventory.py", "guide.md"])
def test_samples_fit_the_declared_max_size(name):
    doc = load_document(SAMPLES / name)
    params = {"size": 40, "overlap": 5}
    cs = chunk_document(doc, "adaptive", params)
    unit, limit = get_strategy("adaptive").max_size(get_strategy("adaptive").validate(params))
    assert unit == "lines"
    assert all(c.line_count <= limit for c in cs.chunks)
    assert all(20 <= c.metadata["target_lines"] <= 80 for c in cs.chunks)


def test_code_sample_gets_smaller_chunks_than_prose_sample():
    code = chunk_document(load_document(SAMPLES / "inventory.py"), "adaptive", {"size": 40, "overlap": 0})
    prose = chunk_document(load_document(SAMPLES / "guide.md"), "adaptive", {"size": 40, "overlap": 0})
    mean = lambda cs: sum(c.metadata["target_lines"] for c in cs.chunks) / len(cs.chunks)  # noqa: E731
    assert mean(code) < 40 < mean(prose)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    lines=st.lists(st.sampled_from([DENSE, SPARSE, "", "## Head", "def f(x):", "x" * 200]), max_size=300),
    size=st.integers(1, 40),
    overlap=st.integers(0, 39),
)
def test_targets_stay_within_half_and_double_and_cores_tile(lines, size, overlap):
    assume(overlap < size)
    cs = run("\n".join(lines), "code", size=size, overlap=overlap)
    expected = 1
    for c in cs.chunks:
        target = c.metadata["target_lines"]
        assert max(1, round(size * 0.5)) <= target <= round(size * 2)
        assert 0.0 <= c.metadata["density"] <= 1.0
        core_a, core_b = c.metadata["core_start_line"], c.metadata["core_end_line"]
        assert core_a == expected and core_b - core_a + 1 <= target + target // 4
        assert c.start_line == max(1, core_a - overlap)
        expected = core_b + 1
    assert expected == cs.document.line_count + 1
