"""tfbuild: turn a TensorFlow model into a small mobile TensorFlow binary.

The package is organised along the flow it automates:
model files -> ops and kernels -> ops_to_register.h -> source tree edits and preflight ->
toolchain image -> build plan and execution -> artifacts and manifest.

Importing this package must stay cheap: nothing here imports TensorFlow.
"""

__version__ = "0.1.0"
