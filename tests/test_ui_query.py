"""The query pane: a question's top chunks, questions with known answers marked hit or missed in the
document, recall and IoU live in the stats, and the sweep grid coloured by recall. What the app
shows is compared with what the engine's retrieval computes for the chunking on screen."""

from __future__ import annotations

from itertools import islice
from textual.widgets import DataTable, Input, OptionList

from chunktui.engine import chunk_document, load_document
from chunktui.engine.analysis.retrieval import BM25Index, auto_queries, evaluate_retrieval, load_queries
from chunktui.engine.analysis.sweep import sweep
from chunktui.ui.query_pane import retrieval_line
from chunktui.ui.screens.sweep import SweepScreen
from chunktui.ui.compat import notifications
from support.ui import SAMPLES, opened, run, settle

GUIDE = SAMPLES / "guide.md"
QUERIES = SAMPLES / "queries" / "guide.jsonl"
LINES = {"size": 10, "overlap": 0}  # small chunks: at k=1 some of guide.jsonl's answers are missed


async def settle_retrieval(pilot) -> None:
    """The chunking shown, then the retrieval worker's result (a question is debounced first)."""
    await settle(pilot)
    await pilot.pause(0.2)
    await settle(pilot)


async def ask(pilot, question: str) -> None:
    await pilot.press("slash")
    box = pilot.app.query_one("#query-input", Input)
    assert box.has_focus
    box.value = question
    await pilot.press("enter")  # searches at once and puts the focus on the results
    await settle_retrieval(pilot)


async def set_k(pilot, k: int) -> None:
    box = pilot.app.query_one("#query-k", Input)
    box.value = str(k)
    box.focus()
    await pilot.pause()
    await pilot.press("enter")
    await settle_retrieval(pilot)


def engine_chunks(app):
    strategy, values, tokenizer, header = app.current_request()
    return chunk_document(
        load_document(app.doc.path), strategy, dict(values), tokenizer=tokenizer, context_header=header
    )


def expected_marks(report, chunks, k: int) -> dict[int, bool]:
    """Character -> retrieved, one character at a time: missed when any question whose reference
    holds it misses it at k."""
    state: dict[int, bool] = {}
    for result in report.results:
        got = [(chunks[p].start, chunks[p].end) for p, _ in result.ranked[:k]]
        for ref in result.query.references:
            for at in range(ref.start, ref.end):
                retrieved = any(s <= at < e for s, e in got)
                state[at] = state.get(at, True) and retrieved
    return state


@run
async def test_a_question_shows_the_engine_top_k_in_the_pane_the_document_and_the_table():
    async with opened(GUIDE, strategy="markdown", params={"max_char": 400}) as (app, pilot):
        question = "how do I roll back a release"
        await ask(pilot, question)
        index = BM25Index(engine_chunks(app).chunks)
        expected = list(islice(index.search(question), 5))
        index.close()
        assert len(expected) == 5 and app.query_hits == expected
        ranks = {pos: rank for rank, (pos, _) in enumerate(expected, 1)}
        assert app.view.ranks == ranks and app.table.ranks == ranks
        first = app.chunkset.chunks[expected[0][0]]
        assert app.table.get_cell_at((first.index, 5)).startswith("★1 ")
        listing = app.query_one("#query-list", OptionList)
        assert [listing.get_option_at_index(i).id for i in range(5)] == [f"chunk:{p}" for p, _ in expected]
        assert listing.has_focus
        await pilot.press("down", "enter")  # the second chunk: selected and shown in the document
        await settle(pilot)
        assert app.selected == expected[1][0]
        chunk = app.chunkset.chunks[expected[1][0]]
        assert app.view.first_visible_line == chunk.start_line
        gutter = [app.view.render_line(y).text[: app.view.gutter_width] for y in range(10)]
        assert f"#{chunk.index + 1} ★2" in "".join(gutter)  # where its own text starts, with its rank


