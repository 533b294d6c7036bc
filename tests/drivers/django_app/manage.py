#!/usr/bin/env python3
"""Django's manage.py for the driver suite's small app (tests/drivers/django_suite.py runs it)."""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "proj.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
