"""The command line: `chunktui FILE` opens the app; `chunk`, `inspect`, `strategies`, `demo` and `open` are commands.

Adding a command: write `@cli.command()` below (the group sends any first word
that is not a command name to `open`). Strategy flags of `chunk` are generated
from the strategies' Param specs, so a new strategy parameter needs no edit here.
Heavy modules (textual, tiktoken, rich, yaml, the strategies) are imported inside
commands so `chunktui --help` starts fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from chunktui import __version__
from chunktui.cli import stdout
from chunktui.engine.core.errors import ChunktuiError, DocumentError, ParamError, UnknownStrategyError
from chunktui.engine.core.options import CONTEXT_HEADERS
from chunktui.engine.core.tokens import DEFAULT_BUDGET

if TYPE_CHECKING:
    from collections.abc import Callable

    from click.decorators import FC

    from chunktui.formats.discover import Skipped
    from chunktui.formats.profiles import Profile

    OptionDecorator = Callable[[FC], FC]  # what click.option makes

# declared: eval.py imports these while this module imports it (mypy cannot infer them across the cycle)
TOKENIZERS: tuple[str, ...]
CONTEXT_HEADER: OptionDecorator
HTML_MODE: OptionDecorator
PASSWORD: OptionDecorator
TOKENIZERS = ("cl100k_base", "o200k_base")
CONTEXT_HEADER = click.option(
    "--context-header",
    type=click.Choice(CONTEXT_HEADERS),
    default=None,
    help="Put in front of each chunk's embedded text (what exports give to embed, and what budgets count): "
    "none, title (the file name) or path (the file name > header path, scope chain, page or subject). "
    "[default: the profile's, else none]",
)
HTML_MODE = click.option(
    "--html",
    "html_mode",
    type=click.Choice(("main", "whole")),
    default="main",
    show_default=True,
    help="HTML files: their main content (navigation, banners and footers left out) or the whole page.",
)
PASSWORD = click.option("--password", default=None, metavar="TEXT", help="Password of encrypted PDF files.")


def SYNTHETIC_QUERIES(command):  # a decorator, named as the option decorators beside it
    """`--auto-queries N` and `--seed S`, as `eval` and `sweep` take them."""
    command = click.option("--seed", type=int, default=0, show_default=True, help="Seed of --auto-queries.")(command)
    return click.option(
        "--auto-queries",
        "auto_n",
        type=click.IntRange(min=1, max=100_000),
        metavar="N",
        help="No queries file: N synthetic questions made from FILE's sentences (seeded; not a benchmark).",
    )(command)


FALLBACK_STRATEGIES = ("auto", "semantic", "lines")
PARAM_DEST = "strategy_param__"  # prefix keeping generated flags apart from the fixed options
EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def fail_line(message: str) -> None:
    # a path's bytes that are not UTF-8 are shown as \xNN (they cannot be written as text)
    from chunktui.formats.records import printable_path

    stdout.say_error(printable_path(" ".join(message.split())))


def warn_line(message: str) -> None:
    from chunktui.formats.records import printable_path

    click.echo(f"chunktui: warning: {printable_path(message)}", err=True)


class WholeNumber(click.IntRange):
    """click.IntRange taking what a strategy flag takes (ASCII digits, an optional sign): click's
    int() would also take " 12", "1_000" and other scripts' digits."""

    def convert(self, value, param, ctx):
        if isinstance(value, str):
            from chunktui.engine.strategies import parse_int

            try:
                value = parse_int(value)
            except ValueError:
                self.fail(f"{value!r} is not a whole number (ASCII digits, optional sign)", param, ctx)
        return super().convert(value, param, ctx)


class ChunktuiGroup(click.Group):
    """Routes `chunktui FILE` to `open` and turns every failure into one line and an exit code."""

    def parse_args(self, ctx, args):
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help", "--version")):
            if args and not Path(args[0]).exists():
                import difflib

                near = difflib.get_close_matches(args[0], list(self.commands), n=1, cutoff=0.75)
                if near:  # `chunktui chunkk f.md` is a typo, not a file to open
                    raise click.UsageError(f"no such command or file {args[0]!r}; did you mean {near[0]!r}?", ctx)
            args = ["open", *args]
        return super().parse_args(ctx, args)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args, prog_name or "chunktui", complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else EXIT_OK
            stdout.flush()
        except (click.Abort, KeyboardInterrupt) as exc:  # SIGTERM during an export too
            why = str(exc.__cause__ or exc)  # click turns KeyboardInterrupt into Abort
            click.echo("chunktui: interrupted" + (f" ({why})" if why else ""), err=True)
            code = 130
        except click.ClickException as exc:  # usage: unknown option, bad value, missing argument
            ctx = getattr(exc, "ctx", None)  # a UsageError's
            where = f" (see '{ctx.command_path} --help')" if ctx else ""
            fail_line(exc.format_message() + where)
            code = EXIT_BAD_INPUT
        except ChunktuiError as exc:
            fail_line(str(exc))
            code = EXIT_BAD_INPUT
        except Exception as exc:  # a bug, unless the output cannot be written: keep the traceback for the report
            if isinstance(exc, OSError) and stdout.failed_on_stdout(exc):  # `> /dev/full`, `| head -1`
                code = stdout.report(exc)
            else:
                import traceback  # here: it imports tokenize and linecache, 10 ms of every run's start

                traceback.print_exc()
                click.echo(f"chunktui: internal error: {type(exc).__name__}: {exc}", err=True)
                code = EXIT_INTERNAL
        if standalone_mode:
            sys.exit(code)
        return code


