#!/usr/bin/env python
import sys

from django.core.management import execute_from_command_line

execute_from_command_line(sys.argv)
