"""What a build hands to its users besides the libraries themselves.

:mod:`.manifest` (the record of what was made, from what), :mod:`.linkflags` (how an app links it),
:mod:`.exports` (what a shared library exports), :mod:`.elf_pages` (the LOAD alignment Android
checks), and :mod:`.android` (the JNI library, its Java API and the AAR with its Maven
repository). These read a plan and what it produced; they never choose what to build.
"""