class StrategyParamsCommand(click.Command):
    """A command whose strategy flags are generated from the strategies' specs, on first use.

    A command line is parsed first with the flags of the one strategy it names (`-s recursive`), or
    with none when it names none, so no other strategy module is imported (auto then imports the one
    it picks); --help, and a command line with a flag that set lacks (parsed again, so that a flag
    of another strategy is the error it always was), get every registered strategy's. Each
    strategy's flags include its parameters' aliases (`-s recursive --max-char` is --max-chars).

    Its help lists the flags of the strategies named with `-s` (each with its unit, default and
    aliases), or, with none named, every strategy's flags once by their own names.
    """

    def parse_args(self, ctx, args):
        ctx.meta[NAMED_STRATEGIES] = named_strategies(args)  # --help is answered before -s is read
        fixed = [p for p in self.params if not p.name.startswith(PARAM_DEST)]
        if not any(arg in ("-h", "--help") for arg in args):
            self.params = [*fixed, *_strategy_flags(fixed, sole_strategy(ctx.meta[NAMED_STRATEGIES]))]
            try:
                return super().parse_args(ctx, list(args))  # the parser consumes the list it is given
            except click.NoSuchOption:
                pass
        self.params = [*fixed, *_strategy_flags(fixed, EVERY_STRATEGY)]
        return super().parse_args(ctx, args)

    def format_options(self, ctx, formatter):
        common = [p for p in self.get_params(ctx) if isinstance(p, click.Option) and not p.name.startswith(PARAM_DEST)]
        with formatter.section("Options"):
            formatter.write_dl([r for r in (p.get_help_record(ctx) for p in common) if r])
        strategies = help_strategies(ctx.meta.get(NAMED_STRATEGIES, ()))
        if not strategies:
            with formatter.section("Strategy options (`-s NAME --help` lists one strategy's, with units and defaults)"):
                formatter.write_dl(
                    [
                        r
                        for r in (p.get_help_record(ctx) for p in self.get_params(ctx) if p.name.startswith(PARAM_DEST))
                        if r
                    ]
                )
        for strat in strategies:
            with formatter.section(f"Options of strategy {strat.name}"):
                formatter.write_dl(
                    [(param_flag(p), f"{p.help} {param_facts(p, strat)}") for p in strat.params]
                    or [("(none)", "This strategy has no parameters.")]
                )


NAMED_STRATEGIES = "chunktui.named_strategies"
EVERY_STRATEGY = "*"
_flag_sets: dict[tuple, list[click.Option]] = {}


def _strategy_flags(fixed: list, strategy: str | None) -> list[click.Option]:
    """The generated flags beside the `fixed` params: of `strategy`, of none (None), or of every
    strategy (EVERY_STRATEGY)."""
    key = (tuple(id(p) for p in fixed), strategy)
    if key not in _flag_sets:
        from chunktui.engine import all_strategies, get_strategy

        taken = {opt for p in fixed for opt in (*p.opts, *p.secondary_opts)} | {"-h", "--help"}
        chosen = all_strategies() if strategy == EVERY_STRATEGY else [get_strategy(strategy)] if strategy else []
        _flag_sets[key] = strategy_options(taken, chosen)
    return _flag_sets[key]


def named_strategies(args: list[str]) -> tuple[str, ...]:
    """The strategy names given with -s/--strategy in `args` (comma-separated ones split)."""
    names = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg in ("-s", "--strategy") and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--strategy="):
            value = arg.partition("=")[2]
        elif arg.startswith("-s") and not arg.startswith("--") and len(arg) > 2:
            value = arg[2:]
        else:
            continue
        names += [n for n in value.split(",") if n]
    return tuple(names)


def sole_strategy(names: tuple[str, ...]) -> str | None:
    """The one strategy of `names` (from named_strategies) whose flags alone parse a command line:
    None for a list, an unknown name or one that picks another per file (auto)."""
    from chunktui.engine import get_strategy

    if len(names) != 1:
        return None
    try:
        strat = get_strategy(names[0])
    except UnknownStrategyError:
        return None
    return None if strat.delegates else strat.name


def help_strategies(names) -> list:
    """The strategies whose flags a help lists: those named, unless one is unknown or picks
    another per file (auto takes any strategy's flags), then none (all flags are listed)."""
    from chunktui.engine import get_strategy

    found = []
    for name in names:
        try:
            strat = get_strategy(name)
        except UnknownStrategyError:
            return []
        if strat.delegates:
            return []
        if strat not in found:
            found.append(strat)
    return found


