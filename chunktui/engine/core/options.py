"""Names of the run-level options (beside the tokenizer), kept apart from the model so that the
command line can offer them without importing the engine (`chunktui --version` stays light)."""

# what goes in front of a chunk's embedded text: nothing, the file name, or the file name and the
# chunk's header path, scope chain, page or thread subject
CONTEXT_HEADERS = ("none", "title", "path")
