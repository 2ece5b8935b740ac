"""An app's custom ops as a library of their own: :mod:`.sources` reads the op sources without
compiling them (what a dry run knows), :mod:`.compile_plan` plans their compile into a plain or
selective shared library, and :mod:`.build` runs that plan on this machine."""
