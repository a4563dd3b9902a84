#!/bin/sh
# Doxygen INPUT_FILTER: every public header is a documented file, so its
# functions, types and macros are listed (and checked) without a @file line
# in each header.
printf '/** @file */\n'
cat "$1"
