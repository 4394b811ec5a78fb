import sys

from bookings.sandbox.cli import main

sys.exit(main())
