#!/bin/sh
set -e
go build -o bin/app ./cmd/app