@run
async def test_questions_are_marked_hit_or_missed_in_the_document_as_the_engine_retrieves_them():
    async with opened(GUIDE, strategy="lines", params=LINES, queries=QUERIES) as (app, pilot):
        await settle_retrieval(pilot)
        await pilot.press("slash")
        await set_k(pilot, 1)
        queries = load_queries(QUERIES, app.doc.text)
        cs = engine_chunks(app)
        report = evaluate_retrieval(cs, queries, ks=(1,), budget=0)
        hits = [r.metrics["hit@1"] > 0 for r in report.results]
        assert 0 < sum(hits) < len(hits)  # some hit, some missed: both marks are drawn
        state = expected_marks(report, cs.chunks, 1)
        drawn = {at: retrieved for s, e, retrieved in app.view._marks for at in range(s, e)}
        assert drawn == state
        summary = str(app.query_one("#query-summary").render())
        assert f"{sum(hits)} hit, {len(hits) - sum(hits)} missed" in summary
        listing = app.query_one("#query-list", OptionList)
        rows = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert [row.startswith("✓ hit") for row in rows] == hits
        # the document draws a missed reference's text in the missed style, a retrieved one's in the hit style
        tints = app.view.tints
        for retrieved, style in ((False, tints.reference_missed), (True, tints.reference_hit)):
            at = next(a for a, r in sorted(state.items()) if r is retrieved)
            line = app.doc.line_of(at)
            app.action_goto_line(line)
            await pilot.pause()
            strip = app.view.render_line(line - app.view.first_visible_line)
            assert any(seg.style and seg.style.color == style.color and seg.style.underline for seg in strip)


@run
async def test_recall_and_iou_follow_a_parameter_change_live():
    async with opened(GUIDE, strategy="lines", params=LINES, queries=QUERIES) as (app, pilot):
        await settle_retrieval(pilot)
        await pilot.press("slash")
        await set_k(pilot, 1)
        queries = load_queries(QUERIES, app.doc.text)
        before = app.query_one("#stats").retrieval.plain
        assert before == retrieval_line(evaluate_retrieval(engine_chunks(app), queries, ks=(1,)), 1, False).plain
        app.view.focus()
        await pilot.press("right_square_bracket")  # lines size 10 -> 20
        await settle_retrieval(pilot)
        assert app.chunkset.params["chunk_lines"] == 20
        report = evaluate_retrieval(engine_chunks(app), queries, ks=(1,))
        after = app.query_one("#stats").retrieval.plain
        assert after == retrieval_line(report, 1, False).plain != before
        means = report.means()
        assert after.startswith(f"recall@1 {means['recall@1']:.3f} · 1k tok {means['recall@budget']:.3f}\n")


def test_the_stats_lines_carry_recall_at_the_token_budget_as_the_sweep_grid_does():
    """recall@5 alone rewards size: recursive 1600 on guide.md has recall@5 1.000 (6 chunks) but
    0.917 within 1,000 tokens, the figure the sweep grid ranks by; the stats showed only the first."""
    doc = load_document(GUIDE)
    queries = load_queries(QUERIES, doc.text)
    cs = chunk_document(doc, "recursive", {"size": 1600, "overlap": 0})
    report = evaluate_retrieval(cs, queries, ks=(5,))
    means = report.means()
    assert means["recall@5"] > means["recall@budget"]
    cell = sweep(doc, ["recursive"], [1600], [0], workers=1, queries=queries).cells[0]
    lines = retrieval_line(report, 5, False).plain.split("\n")
    assert lines == [
        f"recall@5 {means['recall@5']:.3f} · 1k tok {cell.recall:.3f}",
        f"IoU@5 {means['iou@5']:.3f} · 1k tok {cell.iou:.3f}",
    ]
    synthetic = retrieval_line(evaluate_retrieval(cs, queries, ks=(10,)), 10, True).plain.split("\n")
    assert synthetic[1].endswith(" · synthetic")
    assert max(map(len, lines + synthetic)) <= 31  # the stats panel's width at 80 columns


@run
async def test_a_result_for_a_chunking_no_longer_shown_is_dropped():
    async with opened(GUIDE, strategy="lines", params=LINES, queries=QUERIES) as (app, pilot):
        await settle_retrieval(pilot)
        old_chunkset, old_report = app.chunkset, app.query_report
        app.view.focus()
        await pilot.press("right_square_bracket")
        await settle_retrieval(pilot)
        shown = app.query_report
        assert shown is not old_report
        from chunktui.ui.query_pane import RetrievalReady

        app.post_message(RetrievalReady(app._retrieval_request, old_chunkset, "", [], old_report))
        await settle(pilot)
        assert app.query_report is shown


@run
async def test_synthetic_questions_are_labelled_synthetic_wherever_they_show():
    async with opened(GUIDE, strategy="markdown", params={"max_char": 400}, auto_queries=6) as (app, pilot):
        await settle_retrieval(pilot)
        assert [q.question for q in app.queries] == [q.question for q in auto_queries(app.doc.text, 6, 0)]
        assert app.query_one("#stats").retrieval.plain.endswith(" · synthetic")
        await pilot.press("slash")
        await settle(pilot)
        assert "synthetic" in str(app.query_one("#query-summary").render())
        listing = app.query_one("#query-list", OptionList)
        rows = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert len(rows) == 6 and all("synthetic" in row for row in rows)