def strategy_options(taken: set[str], strategies) -> list[click.Option]:
    """One flag per parameter name or alias across `strategies` (`--max-chars`, `--prefix/--no-prefix`).

    Every name is its own option and the chosen strategy maps an alias to its parameter
    (`--size` is `fixed`'s size but `lines`'s chunk_lines). A name that is only ever an alias
    (`--max-char`) is hidden from the list and named in its parameter's help instead.
    """
    from chunktui.engine.strategies import flag_of

    uses: dict[str, list] = {}  # name -> (strategy, param) that has it as its own name
    alias_of: dict[str, list] = {}  # name -> (strategy, param) that takes it as an alias
    for strat in strategies:
        for param in strat.params:
            uses.setdefault(param.name, []).append((strat.name, param))
            for alias in param.aliases:
                alias_of.setdefault(alias, []).append((strat.name, param))
    options = []
    for name in sorted(uses.keys() | alias_of.keys()):
        flag = flag_of(name)
        if flag in taken:
            continue
        found = uses.get(name, [])
        specs = [p for _, p in found or alias_of[name]]
        help_text = _option_help(found, alias_of.get(name, []), uses) if found else ""
        if {p.type for p in specs} == {"bool"}:
            options.append(
                click.Option(
                    [f"{flag}/--no-{flag[2:]}", PARAM_DEST + name], default=None, help=help_text, hidden=not found
                )
            )
            continue
        # one name has one unit everywhere (tests/test_param_names.py); each strategy checks its own choices
        choices = list(dict.fromkeys(c for p in specs for c in p.choices))
        metavar = "|".join(choices) if {p.type for p in specs} == {"choice"} else specs[0].metavar
        options.append(
            click.Option([flag, PARAM_DEST + name], default=None, metavar=metavar, help=help_text, hidden=not found)
        )
    return options


def _option_help(found: list, alias_for: list, uses: dict) -> str:
    """The general help line of a parameter name: its help where one strategy has it, its
    hidden aliases, and the strategies that take the same word as an alias of another parameter."""
    from chunktui.engine.strategies import flag_of

    first_strategy, first = found[0]
    if len(found) == 1:
        text = f"{first.help} Default {_show_default(first.default)}. [{first_strategy}]"
    else:
        text = f"Parameter of {', '.join(s for s, _ in found)}; meaning and default in `-s NAME --help`."
    hidden = sorted({a for _, p in found for a in p.aliases if a not in uses})
    if hidden:
        text += f" Alias: {', '.join(flag_of(a) for a in hidden)}."
    if alias_for:
        owners = [f"{s}'s {p.flag}" for s, p in alias_for]
        text += f" Also an alias of {', '.join(owners)}."
    return text


def default_strategy() -> str:
    """`auto` when it is registered, else the best fallback that is."""
    from chunktui.engine import get_strategy

    for name in FALLBACK_STRATEGIES:
        try:
            return get_strategy(name).name
        except UnknownStrategyError:
            continue
    raise ChunktuiError("no chunking strategy is registered")


def run_app(**kwargs):
    """Start the Textual app; imported here so only the app pays for loading textual."""
    try:
        from chunktui.ui.app import run_app as start
    except ImportError as exc:
        if exc.name not in ("chunktui.ui", "chunktui.ui.app"):
            raise
        click.echo(
            "chunktui: error: the app is not available in this build (chunktui.ui.app.run_app "
            "is missing); `chunktui chunk` works without it",
            err=True,
        )
        return EXIT_INTERNAL
    start(**kwargs)
    return EXIT_OK


@click.group(cls=ChunktuiGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="chunktui")
def cli():
    """See, tune and export how your documents are chunked.

    `chunktui FILE` opens the app on a document or a saved chunks.yaml;
    `chunktui chunk PATH...` writes chunks without it.
    """


