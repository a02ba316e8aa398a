import sys

from casefile.cli.main import main

sys.exit(main())
