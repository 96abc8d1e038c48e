#!/bin/sh
# sync with upstream
git push --force origin main
