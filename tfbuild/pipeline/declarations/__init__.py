"""A build's options, each declared once: :mod:`.options` (the options and their resolution from
the command line, the environment and ``tfbuild.toml``), :mod:`.option_kinds` (how each kind of
value is written and checked) and :mod:`.size_profiles` (the size profiles read from their TOML).
The CLI makes its flags from these declarations; the flavours read the resolved options."""