@cli.command("open")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option(
    "--profile", type=click.Path(path_type=Path), help="Start with the strategy, params and tokenizer of this profile."
)
@click.option(
    "--queries",
    "queries_path",
    type=click.Path(path_type=Path),
    metavar="Q.jsonl|Q.csv",
    help="Questions with known answers for PATH: hit or missed in the document, recall and IoU live.",
)
@click.option(
    "--auto-queries",
    "auto_n",
    type=click.IntRange(min=1, max=100_000),
    metavar="N",
    help="No queries file: N synthetic questions made from PATH's sentences (seed 0; not a benchmark).",
)
@HTML_MODE
@PASSWORD
def open_command(path, profile, queries_path, auto_n, html_mode, password):
    """Open the app on PATH (a document or a chunks.yaml); without PATH, a file picker.

    The default command: `chunktui PATH` is `chunktui open PATH`. --html and --password apply
    to every file the app reads (a review reads its source with the mode it was saved with).
    """
    if path is not None and not path.exists():
        raise DocumentError(path, "no such file")
    if path is not None and not path.is_file() and not path.is_dir():
        raise DocumentError(path, "not a regular file (a pipe, socket or device)")
    if path is not None and path.is_file():
        from chunktui.engine.readers.documents import check_text_file

        check_text_file(path)  # a binary file is refused here, before the screen takes over
        from chunktui.formats.store import check_source_password

        check_source_password(
            path, password
        )  # as are a wrong password and a damaged PDF or DOCX, which only the worker would meet
    if profile is not None:
        from chunktui.formats.profiles import load_profile

        load_profile(profile)  # a bad profile is reported here, before the screen takes over
    questions = {}
    reader_options = {"html": html_mode, "password": password}
    if queries_path is not None or auto_n is not None:
        check_questions(path, queries_path, auto_n, reader_options)
        questions = {"queries": queries_path, "auto_queries": auto_n}
    return run_app(
        path=str(path) if path else None,
        profile=str(profile) if profile else None,
        reader_options=reader_options,
        **questions,
    )


def check_questions(path, queries_path, auto_n, reader_options: dict | None = None) -> None:
    """The app's questions are read here, so that a bad queries file is one line before the screen
    takes over: they belong to one document (a folder or a saved chunks.yaml has none)."""
    from chunktui.engine import load_document
    from chunktui.engine.analysis.retrieval import auto_queries, load_queries

    flag = "--queries" if queries_path is not None else "--auto-queries"
    if queries_path is not None and auto_n is not None:
        raise ChunktuiError("--queries: give a queries file or --auto-queries N, not both")
    if path is None or not path.is_file() or path.name == "chunks.yaml":
        raise ChunktuiError(f"{flag}: the questions are about one document; give its path")
    doc = load_document(path, reader_options=reader_options)
    if queries_path is not None:
        load_queries(queries_path, doc.text)
    elif not auto_queries(doc.text, 1):
        raise ChunktuiError(f"--auto-queries: {doc.name} has no sentence of 8 to 60 words to ask about")


@cli.command()
def demo():
    """Open the bundled sample documents and step through every strategy (`s` for the next)."""
    return run_app(demo=True)


