{ s += $2 } END { print s }
