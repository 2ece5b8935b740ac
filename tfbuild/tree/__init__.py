"""TensorFlow source trees: reading, editing and checking them out (with git, via GitPython).

GitPython looks for the git binary when it is imported and, without one, fails the import with
a page of advice. Told to stay quiet, it fails at the first git command instead, as a
``GitCommandNotFound`` that :func:`tfbuild.tree.git_errors.user_error` turns into one line
(exit 6), so ``tfbuild`` works without git until a command needs it.
"""

from __future__ import annotations

import os

os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