@cli.command(cls=StrategyParamsCommand)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--strategy",
    "-s",
    "strategy_name",
    metavar="NAME",
    help="Chunking strategy (default: auto, which picks by file type). See `chunktui strategies`.",
)
@click.option(
    "--format",
    "-f",
    "fmt",
    default="text",
    show_default=True,
    metavar="text|json|yaml|jsonl|...",
    help="Chunk files: chunk-0001.txt..., chunks.json, chunks.yaml (reloadable) or chunks.jsonl. "
    "manifest.json is always written.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path),
    help="Output folder (one file) or the folder below which each file gets its own "
    "(several files or a folder). Default: chunks/<file-name-with-dots-as-dashes>/.",
)
@click.option(
    "--dry-run", "-n", is_flag=True, help="Print the plan (strategy, chunk count, sizes, gaps); write nothing."
)
@click.option("--force", is_flag=True, help="Replace an output folder that holds an earlier export.")
@click.option(
    "--encoding",
    "tokenizer",
    type=click.Choice(TOKENIZERS),
    default=None,
    help="Tokenizer for token counts and token sizes. [default: cl100k_base]",
)
@click.option(
    "--profile",
    type=click.Path(path_type=Path),
    help="YAML profile (strategy, params, tokenizer) saved from the app; flags override it.",
)
@click.option(
    "--budget",
    type=WholeNumber(min=1),
    default=None,
    help=f"Token budget: chunks above it are reported.  [default: the profile's, else {DEFAULT_BUDGET}]",
)
@click.option(
    "--facts",
    "facts_path",
    type=click.Path(path_type=Path),
    metavar="PHRASES.txt",
    help="Key phrases, one a line: report each as whole (inside a chunk), split or missing.",
)
@click.option(
    "--max-file-size",
    "max_file_size",
    default="100MB",
    show_default=True,
    metavar="SIZE",
    help="Folder scans skip (and name) files bigger than this: 20MB, 1.5GB, 512KiB or bytes; 0 = no limit. "
    "Files named on the command line are always chunked.",
)
@HTML_MODE
@PASSWORD
@click.option(
    "--jobs",
    "-j",
    "workers",
    type=WholeNumber(min=1),
    default=None,
    metavar="N",
    help="Chunk the files in N processes, with one progress bar and index.json beside the outputs. "
    "Default for several files: one a core, or this process when a pool cannot pay (few or small files).",
)
@click.option(
    "--executor",
    type=click.Choice(("local", "dask")),
    default="local",
    show_default=True,
    help="Where the --jobs run goes: local processes, or a Dask cluster (implies --jobs).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="The Dask scheduler's address (tcp://host:8786) for --executor dask; default: a LocalCluster.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Skip files index.json (or, without it, their manifest.json) records with the same sha256 "
    "and settings; chunk the others over their earlier output (implies --jobs).",
)
@CONTEXT_HEADER
def chunk(
    paths,
    strategy_name,
    fmt,
    output,
    dry_run,
    force,
    tokenizer,
    profile,
    budget,
    facts_path,
    max_file_size,
    html_mode,
    password,
    workers,
    resume,
    executor,
    scheduler,
    context_header,
    **flags,
):
    """Chunk files (or every supported file in a folder) and write chunk files plus manifest.json.

    Strategy parameters are given as flags (`-s lines --chunk-lines 100`); a flag the
    chosen strategy does not have is an error. `-s NAME --help` lists its flags.
    """
    from chunktui.formats.discover import parse_size, plan_jobs
    from chunktui.formats.export import check_target, has_writer, recover_interrupted, writer_names

    if not has_writer(fmt):
        raise click.BadParameter(f"{fmt!r} is not one of {', '.join(writer_names())}", param_hint="'--format'")
    if fmt == "parquet":
        from chunktui.formats.parquet import require_pyarrow

        require_pyarrow()
    strategy, params, tokenizer, prof = resolve_configuration(strategy_name, profile, tokenizer, flags)
    budget = budget or (prof.budget if prof and prof.budget else DEFAULT_BUDGET)
    context_header = context_header or (prof.context_header if prof else "none")
    try:
        limit = parse_size(max_file_size)
    except ParamError as exc:
        raise click.BadParameter(exc.problem, param_hint="'--max-file-size'") from None
    skipped: list[Skipped] = []
    jobs = plan_jobs(paths, output, limit, skipped)
    for s in skipped:
        warn_line(f"skipped {s.path}: {s.reason}")
    facts = None
    if facts_path is not None:
        from chunktui.engine.analysis.facts import load_phrases

        facts = load_phrases(facts_path)
    if scheduler is not None and executor != "dask":
        raise ChunktuiError("--scheduler: only with --executor dask")
    if workers is not None or resume or executor == "dask" or (len(jobs) > 1 and not dry_run and facts is None):
        # several files: index.json, the corpus dataset, a Ctrl-C summary and --resume, whatever the core count
        from chunktui.cli.parallel import run_parallel

        if dry_run or facts is not None:
            flag = "--jobs" if workers else "--resume" if resume else "--executor"
            raise ChunktuiError(f"{flag}: not with --dry-run or --facts")
        return run_parallel(
            jobs,
            strategy,
            params,
            tokenizer,
            fmt,
            force,
            budget,
            workers,
            resume,
            reader_options={"html": html_mode, "password": password},
            context_header=context_header,
            executor=executor,
            scheduler=scheduler,
        )
    if not dry_run:
        for job in jobs:
            recover_interrupted(job.out_dir, notify=warn_line)  # a killed run's leftovers, even if refused below
            check_target(job.out_dir, force, job.source)  # refuse up front rather than after half the files
    return run_jobs(
        jobs,
        strategy,
        params,
        tokenizer,
        fmt,
        force,
        dry_run,
        budget,
        single=len(paths) == 1 and len(jobs) == 1,
        facts=facts,
        reader_options={"html": html_mode, "password": password},
        context_header=context_header,
    )


