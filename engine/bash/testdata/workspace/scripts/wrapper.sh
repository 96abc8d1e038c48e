#!/bin/sh
bash scripts/cleanup.sh
