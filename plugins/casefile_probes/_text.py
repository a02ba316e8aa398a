"""Small helpers shared by the built-in parsers: cleaning pasted text, reading numbers."""