@run
async def test_questions_load_from_the_pane_and_a_bad_file_is_one_notification(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "where", "references": [{"start_index": 8000, "end_index": 90000}]}\n')
    async with opened(GUIDE, strategy="markdown") as (app, pilot):
        assert app.query_one("#stats").retrieval is None
        await pilot.press("slash")
        box = app.query_one("#queries-input", Input)
        box.value = str(bad)
        box.focus()
        await pilot.pause()
        await pilot.press("enter")
        await settle_retrieval(pilot)
        errors = [str(n.message) for n in notifications(app) if n.severity == "error"]
        assert len(errors) == 1 and "query 1" in errors[0] and "outside the file" in errors[0]
        assert app.queries == () and app.query_one("#stats").retrieval is None
        box.value = str(QUERIES)
        await pilot.press("enter")
        await settle_retrieval(pilot)
        assert len(app.queries) == 12 and app.query_one("#stats").retrieval.plain.startswith("recall@5 ")


@run
async def test_the_sweep_grid_is_coloured_and_starred_by_recall_with_questions_loaded():
    async with opened(GUIDE, strategy="lines", params=LINES, queries=QUERIES) as (app, pilot):
        await settle_retrieval(pilot)
        app.view.focus()
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SweepScreen) and screen.heat == "recall"
        screen.query_one("#sweep-sizes", Input).value = "10,20,40"
        screen.query_one("#sweep-overlaps", Input).value = "0"
        await pilot.click("#sweep-run")
        await settle(pilot)
        await screen.workers.wait_for_complete()
        await settle(pilot)
        queries = load_queries(QUERIES, app.doc.text)
        expected = sweep(
            load_document(GUIDE), ["lines"], [10, 20, 40], [0], budget=app.budget, workers=1, queries=queries
        )
        assert screen.result.cells == expected.cells
        table = screen.query_one("#sweep-table", DataTable)
        columns = [str(c.label) for c in table.columns.values()]
        assert columns[-3:] == ["recall", "iou", "flags"]
        best = expected.best("recall")
        recall_cells = [table.get_cell_at((row, columns.index("recall"))) for row in range(table.row_count)]
        assert [str(c).strip().endswith("★") for c in recall_cells] == [c is best for c in expected.cells]
        assert all(cell.style for cell in recall_cells)  # the heat
        await pilot.press("r")  # back to the score's heat
        recall_cells = [table.get_cell_at((row, columns.index("recall"))) for row in range(table.row_count)]
        assert screen.heat == "score" and not any(cell.style for cell in recall_cells)


def test_reference_marks_split_each_reference_at_the_retrieved_spans():
    """Hand-computed: chunks [0,10) [10,20) [20,30); question 1 retrieves the second chunk and its
    reference is 5..25, question 2 retrieves the first and its reference 8..12 overlaps question 1's."""
    from chunktui.engine.analysis.retrieval import Query, QueryResult, Reference, RetrievalReport
    from chunktui.ui.query_pane import reference_marks

    class Span:
        def __init__(self, start, end):
            self.start, self.end = start, end

    chunks = [Span(0, 10), Span(10, 20), Span(20, 30)]
    report = RetrievalReport(
        (1,),
        0,
        [
            QueryResult(Query("q1", (Reference(5, 25),)), [(1, 2.0)], {}),
            QueryResult(Query("q2", (Reference(8, 12),)), [(0, 1.0)], {}),
        ],
    )
    # 8..10 is retrieved for q2 but missed for q1, 10..12 the other way round: both drawn missed
    assert reference_marks(report, chunks, 1) == [(5, 12, False), (12, 20, True), (20, 25, False)]


@run
async def test_the_palette_opens_the_pane_on_the_question_and_on_the_questions_box():
    from chunktui.ui.commands import ChunktuiCommands

    async with opened(GUIDE, strategy="markdown") as (app, pilot):
        provider = ChunktuiCommands(app.screen)
        hits = {hit.text: hit async for hit in provider.discover()}
        pane, detail = app.query_one("#query-pane"), app.query_one("#detail")
        assert not pane.display and detail.display
        await hits["Load questions with known answers…"].command()
        await pilot.pause()
        assert pane.display and not detail.display and app.focused.id == "queries-input"
        await hits["Query the chunks…"].command()  # shown already: the question box gets the focus
        await pilot.pause()
        assert app.focused.id == "query-input"
        await pilot.press("escape")  # hides it; the detail pane comes back
        await pilot.pause()
        assert not pane.display and detail.display and app.focused is app.view
