"""The prompt pool's pure core: the taxonomy, prompt records and validation, near-duplicates, sampling."""

from prompts_taxonomy.records import (
    EDIT_KINDS,
    LineError,
    ParseResult,
    PromptRecord,
    PromptRecordError,
    parse_prompt_lines,
    validate_record,
)
from prompts_taxonomy.sampling import sample_cell, sample_prompt
from prompts_taxonomy.similarity import (
    DEFAULT_THRESHOLD,
    NearDuplicate,
    ShingleIndex,
    find_near_duplicates,
    normalize_text,
    text_similarity,
)
from prompts_taxonomy.taxonomy import Label, Taxonomy, load_taxonomy, parse_taxonomy

__all__ = [
    "DEFAULT_THRESHOLD",
    "EDIT_KINDS",
    "Label",
    "LineError",
    "NearDuplicate",
    "ParseResult",
    "PromptRecord",
    "PromptRecordError",
    "ShingleIndex",
    "Taxonomy",
    "find_near_duplicates",
    "load_taxonomy",
    "normalize_text",
    "parse_prompt_lines",
    "parse_taxonomy",
    "sample_cell",
    "sample_prompt",
    "text_similarity",
    "validate_record",
]
