"""Writing mail: templates rendered into messages, subjects, times, the mails of game events."""
