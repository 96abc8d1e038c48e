#!/bin/bash
# tidy the caches
rm -rf "$HOME/victim"