class _NoProgress:
    """What run_jobs uses of rich's Progress, for a stderr that is no terminal (rich draws no bar
    there): lines go straight to stderr and rich is not imported (about 50 ms of CPU per run)."""

    @property
    def console(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def add_task(self, *args, **kwargs) -> int:
        return 0

    def update(self, *args, **kwargs) -> None:
        return None

    def print(self, text: str, **style) -> None:
        click.echo(text, err=True)


def progress_bar(*fields: str):
    """rich's transient progress bar on a terminal (or where rich is told to draw one), with a text
    column for each of `fields` (task-field formats) after the count; else _NoProgress, which
    prints lines and spares importing rich."""
    import os

    if not (sys.stderr.isatty() or "FORCE_TERMINAL" in os.environ or "TTY_COMPATIBLE" in os.environ):
        return _NoProgress()
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *map(TextColumn, fields),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


def resolve_configuration(strategy_name, profile, tokenizer, flags) -> tuple[str, dict, str, Profile | None]:
    """Strategy, params and tokenizer from flags over a profile over the defaults, and the profile
    (or None): one reading for every command that takes strategy flags and `--profile`. Bad flags
    fail here, before any file is read (auto's depend on each file's type)."""
    from chunktui.engine import get_strategy
    from chunktui.engine.core.tokens import DEFAULT_TOKENIZER

    prof = None
    if profile is not None:
        from chunktui.formats.profiles import load_profile

        prof = load_profile(profile)
    try:
        strat = get_strategy(
            strategy_name if strategy_name is not None else (prof.strategy if prof else default_strategy())
        )
    except UnknownStrategyError as exc:
        raise ChunktuiError(f"--strategy: {exc}") from None
    given = strategy_flags(flags)
    saved = prof.given_params if prof and prof.strategy == strat.name else {}
    # a flag overrides the profile's value whatever name it spells (`--max-char` is max_chars);
    # it keeps its spelling so that an error names the flag as typed
    params = {**{k: v for k, v in saved.items() if k not in strat.canonical(given)}, **given}
    if prof and prof.strategy != strat.name and prof.params:
        warn_line(f"{profile}: its params are for {prof.strategy}, not {strat.name}; only its tokenizer is used")
    if not strat.delegates:
        try:
            strat.validate(params)
        except ParamError as exc:
            raise blame_default(exc, params) from None
    return strat.name, params, tokenizer or (prof.tokenizer if prof else DEFAULT_TOKENIZER), prof


def run_jobs(
    jobs,
    strategy,
    params,
    tokenizer,
    fmt,
    force,
    dry_run,
    budget,
    single,
    facts=None,
    reader_options=None,
    context_header="none",
) -> int:
    """Chunk and export (or plan) each job under a progress bar; one failing file does not stop a folder run."""
    from chunktui.engine.run import start_index
    from chunktui.formats.discover import load_source

    fact_blocks = []

    def warn_above_progress(line: str) -> None:
        progress.console.print(f"chunktui: warning: {line}", markup=False, highlight=False, soft_wrap=True)

    failures, total_chunks, total_lines, over_total, over_files, outputs = 0, 0, 0, 0, 0, []
    seen_sha, duplicates, blocked = set(), 0, 0
    progress = progress_bar()
    with progress:
        task = progress.add_task("chunking", total=len(jobs))
        for i, job in enumerate(jobs):
            progress.update(task, description=job.source.name, completed=i)
            try:
                doc = load_source(job.source, reader_options)
                start_index(doc, strategy, tokenizer)
                # imported once the first document is encoding, which lets go of the GIL: until then
                # only what reading it and starting its encode need (later files find them imported)
                from chunktui.engine import chunk_document
                from chunktui.formats.export import check_target, export_chunkset
                from chunktui.cli.plan import plan_lines, result_line
                from chunktui.ui.gc_pacing import paused as gc_paused
                from chunktui.cli.reports import facts_lines, quality_line

                with gc_paused():
                    cs = chunk_document(
                        doc,
                        strategy,
                        params,
                        tokenizer=tokenizer,
                        context_header=context_header,
                        progress=lambda f, i=i: progress.update(task, completed=i + min(1.0, f)),
                        index_ahead=True,
                    )
                if dry_run:
                    try:
                        check_target(job.out_dir, force, job.source)
                        note = ""
                    except ChunktuiError as exc:
                        note = f"would fail: {getattr(exc, 'problem', exc)}"
                        blocked += 1  # the real run refuses it up front: the plan exits as it would
                    outputs.append(
                        plan_lines(cs, job.out_dir, fmt, budget, strategy, note) + [quality_line(cs, budget)]
                    )
                else:
                    result = export_chunkset(cs, job.out_dir, fmt, force, notify=warn_above_progress)
                    outputs.append([result_line(cs, result.out_dir, result.manifest_path)])
                if facts:
                    fact_blocks.append((job.source, facts_lines(cs, facts)))
            except ChunktuiError as exc:
                if isinstance(exc, ParamError):
                    exc = blame_default(exc, params)
                if single:
                    raise exc from None
                failures += 1
                progress.console.print(f"chunktui: error: {exc}", markup=False, highlight=False, soft_wrap=True)
                continue
            for w in [] if dry_run else cs.warnings:  # a plan lists its warnings itself
                progress.console.print(f"chunktui: warning: {w}", markup=False, highlight=False, soft_wrap=True)
            over = sum(c.embed_tokens > budget for c in cs.chunks)  # what is embedded, as cs.stats() judges it
            over_total, over_files = over_total + over, over_files + (1 if over else 0)
            total_chunks += len(cs.chunks)
            total_lines += doc.line_count
            for c in cs.chunks:
                duplicates += c.sha256 in seen_sha
                seen_sha.add(c.sha256)
        progress.update(task, completed=len(jobs))
    from chunktui.cli.plan import plural
    from chunktui.formats.records import folder_display

    if over_total and not dry_run:
        where = f"{jobs[0].source.name}: " if single else ""
        files = "" if single else f" in {plural(over_files, 'file')}"
        warn_line(f"{where}{plural(over_total, 'chunk')}{files} over the {budget:,}-token budget (see --budget)")
    if dry_run:
        for block in outputs:
            click.echo("\n".join(block))
        click.echo(
            f"Dry run: {plural(len(jobs) - failures, 'file')} ({plural(total_lines, 'line')}) would give "
            f"{plural(total_chunks, 'chunk')}"
            + (f" ({duplicates:,} duplicate by sha256)" if duplicates else "")
            + (f". Would fail: {plural(failures + blocked, 'file')} (see above)" if failures + blocked else "")
            + ". Nothing written."
        )
    elif single:
        click.echo(outputs[0][0])
    else:
        root = folder_display(_common_root([j.out_dir for j in jobs]))
        click.echo(
            f"Split {plural(len(jobs) - failures, 'file')} ({plural(total_lines, 'line')}) into "
            f"{plural(total_chunks, 'chunk')}. Output: {root} (one folder per file, each with its manifest.json)"
            + (f". Duplicates (same sha256 as an earlier chunk): {duplicates:,}" if duplicates else "")
            + (f". Failed: {plural(failures, 'file')} (see above)" if failures else "")
        )
    for source, lines in fact_blocks:
        click.echo("\n".join(lines) if single else f"{source}:\n" + "\n".join("  " + line for line in lines))
    return EXIT_BAD_INPUT if failures or blocked else EXIT_OK


def strategy_flags(flags: dict) -> dict:
    """The strategy parameters given as flags, by the name (or alias) the flag spells."""
    return {k[len(PARAM_DEST) :]: v for k, v in flags.items() if k.startswith(PARAM_DEST) and v is not None}


def blame_default(exc: ParamError, params: dict) -> ParamError:
    """Say so when the offending value is a default the user never set (`--size 100` vs overlap 200).
    The other way round, a value given against a default (`--unit tokens --overlap 300` vs size
    200), the strategy's constraint says itself (Order.check), for the Python API too."""
    if exc.name in params:
        return exc
    return ParamError(exc.name, f"{exc.problem} (its default; pass --{exc.name.replace('_', '-')} too)")


def _common_root(folders) -> Path:
    import os

    return Path(os.path.commonpath([str(f.absolute()) for f in folders]))


@cli.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--chunk", "sample", metavar="ID|N", help="Show this chunk (id or 1-based number) instead of the median one."
)
@click.option("--full", is_flag=True, help="Show the whole sample chunk: every line, at full width.")
@PASSWORD
def inspect(file, sample, full, password):
    """Summarise a saved chunks.yaml, manifest.json or export folder: sizes, histogram, duplicates, a sample chunk."""
    from chunktui.cli.inspect import inspect_file, summary_lines

    click.echo("\n".join(summary_lines(inspect_file(file, password), sample, full)))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable: every strategy and its parameter spec.")
