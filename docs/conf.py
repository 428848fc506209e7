"""Sphinx configuration of gamechip's documentation site (``make docs``).

The pages are Markdown read by MyST; ``docs/api/`` documents the golden models with autodoc, so the
project's root goes on ``sys.path`` and ``golden`` imports as it does in the regression. The theme
is Sphinx's own alabaster: building the site needs nothing beyond ``make setup``. The build runs with
warnings as errors (``sphinx-build -W --keep-going``), in ``make docs`` and in tests/test_docs.py.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

project = "gamechip"
author = "the gamechip authors"
copyright = "the gamechip authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
]

root_doc = "index"
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "build", "Thumbs.db", ".DS_Store"]

# MyST: ::: fences for directives, definition lists and ``{name}`` substitutions are plain
# CommonMark extensions; heading anchors let a page link to another page's section by its title
# (``[the scoreboard](scoreboard.md#the-node-scoreboard)``) down to level 3.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# autodoc: members in source order, as the modules present them; type hints in the description.
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"

html_theme = "alabaster"
html_title = "gamechip"
html_static_path = []
