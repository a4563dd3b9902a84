#!/bin/sh
echo "plugin says no" >&2
exit 7
