"""Allow ``python -m tfbuild``."""

from tfbuild.cli import main

if __name__ == "__main__":
    main()
