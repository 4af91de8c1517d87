"""Tests of the regional presets and rule options (issue 4): each preset's differences from the
Southern game, one test per rule of RULES.md §5-§10, with explicit deals in card notation."""
