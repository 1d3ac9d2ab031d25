"""Which grammar parses which file, and which node types mean what in each language.

Node types are checked against the loaded grammar, so a grammar wheel that renames
a node drops that entry instead of breaking every query.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import ChunkingError

if TYPE_CHECKING:
    from tree_sitter import Language, Query


class UnsupportedLanguageError(ChunkingError):
    """No grammar for this file: the CLI exits 2, the app falls back to `semantic`."""


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    module: str
    function: str
    extensions: tuple[str, ...]
    entities: dict[str, str]  # node type -> kind
    imports: tuple[str, ...]
    blocks: tuple[str, ...]  # containers whose children are statements or members
    wrappers: tuple[str, ...] = ()  # decorators/export/template: the entity inside is the real one
    comment: str = "//"
    docstring_in_body: bool = False  # Python: first string statement of the body
    # extra query patterns capturing @entity (e.g. `const f = () => {}`)
    extra_queries: tuple[str, ...] = ()
    import_items: tuple[str, ...] = ()  # report these parts of an import statement one by one (Go specs)
    # where definitions and imports can only be statements: the nodes besides definitions (whose
    # body is searched) that can hold them (see entities.find_nodes); empty: a query finds them
    statement_containers: frozenset[str] = frozenset()


_CONTROL = re.compile(
    r"^(if|else|elif|elsif|for|foreach|for_in|for_range|while|do|loop|try|catch|except|finally|with|switch|"
    r"case|match|unless|until|begin|rescue|ensure|select|expression_switch|type_switch|default|labeled|"
    r"unsafe|lock|using|fixed|checked|synchronized|when|then|except_group|async|defer|go|"
    r"communication|type_case|expression_case|default_case|switch_case|switch_default|match_arm|"
    r"with_clause|block_expression|const_block)(_statement|_clause|_expression|_block|_arm|_case|_body)?$"
)

_JS_ENTITIES = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
}
_TS_ENTITIES = {
    **_JS_ENTITIES,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "function_signature": "function",
    "abstract_method_signature": "method",
    "method_signature": "method",
    "internal_module": "namespace",
    "module": "namespace",
}
_JS_ARROWS = (
    "(variable_declarator value: [(arrow_function) (function_expression) (generator_function)]) @entity",
    # a function passed as an argument: a scope of its own when it spans lines (entities.find_nodes)
    "(arguments [(arrow_function) (function_expression) (generator_function)] @closure)",
    # CommonJS require('x') and dynamic import('x'): imports (entities.require_statement)
    '(call_expression function: (identifier) @_require (#eq? @_require "require") '
    "arguments: (arguments . (string))) @require",
    "(call_expression function: (import) arguments: (arguments . (string))) @require",
)
_JS_BLOCKS = ("statement_block", "class_body", "switch_body", "program", "object")  # object: cut between members
_TS_BLOCKS = _JS_BLOCKS + ("interface_body", "enum_body", "object_type")

SPECS: dict[str, LanguageSpec] = {
    s.name: s
    for s in (
        LanguageSpec(
            "python",
            "tree_sitter_python",
            "language",
            (".py", ".pyi"),
            {"function_definition": "function", "class_definition": "class", "type_alias_statement": "type"},
            ("import_statement", "import_from_statement", "future_import_statement"),
            ("block", "module"),
            ("decorated_definition",),
            comment="#",
            docstring_in_body=True,
            statement_containers=frozenset(
                {
                    "module",
                    "block",
                    "decorated_definition",
                    "if_statement",
                    "elif_clause",
                    "else_clause",
                    "for_statement",
                    "while_statement",
                    "try_statement",
                    "except_clause",
                    "except_group_clause",
                    "finally_clause",
                    "with_statement",
                    "match_statement",
                    "case_clause",
                }
            ),
        ),
        LanguageSpec(
            "javascript",
            "tree_sitter_javascript",
            "language",
            (".js", ".jsx", ".mjs", ".cjs"),
            _JS_ENTITIES,
            ("import_statement",),
            _JS_BLOCKS,
            ("export_statement",),
            extra_queries=_JS_ARROWS,
        ),
        LanguageSpec(
            "typescript",
            "tree_sitter_typescript",
            "language_typescript",
            (".ts", ".mts", ".cts"),
            _TS_ENTITIES,
            ("import_statement",),
            _TS_BLOCKS,
            ("export_statement",),
            extra_queries=_JS_ARROWS,
        ),
        LanguageSpec(
            "tsx",
            "tree_sitter_typescript",
            "language_tsx",
            (".tsx",),
            _TS_ENTITIES,
            ("import_statement",),
            _TS_BLOCKS,
            ("export_statement",),
            extra_queries=_JS_ARROWS,
        ),
        LanguageSpec(
            "rust",
            "tree_sitter_rust",
            "language",
            (".rs",),
            {
                "function_item": "function",
                "function_signature_item": "function",
                "struct_item": "struct",
                "enum_item": "enum",
                "union_item": "struct",
                "trait_item": "trait",
                "impl_item": "impl",
                "mod_item": "module",
                "type_item": "type",
                "macro_definition": "macro",
            },
            ("use_declaration", "extern_crate_declaration"),
            ("block", "declaration_list", "source_file", "match_block"),
            ("attribute_item",),
            extra_queries=("(arguments (closure_expression) @closure)",),
        ),
        LanguageSpec(
            "go",
            "tree_sitter_go",
            "language",
            (".go",),
            {
                "function_declaration": "function",
                "method_declaration": "method",
                "type_spec": "type",
                "type_alias": "type",
            },
            ("import_declaration",),
            ("block", "statement_list", "source_file", "field_declaration_list"),
            import_items=("import_spec",),
            extra_queries=("(argument_list (func_literal) @closure)",),
        ),
        LanguageSpec(
            "java",
            "tree_sitter_java",
            "language",
            (".java",),
            {
                "class_declaration": "class",
                "interface_declaration": "interface",
                "enum_declaration": "enum",
                "record_declaration": "class",
                "annotation_type_declaration": "interface",
                "method_declaration": "method",
                "constructor_declaration": "method",
                "compact_constructor_declaration": "method",
            },
            ("import_declaration", "package_declaration"),
            (
                "block",
                "class_body",
                "interface_body",
                "enum_body",
                "constructor_body",
                "switch_block",
                "program",
                "annotation_type_body",
                "enum_body_declarations",
            ),
        ),
        LanguageSpec(
            "c",
            "tree_sitter_c",
            "language",
            (".c", ".h"),
            {"function_definition": "function", "type_definition": "type"},
            ("preproc_include",),
            (
                "compound_statement",
                "translation_unit",
                "preproc_if",
                "preproc_ifdef",
                "preproc_else",
                "preproc_elif",
                "field_declaration_list",
                "enumerator_list",
            ),
            extra_queries=(
                "(struct_specifier name: (_) body: (_)) @entity",
                "(union_specifier name: (_) body: (_)) @entity",
                "(enum_specifier name: (_) body: (_)) @entity",
            ),
        ),
        LanguageSpec(
            "cpp",
            "tree_sitter_cpp",
            "language",
            (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"),
            {
                "function_definition": "function",
                "type_definition": "type",
                "namespace_definition": "namespace",
                "alias_declaration": "type",
                "concept_definition": "type",
            },
            ("preproc_include", "using_declaration"),
            (
                "compound_statement",
                "translation_unit",
                "declaration_list",
                "field_declaration_list",
                "preproc_if",
                "preproc_ifdef",
                "preproc_else",
                "preproc_elif",
                "enumerator_list",
            ),
            ("template_declaration",),
            extra_queries=(
                "(class_specifier name: (_) body: (_)) @entity",
                "(struct_specifier name: (_) body: (_)) @entity",
                "(union_specifier name: (_) body: (_)) @entity",
                "(enum_specifier name: (_) body: (_)) @entity",
            ),
        ),
        LanguageSpec(
            "csharp",
            "tree_sitter_c_sharp",
            "language",
            (".cs",),
            {
                "class_declaration": "class",
                "struct_declaration": "struct",
                "interface_declaration": "interface",
                "enum_declaration": "enum",
                "record_declaration": "class",
                "method_declaration": "method",
                "constructor_declaration": "method",
                "destructor_declaration": "method",
                "property_declaration": "property",
                "namespace_declaration": "namespace",
                "file_scoped_namespace_declaration": "namespace",
                "delegate_declaration": "type",
                "operator_declaration": "method",
                "local_function_statement": "function",
            },
            ("using_directive",),
            (
                "block",
                "declaration_list",
                "compilation_unit",
                "switch_body",
                "accessor_list",
                "enum_member_declaration_list",
            ),
        ),
        LanguageSpec(
            "ruby",
            "tree_sitter_ruby",
            "language",
            (".rb",),
            {
                "method": "method",
                "singleton_method": "method",
                "class": "class",
                "module": "module",
                "singleton_class": "class",
            },
            (),
            (
                "body_statement",
                "program",
                "do_block",
                "block",
                "begin_block",
                "end_block",
                "then",
                "else",
                "ensure",
                "rescue",
                "when",
                "in_clause",
            ),
            comment="#",
        ),
        LanguageSpec(
            "bash",
            "tree_sitter_bash",
            "language",
            (".sh", ".bash"),
            {"function_definition": "function"},
            (),
            ("compound_statement", "program", "do_group", "subshell", "case_item", "elif_clause", "else_clause"),
            comment="#",
        ),
    )
}

# kinds of nodes matched by `extra_queries` rather than listed in `entities`
EXTRA_KINDS = {
    "struct_specifier": "struct",
    "union_specifier": "struct",
    "enum_specifier": "enum",
    "class_specifier": "class",
    "variable_declarator": "function",
}
CLOSURES = frozenset(
    {"arrow_function", "function_expression", "generator_function", "closure_expression", "func_literal"}
)  # functions without a name, named after the call they are passed to

EXTENSIONS = {ext: spec.name for spec in SPECS.values() for ext in spec.extensions}
LANGUAGE_NAMES = tuple(SPECS)
SCOPE_KINDS = frozenset(
    {
        "function",
        "method",
        "class",
        "interface",
        "struct",
        "enum",
        "trait",
        "impl",
        "module",
        "namespace",
        "type",
        "macro",
        "property",
    }
)
MEMBER_SCOPES = frozenset({"class", "impl", "trait", "module", "namespace"})  # bodies made of definitions
COMMENT_LIKE = ("attribute_item", "decorator")  # bind to the line below as a comment does
CONTAINER_KINDS = frozenset({"class", "interface", "struct", "trait", "impl", "enum", "module", "namespace"})


@cache  # a few dozen node types, asked about for every opened node
def is_control(node_type: str) -> bool:
    """Compound statements (if/for/try...) whose nested blocks may be split at statements."""
    return bool(_CONTROL.match(node_type))


def detect_language(path: str | None, declared: str | None = None) -> str:
    """The grammar name for `path` (or `declared`, an explicit choice); unsupported is an error."""
    if declared and declared != "auto":
        if declared not in SPECS:
            raise UnsupportedLanguageError(f"unknown code language {declared!r} (known: {', '.join(LANGUAGE_NAMES)})")
        return declared
    ext = Path(path).suffix.lower() if path else ""
    if ext in EXTENSIONS:
        return EXTENSIONS[ext]
    where = f"{path}: " if path else ""
    what = f"extension {ext!r}" if ext else "a file without an extension"
    raise UnsupportedLanguageError(
        f"{where}no code grammar for {what}; pass --language ({', '.join(n for n in LANGUAGE_NAMES if n != 'auto')}) "
        "or pick another strategy"
    )


@dataclass
class Grammar:
    """A loaded grammar with its spec and the compiled entity/import queries."""

    spec: LanguageSpec
    language: Language
    query: Query  # captures @entity and @import in one pass over the tree
    known: set = field(default_factory=set)
    # node kind ids (cheaper to read than a type name: that makes a string) of comments and what
    # binds like one (decorators, Rust attributes), and of import statements
    comment_ids: frozenset = frozenset()
    import_ids: frozenset = frozenset()

    @cached_property
    def kind_names(self) -> list[tuple[int, str]]:
        """(id, type name) of every node kind: what the walks' id sets are made from."""
        lang = self.language
        return [(i, lang.node_kind_for_id(i) or "") for i in range(lang.node_kind_count)]

    def kind_ids(self, names) -> frozenset:
        """The ids of the node kinds named `names` (a name can have several: named and anonymous)."""
        return frozenset(i for i, t in self.kind_names if t in names)

    def ids_where(self, test) -> frozenset:
        """The ids of the node kinds whose type name passes `test`."""
        return frozenset(i for i, t in self.kind_names if test(t))


def _is_comment_kind(t: str) -> bool:
    return "comment" in t


@cache
def load_grammar(name: str) -> Grammar:
    import tree_sitter as ts

    spec = SPECS[name]
    lang = ts.Language(getattr(importlib.import_module(spec.module), spec.function)())

    def known(t: str) -> bool:
        return lang.id_for_node_kind(t, True) is not None

    types = [t for t in spec.entities if known(t)]
    patterns = " ".join(f"({t})" for t in types)
    source = f"[{patterns}] @entity\n" + "\n".join(spec.extra_queries)
    imports = [t for t in (spec.import_items or spec.imports) if known(t)]
    if imports:
        source += "\n[" + " ".join(f"({t})" for t in imports) + "] @import"
    grammar = Grammar(
        spec,
        lang,
        ts.Query(lang, source),
        known={t for t in (*spec.entities, *spec.blocks, *spec.wrappers) if known(t)},
    )
    grammar.comment_ids = grammar.ids_where(_is_comment_kind) | grammar.kind_ids(COMMENT_LIKE)
    grammar.import_ids = grammar.kind_ids(spec.imports)
    return grammar
