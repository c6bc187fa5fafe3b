"""The bottom layer: words for problems, the rules as data, the clock, Dreamdesk's own state folder,
redaction, logging and the JSON line formats. Imports nothing else of the engine."""