def strategies(as_json):
    """List every strategy with its parameters, defaults, ranges and help."""
    from chunktui.engine import all_strategies

    found = all_strategies()
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "name": s.name,
                        "aliases": list(s.aliases),
                        "summary": s.summary,
                        "kinds": list(s.kinds),
                        "params": [
                            p.to_dict() | ({"unit_defaults": d} if (d := s.unit_defaults(p)) else {}) for p in s.params
                        ],
                    }
                    for s in found
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    for s in found:
        aliases = f" (alias: {', '.join(s.aliases)})" if s.aliases else ""
        click.echo(f"{s.name}{aliases}\n  {s.summary}")
        if s.kinds:
            click.echo(f"  for: {', '.join(s.kinds)}")
        for p in s.params:
            click.echo(f"  {param_flag(p)}\n      {p.help} {param_facts(p, s)}")
        click.echo("")


def param_flag(p) -> str:
    """A parameter as its flag with its value's unit (`--max-chars CHARS`), then its aliases."""
    from chunktui.engine.strategies import flag_of

    flag = f"{p.flag}/--no-{p.flag[2:]}" if p.type == "bool" else f"{p.flag} {p.metavar}"
    return flag + (f" (alias {', '.join(flag_of(a) for a in p.aliases)})" if p.aliases else "")


def _show_default(value) -> str:
    """A default as the user types it: delimiter strings already hold escapes, so repr() would double them."""
    return f"'{value}'" if isinstance(value, str) else repr(value)


def param_facts(p, strategy) -> str:
    no_size = "" if p.name == "size" else " and no --size"  # a size given keeps the documented overlap
    in_units = "; ".join(f"{_show_default(d)} with --unit {u}{no_size}" for u, d in strategy.unit_defaults(p).items())
    facts = [f"default {_show_default(p.default)}" + (f" ({in_units})" if in_units else "")]
    if p.min is not None or p.max is not None:
        lo = "" if p.min is None else f"{p.min:,g}" if p.type == "float" else f"{int(p.min):,}"
        hi = "" if p.max is None else f"{p.max:,g}" if p.type == "float" else f"{int(p.max):,}"
        facts.append(f"range {lo}..{hi}")
    return f"[{', '.join(facts)}]"


