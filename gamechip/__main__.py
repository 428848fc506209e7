import sys

from gamechip.cli import main

sys.exit(main())