@cli.command(cls=StrategyParamsCommand)
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--strategy",
    "-s",
    "strategy_names",
    multiple=True,
    metavar="NAME[,NAME]",
    help="Strategies to sweep (repeat or comma-separate). Default: auto.",
)
@click.option(
    "--size",
    "size_spec",
    metavar="START:STOP[:STEP]|N,N",
    help="Sizes to try, e.g. 200:2000:200 (inclusive) or 256,512 (at most 1,000 values; 2,000 "
    "configurations in all). Default: each strategy's default.",
)
@click.option(
    "--overlap",
    "overlap_spec",
    metavar="START:STOP[:STEP]|N,N",
    help="Overlaps to try, e.g. 0,50,100. Default: each strategy's default.",
)
@click.option(
    "--budget",
    type=WholeNumber(min=1),
    default=DEFAULT_BUDGET,
    show_default=True,
    help="Token budget for over_budget and over_budget_pct.",
)
@click.option(
    "--min-tokens",
    type=WholeNumber(min=0),
    default=16,
    show_default=True,
    help="Chunks below this many tokens are flagged tiny.",
)
@click.option("--encoding", "tokenizer", type=click.Choice(TOKENIZERS), default="cl100k_base", show_default=True)
@click.option("--format", "fmt", type=click.Choice(("table", "csv", "json")), default="table", show_default=True)
@click.option(
    "--workers",
    type=WholeNumber(min=1, max=64),
    default=2,
    show_default=True,
    help="Worker processes running the cells.",
)
@click.option(
    "--queries",
    "queries_path",
    type=click.Path(path_type=Path),
    metavar="Q.jsonl|Q.csv",
    help="Questions with known answers: adds recall and IoU columns (see `chunktui eval`).",
)
@SYNTHETIC_QUERIES
@click.option(
    "--retrieve-tokens",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="With --queries: recall and IoU of the top chunks within this many embedded tokens.",
)
@click.option(
    "--rank-by",
    type=click.Choice(("score", "recall", "iou")),
    default=None,
    help="What ranks the cells, best first. [default: recall with --queries (what retrieves leads; "
    "the score and flags explain), else the score in grid order]",
)
@HTML_MODE
@PASSWORD
@CONTEXT_HEADER
def sweep(
    file,
    strategy_names,
    size_spec,
    overlap_spec,
    budget,
    min_tokens,
    tokenizer,
    fmt,
    workers,
    queries_path,
    auto_n,
    seed,
    retrieve_tokens,
    rank_by,
    html_mode,
    password,
    context_header,
    **flags,
):
    """Chunk FILE with every strategy x size x overlap and score each configuration."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from chunktui.cli.reports import parse_strategies, run_sweep, sweep_output

    asked = queries_path is not None or auto_n is not None
    rank_by = rank_by or ("recall" if asked else "score")
    if rank_by != "score" and not asked:
        raise ChunktuiError(f"--rank-by: {rank_by} needs --queries or --auto-queries")
    names = parse_strategies(strategy_names or [default_strategy()])
    base = strategy_flags(flags)
    console = Console(stderr=True)
    # no auto-refresh thread: with no other thread running, the worker pool can fork (fast start)
    bar = Progress(
        TextColumn("sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
        auto_refresh=False,
    )
    with bar:
        task = bar.add_task("sweep", total=None)

        def progress(done, total):
            bar.update(task, completed=done, total=total)
            bar.refresh()

        _, result = run_sweep(
            file,
            names,
            size_spec,
            overlap_spec,
            base_params=base,
            budget=budget,
            min_tokens=min_tokens,
            tokenizer=tokenizer,
            workers=workers,
            progress=progress,
            queries=(queries_path, retrieve_tokens),
            auto_queries=(auto_n, seed),
            context_header=context_header or "none",
            reader_options={"html": html_mode, "password": password},
        )
    for note in result.notes:
        warn_line(note)
    for skipped in result.skipped:
        grid = " ".join(f"{k}={v}" for k, v in (("size", skipped.size), ("overlap", skipped.overlap)) if v is not None)
        warn_line(f"skipped {skipped.strategy} {grid}: {skipped.reason}")
    click.echo(sweep_output(result, fmt, rank_by, synthetic_seed=seed if auto_n is not None else None))


@cli.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--a", "profile_a", required=True, type=click.Path(path_type=Path), help="Profile of configuration A.")
@click.option("--b", "profile_b", required=True, type=click.Path(path_type=Path), help="Profile of configuration B.")
@click.option("--budget", type=WholeNumber(min=1), default=DEFAULT_BUDGET, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable: both sides' stats, flags and every boundary.")
@HTML_MODE
@PASSWORD
@CONTEXT_HEADER
def compare(file, profile_a, profile_b, budget, as_json, html_mode, password, context_header):
    """Chunk FILE with two profiles and show boundaries only in A, only in B and in both."""
    from chunktui.cli.reports import compare_lines

    click.echo(
        "\n".join(
            compare_lines(
                file,
                profile_a,
                profile_b,
                budget,
                as_json,
                context_header,
                reader_options={"html": html_mode, "password": password},
            )
        )
    )


from chunktui.cli.eval import eval_command  # imported last: it builds on the names above

cli.add_command(eval_command)
from chunktui.cli.serve import serve_command

cli.add_command(serve_command)
from chunktui.cli.search import search_command

cli.add_command(search_command)


def main(argv=None):
    """Console script entry point."""
    return cli.main(args=argv, prog_name="chunktui")
